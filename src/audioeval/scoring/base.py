"""What a scorer receives (`Prediction`) and returns (`core/record.Score`), the `Scorer`
base class (its hooks and defaults: `scoring/scorer_hooks.py`), and what a registered scorer
is (`ScorerFactory`, `DeferredFactory`); the registry of scorers is `scoring/scorer_registry.py`.

A scorer looks at one sample and returns display values plus the sufficient statistics a
corpus metric sums (edit counts, n-gram counts, a 0/1 correct flag); it never averages.
A heavy scorer module (jiwer, sacrebleu, a metric model) is imported when first built,
through a `DeferredFactory` whose loader imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from audioeval.core.record import Score as Score  # re-exported: what a scorer returns
from audioeval.postprocess.steps import PostprocessChain, SpecItem, build_normaliser
from audioeval.scoring.prediction import Prediction as Prediction  # re-exported: what a scorer reads
from audioeval.scoring.scorer_hooks import Scorer as Scorer  # re-exported: the base class

UNPARSEABLE = "unparseable"


ScorerFactory = Callable[..., Scorer]
"""A registered scorer: a `Scorer` subclass, or a function that returns a `Scorer` instance."""


def declared_metrics(scorer: Scorer) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(default metrics, every metric) a scorer's statistics feed; None when it declares none
    (`Scorer.metrics` left None: every task metric stays)."""
    if scorer.metrics is None:
        return None
    return tuple(scorer.metrics), (*scorer.metrics, *scorer.extra_metrics)


class DeferredFactory:
    """A scorer factory imported when first built: `load` is a function that imports the
    scorer's module inside its body and returns the factory (so jiwer, sacrebleu and metric
    models stay out of import time). The factory is an object, never a module path in a string."""

    def __init__(self, load: Callable[[], ScorerFactory]) -> None:
        self.load = load

    def resolve(self) -> ScorerFactory:
        return self.load()

    def __call__(self, **kwargs: Any) -> Scorer:
        return self.resolve()(**kwargs)


def as_normaliser(
    spec: PostprocessChain | Sequence[SpecItem] | None, default: Sequence[SpecItem] = ()
) -> PostprocessChain:
    """A normalising chain from a built chain, a spec list, or the default when None."""
    if isinstance(spec, PostprocessChain):
        if not spec.normalises:
            raise ValueError(f"normaliser {spec.describe()} holds steps that parse answers")
        return spec
    return build_normaliser(list(default) if spec is None else spec, where="", field="normaliser")
