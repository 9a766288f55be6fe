"""What the analyses of many runs read of one run folder: its pair summaries (`read_summary`)
and the latest record of each sample of a pair folder (`pair_latest`)."""

from __future__ import annotations

import json
from pathlib import Path

from audioeval.core.errors import InputError
from audioeval.core.json_value import JsonValue
from audioeval.core.record import SampleRecord, latest_records
from audioeval.engine.run_summary import RunSummary
from audioeval.metrics.summary_blocks import PairSummary
from audioeval.store.bounded_json import loads
from audioeval.store.run_folder import RunFolderError, read_pair, read_run_file, run_id_of
from audioeval.store.run_summaries import REBUILD_HINT, check_summary_records
from audioeval.store.run_summaries import read_summary as read_checked_summary
from audioeval.store.text_input import read_text_input

LatestByFolder = dict[Path, dict[str, SampleRecord]]
"""The latest record of each sample id, by pair folder: what the analyses read once."""


def pair_latest(folder: Path, cache: LatestByFolder, run_dir: Path) -> dict[str, SampleRecord]:
    """The latest record of each sample of a pair folder that the run folder's checked reader
    vouches for (of its `sample_ids.json`, when it has one), read once per folder into `cache`;
    none without `records.jsonl`. RunFolderError when the pair's files cannot be used."""
    if folder not in cache:
        found = read_pair(folder, run_id_of(read_run_file(run_dir)))
        if found.refused:
            raise RunFolderError(found.refused, REBUILD_HINT)
        cache[folder] = latest_records(found.records)
    return cache[folder]


def read_summary(run_dir: Path) -> list[PairSummary]:
    path = run_dir / "summary.json"
    if not path.is_file():
        raise InputError(
            "not a run directory (no summary.json): give folders written by `audioeval run`",
            file=str(run_dir),
        )
    run_id = _checked_run_id(run_dir)
    try:
        data = loads(read_text_input(path, "run summary"))
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        checked = read_checked_summary(path, run_id)  # the run summary the engine wrote, vouched for
        results = list(RunSummary.from_json(checked or {}).results)
        check_summary_records(run_dir, results, run_id)  # type: ignore[arg-type]
        return results
    pairs = pair_summaries(run_dir)  # a folder of an earlier audioeval: a preset's export there
    if pairs:
        return pairs
    raise InputError(
        f"not a run summary: {_folder_kind(data)}, and no pair summary"
        " (<benchmark>/<model>/summary.json) beside it; give the folder written by `audioeval run`,"
        " `mcq score`, `judge-eval` or `mmae score` (its top folder)",
        file=str(path),
    )


def _checked_run_id(run_dir: Path) -> str | None:
    """The run's id from its run.json, read through the run folder's checked reader (a folder
    with a summary but no readable run.json is refused: nothing ties its figures to a run)."""
    return run_id_of(read_run_file(run_dir))


def pair_summaries(run_dir: Path) -> list[PairSummary]:
    """The pair summaries `<run>/<benchmark>/<model>/summary.json` of a run directory whose
    own summary.json is an export (`mcq score`, `judge-eval` folders of an earlier audioeval):
    those with a benchmark, a model and metrics, in path order."""
    out: list[PairSummary] = []
    if not (run_dir / "run.json").is_file():
        return out
    for path in sorted(run_dir.glob("*/*/summary.json")):
        try:
            data = loads(read_text_input(path, "pair summary"))
        except (json.JSONDecodeError, InputError):
            continue
        if isinstance(data, dict) and all(k in data for k in ("benchmark", "model", "metrics")):
            out.append(data)  # type: ignore[arg-type]  (a JSON object with those keys)
    return out


def _folder_kind(data: JsonValue) -> str:
    """What a summary.json without `results` looks like it is."""
    if not isinstance(data, dict):
        return "summary.json is not a JSON object"
    if "robust" in data and "official" in data:
        return "it is the export of `audioeval mcq score`"
    if "n_scored" in data and "subsets" in data:
        return "it is the export of `audioeval judge-eval`"
    return "summary.json has no `results` list"
