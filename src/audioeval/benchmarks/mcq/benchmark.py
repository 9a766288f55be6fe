"""MMAR and MMAU as one `Benchmark` family (`benchmarks/contract.py`), named `mmar_mmau` (not
`mcq`: that is the generic multiple-choice task): its specs (`specs/mmar.yaml`, `specs/mmau-*.yaml`),
the MMAR-Rubrics judge (`mmar_rubrics`, `mcq score --rubrics`, loaded when first built), its
exporters (`mcq_score`, `mcq_predictions`); its presets `mcq score` (`preset.py`) and
`mcq predict` (`predict_preset.py`), data (`benchmarks/preset.py`) as `mmae score` is."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from audioeval.benchmarks.contract import Benchmark
from audioeval.benchmarks.mcq.definitions import BENCHMARKS, McqBenchmark
from audioeval.benchmarks.mcq.predict_preset import PREDICT
from audioeval.benchmarks.mcq.preset import SCORE
from audioeval.benchmarks.prediction_formats import Loader, PredictionFormat, json_items
from audioeval.benchmarks.sources.source_formats import SourceFormat, SourceRequest
from audioeval.scoring.base import DeferredFactory


def _write_exports(folder: Path, export: Any) -> Any:
    from audioeval.benchmarks.mcq.export import write_exports

    return write_exports(folder, export)


def _write_predictions(folder: Path, export: Any) -> Any:
    from audioeval.benchmarks.mcq.predict_export import write_predictions_file

    return write_predictions_file(folder, export)


def _console_table(figures: Any) -> Any:
    from audioeval.benchmarks.mcq.console_table import console_table

    # `mcq predict`'s figures (predict_summary.json) have no table: its outcome prints a line
    return console_table(figures) if "counts" in figures else None


def _rubric_scorer() -> Any:
    from audioeval.benchmarks.mcq.rubric_scorer import McqRubricScorer

    return McqRubricScorer


def _answers(bench: McqBenchmark) -> Any:
    def reader(key: str | None) -> Loader:
        from audioeval.benchmarks.mcq.loading import answers_by_id

        return answers_by_id(bench.name, key)

    return reader


def _matches(bench: McqBenchmark) -> Any:
    """Its items: choices, the gold answer, one of its prediction keys and its required
    breakdown fields (what tells an MMAR file from an MMAU one)."""
    needed = ("choices", "answer", *(a.field for a in bench.axes if a.required))

    def matches(item: Any) -> bool:
        return (
            isinstance(item, dict)
            and all(k in item for k in needed)
            and any(k in item for k in bench.prediction_keys)
        )

    return matches


def _items(bench: McqBenchmark) -> SourceFormat:
    def read(asked: SourceRequest) -> Any:
        from audioeval.benchmarks.mcq.source import read_mcq_samples

        return read_mcq_samples(asked, bench)

    return SourceFormat(read, f"an {bench.name.upper()} file whose items carry the model's answer")


def _format(bench: McqBenchmark) -> PredictionFormat:
    keys = " or ".join(bench.prediction_keys)
    return PredictionFormat(
        _answers(bench),
        "text",
        frozenset({"mcq"}),
        json_items(_matches(bench)),
        f"{bench.name.upper()} items (choices, answer) with the model's answer under {keys}",
    )


BENCHMARK = Benchmark(
    name="mmar_mmau",
    description="MMAR and MMAU: multiple-choice audio reasoning, official-exact and robust",
    specs=resources.files("audioeval.benchmarks.mcq").joinpath("specs"),
    scorers={"mmar_rubrics": DeferredFactory(_rubric_scorer)},
    exporters={"mcq_score": _write_exports, "mcq_predictions": _write_predictions},
    source_types={bench.name: _items(bench) for bench in BENCHMARKS.values()},
    prediction_formats={bench.name: _format(bench) for bench in BENCHMARKS.values()},
    presets=(SCORE, PREDICT),
    console_table=_console_table,
)
