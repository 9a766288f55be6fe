"""Prompt templates from YAML, rendered with a sandboxed Jinja environment into messages."""
