"""The embedded demo sets: spec YAMLs (`specs/`) and their tiny data (`demo_data/`), no code."""
