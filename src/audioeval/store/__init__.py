"""Run directories: append-only JSONL, atomic summaries, the content-keyed response cache."""
