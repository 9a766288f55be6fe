"""Post-processing: small named steps that turn a model's free text into an answer.

Text steps map text to text (`strip_think`, `strip_markdown`); an extractor maps text to a
recorded outcome. An answer that cannot be read is recorded as unparseable, never guessed.
"""
