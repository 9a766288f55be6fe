"""The speech recognition sets: spec YAMLs only (`specs/`), no code of their own."""
