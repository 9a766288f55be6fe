"""Reading and validating MMAE metadata and predictions.

A malformed file is a fatal error. A malformed sample is reported (file, id, field) and
skipped; the rest of the run goes on.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from audioeval.benchmarks.mmae.records import MmaePrediction, MmaeSample
from audioeval.benchmarks.mmae.rubric_votes import McqRubric
from audioeval.core.audio_path import audio_path_problem, root_escape_problem
from audioeval.core.errors import InputError
from audioeval.core.shorten import shorten
from audioeval.judge.audio_refs import find_mentions
from audioeval.store.bounded_json import loads
from audioeval.store.text_input import read_text_input, text_lines

Item = TypeVar("Item", MmaeSample, MmaePrediction)

_INPUT_LABEL_PREFIX = "input"
MAX_OPTIONS = 26


def read_json_records(path: str | Path, what: str) -> list[Any]:
    """A JSON list, or JSONL with one object per line; errors name the file (and line)."""
    p = Path(path)
    text = read_text_input(p, what)
    if p.suffix == ".jsonl":
        out = []
        for lineno, line in enumerate(text_lines(text), start=1):
            if not line.strip():
                continue
            try:
                out.append(loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(f"malformed JSON line ({exc.msg})", file=str(p), line=lineno) from exc
        return out
    try:
        data = loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON ({exc.msg} at line {exc.lineno} column {exc.colno})", file=str(p)
        ) from exc
    if not isinstance(data, list):
        raise InputError(f"{what} must be a JSON list of objects, got {type(data).__name__}", file=str(p))
    return data


def _field(obj: dict[str, Any], name: str, kind: type | tuple[type, ...], file: str, sid: str | None) -> Any:
    if name not in obj:
        raise InputError("missing field", file=file, sample_id=sid, field=name)
    value = obj[name]
    if not isinstance(value, kind):
        expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise InputError(
            f"expected {expected}, got {type(value).__name__}", file=file, sample_id=sid, field=name
        )
    return value


def _audio_parts(messages: list[Any], role: str, file: str, sid: str) -> list[str]:
    paths: list[str] = []
    for mi, msg in enumerate(messages):
        if not isinstance(msg, dict):
            raise InputError("message is not an object", file=file, sample_id=sid, field=f"messages[{mi}]")
        if msg.get("role") != role:
            continue
        content = msg.get("content")
        if not isinstance(content, list):
            if role == "assistant":
                raise InputError(
                    "assistant content must be a list of parts",
                    file=file,
                    sample_id=sid,
                    field=f"messages[{mi}].content",
                )
            continue
        for pi, part in enumerate(content):
            if isinstance(part, dict) and part.get("type") == "audio":
                url = part.get("audio_url")
                if isinstance(url, dict):
                    url = url.get("url")
                where = f"messages[{mi}].content[{pi}].audio_url"
                if not isinstance(url, str) or not url:
                    raise InputError("audio part without a path", file=file, sample_id=sid, field=where)
                problem = audio_path_problem(url) or root_escape_problem(url.removeprefix("file://"))
                if problem:
                    raise InputError(problem, file=file, sample_id=sid, field=where)
                paths.append(url.removeprefix("file://"))
    return paths


def _rubric(obj: Any, index: int, n_inputs: int, file: str, sid: str) -> McqRubric:
    where = f"rubrics[{index}]"
    if not isinstance(obj, dict):
        raise InputError("rubric is not an object", file=file, sample_id=sid, field=where)
    try:
        category = _field(obj, "category", str, file, sid)
        question = _field(obj, "question", str, file, sid)
        right = _field(obj, "right_choice", str, file, sid)
        wrong = _field(obj, "wrong_choices", list, file, sid)
    except InputError as exc:
        raise InputError(exc.message, file=file, sample_id=sid, field=f"{where}.{exc.field}") from None
    if not wrong or not all(isinstance(w, str) for w in wrong):
        raise InputError(
            "must be a non-empty list of strings", file=file, sample_id=sid, field=f"{where}.wrong_choices"
        )
    problem = rubric_problem(question, right, wrong)
    if problem:
        raise InputError(problem[0], file=file, sample_id=sid, field=f"{where}.{problem[1]}")
    try:
        mentions = find_mentions(question)
    except ValueError as exc:
        raise InputError(str(exc), file=file, sample_id=sid, field=f"{where}.question") from None
    if not mentions:
        raise InputError(
            "question references no audio (<audio output>, <audio input1>, …)",
            file=file,
            sample_id=sid,
            field=f"{where}.question",
        )
    for m in mentions:
        if not valid_label(m.label, n_inputs):
            raise InputError(
                f"{m.text} names no clip of this sample (it has output and input1..input{n_inputs})",
                file=file,
                sample_id=sid,
                field=f"{where}.question",
            )
    check = _check(obj, where, n_inputs, file, sid) if "check" in obj else None
    return McqRubric(category, question, right, tuple(wrong), check)


def _check(obj: dict[str, Any], where: str, n_inputs: int, file: str, sid: str) -> str:
    """A rubric's declared `check` (`judge/checkable.py`), parsed now: a bad expression, or
    one measuring a clip the sample does not have, is an error naming file, sample and field."""
    from audioeval.judge.checkable import ClipArg, parse_check  # the verifiers load numpy: only when used

    field = f"{where}.check"
    text = obj["check"]
    if not isinstance(text, str) or not text.strip():
        raise InputError(
            f"must be a non-empty check expression, not {shorten(text)}", file=file, sample_id=sid, field=field
        )
    try:
        parsed = parse_check(text)
    except ValueError as exc:
        raise InputError(str(exc), file=file, sample_id=sid, field=field) from None
    for clip in (parsed.clip, *(a for a in parsed.args if isinstance(a, ClipArg))):
        if not valid_label(clip.label, n_inputs):
            raise InputError(
                f"check {text!r} measures {clip.label!r}, no clip of this sample"
                f" (it has output and input1..input{n_inputs})",
                file=file,
                sample_id=sid,
                field=field,
            )
    return text


def _same(text: str) -> str:
    """What two options are compared on: case and runs of white space do not tell them apart
    for a judge, so they do not here."""
    return " ".join(text.split()).casefold()


def rubric_problem(question: str, right: str, wrong: list[str]) -> tuple[str, str] | None:
    """(message, field) of the first defect of a rubric's question and options, or None.

    The options must be distinct (a right choice repeated among the wrong ones makes a vote
    for it count as wrong), non-empty, and at most 26, lettered A-Z.
    """
    if not question.strip():
        return "empty question", "question"
    if not right.strip():
        return "empty right choice", "right_choice"
    n_options = 1 + len(wrong)
    if n_options > MAX_OPTIONS:
        return f"{n_options} options in all: at most {MAX_OPTIONS} can be lettered A-Z", "wrong_choices"
    seen = {_same(right): "the right choice"}
    for i, choice in enumerate(wrong):
        if not choice.strip():
            return f"wrong choice {i} is empty", "wrong_choices"
        key = _same(choice)
        if key in seen:
            return f"wrong choice {i} {shorten(choice)} repeats {seen[key]}", "wrong_choices"
        seen[key] = f"wrong choice {i}"
    return None


def valid_label(label: str, n_inputs: int) -> bool:
    if label == "output":
        return True
    if label.startswith(_INPUT_LABEL_PREFIX):
        num = label[len(_INPUT_LABEL_PREFIX) :]
        return (num == "" and n_inputs >= 1) or (num.isdigit() and 1 <= int(num) <= n_inputs)
    return False


def _sample(obj: Any, index: int, file: str) -> MmaeSample:
    if not isinstance(obj, dict):
        raise InputError(f"item {index} is not an object", file=file)
    sid = obj.get("id")
    if not isinstance(sid, str) or not sid:
        raise InputError(f"item {index} has no string id (got {shorten(sid)})", file=file, field="id")
    complexity = _field(obj, "complexity", str, file, sid)
    modality = _field(obj, "modality", str, file, sid)
    granularity = _field(obj, "granularity", list, file, sid)
    operations = _field(obj, "operations", list, file, sid)
    messages = _field(obj, "messages", list, file, sid)
    rubrics = _field(obj, "rubrics", list, file, sid)
    ops: list[tuple[str, str]] = []
    for oi, op in enumerate(operations):
        if not isinstance(op, dict) or not isinstance(op.get("operation"), str):
            raise InputError(
                "expected {granularity, operation}", file=file, sample_id=sid, field=f"operations[{oi}]"
            )
        ops.append((str(op.get("granularity", "")), op["operation"]))
    inputs = _audio_parts(messages, "user", file, sid)
    if not rubrics:
        raise InputError("sample has no rubrics", file=file, sample_id=sid, field="rubrics")
    parsed = tuple(_rubric(r, i, len(inputs), file, sid) for i, r in enumerate(rubrics))
    return MmaeSample(
        sid, complexity, modality, tuple(str(g) for g in granularity), tuple(ops), tuple(inputs), parsed
    )


def _load_by_id(
    path: str | Path, what: str, parse: Callable[[Any, int, str], Item], records: list[Any] | None = None
) -> tuple[dict[str, Item], list[InputError]]:
    """The items of a metadata or predictions file by id, plus the errors of those skipped
    (unreadable, or a repeated id: the first one is kept); `records`: the file's records when
    the caller has read them already."""
    file = str(path)
    items: dict[str, Item] = {}
    errors: list[InputError] = []
    for i, obj in enumerate(read_json_records(path, what) if records is None else records):
        try:
            item = parse(obj, i, file)
        except InputError as exc:
            errors.append(exc)
            continue
        if item.id in items:
            message = f"duplicate id in {what}; the first one is kept"
            errors.append(InputError(message, file=file, sample_id=item.id, field="id"))
            continue
        items[item.id] = item
    return items, errors


def load_metadata(
    path: str | Path, records: list[Any] | None = None
) -> tuple[dict[str, MmaeSample], list[InputError]]:
    """Samples by id, plus the errors of samples that were skipped (`records`: the file's
    records, `read_json_records(path, "metadata")`, when the caller has read them)."""
    return _load_by_id(path, "metadata", _sample, records)


def _prediction(obj: Any, index: int, file: str) -> MmaePrediction:
    if not isinstance(obj, dict):
        raise InputError(f"item {index} is not an object", file=file)
    sid = obj.get("id")
    if not isinstance(sid, str) or not sid:
        raise InputError(f"item {index} has no string id (got {shorten(sid)})", file=file, field="id")
    messages = _field(obj, "messages", list, file, sid)
    outputs = _audio_parts(messages, "assistant", file, sid)
    if not outputs:
        raise InputError(
            "no assistant turn with an audio part (the edited audio)",
            file=file,
            sample_id=sid,
            field="messages",
        )
    return MmaePrediction(sid, outputs[-1], tuple(_audio_parts(messages, "user", file, sid)))


def load_predictions(path: str | Path) -> tuple[dict[str, MmaePrediction], list[InputError]]:
    return _load_by_id(path, "predictions", _prediction)


def resolve_path(path: str, audio_root: Path) -> Path:
    """An audio path of the metadata or predictions: absolute, or relative to the audio root."""
    p = Path(path).expanduser()
    return p if p.is_absolute() else audio_root / p


def edited_audio_by_id(path: Path) -> tuple[dict[str, str], list[InputError]]:
    """Each id's edited audio in a predictions file, and the items that could not be read (the
    `predictions:` model of `mmae score`)."""
    preds, errors = load_predictions(path)
    return {sid: p.output_audio for sid, p in preds.items()}, errors
