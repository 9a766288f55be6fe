"""Plain typed records and errors shared by every layer. No I/O, no heavy imports."""
