"""Where a run's files live.

```
<run>/run.json                       what was asked: benchmarks (specs), models, settings
<run>/summary.json                   every benchmark × model summary and the boards by task family
<run>/leaderboard.md                 the boards as tables
<run>/response_cache.sqlite          model answers keyed by request content
<run>/<benchmark>/skipped.json       rows of the benchmark that could not be read
<run>/<benchmark>/<model>/signature.json, sample_ids.json, records.jsonl, summary.json, audio/
<run>/<benchmark>/<model>/model_skipped.json   items of the model's input that answer no sample
```
A benchmark's own exports (`benchmarks/pair_exports.py`) go into the pair folder, or where
the run asked (`exports_dir` in run.json, e.g. the run directory of a one-pair preset).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

RUN_FILE = "run.json"
SUMMARY_FILE = "summary.json"
RECORDS_FILE = "records.jsonl"
IDS_FILE = "sample_ids.json"
LEADERBOARD_FILE = "leaderboard.md"
CACHE_FILE = "response_cache.sqlite"
MODEL_SKIPPED_FILE = "model_skipped.json"


def pair_dir(run_dir: Path, benchmark: str, model_slug: str) -> Path:
    return run_dir / benchmark / model_slug


def default_run_dir(benchmarks: list[str], models: list[str], root: Path = Path("runs")) -> Path:
    """`runs/<benchmark>-<model>-<hash>`: the same command resumes the same folder."""
    key = json.dumps([sorted(benchmarks), sorted(models)])
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    first_b = Path(benchmarks[0]).stem if benchmarks else "run"
    first_m = models[0].split("@")[0].replace("/", "_").replace(":", "_") if models else "model"
    more = "+" if len(benchmarks) > 1 or len(models) > 1 else ""
    return root / f"{first_b}-{first_m}{more}-{digest}"
