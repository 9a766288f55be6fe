"""`audioeval rescore DIR` for every kind of output folder, with no model or judge call.

- a run directory of `audioeval run`, `codec` or `mmae score` (`run.json`): `engine/rescore.py`,
  which also writes the benchmarks' exports again (MMAE's taxonomy.json, …);
- an `mcq score` folder (a run directory whose `summary.json` is of benchmark `mmar`/`mmau`):
  its records are scored again by the run's rescoring (stored MMAR-Rubrics judgements
  re-read, no judge call), and its files exported again from them; the predictions file is
  not needed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from audioeval.core.errors import RunConfigError
from audioeval.engine.run_layout import IDS_FILE, RUN_FILE
from audioeval.store.records import read_records
from audioeval.store.run_lock import hold_run_lock, prepare_output_dir
from audioeval.store.signature import SIGNATURE_FILE

FolderKind = Literal["run", "mcq"]
MCQ_BENCHMARKS = ("mmar", "mmau")


def folder_kind(folder: Path) -> FolderKind:
    """Which command wrote `folder`; RunConfigError when none did."""
    prepare_output_dir(folder, create=False)  # an existing, writable folder
    summary = folder / "summary.json"
    if (folder / RUN_FILE).is_file():
        if summary.is_file() and str(_read_json(summary).get("benchmark")) in MCQ_BENCHMARKS:
            return "mcq"
        return "run"
    if (folder / SIGNATURE_FILE).is_file() and (folder / "results.jsonl").is_file():
        raise RunConfigError(
            f"{folder} was written by an `mmae score` of an earlier audioeval, before its output "
            "folders were run directories; score it again with `audioeval mmae score`"
        )
    raise RunConfigError(
        f"{folder} is not an audioeval output folder: expected run.json (audioeval run, codec, "
        "mmae score or mcq score)"
    )


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunConfigError(f"{path}: cannot be read ({exc})") from None
    if not isinstance(data, dict):
        raise RunConfigError(f"{path}: expected a JSON object")
    return data


def rescore_mcq_folder(folder: Path) -> Any:
    """Score an `mcq score` folder again from its records; returns its `McqScoreResult`
    (files rewritten), with the bootstrap and the provenance the folder was scored with."""
    from audioeval.benchmarks.mcq.definitions import get_benchmark
    from audioeval.benchmarks.mcq.export import COMPUTED_RUBRIC_COUNTS, Provenance, export_folder, in_order
    from audioeval.engine.rescore import rescore_run
    from audioeval.presets.mcq_score import records_path

    summary = _read_json(folder / "summary.json")
    bench = get_benchmark(str(summary["benchmark"]))
    boot = summary.get("bootstrap") or {}
    n_resamples, seed = int(boot.get("n_resamples", 1000)), int(boot.get("seed", 0))
    rescore_run(folder, resamples=n_resamples, seed=seed)
    with hold_run_lock(folder, create=False):
        path = records_path(folder, bench)
        ids = json.loads((path.parent / IDS_FILE).read_text(encoding="utf-8"))
        records = in_order(read_records(path).records, ids)
        rubrics = summary.get("rubrics")
        info = {k: v for k, v in rubrics.items() if k not in COMPUTED_RUBRIC_COUNTS} if rubrics else None
        source = Provenance(
            str(summary.get("predictions")),
            str(summary.get("predictions_sha256")),
            summary.get("prediction_key"),
        )
        return export_folder(
            folder, bench, records, source, rubric_info=info, n_resamples=n_resamples, seed=seed
        )
