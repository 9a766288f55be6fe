"""The uniform view of a judge's stored answers that reliability figures read.

Every judged scorer turns the judge answers it stored for a sample into `JudgedItem`s (its
`reliability_items(stored)` method): an item is what the judge was asked about (an MMAE
rubric, an MMAR-Rubrics rubric item, an answer graded by `qa_judge`, a yes/no rubric item),
with every vote asked about it, valid or not. `metrics/judge_reliability.py` computes the
figures.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from audioeval.audio.verifiers.measurement import MeasurementRecord


@dataclass(frozen=True, slots=True)
class JudgeVote:
    """One judge request about one item (an attempt), as the reliability figures see it."""

    valid: bool  # the answer was a usable vote
    verdict: str | None = None  # the vote's category (None when not valid)
    position: int | None = None  # index of the chosen option as shown (0 = A)
    n_options: int | None = None  # how many options were shown
    order: tuple[Hashable, ...] | None = None  # the options in the order shown (None: no options)
    p_yes: float | None = None  # the judge's P(yes), for probability judges
    request: Hashable | None = None  # shared by the votes on several items one request answered


class MeasuredDetail(TypedDict, total=False):
    """What a measured item shows beside the two verdicts: which rubric, its check and the
    measurement."""

    rubric_index: int | None
    check: str | None
    measurement: MeasurementRecord | None


@dataclass(frozen=True, slots=True)
class MeasuredCheck:
    """An item also answered by measurement (acoustic verifiers beside the judge): the judge's
    verdict and the measured one as scores (1: the right choice, 0: not), the item's own groups
    (`{"axis": "IF"}`) and what was measured (its check, the measurement), kept to be shown."""

    judge: int
    measured: int
    groups: Mapping[str, str] = field(default_factory=dict)
    detail: MeasuredDetail = field(default_factory=lambda: MeasuredDetail())


@dataclass(frozen=True, slots=True)
class JudgedItem:
    """One judged item: every vote asked about it, and its label when one is known."""

    votes: Sequence[JudgeVote]
    label: bool | None = None  # the truth for P(yes) calibration (True: yes is right)
    measured: MeasuredCheck | None = None  # also measured: the judge against the measurement
