"""The spoken question and chat sets of UltraEval-Audio: spec YAMLs only (`specs/`), no code of
their own."""
