"""audioeval: end-to-end evaluation of audio foundation models."""

__version__ = "0.1.0"
