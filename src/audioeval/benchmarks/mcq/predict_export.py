"""The predictions file of `mcq predict`, exported from the run's records (exporter
`mcq_predictions`).

The file is the metadata with each sample's latest answer added under the benchmark's key
(think blocks moved to `thinking_prediction` for MMAR); items whose call failed get no
prediction. Beside it, `predict_summary.json` at the run folder's top counts the items and
answers (read back by the preset's `outcome`). What to write comes from the preset's plan
(`PairExport.run_info[RUN_INFO_KEY]`); a rescore (no such info) writes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypedDict

from audioeval.benchmarks.mcq.definitions import get_benchmark
from audioeval.benchmarks.mcq.loading import load_mcq_file
from audioeval.benchmarks.mcq.predictions_out import answers_from_records, write_predictions
from audioeval.benchmarks.pair_exports import PairExport
from audioeval.store.atomic import write_json_atomic

EXPORTER = "mcq_predictions"
RUN_INFO_KEY = "mcq_predict"
SUMMARY_FILE = "predict_summary.json"


class PredictSummary(TypedDict):
    """`predict_summary.json`: the predictions file written, its items, those answered and
    those whose call failed, and the first failure (`id: error`)."""

    output: str
    items: int
    answered: int
    failed: int
    first_failure: str | None


def write_predictions_file(folder: Path, export: PairExport) -> PredictSummary | None:
    """Write the predictions file and `folder/predict_summary.json`; return the summary."""
    info = export.run_info.get(RUN_INFO_KEY)
    if not info:
        return None
    bench = get_benchmark(info["benchmark"])
    file = load_mcq_file(info["metadata"], bench, require_predictions=False)
    answers = answers_from_records(export.records)
    current = {item.id: answers[item.id] for item in file.items if item.id in answers}
    out = Path(info["output"])
    write_predictions(out, file.items, bench, current, jsonl=bool(info["jsonl"]))
    first = export.summary.get("first_failure") if export.summary else None
    summary: PredictSummary = {
        "output": str(out),
        "items": len(file.items),
        "answered": len(current),
        "failed": len(file.items) - len(current),
        "first_failure": None if not first else f"{first['id']}: {first['error']}",
    }
    write_json_atomic(folder / SUMMARY_FILE, summary)
    return summary
