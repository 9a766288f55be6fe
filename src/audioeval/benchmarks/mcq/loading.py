"""Validating MMAR / MMAU items: every error names the file, line, id and field.

A prediction key that is absent (or null) means "no prediction": the item is counted and
reported, never scored. Anything else that is not a string is bad input.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from audioeval.adapters.predictions import PredictionsRead
from audioeval.benchmarks.mcq.definitions import McqBenchmark, get_benchmark
from audioeval.core.errors import InputError
from audioeval.store.json_items import read_bytes, read_items


@dataclass(frozen=True, slots=True)
class McqItem:
    """One question with its (optional) prediction and breakdown groups."""

    id: str
    line: int
    choices: tuple[str, ...]
    answer: str
    prediction: str | None
    thinking: str | None
    groups: dict[str, str]
    record: dict[str, Any] = field(repr=False)


@dataclass(frozen=True)
class McqFile:
    """A validated file: its items in order, the key predictions were read from, its format."""

    path: Path
    items: list[McqItem]
    prediction_key: str | None
    jsonl: bool
    renamed: tuple[str, ...] = ()
    """An item whose id an earlier item has keeps its place under `ID#n`, one line each."""


def present_keys(records: list[Any], keys: tuple[str, ...]) -> list[str]:
    """The candidate keys that at least one item has, in the benchmark's order."""
    return [key for key in keys if any(isinstance(r, dict) and key in r for r in records)]


def resolve_prediction_key(records: list[Any], keys: tuple[str, ...], file: str | None = None) -> str | None:
    """The one candidate key the items have (None: none has any). Items holding several
    candidate keys are an error listing them: which one is the answer is the user's choice
    (`--prediction-key`), never a silent one."""
    found = present_keys(records, keys)
    if len(found) > 1:
        raise InputError(
            f"the items hold several candidate prediction keys ({', '.join(repr(k) for k in found)}): "
            "name the one holding the answer with --prediction-key (prediction_key in a run config)",
            file=file,
            field="prediction_key",
        )
    return found[0] if found else None


@dataclass(frozen=True, slots=True)
class _Place:
    """Where an item is: its file, line and (once read) id, for the error naming them."""

    file: str
    line: int
    sample_id: str | None = None

    def error(self, message: str, field: str | None = None) -> InputError:
        return InputError(message, field=field, file=self.file, line=self.line, sample_id=self.sample_id)


def _text(obj: dict[str, Any], name: str, where: _Place, *, nullable: bool = False) -> Any:
    if name not in obj:
        raise where.error("missing field", name)
    value = obj[name]
    if value is None and nullable:
        return None
    if not isinstance(value, str):
        raise where.error(f"expected a string, got {type(value).__name__}", name)
    return value


def _item(obj: Any, line: int, bench: McqBenchmark, key: str | None, file: str) -> McqItem:
    if not isinstance(obj, dict):
        raise _Place(file, line).error(f"item is a {type(obj).__name__}, not an object")
    sid = obj.get("id")
    if isinstance(sid, int) and not isinstance(sid, bool):
        sid = str(sid)
    if not isinstance(sid, str) or not sid:
        raise _Place(file, line).error("missing or non-string id", "id")
    where = _Place(file, line, sid)
    answer = _text(obj, "answer", where)
    choices = obj.get("choices")
    if "choices" not in obj:
        raise where.error("missing field", "choices")
    if not isinstance(choices, list) or not choices or not all(isinstance(c, str) for c in choices):
        raise where.error("expected a non-empty list of strings", "choices")
    prediction = _text(obj, key, where, nullable=True) if key and key in obj else None
    thinking = None
    if bench.thinking_key and bench.thinking_key in obj:
        thinking = _text(obj, bench.thinking_key, where, nullable=True)
    groups: dict[str, str] = {}
    for axis in bench.axes:
        if axis.field not in obj and not axis.required:
            continue
        value = _text(obj, axis.field, where, nullable=not axis.required)
        if value is not None:
            groups[axis.name] = value
    return McqItem(sid, line, tuple(choices), answer, prediction, thinking, groups, obj)


