"""An MMAR / MMAU predictions file as the samples of a run (`mcq score` on the run engine): the
source types `mmar` and `mmau` that this benchmark contributes (`benchmark.py`), read by the
loader as any benchmark's own source type is, with the spec's `source.options`
(`prediction_key`, and for `--rubrics` `rubrics` and `rubric_meta`).

The file is read and validated by `loading.py` (the first bad item is an error naming file,
line, id and field). Each item becomes a Sample with the fields scoring needs and the
per-item rows show: `choices`, `answer`, `line`, the model's `prediction` and `thinking`
(so a sample's content hash changes with its answer, and a changed answer is scored again),
and, for `--rubrics`, the judge's inputs of eligible items (`rubric_plan.py`). Its taxonomy
is the benchmark's breakdown groups. Nothing in it is audio: the answers are already there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict, cast

from audioeval.benchmarks.mcq.answers_file import row_texts, scored_file
from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.benchmarks.mcq.loading import McqFile, McqItem
from audioeval.benchmarks.mcq.rubric_plan import RubricFields, RubricPlan, load_rubric_meta, plan_rubrics
from audioeval.benchmarks.sources.source_formats import SourceRequest
from audioeval.benchmarks.spec import BenchmarkSpec, BreakdownGroups, SourceSpec
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.store.json_items import gc_paused

OPTIONS = ("prediction_key", "predictions", "predictions_format", "rubrics", "rubric_meta")
"""The `source.options` of the `mmar` and `mmau` source types. With `predictions` the source
file is the benchmark's metadata and the answers are that file's, read as `predictions_format`
(`answers_file.py`; `prediction_key` is then that format's key)."""


class McqSourceOptions(TypedDict, total=False):
    """The `source.options` of the `mmar` and `mmau` source types (`OPTIONS`): the key the
    predictions are read from, the file and format of answers to another file's metadata, and
    for `--rubrics` whether to judge and the metadata file."""

    prediction_key: str | None
    predictions: str
    predictions_format: str
    rubrics: bool
    rubric_meta: str


class RubricScorerArgs(TypedDict):
    """The arguments of the `mmar_rubrics` scorer in the run spec."""

    votes: int
    max_attempts: int


class McqFields(TypedDict, total=False):
    """The fields of an MMAR / MMAU item's Sample (see the module doc); `question` when the
    answers come from a file without ids; `rubric`, `question` and `reference` on an item
    eligible for MMAR-Rubrics (`RubricFields`)."""

    choices: list[str]
    answer: str
    line: int
    prediction: str | None
    thinking: str | None
    rubric: list[Any]
    question: str
    reference: str

SCORE_METRICS = ("accuracy", "mean:robust_correct", "mean:unparseable")
"""`mcq score`'s metrics: official accuracy, robust accuracy, robust's unparseable share."""
RUBRIC_METRIC = "mean:rubric_score"
"""With `--rubrics`: the MMAR-Rubrics score of the eligible items scored (`rubric_scorer.py`)."""


def item_sample(item: McqItem, file: str, rubric: RubricFields | None = None, *, question: bool = False) -> Sample:
    """One item as a Sample; with `question`, its question text too (the answers come from a
    file without ids, whose rows may name it, as `run` loads the same metadata row)."""
    fields = McqFields(
        choices=list(item.choices),
        answer=item.answer,
        line=item.line,
        prediction=item.prediction,
        thinking=item.thinking,
    )
    if question:
        text = row_texts(item).get("question")
        if text is not None:
            fields["question"] = text
    if rubric is not None:
        fields.update(rubric)
    return Sample(item.id, {}, dict(fields), dict(item.groups), file)


def mcq_samples(file: McqFile, plan: RubricPlan | None = None, *, question: bool = False) -> list[Sample]:
    """One Sample per item, in file order (`question`: as `item_sample`)."""
    where = str(file.path)
    rubrics = plan.fields if plan is not None else {}
    return [item_sample(item, where, rubrics.get(item.id), question=question) for item in file.items]


def rubric_plan(file: McqFile, options: McqSourceOptions) -> RubricPlan | None:
    """The judge's inputs of `--rubrics` (None without it)."""
    if not options.get("rubrics"):
        return None
    meta = load_rubric_meta(options["rubric_meta"]) if options.get("rubric_meta") else None
    return plan_rubrics(file.items, str(file.path), meta)


def read_mcq_samples(asked: SourceRequest, bench: McqBenchmark) -> tuple[list[Sample], list[InputError]]:
    """The samples of an MMAR / MMAU predictions file (source type `mmar` / `mmau`)."""
    unknown = sorted(set(asked.options) - set(OPTIONS))
    if unknown:
        raise InputError(
            f"unknown option(s) {', '.join(unknown)} of source type {bench.name}: {', '.join(OPTIONS)}",
            field="source.options",
        )
    with gc_paused():  # many small acyclic objects: collector passes only cost time
        file = scored_file(asked.path, bench, asked.options)
        plan = rubric_plan(file, cast(McqSourceOptions, asked.options))
        samples = mcq_samples(file, plan, question=bool(asked.options.get("predictions")))
    return (samples[: asked.limit] if asked.limit is not None else samples), []


def score_spec(
    bench: McqBenchmark,
    predictions: Path,
    options: McqSourceOptions,
    *,
    rubric_scorer: RubricScorerArgs | None,
) -> BenchmarkSpec:
    """The run spec of `mcq score`: official (`mcq_match` on the raw answer) and robust
    (`mcq_robust`, with its unparseable share) scorers, like lm-eval's strict and flexible
    filters, and with `--rubrics` the `mmar_rubrics` judged scorer with its arguments (votes,
    max_attempts). The breakdowns are the benchmark's axes (`McqBenchmark.axes`: fixed groups
    first, the others in first-seen order, as the official script lists them), and an item
    without a prediction is left out of every figure (`failed_outputs: excluded`), as the
    official script skips it. Rubric scores (of eligible items only) are summarised by the
    export, not by a corpus metric."""
    scorers: list[Any] = ["mcq_match", "mcq_robust"]
    if rubric_scorer is not None:
        scorers.append({"mmar_rubrics": rubric_scorer})
    return BenchmarkSpec(
        name=bench.name,
        task="mcq",
        source=SourceSpec(type=bench.name, path=str(predictions.expanduser().resolve()), options=dict(options)),
        taxonomy=[axis.name for axis in bench.axes],
        groups={axis.name: BreakdownGroups(fixed=list(axis.fixed), order="first_seen") for axis in bench.axes},
        failed_outputs="excluded",
        prompt="mcq_stored_answer",
        postprocess=[],
        scorers=scorers,
        metrics=[*SCORE_METRICS, *((RUBRIC_METRIC,) if rubric_scorer is not None else ())],
        exports="mcq_score",
    )
