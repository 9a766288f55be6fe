"""Writing each pair's benchmark exports (`benchmarks/pair_exports.py`) after a run or a rescore.

The exporter reads the pair's valid records (the one record stream) and the inputs that
could not be read: the benchmark's skipped rows (`<run>/<benchmark>/skipped.json`) and the
model's items that answer no sample (`model_skipped.json` in the pair folder). A run with
one exporting pair may ask for its exports at another place (`exports_dir`, e.g. the run
directory).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.benchmarks.pair_exports import PairExport
from audioeval.benchmarks.resolved import exporter_for
from audioeval.core.errors import InputError
from audioeval.core.json_value import JsonValue
from audioeval.engine.run_layout import MODEL_SKIPPED_FILE
from audioeval.store.json_items import gc_paused
from audioeval.store.run_folder import read_listed


@dataclass
class ExportSettings:
    """What the exported figures depend on, as the run (or rescore) has them."""

    resamples: int = 1000
    seed: int = 0
    exclude_missing: bool = False
    judge_model: str | None = None
    exports_dir: Path | None = None  # for a one-pair run; default: the pair folder
    judged: bool = True  # False when rescoring
    run_info: dict[str, JsonValue] = field(default_factory=dict)


def _errors(path: Path) -> list[InputError]:
    """The rows a run listed as skipped, read through the run folder's checked reader."""
    return [InputError.from_record(r) for r in read_listed(path)]


def export_pairs(run_dir: Path, pairs: Sequence[Any], settings: ExportSettings) -> dict[Path, Any]:
    """Write the exports of every pair whose benchmark has an exporter, after its summary;
    what each exporter returned, by the folder it wrote."""
    written: dict[Path, Any] = {}
    exporting = [(pair, exporter) for pair in pairs if (exporter := exporter_for(pair.bench)) is not None]
    one = settings.exports_dir is not None and len(exporting) == 1
    with gc_paused():  # many small acyclic objects (lines, rows): collector passes only cost time
        for pair, exporter in exporting:
            folder = settings.exports_dir if one and settings.exports_dir is not None else pair.folder
            written[folder] = exporter(folder, _pair_export(run_dir, pair, settings))
    return written


def _pair_export(run_dir: Path, pair: Any, settings: ExportSettings) -> PairExport:
    """What a pair's exporter reads."""
    skipped = _errors(run_dir / pair.bench.name / "skipped.json") + _errors(pair.folder / MODEL_SKIPPED_FILE)
    return PairExport(
        pair.bench,
        pair.final_records(),
        list(pair.ids),
        skipped,
        stored=pair.stored,
        asked_ids=[s.id for s in pair.todo],
        resamples=settings.resamples,
        seed=settings.seed,
        exclude_missing=settings.exclude_missing,
        judge_model=settings.judge_model,
        judged=settings.judged,
        run_info=settings.run_info,
        summary=pair.summary,
    )
