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
Every one of them is read back through one checked reader, `store/run_folder.py`.
A benchmark's own exports (`benchmarks/pair_exports.py`) go into the pair folder, or where
the run asked (`exports_dir` in run.json, e.g. the run directory of a one-pair preset).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from audioeval.core.errors import InputError
from audioeval.core.names import FOLDER_RULE, check_name, folder_name, name_problem

# the names the run folder's checked reader reads them under (store/run_folder.py)
from audioeval.store.run_folder import IDS_FILE as IDS_FILE
from audioeval.store.run_folder import RECORDS_FILE as RECORDS_FILE
from audioeval.store.run_folder import RUN_FILE as RUN_FILE
from audioeval.store.run_folder import SUMMARY_FILE as SUMMARY_FILE

LEADERBOARD_FILE = "leaderboard.md"
CACHE_FILE = "response_cache.sqlite"
MODEL_SKIPPED_FILE = "model_skipped.json"


def pair_dir(run_dir: Path, benchmark: str, model_slug: str) -> Path:
    """The folder of one benchmark × model pair, always two levels below the run: a benchmark
    name or model folder that is no single folder name (`..`, `a/b`) is refused here, whatever
    path it came by (names are checked where they enter: `core/names.py`)."""
    check_name(benchmark, kind="benchmark", field="benchmark")
    if name_problem(model_slug, benchmark=True) or folder_name(model_slug) != model_slug:
        raise InputError(f"model folder {model_slug!r} is not a folder name: {FOLDER_RULE}", field="model")
    return run_dir / benchmark / model_slug


MAX_NAME_PART = 60
"""The longest benchmarks or models part of a default folder name; past it, `a+b+3more`."""


def _joined(names: list[str]) -> str:
    clean = [re.sub(r"[^A-Za-z0-9._=-]+", "_", n).strip("_") or "x" for n in names]
    out = "+".join(clean)
    if len(out) <= MAX_NAME_PART:
        return out
    kept: list[str] = []
    for i, name in enumerate(clean):
        rest = f"+{len(clean) - i}more"
        if len("+".join([*kept, name])) + len(rest) > MAX_NAME_PART:
            return "+".join(kept) + rest if kept else name[:MAX_NAME_PART]
        kept.append(name)
    return out


def default_run_dir(
    benchmarks: list[str], models: list[str], settings: object = None, root: Path = Path("runs")
) -> Path:
    """`runs/<benchmarks>-<models>-<hash>`: every benchmark and model named (`a+b`), and a hash
    of them and of `settings` (whatever moves a number: sampling, limit, profile, judge), so
    the same command resumes the same folder and a changed setting gets a folder of its own."""
    key = json.dumps([sorted(benchmarks), sorted(models), settings], sort_keys=True, default=str)
    digest = hashlib.sha256(key.encode()).hexdigest()[:8]
    bench_names = [Path(b).stem for b in benchmarks] or ["run"]
    model_names = [m.split("@")[0] for m in models] or ["model"]
    return root / f"{_joined(bench_names)}-{_joined(model_names)}-{digest}"
