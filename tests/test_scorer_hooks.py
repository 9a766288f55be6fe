"""Scorer hooks are declared, never found by name (issue 23): every registered scorer builds to
a `Scorer` (or `JudgedScorer`), each optional hook has its default on the base class, a factory
that builds anything else is refused, and no module of the package looks a hook up with
`getattr`/`hasattr`."""

from __future__ import annotations

import ast
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.core.errors import AudioevalError, InputError
from audioeval.core.record import Score
from audioeval.core.sample import Sample
from audioeval.metrics.judge_reliability import judges_of
from audioeval.scoring.base import DeferredFactory, Prediction, Scorer
from audioeval.scoring.failed_output import failed_output_score
from audioeval.scoring.judged import JudgedScorer, is_judged, takes_prompt_file
from audioeval.scoring.scorer_registry import SCORERS, build_scorer, register_scorer

PKG = Path(__file__).resolve().parents[1] / "src" / "audioeval"
SPEC = "hooks.yaml"
SAMPLE = Sample("s1", fields={"label": "yes"})


def _hook_names() -> set[str]:
    """Every hook the base classes declare (attributes, annotations and methods)."""
    names: set[str] = set()
    for cls in (Scorer, JudgedScorer):
        names |= {n for n in vars(cls) if not n.startswith("_")}
        names |= set(cls.__annotations__)
    return names


def _factory_class(name: str) -> type | None:
    """The class a registered factory is, or the class its return annotation names."""
    factory = SCORERS.get(name, where=SPEC)
    target = factory.resolve() if isinstance(factory, DeferredFactory) else factory
    if isinstance(target, type):
        return target
    returned = typing.get_type_hints(target).get("return")
    return returned if isinstance(returned, type) else None


def test_the_base_classes_declare_every_hook_of_the_issue() -> None:
    hooks = _hook_names()
    listed = {"rescore", "planned_calls", "needs_judge", "reliability_items", "failed_output_score"}
    listed |= {"metrics", "extra_metrics", "metric_renames", "early_stop", "score_async", "use_prompt"}
    listed |= {"prompt_examples", "reports_reliability", "score", "signature", "name"}
    assert listed <= hooks, listed - hooks


def test_every_registered_scorer_builds_to_a_scorer() -> None:
    load_benchmarks()
    assert len(SCORERS.names()) > 20
    for name in SCORERS.names():
        cls = _factory_class(name)
        assert cls is not None and issubclass(cls, Scorer), name
        try:
            built = build_scorer(name, {}, where=SPEC)
        except AudioevalError:  # needs arguments (utmos: its runtime); its class is checked above
            continue
        assert isinstance(built, Scorer), name
        assert built.name == name
        assert built.needs_judge == is_judged(built) == isinstance(built, JudgedScorer), name
        assert takes_prompt_file(cls) == built.needs_judge, name


def test_a_judged_scorer_that_reads_reliability_items_says_so() -> None:
    load_benchmarks()
    for name in SCORERS.names():
        cls = _factory_class(name)
        if cls is not None and issubclass(cls, JudgedScorer):
            overrides = cls.reliability_items is not JudgedScorer.reliability_items
            assert cls.reports_reliability == overrides, name


def test_no_hook_is_looked_up_by_name() -> None:
    hooks = _hook_names() | {"text_scorer"}
    found: list[str] = []
    for path in sorted(PKG.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in {"getattr", "hasattr"} or len(node.args) < 2:
                continue
            attr = node.args[1]
            if isinstance(attr, ast.Constant) and attr.value in hooks:
                found.append(f"{path.relative_to(PKG)}:{node.lineno} {node.func.id}(…, {attr.value!r})")
    assert not found, "hooks looked up by name:\n" + "\n".join(found)


class _Exact(Scorer):
    name = "test_hook_exact"
    metrics = ("mean:exact",)

    def __init__(self) -> None:
        self.calls: list[str] = []

    def signature(self) -> dict[str, Any]:
        return {"scorer": self.name}

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        self.calls.append("score")
        hit = float(prediction.text == sample.get("label"))
        return Score({"exact": hit}, {"exact": hit})


def test_the_defaults_of_a_plain_scorer() -> None:
    scorer = _Exact()
    assert (scorer.extra_metrics, dict(scorer.metric_renames), scorer.needs_judge) == ((), {}, False)
    answer = Prediction("yes", "yes")
    assert scorer.rescore(answer, SAMPLE, {"anything": 1}) == Score({"exact": 1.0}, {"exact": 1.0})
    # no usable output: a text answer counts as absent (wrong); audio has no honest value
    assert failed_output_score(scorer, SAMPLE, "text") == Score({"exact": 0.0}, {"exact": 0.0})
    assert failed_output_score(scorer, SAMPLE, "audio") is None
    assert scorer.calls == ["score", "score"]


class _Judged(JudgedScorer):
    name = "test_hook_judged"

    def signature(self) -> dict[str, Any]:
        return {"scorer": self.name}

    async def score_async(self, prediction: Prediction, sample: Sample, generate: Any) -> Score:
        return Score({"j": 1.0}, {"j": 1.0}, {"answers": ["yes"]})

    def rescore(self, prediction: Prediction, sample: Sample, stored: Mapping[str, Any]) -> Score:
        return Score({"j": 1.0}, {"j": 1.0}, dict(stored))


def test_the_defaults_of_a_judged_scorer() -> None:
    scorer = _Judged()
    assert scorer.needs_judge and is_judged(scorer) and not scorer.early_stop
    assert scorer.planned_calls(SAMPLE) == 1 and scorer.reliability_items({"answers": []}) == []
    assert scorer.prompt_examples() == [] and failed_output_score(scorer, SAMPLE, "text") is None
    assert judges_of([scorer, _Exact()]) == []  # reads no reliability items: no block
    with pytest.raises(InputError, match="needs a judge"):
        scorer.score(Prediction("yes", "yes"), SAMPLE)
    with pytest.raises(InputError, match="takes no judge prompt file"):
        scorer.use_prompt(object())


def test_a_factory_that_builds_no_scorer_is_refused() -> None:
    class Loose:  # a user's scorer that does not derive from Scorer
        name = "test_loose"

        def signature(self) -> dict[str, Any]:
            return {}

        def score(self, prediction: Prediction, sample: Sample) -> Score:
            return Score({}, {})

    def by_function() -> dict[str, float]:
        return {"x": 1.0}

    for name, factory in (("test_loose", Loose), ("test_function", by_function)):
        register_scorer(name, factory)
        try:
            with pytest.raises(InputError, match="not a Scorer: its class must derive from") as err:
                build_scorer(name, {}, where=SPEC, field="scorers[0]")
            assert (err.value.file, err.value.field) == (SPEC, "scorers[0]")
        finally:
            del SCORERS[name]
