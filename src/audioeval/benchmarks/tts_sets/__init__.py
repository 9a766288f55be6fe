"""Seed-TTS-Eval and CV3-Eval voice-clone sets: spec YAMLs only (`specs/`), no code of their
own."""
