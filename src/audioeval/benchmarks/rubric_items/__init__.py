"""Rubric items from captions (`audioeval rubric decompose`): each caption decomposed by a text
LLM into atomic yes/no items `{dimension, question, basis}`, cleaned, deduplicated and capped.

`decompose_prompts.py` (the prompts and their version), `decompose.py` (reading answers,
dedupe, cap, fallback), `decompose_scorer.py` (the `rubric_decompose` judged scorer),
`decompose_source.py` (a captions file as samples, the run spec), `decompose_export.py`
(the rubrics file and summary, exported from the records).
"""
