"""MMAE samples and predictions as validated records, and the documents of one judged (or
measured) rubric that a record keeps and MMAE's files are made of."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

from audioeval.benchmarks.mmae.rubric_votes import AttemptDoc, McqRubric

if TYPE_CHECKING:
    from audioeval.audio.verifiers.measurement import MeasurementRecord

COMPLEXITIES = ("single", "multi-part", "multi-instruction", "multi-audio", "multi-round", "multi-hop")
INSTRUCTION_FOLLOWING = "instruction following"


@functools.lru_cache(maxsize=256)  # a set has a few category labels, asked of every rubric
def is_instruction_following(category: str) -> bool:
    """'Instruction Following' (any case/spacing); every other label is consistency."""
    return " ".join(category.lower().replace("-", " ").split()) == INSTRUCTION_FOLLOWING


@dataclass(frozen=True)
class MmaeSample:
    id: str
    complexity: str
    modality: str
    granularity: tuple[str, ...]
    operations: tuple[tuple[str, str], ...]
    input_audio: tuple[str, ...]
    rubrics: tuple[McqRubric, ...]

    def taxonomy(self) -> SampleTaxonomy:
        return {
            "complexity": self.complexity,
            "modality": self.modality,
            "granularity": list(self.granularity),
            "operations": [{"granularity": g, "operation": o} for g, o in self.operations],
        }


class Operation(TypedDict):
    """One edit operation of a sample, as the metadata and per_sample.json hold it."""

    granularity: str
    operation: str


class TextPart(TypedDict):
    type: Literal["text"]
    text: str


class AudioPart(TypedDict):
    """A clip of a turn: its path (absolute, or relative to the audio root)."""

    type: Literal["audio"]
    audio_url: str


class Turn(TypedDict):
    """A turn of an MMAE conversation: the user's instruction and input clips, or the
    assistant's edited audio."""

    role: str
    content: list[TextPart | AudioPart]


class RubricDoc(TypedDict):
    """A rubric of the metadata: a multiple-choice question about the clips it names."""

    category: str
    question: str
    right_choice: str
    wrong_choices: list[str]


class MetadataItem(TypedDict):
    """One item of an MMAE metadata file (what `loading.load_metadata` validates)."""

    id: str
    complexity: str
    modality: str
    granularity: list[str]
    operations: list[Operation]
    messages: list[Turn]
    tags: NotRequired[list[list[str]]]
    rubrics: list[RubricDoc]


class PredictionItem(TypedDict):
    """One item of an MMAE predictions file: the conversation, its last assistant turn holding
    the edited audio (what `loading.load_predictions` validates)."""

    id: str
    messages: list[Turn]


class SampleTaxonomy(TypedDict):
    """What a sample's row in per_sample.json says of the sample (`MmaeSample.taxonomy`)."""

    complexity: str
    modality: str
    granularity: list[str]
    operations: list[Operation]


class MeasuredRubric(TypedDict, total=False):
    """A rubric's answer by acoustic measurement (`rubric_checks.measure_rubric`): the check,
    where it came from, the measurement, and the score (None with `not_judged`: the
    measurement cannot answer)."""

    check: str
    check_source: str
    measurement: MeasurementRecord
    score: int | None
    not_judged: str


class RubricOutcome(TypedDict, total=False):
    """One rubric of a record's stored answers (`detail["rubrics"]` of `mmae_rubrics` or
    `mmae_verifiers`): its index, category and axis; judged: the valid votes, the score (or the
    failure) and every attempt (`rubric_votes.RubricVoting.outcome`); measured (`verify:
    first`, `--judge verifiers`): the measurement's fields or `measured`; `verify: audit`: the
    measurement beside the votes (`audit`)."""

    rubric_index: int
    category: str
    axis: str
    votes: list[bool]
    score: int | None
    failed: bool
    failure: str | None
    attempts: list[AttemptDoc]
    votes_not_asked: int
    check: str
    check_source: str
    measurement: MeasurementRecord
    not_judged: str
    measured: MeasuredRubric
    audit: MeasuredRubric


class RubricsDetail(TypedDict):
    """A score's detail (and a record's stored answers) of the MMAE scorers: every rubric's
    outcome and each rubric's score in order (None: not scored); `failed_output`: a sample
    without a usable output, every rubric at 0 (no rubric asked: no `rubrics`)."""

    rubrics: NotRequired[list[RubricOutcome]]
    rubric_scores: list[int | None]
    failed_output: NotRequired[bool]


@dataclass(frozen=True)
class MmaePrediction:
    id: str
    output_audio: str
    input_audio: tuple[str, ...]
