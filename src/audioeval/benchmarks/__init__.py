"""Validated benchmark definitions; one folder per built-in benchmark."""
