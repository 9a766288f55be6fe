"""`mcq score` without a judge: load, score both modes, summarise, write the outputs.

Outputs (in the output directory): `summary.json` (written atomically), `per_item.jsonl`
and `disagreements.jsonl` (each replaced whole, atomically).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audioeval import __version__
from audioeval.benchmarks.mcq.aggregate import disagreements, method_counts, summary_groups
from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.benchmarks.mcq.loading import McqFile, load_mcq_file
from audioeval.benchmarks.mcq.reading import gc_paused
from audioeval.benchmarks.mcq.score_items import score_items
from audioeval.postprocess.chain import ROBUST_MCQ
from audioeval.store.atomic import write_json_atomic
from audioeval.store.file_digest import file_sha256

Row = dict[str, Any]


@dataclass
class McqScoreResult:
    """Everything `mcq score` produced: the file read, per-item rows and the summary."""

    bench: McqBenchmark
    file: McqFile
    rows: list[Row]
    summary: dict[str, Any]
    disagreements: list[Row]


def build_summary(
    bench: McqBenchmark,
    file: McqFile,
    rows: Sequence[Row],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    rubrics: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON summary: counts, both modes per breakdown group, disagreements, settings."""
    missing = [r["id"] for r in rows if r.get("official") is None]
    diffs = disagreements(rows)
    groups = summary_groups(rows, bench, n_resamples=n_resamples, seed=seed)
    return {
        "benchmark": bench.name,
        "predictions": str(file.path),
        "predictions_sha256": file_sha256(file.path),
        "prediction_key": file.prediction_key,
        "counts": {
            "items": len(rows),
            "scored": len(rows) - len(missing),
            "without_prediction": len(missing),
            "answer_not_in_choices": sum(1 for r in rows if r.get("answer_letter") is None),
        },
        "without_prediction_ids": missing,
        "official": {"algorithm": "official token-set match (MMAR/MMAU evaluation.py)"},
        "robust": {"chain": ROBUST_MCQ.describe(), "methods": method_counts(rows)},
        **groups,
        "disagreements": {
            "n": len(diffs),
            "official_only": sum(1 for d in diffs if d["official"]),
            "robust_only": sum(1 for d in diffs if d["robust"]),
            "file": "disagreements.jsonl",
            "ids": [d["id"] for d in diffs],
        },
        "rubrics": dict(rubrics) if rubrics is not None else None,
        "bootstrap": {"n_resamples": n_resamples, "confidence": 0.95, "seed": seed},
        "audioeval_version": __version__,
    }


def score_file(
    bench: McqBenchmark,
    predictions: str | Path,
    *,
    prediction_key: str | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
) -> McqScoreResult:
    """Score a predictions file both ways (no judge)."""
    with gc_paused():  # many small acyclic objects: collector passes only cost time
        file = load_mcq_file(predictions, bench, prediction_key=prediction_key)
        rows = score_items(file.items)
        summary = build_summary(bench, file, rows, n_resamples=n_resamples, seed=seed)
    return McqScoreResult(bench, file, rows, summary, disagreements(rows))


def write_jsonl_atomic(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Replace a JSONL file whole: readers see the old file or the complete new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_outputs(output_dir: str | Path, result: McqScoreResult) -> Path:
    """Write per_item.jsonl, disagreements.jsonl and (last) summary.json; returns the folder."""
    out = Path(output_dir)
    write_jsonl_atomic(out / "per_item.jsonl", result.rows)
    write_jsonl_atomic(out / "disagreements.jsonl", result.disagreements)
    write_json_atomic(out / "summary.json", result.summary)
    return out


def apply_rubric_outcomes(
    result: McqScoreResult,
    tasks_ids: Sequence[str],
    outcomes: Mapping[str, Mapping[str, Any]],
    info: Mapping[str, Any],
    *,
    n_resamples: int = 1000,
    seed: int = 0,
) -> None:
    """Put each eligible item's rubric score (0-1, None when failed) on its row; re-summarise."""
    eligible = set(tasks_ids)
    for row in result.rows:
        if row["id"] not in eligible:
            continue
        outcome = outcomes.get(row["id"])
        row["rubric_score"] = None if outcome is None else outcome.get("score")
        row["rubric_failed"] = outcome is None or bool(outcome.get("failed"))
    scored = [r for r in result.rows if r.get("rubric_score") is not None]
    full = {
        **info,
        "eligible": len(eligible),
        "scored": len(scored),
        "failed": sum(1 for r in result.rows if r.get("rubric_failed")),
        "zero_unmatched": sum(1 for i in eligible if outcomes.get(i, {}).get("matched") is False),
    }
    result.summary = build_summary(
        result.bench, result.file, result.rows, n_resamples=n_resamples, seed=seed, rubrics=full
    )
