"""`audioeval rescore DIR` for every kind of output folder, with no model or judge call.

- a run directory of `audioeval run` / `codec` (`run.json`): `engine/rescore.py`;
- an `mmae score` folder (`signature.json` of benchmark `mmae` + `results.jsonl`): the stored
  verdicts are aggregated again against the metadata named in the signature;
- an `mcq score` folder (`summary.json` of benchmark `mmar`/`mmau` + `per_item.jsonl`): the
  predictions file named in the summary is scored again both ways, and stored MMAR-Rubrics
  judgements (`rubrics/results.jsonl`) are folded in again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from audioeval.core.errors import RunConfigError
from audioeval.engine.run_layout import RUN_FILE
from audioeval.store.file_digest import file_sha256
from audioeval.store.jsonl import read_jsonl
from audioeval.store.run_lock import hold_run_lock, prepare_output_dir
from audioeval.store.signature import SIGNATURE_FILE

FolderKind = Literal["run", "mmae", "mcq"]


def folder_kind(folder: Path) -> FolderKind:
    """Which command wrote `folder`; RunConfigError when none did."""
    prepare_output_dir(folder, create=False)  # an existing, writable folder
    if (folder / RUN_FILE).is_file():
        return "run"
    sig = folder / SIGNATURE_FILE
    if sig.is_file() and (folder / "results.jsonl").is_file():
        if _read_json(sig).get("benchmark") == "mmae":
            return "mmae"
    summary = folder / "summary.json"
    if summary.is_file() and (folder / "per_item.jsonl").is_file():
        if str(_read_json(summary).get("benchmark")) in ("mmar", "mmau"):
            return "mcq"
    raise RunConfigError(
        f"{folder} is not an audioeval output folder: expected run.json (audioeval run / codec), "
        "signature.json + results.jsonl (mmae score) or summary.json + per_item.jsonl (mcq score)"
    )


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunConfigError(f"{path}: cannot be read ({exc})") from None
    if not isinstance(data, dict):
        raise RunConfigError(f"{path}: expected a JSON object")
    return data


@dataclass
class MmaeRescore:
    taxonomy: dict[str, Any]
    metadata: Path


def rescore_mmae_folder(
    folder: Path, metadata: Path | None = None, *, exclude_missing: bool | None = None
) -> MmaeRescore:
    """Aggregate an `mmae score` folder again, with the seed and resamples it was scored with."""
    from audioeval.engine.mmae_outputs import rescore_mmae

    sig = _read_json(folder / SIGNATURE_FILE)
    meta = metadata or Path(str(sig.get("metadata", "")))
    if not meta.is_file():
        raise RunConfigError(
            f"{folder}: the metadata it was scored against ({meta}) is not there; "
            "use `audioeval mmae rescore DIR --metadata FILE`"
        )
    previous = folder / "taxonomy.json"
    tax_before = _read_json(previous) if previous.is_file() else {}
    conf = tax_before.get("confidence", {})
    if exclude_missing is None:  # as the run did
        exclude_missing = tax_before.get("failed_outputs", {}).get("in_headline") == "excluded"
    with hold_run_lock(folder, create=False):
        _, tax = rescore_mmae(
            folder,
            meta,
            n_resamples=int(conf.get("n_resamples", 1000)),
            seed=int(conf.get("seed", sig.get("option_shuffle_seed", 0))),
            exclude_missing=exclude_missing,
        )
    return MmaeRescore(tax, meta)


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
