"""The installed audioeval version: one constant, importable from any layer (`audioeval.__version__`
reads it too) without loading the package's Python API."""

__version__ = "0.1.0"
