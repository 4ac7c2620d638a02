"""Markup formats models are asked for besides JSON: tolerant XML and YAML readers."""
