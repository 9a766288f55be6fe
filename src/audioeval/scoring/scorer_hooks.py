"""The `Scorer` base class: every hook a scorer may have, declared once with its default.

Every scorer derives from `Scorer`, or from `scoring/judged.JudgedScorer` when it asks a judge
model. The engine, rescoring, metrics and exports call each hook as a plain attribute (the
default lives here), never look one up by name; `build_scorer` refuses a factory that builds
anything else (a user's function, an object of another class) with a message saying so.

| hook | default (`Scorer`) | overridden by |
|---|---|---|
| `name` | none: every scorer sets it | every scorer |
| `signature()` | none: every scorer defines it | every scorer |
| `score(prediction, sample)` | none: every scorer defines it | every rule and model scorer; a judged one refuses (needs a judge) |
| `metrics` | None: declares none, every metric of the task stays | most scorers (`accuracy`: `("accuracy",)`) |
| `extra_metrics` | `()` | `accuracy` (`macro_f1`), `asr_*` (their text scorer's, `mean:unparseable`) |
| `metric_renames` | `{}` | `wer`/`cer` under a profile with per-utterance means, `asr_*` (their text scorer's) |
| `rescore(prediction, sample, stored)` | `score` again (`stored`: the detail of its earlier score) | `asr_*` (reuse the stored transcript), every judged scorer (re-read stored judge answers) |
| `failed_output_score(sample, output_kind)` | a text output: `score` of an absent answer; audio: None | `asr_*` (an empty transcript), judged scorers with their own rule |
| `needs_judge` | False | `JudgedScorer` (True) |

A judged scorer (`JudgedScorer`, in `scoring/judged.py`) adds these, with its own defaults:

| hook | default (`JudgedScorer`) | overridden by |
|---|---|---|
| `score_async(prediction, sample, generate)` | none: every judged scorer defines it | every judged scorer |
| `rescore(prediction, sample, stored)` | none: re-aggregate the stored judge answers | every judged scorer |
| `failed_output_score(sample, output_kind)` | None (not judged; counted, not scored) | answer judges, `mmae_rubrics`, `mmar_rubrics`, `rubric_items` |
| `planned_calls(sample)` | 1 | answer judges, `mmae_rubrics`, `rubric_items`, `rubric_decompose` |
| `reports_reliability` / `reliability_items(stored)` | False / `[]` | answer judges, `mmae_rubrics`, `mmar_rubrics`, `rubric_items` |
| `use_prompt(template)` / `prompt_examples()` | refuses a prompt file / `[]` | every built-in judged scorer |
| `early_stop` | False | scorers built with `early_stop: true` |
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar, Generic, TypedDict, TypeVar

from audioeval.core.record import Score
from audioeval.core.sample import Sample
from audioeval.scoring.prediction import NO_OUTPUT, Prediction


class ScorerSignature(TypedDict, total=False):
    """A scorer's signature: every choice that moves its numbers. A scorer declares its own
    keys in a TypedDict derived from this one; `scorer` (or a judge's `name`) names it."""

    scorer: str
    name: str


DetailT = TypeVar("DetailT")
"""The detail a scorer keeps in its scores (its own TypedDict), handed back to `rescore` and
`reliability_items` as `stored`; a scorer that declares none keeps an open record."""


class Scorer(Generic[DetailT]):
    """Scores one prediction against one sample: display values plus the sufficient
    statistics a corpus metric sums; never averages. Subclasses set `name` and define
    `signature` and `score`; every other hook has the default documented in the module.
    `Scorer[D]`: a scorer whose scores keep a detail of type `D`."""

    name: str
    needs_judge: ClassVar[bool] = False
    """Whether the scorer asks a judge model (True on `JudgedScorer`)."""
    requires: ClassVar[tuple[str, ...]] = ()
    """What the scorer needs beyond audioeval's Python packages, as `audioeval list benchmarks`
    shows it: `metric model` (a model that scores the output: its weights, run on the CPU
    unless told otherwise), `Java` (a Java runtime on the PATH)."""
    light: ClassVar[bool] = False
    """Whether `score` is a few microseconds of text work with no I/O (a string match): the
    engine then calls it on its event loop instead of handing it to a thread."""
    metrics: tuple[str, ...] | None = None
    """The corpus metrics a benchmark gets by default when it lists this scorer; None: the
    scorer declares none (every metric of the task stays). See `base.declared_metrics`."""
    extra_metrics: tuple[str, ...] = ()
    """Further metrics its statistics feed, named on request (`accuracy` feeds `macro_f1`)."""
    metric_renames: Mapping[str, str] = MappingProxyType({})
    """Metric names this scorer gives another definition (`{"wer": "mean_wer"}`)."""

    def signature(self) -> ScorerSignature:
        """Every choice that moves this scorer's numbers (normaliser, tokenizer, versions)."""
        raise NotImplementedError(f"{type(self).__name__} defines no signature()")

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        """The score of one prediction; InputError when the sample cannot be scored."""
        raise NotImplementedError(f"{type(self).__name__} defines no score()")

    def rescore(self, prediction: Prediction, sample: Sample, stored: DetailT) -> Score:
        """The score again on rescoring, handed the `detail` of its earlier score: a scorer
        that keeps costly work there (an ASR transcript) reuses it while still valid; by
        default the prediction is simply scored again."""
        return self.score(prediction, sample)

    def failed_output_score(self, sample: Sample, output_kind: str = "text") -> Score | None:
        """What the sample counts for when the system under test gave no usable output
        (`scoring/failed_output.py`): for text output, the score of an absent answer; for
        audio output None (no honest value: the sample stays out of the means, counted)."""
        if output_kind != "text":
            return None
        return self.score(NO_OUTPUT, sample)
