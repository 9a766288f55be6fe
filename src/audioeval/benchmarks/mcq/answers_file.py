"""An MMAR / MMAU benchmark's items with the answers of a predictions file of any registered
format (`mcq score --metadata FILE --predictions FILE`): the items come from the benchmark's
metadata, each item's answer from the predictions file read exactly as `audioeval run -m
NAME=predictions:FILE` reads it: the format's reader (`benchmarks/prediction_formats.py`)
inside the same `predictions` model (`adapters/predictions.py`), outputs by id or, for a file
without ids, matched to the items by the format's stated rule (`adapters/unkeyed_rows.py`),
so both commands give each item the same answer and the same official figure.

An item no answer reaches has no prediction (counted, left out of every figure, as the
official script skips it); a row of the file that reaches no item, or answers an item with
what is not an answer (a number for a text), is listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from audioeval.adapters.predictions import PredictionsFile, PredictionsReading
from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.benchmarks.mcq.loading import McqFile, McqItem, load_mcq_file
from audioeval.benchmarks.prediction_formats import ChosenFormat, format_of
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample

TASK = "mcq"


@dataclass(frozen=True)
class FileAnswers:
    """The items with their answers, and how the predictions file was read."""

    file: McqFile
    reading: str
    """The model's line: file, format and how chosen, key, matching rule."""
    key: str | None
    """The key (or filter, or stage) the answers were read from."""
    unread: tuple[InputError, ...]
    """The file's rows or items that answer no item (unreadable, or of no item)."""


def predictions_format(bench: McqBenchmark, name: str, path: Path) -> ChosenFormat:
    """The format a predictions file of `mcq score` is read as: the one named, or under `auto`
    the one it matches (a file matching none is read as the benchmark's own format, whose
    reader says what it lacks). A format that does not answer multiple-choice questions with
    text is an error naming it."""
    chosen = format_of(name, path, own=bench.name)
    if TASK not in chosen.format.tasks or chosen.format.output != "text":
        raise InputError(
            f"the predictions format {chosen.name} ({chosen.format.expects}) answers no multiple-choice "
            f"question with text: it serves {', '.join(sorted(chosen.format.tasks))}",
            file=str(path),
            field="predictions_format",
        )
    return chosen


def row_texts(item: McqItem) -> dict[str, str]:
    """The texts of an item a row without an id may name beyond its answer and choices: its
    question (VoiceBench keys rows by it), as `run` loads the same metadata row."""
    question = item.record.get("question")
    return {"question": question} if isinstance(question, str) else {}


def _matching_sample(item: McqItem, file: str) -> Sample:
    return Sample(
        item.id, {}, {"choices": list(item.choices), "answer": item.answer, **row_texts(item)}, {}, file
    )


def scored_file(path: str | Path, bench: McqBenchmark, options: Mapping[str, Any]) -> McqFile:
    """The items a source of type `mmar` / `mmau` scores: a predictions file of the benchmark's
    own format, or (option `predictions`) the metadata at `path` with the answers of that file
    in its format (`predictions_format`, `prediction_key`)."""
    if not options.get("predictions"):
        return load_mcq_file(path, bench, prediction_key=options.get("prediction_key"))
    predictions = Path(options["predictions"])
    chosen = predictions_format(bench, options.get("predictions_format") or "auto", predictions)
    return items_with_answers(bench, Path(path), predictions, chosen, options.get("prediction_key")).file


def items_with_answers(
    bench: McqBenchmark, metadata: Path, predictions: Path, chosen: ChosenFormat, key: str | None
) -> FileAnswers:
    """The metadata's items, each with the answer the predictions file gives it (None: none)."""
    items = load_mcq_file(metadata, bench, require_predictions=False)
    model = PredictionsFile(
        "predictions",
        predictions,
        chosen.format.reader(key),
        tasks=chosen.format.tasks,
        output="text",
        reading=PredictionsReading(chosen.name, chosen.how, chosen.format.matching),
        sample_keys=chosen.format.sample_keys,
    )
    model.load()
    where = str(metadata)
    model.match(bench.name, [_matching_sample(item, where) for item in items.items])
    ids = [item.id for item in items.items]
    # an item the file answers with what is not an answer (`run` fails it naming the row) is
    # listed too, never a silent "without prediction"
    unread = model.input_errors(ids, ids) + [
        model.errors[sid] for sid in ids if sid in model.errors and sid not in model.outputs
    ]
    answered = [replace(item, prediction=model.outputs.get(item.id)) for item in items.items]
    return FileAnswers(replace(items, items=answered), model.describe(), model.key, tuple(unread))
