"""The audio captioning sets: spec YAMLs only (`specs/`), no code of their own."""
