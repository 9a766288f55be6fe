"""`audioeval rescore DIR` for every kind of output folder, with no model or judge call.

- a run directory of `audioeval run`, `codec` or `mmae score` (`run.json`): `engine/rescore.py`,
  which also writes the benchmarks' exports again (MMAE's taxonomy.json, …);
- an `mcq score` folder (`summary.json` of benchmark `mmar`/`mmau` + `per_item.jsonl`): the
  predictions file named in the summary is scored again both ways, and stored MMAR-Rubrics
  judgements (`rubrics/results.jsonl`) are folded in again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from audioeval.core.errors import RunConfigError
from audioeval.engine.run_layout import RUN_FILE
from audioeval.store.file_digest import file_sha256
from audioeval.store.jsonl import read_jsonl
from audioeval.store.run_lock import hold_run_lock, prepare_output_dir
from audioeval.store.signature import SIGNATURE_FILE

FolderKind = Literal["run", "mcq"]


def folder_kind(folder: Path) -> FolderKind:
    """Which command wrote `folder`; RunConfigError when none did."""
    prepare_output_dir(folder, create=False)  # an existing, writable folder
    if (folder / RUN_FILE).is_file():
        return "run"
    if (folder / SIGNATURE_FILE).is_file() and (folder / "results.jsonl").is_file():
        raise RunConfigError(
            f"{folder} was written by an `mmae score` of an earlier audioeval, before its output "
            "folders were run directories; score it again with `audioeval mmae score`"
        )
    summary = folder / "summary.json"
    if summary.is_file() and (folder / "per_item.jsonl").is_file():
        if str(_read_json(summary).get("benchmark")) in ("mmar", "mmau"):
            return "mcq"
    raise RunConfigError(
        f"{folder} is not an audioeval output folder: expected run.json (audioeval run / codec / "
        "mmae score) or summary.json + per_item.jsonl (mcq score)"
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
    """Score an `mcq score` folder again; returns its `McqScoreResult` (outputs rewritten)."""
    from audioeval.benchmarks.mcq.definitions import get_benchmark

    summary = _read_json(folder / "summary.json")
    predictions = Path(str(summary.get("predictions", "")))
    if not predictions.is_file():
        raise RunConfigError(f"{folder}: the predictions file it scored ({predictions}) is not there")
    stored = summary.get("predictions_sha256")
    if stored is not None and stored != file_sha256(predictions):
        raise RunConfigError(
            f"{folder}: {predictions} changed since it was scored (predictions_sha256 differs); "
            "score it again with `audioeval mcq score`"
        )
    boot = summary.get("bootstrap") or {}
    n_resamples, seed = int(boot.get("n_resamples", 1000)), int(boot.get("seed", 0))
    bench = get_benchmark(str(summary["benchmark"]))
    with hold_run_lock(folder, create=False):
        return _rescore_mcq(folder, summary, bench, predictions, n_resamples, seed)


def _rescore_mcq(
    folder: Path, summary: dict[str, Any], bench: Any, predictions: Path, n_resamples: int, seed: int
) -> Any:
    from audioeval.benchmarks.mcq.run import apply_rubric_outcomes, score_file, write_outputs

    result = score_file(
        bench, predictions, prediction_key=summary.get("prediction_key"), n_resamples=n_resamples, seed=seed
    )
    rubrics = summary.get("rubrics")
    if rubrics:
        eligible = [r["id"] for r in read_jsonl(folder / "per_item.jsonl").records if "rubric_failed" in r]
        outcomes = {r["id"]: r for r in read_jsonl(folder / "rubrics" / "results.jsonl").records if "id" in r}
        computed = ("eligible", "scored", "failed", "zero_unmatched")
        info = {k: v for k, v in rubrics.items() if k not in computed}
        apply_rubric_outcomes(result, eligible, outcomes, info, n_resamples=n_resamples, seed=seed)
    write_outputs(folder, result)
    return result
