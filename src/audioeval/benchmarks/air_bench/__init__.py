"""AIR-Bench (OFA-Sys/AIR-Bench): its foundation rule (`foundation_rule.py`, scorer
`air_bench_foundation`), its chat judge (`chat_judge.py`, scorer `airbench_chat`, with the
score line read by `chat_rule.py`), their prompts (`templates/`) and specs (`specs/`), all
stated in `benchmark.py` and registered by `load_benchmarks()`."""
