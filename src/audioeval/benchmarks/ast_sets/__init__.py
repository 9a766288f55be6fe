"""The speech translation sets: spec YAMLs only (`specs/`), no code of their own."""
