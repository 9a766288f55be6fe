"""The audio classification sets: spec YAMLs only (`specs/`), no code of their own."""