def load_mcq_file(
    path: str | Path,
    bench: McqBenchmark,
    *,
    prediction_key: str | None = None,
    require_predictions: bool = True,
) -> McqFile:
    """Read and validate a predictions (or metadata) file; the first bad item is an error.

    The same bytes read the same way again in this process (`mcq score` reads the file as
    its items and as its model's answers) are not parsed again: the bytes kept from the
    last parse are compared (a memcmp, a fifth of the time a SHA-256 of them takes)."""
    what = "predictions" if require_predictions else "metadata"
    raw = read_bytes(path, what)
    key = (Path(path).suffix.lower(), bench.name, prediction_key, require_predictions)
    hit = _last.get(key)
    if hit is not None and hit[0] == raw:
        return replace(hit[1], path=Path(path))
    loaded = _load(path, raw, bench, prediction_key=prediction_key, require_predictions=require_predictions)
    _last.clear()  # the last file only, under the key asked and the key it resolved to
    _last[key] = _last[(*key[:2], loaded.prediction_key, require_predictions)] = (raw, loaded)
    return loaded


_last: dict[tuple[Any, ...], tuple[bytes, McqFile]] = {}


def _load(
    path: str | Path,
    raw: bytes,
    bench: McqBenchmark,
    *,
    prediction_key: str | None,
    require_predictions: bool,
) -> McqFile:
    file = str(path)
    pairs, jsonl = read_items(path, "predictions" if require_predictions else "metadata", raw)
    key = prediction_key
    if key is None and require_predictions:
        key = resolve_prediction_key([o for o, _ in pairs], bench.prediction_keys, file)
    elif key is None:  # metadata: no answer is scored from it
        key = next(iter(present_keys([o for o, _ in pairs], bench.prediction_keys)), None)
    if require_predictions and key is None:
        raise InputError(
            f"no item has a prediction under {' or '.join(repr(k) for k in bench.prediction_keys)}"
            " (use --prediction-key to name another key)",
            file=file,
        )
    if (
        require_predictions
        and prediction_key
        and not any(isinstance(o, dict) and prediction_key in o for o, _ in pairs)
    ):
        raise InputError(f"no item has the prediction key {prediction_key!r}", file=file)
    items: list[McqItem] = []
    seen: dict[str, list[int]] = {}
    renamed: list[str] = []
    for obj, line in pairs:
        item = _item(obj, line, bench, key, file)
        lines = seen.setdefault(item.id, [])
        lines.append(line)
        if len(lines) > 1:  # the official script scores every item of the file: both count
            new_id = _free_id(item.id, len(lines), seen)
            renamed.append(
                f"{file}:{line}: id {item.id!r} again (first at line {lines[0]}): scored as {new_id!r}, "
                "as the official script scores every item"
            )
            seen[new_id] = [line]
            item = replace(item, id=new_id)
        items.append(item)
    if not items:
        raise InputError("file holds no items", file=file)
    return McqFile(Path(path), items, key, jsonl, tuple(renamed))


def _free_id(sid: str, n: int, seen: dict[str, list[int]]) -> str:
    """The id an item takes whose id an earlier item has: `ID#n` (n its occurrence), one no
    item has."""
    new = f"{sid}#{n}"
    while new in seen:
        n += 1
        new = f"{sid}#{n}"
    return new


def answers_by_id(benchmark: str, key: str | None) -> Callable[[Path], PredictionsRead]:
    """The reader of each id's answer text in an MMAR / MMAU predictions file (the
    `predictions:` model of `mcq score` and `run`); `key` the prediction key (None: the one
    candidate key of the benchmark that the items hold; several are an error)."""

    def load(path: Path) -> PredictionsRead:
        file = load_mcq_file(path, get_benchmark(benchmark), prediction_key=key)
        answers = {item.id: item.prediction for item in file.items if item.prediction is not None}
        return PredictionsRead(answers, [], file.prediction_key)

    return load
