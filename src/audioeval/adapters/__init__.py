"""One translation each between our messages and a model's wire format."""
