"""The `audioeval` command line."""
