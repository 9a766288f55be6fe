"""Inputs a caller read and checked before the run, handed to the engine as one typed value
(`engine/evaluate.EvalRequest.prepared`).

A preset's plan (`benchmarks/preset.py`: `PresetPlan.samples`, `rescore_changed_samples`,
`export_info`) and the rubrics made on the fly (`presets/rubrics_on_the_fly.py`) state here
what the engine would otherwise work out itself: the samples of a benchmark (its source is
then not read again), whether a changed sample is scored again instead of refused, what the
benchmark's exporter is told, and where a one-pair run's exports go. A caller of the Python
API may give one too (its own samples, read from anywhere); a run without one reads each
benchmark's source, refuses changed samples and exports into the pair folders.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.benchmarks.sources.loader import SampleSet


@dataclass(frozen=True)
class PreparedInputs:
    """What the caller prepared for one run (every field optional)."""

    samples: Mapping[str, SampleSet] = field(default_factory=dict)
    """Samples by benchmark name, read and checked by the caller: their source is not read again."""
    rescore_changed_samples: bool = False
    """Inputs that change per sample between runs into one folder (a predictions file scored
    again): the input files' locations and hashes stay out of the pair signature, and a sample
    whose content hash changed is scored again (its new record supersedes the old), not refused."""
    export_info: Mapping[str, Any] = field(default_factory=dict)
    """What the benchmark's exporter is told (`PairExport.run_info`), e.g. `mcq score`'s
    predictions file and rubric settings."""
    exports_dir: Path | None = None
    """Where the benchmark exports of a one-pair run go (a preset's output folder); None: the
    pair folder (`engine/exports.py`)."""

    def with_samples(self, more: Mapping[str, SampleSet]) -> PreparedInputs:
        """These inputs with the samples of further benchmarks."""
        return PreparedInputs(
            {**self.samples, **more}, self.rescore_changed_samples, self.export_info, self.exports_dir
        )
