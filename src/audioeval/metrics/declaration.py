"""What a metric is, as data: its unit, its aggregation, the per-sample value it is made of, and
a benchmark's declaration of a `mean:<key>` or `micro:<key>` metric of its own (display name,
unit, direction).

Light on purpose (no numpy): a benchmark declares its metrics when the benchmarks load, before
any figure is computed. The one registry of metrics is `metrics/corpus.METRICS`; a benchmark's
declarations (`Benchmark.metrics`) join it through `declare` when the benchmarks load, and
`corpus` takes them in at its next lookup (`declared_since`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, TypedDict, get_args

Unit = Literal["fraction", "percent", "score", "mos"]
"""A metric's unit: `fraction` (a 0–1 share, shown × 100 with `%`), `percent` (0–100, shown
with `%`), `score` (a number on the metric's own scale: BLEU, CIDEr-D), `mos` (a 1–5 scale)."""
UNITS: tuple[str, ...] = get_args(Unit)
Aggregation = Literal["corpus", "mean", "whole_set"]
"""How the samples make the metric: `corpus` (a function of summed statistics: total edits /
total words, BLEU of summed n-gram counts), `mean` (the mean of a per-sample value, None and
NaN left out), `whole_set` (a function of the whole list: CIDEr-D's document frequencies)."""
AGGREGATIONS: tuple[str, ...] = get_args(Aggregation)
UNDECLARED = "undeclared"
"""The unit of a plugin scorer's `mean:` metric that nobody declares: shown as it is, kept off
the boards (their 0–100 scale needs a unit). Never a declaration's unit."""
MEAN_PREFIX = "mean:"
MICRO_PREFIX = "micro:"
MICRO_SUFFIX = " (micro)"
"""How an undeclared `micro:<key>` is shown: `<key> (micro)`."""


@dataclass(frozen=True)
class PerSample:
    """The per-sample value (a key of `Score.values`) a metric is made of, and what it is
    multiplied by to be in the metric's unit (`scale`: 100 for MMAE's 0–1 `IFR` of the
    percentage `mean:ifr`). The report shows each sample's value, and filters on it, so."""

    key: str
    scale: float = 1.0


@dataclass(frozen=True)
class MeanDeclaration:
    """A benchmark's `mean:<key>` metric, declared once: the mean of the stats value `key` its
    scorer writes per sample, shown as `display`, in `unit`, with its direction and the
    per-sample value it is made of (default: the value `key`, scale 1)."""

    key: str
    display: str
    unit: Unit
    higher_is_better: bool = True
    per_sample: PerSample | None = None

    def __post_init__(self) -> None:
        if not self.key or not isinstance(self.key, str):
            raise ValueError(f"a declared metric needs a stats key, not {self.key!r}")
        if not isinstance(self.display, str) or not self.display.strip():
            raise ValueError(f"metric {self.name!r}: its display name must be a non-empty string")
        if self.unit not in UNITS:
            raise ValueError(f"metric {self.name!r}: unit {self.unit!r} is not one of {', '.join(UNITS)}")

    @property
    def name(self) -> str:
        return MEAN_PREFIX + self.key


@dataclass(frozen=True)
class MicroDeclaration(MeanDeclaration):
    """A benchmark's `micro:<key>` metric, declared once as a `mean:` one is: Σ numerators /
    Σ denominators of the stats pair `key` its scorer writes per sample (`[passed, scored]`:
    a rate over the units inside the samples, rubrics say), shown as `display`, in `unit`
    (a share: `fraction`), with its direction."""

    @property
    def name(self) -> str:
        return MICRO_PREFIX + self.key


ROBUST_ACCURACY = MeanDeclaration("robust_correct", "robust accuracy", "fraction", per_sample=PerSample("mcq_robust"))
"""The robust reading of a multiple-choice answer (`scoring/mcq_robust.py`, a generic scorer):
the share of the items it finds right, shown as a percentage; each item's 0/1 is `mcq_robust`."""
RUBRIC_SCORE = MeanDeclaration("rubric_score", "rubric_score", "fraction")
"""A sample's rubric score, 0–1 (`judge/rubric_items.py`: the mean P(yes) of its items; MMAR-Rubrics,
`benchmarks/mcq/rubric_scorer.py`: the judged score of a matched answer): its mean is a share,
shown as a percentage. One metric, whichever scorer writes it."""
SPEECH_QUALITY: tuple[MeanDeclaration, ...] = (
    MeanDeclaration("sim", "SIM", "score"),  # speaker similarity, a cosine (boards: × 100)
    MeanDeclaration("utmos", "UTMOS", "mos"),
    MeanDeclaration("dnsmos_ovrl", "OVRL", "mos"),  # DNSMOS P.835 overall
    MeanDeclaration("dnsmos_p808", "P.808", "mos"),  # DNSMOS P.808
    MeanDeclaration("pesq", "PESQ", "score"),
    MeanDeclaration("stoi", "STOI", "score"),
)
"""The metric models' means (`scoring/speech_scorers.py`, `scoring/runtime_mos.py`), in their
units as they were (a MOS on 1–5; SIM, PESQ, STOI on their own scales), under the names the
generation and codec boards show."""
BUILT_IN: tuple[MeanDeclaration, ...] = (ROBUST_ACCURACY, RUBRIC_SCORE, *SPEECH_QUALITY)
"""The `mean:` metrics of audioeval's own generic scorers that are declared (the others are
plain `score`s under their keys)."""

_pending: list[MeanDeclaration] = list(BUILT_IN)
_declared: dict[str, MeanDeclaration] = {d.name: d for d in BUILT_IN}


def declare(declaration: MeanDeclaration) -> None:
    """Hand a benchmark's metric to the registry (`corpus.METRICS`, at its next lookup); a
    name declared already is a ValueError (`benchmarks/plugins.py` refuses it first, naming
    both benchmarks)."""
    if not isinstance(declaration, MeanDeclaration):
        raise TypeError(f"a metric declaration must be a MeanDeclaration, not {declaration!r}")
    if declaration.name in _declared:
        raise ValueError(f"metric {declaration.name!r} is already declared")
    _pending.append(declaration)
    _declared[declaration.name] = declaration


def declared_names() -> list[str]:
    """Every `mean:` metric declared so far (audioeval's own, then the loaded benchmarks')."""
    return list(_declared)


def find_declared(name: str) -> MeanDeclaration | None:
    """A benchmark's declaration of the metric `name` (None when no loaded benchmark has one)."""
    return _declared.get(name)


class Displayed(TypedDict, total=False):
    """What `shown_name` reads of a metric block (`metrics/pair_summary.MetricBlock`)."""

    display: str


def shown_name(name: str, block: Displayed | None = None) -> str:
    """A metric's display name: as its pair summary block declares it (`display`), else as a
    loaded benchmark declares it, else its name without `mean:` (a summary written before
    blocks carried their display name). What pages, tables and boards show; no computation."""
    display = block.get("display") if isinstance(block, Mapping) else None
    if isinstance(display, str) and display.strip() and display != name:  # `micro:x`: not a name
        return display
    declared = _declared.get(name)
    return declared.display if declared is not None else undeclared_display(name)


def undeclared_display(name: str) -> str:
    """How a metric nobody declares a display name for is shown: `mean:<key>` as its key,
    `micro:<key>` as `<key> (micro)`, any other under its name."""
    if name.startswith(MICRO_PREFIX):
        return name.removeprefix(MICRO_PREFIX) + MICRO_SUFFIX
    return name.removeprefix(MEAN_PREFIX)


def declared_since() -> list[MeanDeclaration]:
    """The declarations handed over since the last call (`corpus` registers them)."""
    taken = list(_pending)
    _pending.clear()
    return taken
