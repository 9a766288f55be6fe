"""An MMAR / MMAU predictions file as the samples of a run (`mcq score` on the run engine).

The file is read and validated by `loading.py` (the first bad item is an error naming file,
line, id and field). Each item becomes a Sample with the fields scoring needs and the
per-item rows show: `choices`, `answer`, `line`, the model's `prediction` and `thinking`
(so a sample's content hash changes with its answer, and a changed answer is scored again),
and, for `--rubrics`, the judge's inputs of eligible items (`rubric_plan.py`). Its taxonomy
is the benchmark's breakdown groups. Nothing in it is audio: the answers are already there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.benchmarks.mcq.loading import McqFile, McqItem
from audioeval.benchmarks.mcq.rubric_plan import RubricPlan
from audioeval.benchmarks.spec import BenchmarkSpec, BreakdownGroups, SourceSpec
from audioeval.core.sample import Sample

SCORE_METRICS = ("accuracy", "mean:robust_correct", "mean:unparseable")
"""`mcq score`'s metrics: official accuracy, robust accuracy, robust's unparseable share."""


def item_sample(item: McqItem, file: str, rubric: dict[str, Any] | None = None) -> Sample:
    fields: dict[str, Any] = {
        "choices": list(item.choices),
        "answer": item.answer,
        "line": item.line,
        "prediction": item.prediction,
        "thinking": item.thinking,
    }
    if rubric is not None:
        fields.update(rubric)
    return Sample(item.id, {}, fields, dict(item.groups), file)


def mcq_samples(file: McqFile, plan: RubricPlan | None = None) -> list[Sample]:
    """One Sample per item, in file order."""
    where = str(file.path)
    rubrics = plan.fields if plan is not None else {}
    return [item_sample(item, where, rubrics.get(item.id)) for item in file.items]


def score_spec(
    bench: McqBenchmark, predictions: Path, *, jsonl: bool, rubric_scorer: dict[str, Any] | None
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
        source=SourceSpec(type="jsonl" if jsonl else "json", path=str(predictions.expanduser().resolve())),
        taxonomy=[axis.name for axis in bench.axes],
        groups={axis.name: BreakdownGroups(fixed=list(axis.fixed), order="first_seen") for axis in bench.axes},
        failed_outputs="excluded",
        prompt="mcq_stored_answer",
        postprocess=[],
        scorers=scorers,
        metrics=list(SCORE_METRICS),
        exports="mcq_score",
    )
