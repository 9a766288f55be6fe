"""Per-sample scorers: each returns its value plus what an aggregate needs, never an average."""
