"""Rubric judging: prompts, option shuffles, verdict parsing, vote collection.

This layer never imports the engine: vote collection receives a `generate()` callable.
"""
