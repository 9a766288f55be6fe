"""Joining predictions to metadata and resolving every clip a sample's rubrics reference.

A metadata sample the system under test gave no usable output for (no prediction, an
unreadable prediction entry, an edited-audio file that does not exist) is a failed output:
it is kept in the plan's `failed_outputs`, and the headline counts it with every rubric at 0.
A sample whose own input audio is missing is an input error: skipped and listed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from audioeval.benchmarks.mmae.records import MmaePrediction, MmaeSample
from audioeval.core.errors import AudioError, InputError
from audioeval.core.shorten import shorten_path
from audioeval.judge.audio_refs import find_mentions


@dataclass(frozen=True)
class MmaeWorkItem:
    """A sample ready to judge: its rubrics and the path of each clip label."""

    sample: MmaeSample
    clips: dict[str, str]

    def resolve(self, label: str) -> str:
        return self.clips["input1" if label == "input" else label]


@dataclass
class MmaePlan:
    items: list[MmaeWorkItem] = field(default_factory=list)
    skipped: list[InputError] = field(default_factory=list)
    failed_outputs: list[InputError] = field(default_factory=list)  # one per sample, with its id

    def clip_paths(self) -> list[str]:
        """Every clip the plan reads (a file appearing later adds a path)."""
        return [p for item in self.items for p in item.clips.values()]


OUTPUT_FIELD = "messages[-1].content.audio_url"


def resolve_path(path: str, audio_root: Path) -> Path:
    p = Path(os.path.expanduser(path))
    return p if p.is_absolute() else audio_root / p


def _input_path(k: int, sample: MmaeSample, pred: MmaePrediction, root: Path) -> Path:
    """Input k (0-based): the prediction's copy of the user audio if it exists, else the
    metadata's, both relative to the audio root unless absolute."""
    candidates = []
    if k < len(pred.input_audio):
        candidates.append(resolve_path(pred.input_audio[k], root))
    candidates.append(resolve_path(sample.input_audio[k], root))
    for c in candidates:
        if c.is_file():
            return c
    return candidates[-1]


def make_plan(
    samples: dict[str, MmaeSample],
    predictions: dict[str, MmaePrediction],
    *,
    audio_root: str | Path,
    metadata_file: str,
    predictions_file: str,
    rejected_ids: frozenset[str] = frozenset(),
    prediction_errors: Mapping[str, InputError] | None = None,
) -> MmaePlan:
    """Work items for predicted samples; `rejected_ids` are metadata samples already reported
    as invalid, so their predictions are not reported a second time; `prediction_errors` say
    why a sample's prediction could not be read (its failed output's reason)."""
    root = Path(audio_root)
    plan = MmaePlan()
    for sid in predictions:
        if sid not in samples and sid not in rejected_ids:
            plan.skipped.append(
                InputError(
                    "prediction id not in the metadata", file=predictions_file, sample_id=sid, field="id"
                )
            )
    for sid, sample in samples.items():
        pred = predictions.get(sid)
        if pred is None:
            why = (prediction_errors or {}).get(sid)
            plan.failed_outputs.append(
                why
                or InputError("sample has no prediction", file=predictions_file, sample_id=sid, field="id")
            )
            continue
        labels = {m.label for r in sample.rubrics for m in find_mentions(r.question)}
        clips: dict[str, str] = {}
        try:
            for label in sorted(labels):
                if label == "output":
                    path, src, fld = (resolve_path(pred.output_audio, root), predictions_file, OUTPUT_FIELD)
                else:
                    k = 0 if label == "input" else int(label[len("input") :]) - 1
                    path, src, fld = (
                        _input_path(k, sample, pred, root),
                        metadata_file,
                        f"messages (user audio {k + 1})",
                    )
                if not path.is_file():
                    raise AudioError(
                        f"audio file not found: {shorten_path(path)}", file=src, sample_id=sid, field=fld
                    )
                clips["input1" if label == "input" else label] = str(path)
        except AudioError as exc:
            (plan.failed_outputs if exc.field == OUTPUT_FIELD else plan.skipped).append(exc)
            continue
        plan.items.append(MmaeWorkItem(sample, clips))
    return plan
