"""Commands as presets of the one run engine: each builds an `EvalRequest` for
`engine/evaluate.py` from its own flags and reads its files back from the records
(`mmae score`, `mcq score`, `mcq predict`, and `rescore` of any output folder)."""
