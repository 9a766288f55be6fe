"""AudioBench's score logs (AudioLLMs/AudioBench `src/evaluate.py` writes
`<model>/<dataset>_<metric>_score.json`), read without conversion.

Two shapes, both without sample ids, in the test set's order:

- a WER log (`src/dataset_src/<asr set>.py`, `compute_score`): `{"wer": corpus WER,
  "sample_wer": [{"reference", "prediction", "wer"}, ...]}`; its texts are AudioBench's
  *normalised* reference and prediction (the log keeps no others);
- a score log with `details` (string match, `eval_methods/string_match.py`, and the judge
  metrics): `{"<metric>": {...}, "details": [{"question", "reference", "model_prediction",
  "choices"?, "rate_score", "task"?}, ...]}`; the prediction is the model's raw answer, and a
  multiple-choice item's reference and choices start with `(A) `, which their rule cuts
  (`[4:]`).

As predictions (`audiobench_wer_log`, `audiobench_score_log`) each row finds its sample by
its reference text (`adapters/unkeyed_rows.py`): a sample's reference as given, or as
AudioBench's chain normalises it (English and Chinese); a multiple-choice row by its answer
and choices (the choices in any order). As a source (`audiobench_log`) the log itself is the
benchmark: one sample per row, numbered from 1, so a published log is scored as it stands.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

from audioeval.adapters.predictions import PredictionsRead
from audioeval.adapters.unkeyed_rows import UnkeyedRow, canonical
from audioeval.benchmarks.audiobench.text_rules import normalise
from audioeval.benchmarks.prediction_formats import json_document, read_json_document
from audioeval.benchmarks.sources.source_formats import SourceRequest
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample

WER_NOTE = "its texts are AudioBench's normalised texts (its logs keep no others)"
CHOICE_PREFIX = 4
"""`(A) `: what their string match cuts from a reference and each choice."""


def is_wer_log(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("sample_wer"), list)


def is_score_log(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("details"), list) and "sample_wer" not in doc


def _document(path: Path, wanted: str) -> dict[str, Any]:
    doc = json_document(path)  # parsed once per file version
    if doc is None:
        doc = read_json_document(path)  # why it is not one: its error names file and line
    if not isinstance(doc, dict):
        raise InputError("not an AudioBench log: the file is not one JSON object", file=str(path))
    if wanted not in doc or not isinstance(doc[wanted], list):
        raise InputError(f"not an AudioBench log: no list {wanted!r} in it", file=str(path), field=wanted)
    return doc


def _texts(item: Any, keys: tuple[str, ...], file: str, where: str) -> dict[str, str] | InputError:
    if not isinstance(item, dict):
        return InputError(f"an item must be an object, got {type(item).__name__}", file=file, field=where)
    for key in keys:
        if not isinstance(item.get(key), str):
            got = "missing" if key not in item else f"a {type(item[key]).__name__}"
            return InputError(f"{key} must be text, got {got}", file=file, field=f"{where}.{key}")
    return {k: item[k] for k in keys}


def _choices(item: dict[str, Any], file: str, where: str) -> list[str] | None | InputError:
    choices = item.get("choices")
    if choices is None:
        return None
    if not isinstance(choices, list) or not all(isinstance(c, str) for c in choices):
        return InputError("choices must be a list of texts", file=file, field=f"{where}.choices")
    return [c[CHOICE_PREFIX:] for c in choices]


def _wer_rows(path: Path) -> Iterator[tuple[int, UnkeyedRow] | InputError]:
    file = str(path)
    for i, item in enumerate(_document(path, "sample_wer")["sample_wer"]):
        where = f"sample_wer[{i}]"
        got = _texts(item, ("reference", "prediction"), file, where)
        if isinstance(got, InputError):
            yield got
        else:
            yield i, UnkeyedRow(got["prediction"], got["reference"], field=f"{where}.reference")


def read_wer_log(path: Path) -> PredictionsRead:
    """A WER log as predictions: one row per `sample_wer` item, found by its reference."""
    rows, errors = [], []
    for got in _wer_rows(path):
        if isinstance(got, InputError):
            errors.append(got)
        else:
            rows.append(got[1])
    return PredictionsRead({}, errors, None, rows, WER_NOTE)


def _score_rows(path: Path) -> Iterator[tuple[int, dict[str, str], list[str] | None] | InputError]:
    file = str(path)
    for i, item in enumerate(_document(path, "details")["details"]):
        where = f"details[{i}]"
        got = _texts(item, ("reference", "model_prediction"), file, where)
        if isinstance(got, InputError):
            yield got
            continue
        choices = _choices(item, file, where)
        if isinstance(choices, InputError):
            yield choices
            continue
        yield (
            i,
            {**got, "question": str(item.get("question", "")), "task": str(item.get("task", ""))},
            choices,
        )


def choice_key(answer: str, choices: list[str]) -> str:
    """A multiple-choice item's text as a row names it: its answer, then its choices in the
    order of their compared texts (AudioBench's copy of a set may list them in another order)."""
    return " ".join([answer, *sorted(choices, key=canonical)])


def _row_text(texts: dict[str, str], choices: list[str] | None) -> str:
    if choices is None:
        return texts["reference"]
    return choice_key(texts["reference"][CHOICE_PREFIX:], choices)


def read_score_log(path: Path) -> PredictionsRead:
    """A score log's `details` as predictions: the model's raw answers, found by reference
    (a multiple-choice row: by its answer and choices)."""
    rows, errors = [], []
    for got in _score_rows(path):
        if isinstance(got, InputError):
            errors.append(got)
            continue
        i, texts, choices = got
        rows.append(
            UnkeyedRow(texts["model_prediction"], _row_text(texts, choices), field=f"details[{i}].reference")
        )
    return PredictionsRead({}, errors, None, rows)


def sample_keys(sample: Sample) -> Iterator[str]:
    """The texts of a sample a row may name: each reference as given and as AudioBench's
    English and Chinese chains normalise it; a multiple-choice sample's answer and choices."""
    refs = sample.get("reference")
    for ref in refs if isinstance(refs, list) else [refs]:
        if isinstance(ref, str):
            yield ref
            yield normalise(ref)
            yield normalise(ref, chinese=True)
    choices, answer = sample.get("choices"), sample.get("answer")
    if isinstance(choices, list) and isinstance(answer, str):
        yield choice_key(answer, [str(c) for c in choices])
    elif isinstance(answer, str):
        yield answer


def read_log_samples(asked: SourceRequest) -> tuple[list[Sample], list[InputError]]:
    """A log as the samples of a run (source type `audiobench_log`): one per row, ids from 1,
    in file order; a WER log's reference as written, a score log's question, reference or
    answer and choices, and its `task` as the breakdown group."""
    if asked.options:
        raise InputError("source type audiobench_log takes no options", field="source.options")
    if "sample_wer" in _either(asked.path):
        samples, errors = [], []
        for got in _wer_rows(asked.path):
            if isinstance(got, InputError):
                errors.append(got)
            else:
                samples.append(Sample(str(got[0] + 1), {}, {"reference": got[1].text}, {}, str(asked.path)))
    else:
        samples, errors = _score_samples(asked.path)
    return (samples[: asked.limit] if asked.limit is not None else samples), errors


def _either(path: Path) -> dict[str, Any]:
    """A log of either shape (a WER log when it holds `sample_wer`)."""
    doc = json_document(path) or read_json_document(path, "benchmark data")
    if not (is_wer_log(doc) or is_score_log(doc)):
        raise InputError("not an AudioBench log: no list sample_wer or details in it", file=str(path))
    return doc  # type: ignore[no-any-return]


class ScoreLogFields(TypedDict, total=False):
    """A score log row's Sample fields: its question, and its reference, or for a
    multiple-choice row its choices and answer (their `(A) ` prefixes cut)."""

    question: str
    reference: str
    choices: list[str]
    answer: str


def _score_samples(path: Path) -> tuple[list[Sample], list[InputError]]:
    samples, errors = [], []
    for got in _score_rows(path):
        if isinstance(got, InputError):
            errors.append(got)
            continue
        i, texts, choices = got
        fields = ScoreLogFields(question=texts["question"])
        if choices is None:
            fields["reference"] = texts["reference"]
        else:
            fields.update(choices=choices, answer=texts["reference"][CHOICE_PREFIX:])
        taxonomy = {"task": texts["task"]} if texts["task"] else {}
        samples.append(Sample(str(i + 1), {}, dict(fields), taxonomy, str(path)))
    return samples, errors
