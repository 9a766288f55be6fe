"""Isolated runtimes: specs (validated YAML), their virtual environments, worker processes."""
