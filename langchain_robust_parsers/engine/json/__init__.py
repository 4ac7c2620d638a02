"""The JSON engine: locate a payload in model text, decode it (C decoder first, then repairs at its
error positions, then the lenient scanner), and stream it incrementally."""
