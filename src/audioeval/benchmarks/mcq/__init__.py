"""MMAR and MMAU: multiple-choice audio reasoning, scored official-exact and robust."""
