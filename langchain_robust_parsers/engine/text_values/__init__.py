"""Short answers: lists, a choice among values (enum, yes/no) and dates, read from prose."""
