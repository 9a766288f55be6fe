"""Predictions files produced elsewhere, by format: how a `predictions:FILE` model reads the
output of each id.

One format is generic: `text`, a file of `{"id", "text"}` items, answering every task with
text output (`sources/text_predictions.py`). Every other format is contributed by a benchmark
through its `Benchmark` (`contract.py`, field `prediction_formats`), by name, exactly as a
package installed beside audioeval contributes one; `benchmarks/plugins.py` registers it
here, and `audioeval list` names them all.

A format is declared, never guessed: `predictions_format: NAME` (`--predictions-format` on
`run`) names it; `auto` (the default) takes the one format whose `matches` accepts the file's
first item, says which, and is an error naming the file when none or several do. A missing or
unreadable file is an error naming it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from audioeval.adapters.predictions import PredictionsLoader, PredictionsRead
from audioeval.adapters.unkeyed_rows import SampleKeys, UnkeyedRow
from audioeval.benchmarks.tasks import TASKS
from audioeval.core.errors import InputError
from audioeval.core.registry import Registry
from audioeval.store.bounded_json import loads
from audioeval.store.json_items import read_items
from audioeval.store.text_input import read_text_input

Loader = PredictionsLoader

MATCHED_BY_ID = "by id"
"""The matching rule of every format whose items carry the sample's id."""


@dataclass(frozen=True)
class PredictionFormat:
    """`reader(key)` gives the parser of a file (`key`: the prediction key given, where the
    format has several candidate keys; the parser refuses a file holding several of them
    when none is given); `output` is what each id's entry is; `tasks` the tasks it answers;
    `matches(path)` whether the file is of this format (`auto`; `json_items` makes one from a
    test of a JSON file's first item);
    `expects` says in a few words what an item holds; `matching` how items find their
    samples (by id, or for a file without ids the rule of `adapters/unkeyed_rows.py`)."""

    reader: Callable[[str | None], Loader]
    output: Literal["audio", "text"]
    tasks: frozenset[str]
    matches: Callable[[Path], bool]
    expects: str
    matching: str = MATCHED_BY_ID
    sample_keys: SampleKeys | None = None
    """For a format whose items carry no id: the texts of a sample an item may name
    (`adapters/unkeyed_rows.py`; `matching` then states that rule)."""


def _text(key: str | None) -> Loader:
    from audioeval.benchmarks.sources.text_predictions import text_predictions_by_id

    if key not in (None, "text"):
        raise InputError(f"the text format reads the key 'text', not {key!r}", field="prediction_key")

    def read(path: Path) -> PredictionsRead:
        texts, errors = text_predictions_by_id(path)
        return PredictionsRead(texts, errors, "text")

    return read


def _is_text_item(item: Any) -> bool:
    return isinstance(item, dict) and "id" in item and "text" in item


@dataclass(frozen=True)
class ChosenFormat:
    """The format a predictions file is read as, and how it was chosen."""

    name: str
    format: PredictionFormat
    how: str
    """`named` (given by the user or the command), `auto` (the one format matching the file) or
    `own` (the command's own format, for a file that matches none: its reader says why)."""


def format_names() -> list[str]:
    """Every registered format (those of the loaded benchmarks included: the engine loads them
    first, `plugins.load_benchmarks()`; this module sits below the benchmarks), after `auto`."""
    return ["auto", *PREDICTION_FORMATS.names()]


def _readable(path: Path) -> None:
    """InputError naming the file when it is missing, a folder or unreadable."""
    if not path.is_file():
        why = "is a folder, not a file" if path.is_dir() else "not found"
        raise InputError(f"predictions file {why}", file=str(path))
    try:
        with path.open("rb") as f:
            f.read(1)
    except OSError as exc:
        raise InputError(f"predictions file unreadable: {exc.strerror or exc}", file=str(path)) from None


_first: dict[tuple[str, int, int], Any] = {}


def first_json_item(path: Path) -> Any:
    """The first item of a JSON list or JSONL file (from its first line when that holds a
    whole object, else from the whole file), or None when it holds none or is not JSON; read
    once per file version for all the formats that ask."""
    try:
        st = path.stat()
    except OSError:
        return None
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _first:
        _first.clear()
        _first[key] = _read_first(path)
    return _first[key]


def _read_first(path: Path) -> Any:
    try:
        with path.open("rb") as f:
            head = f.readline(1 << 20).decode("utf-8-sig").strip()
        if head.startswith("{"):
            return loads(head)
    except (OSError, ValueError):
        pass  # an object over several lines, or not JSON lines: read as a whole below
    try:
        items, _ = read_items(path, "predictions")
    except InputError:
        return None
    return items[0][0] if items else None


def json_items(matches: Callable[[Any], bool]) -> Callable[[Path], bool]:
    """The `matches` of a format of JSON items, from a test of its first item."""
    return lambda path: matches(first_json_item(path))


_document: dict[tuple[str, int, int], Any] = {}


def json_document(path: Path, what: str = "predictions") -> Any:
    """The JSON value of a whole file that holds one object (a tool's log), parsed through the
    bounded reader once per file version; None when the file holds no single JSON object."""
    try:
        st = path.stat()
        with path.open("rb") as f:
            if f.read(64).removeprefix(b"\xef\xbb\xbf").lstrip()[:1] != b"{":
                return None
    except OSError:
        return None
    key = (str(path), st.st_mtime_ns, st.st_size)
    if key not in _document:
        _document.clear()
        try:
            _document[key] = loads(read_text_input(path, what))
        except (InputError, ValueError):
            _document[key] = None
    return _document[key]


def read_json_document(path: Path, what: str = "predictions") -> Any:
    """The JSON value of a whole file through the bounded reader; InputError naming the file
    and line when it is not JSON (or nested too deep)."""
    import json

    text = read_text_input(path, what)
    try:
        return loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":  # JSON lines: each line's own error, else that it is no one value
            read_items(path, what)
            raise InputError("holds JSON lines, not one JSON value", file=str(path)) from None
        raise InputError(f"malformed JSON ({exc.msg} at column {exc.colno})", file=str(path), line=exc.lineno) from None


def json_object(matches: Callable[[Any], bool]) -> Callable[[Path], bool]:
    """The `matches` of a format whose file is one JSON object, from a test of that object."""
    return lambda path: matches(json_document(path))


RowReader = Callable[[dict[str, Any], str, int], "UnkeyedRow | InputError | None"]
"""(item, file, line) -> its row, an error naming it, or None (an item that is no output)."""


def unkeyed_rows(
    path: Path, read_row: RowReader, row_id: str | None = None
) -> tuple[list[UnkeyedRow], list[InputError]]:
    """The rows without sample ids of a JSON list or JSONL file, each item read by `read_row`;
    an item that is not an object is an error naming its line. `row_id`: the field in which the
    tool numbers its rows (lmms-eval's `doc_id`): a row whose number an earlier row has is an
    error naming both lines, the first kept, never handed to another sample of equal text."""
    file = str(path)
    items, _ = read_items(path, "predictions")
    rows: list[UnkeyedRow] = []
    errors: list[InputError] = []
    first: dict[str, int] = {}
    for obj, line in items:
        got = (
            read_row(obj, file, line)
            if isinstance(obj, dict)
            else InputError(f"an item must be an object, got {type(obj).__name__}", file=file, line=line)
        )
        if isinstance(got, UnkeyedRow) and row_id is not None and obj.get(row_id) is not None:
            number = json.dumps(obj[row_id])
            if number in first:
                got = InputError(
                    f"{row_id} {obj.get(row_id)!r} repeated (first on line {first[number]}); the first is kept",
                    file=file,
                    line=line,
                    field=row_id,
                )
            else:
                first[number] = line
        if isinstance(got, InputError):
            errors.append(got)
        elif got is not None:
            rows.append(got)
    return rows, errors


TEXT_TASKS = frozenset(name for name, task in TASKS.items() if task.output == "text")

PREDICTION_FORMATS: Registry[PredictionFormat] = Registry(
    "predictions format",
    [
        (
            "text",
            PredictionFormat(_text, "text", TEXT_TASKS, json_items(_is_text_item), '{"id", "text"} items'),
        )
    ],
)


def format_of(name: str, path: Path, own: str | None = None) -> ChosenFormat:
    """The format named, or (`auto`) the one registered format that matches the file (the
    benchmarks loaded, as for `format_names`). `own`: the format of a command's own files
    (`mcq score`: the benchmark's), taken under `auto` when the file matches no format, so
    that its reader says what the file lacks (how `own`)."""
    _readable(path)  # a missing or unreadable file is named before anything runs
    if name != "auto":
        return ChosenFormat(name, PREDICTION_FORMATS.get(name, field="predictions_format"), "named")
    found = [(n, f) for n, f in PREDICTION_FORMATS.items() if f.matches(path)]
    if len(found) == 1:
        return ChosenFormat(found[0][0], found[0][1], "auto")
    if not found and own is not None:
        return ChosenFormat(own, PREDICTION_FORMATS.get(own, field="predictions_format"), "own")
    every = "; ".join(f"{n}: {f.expects}" for n, f in PREDICTION_FORMATS.items())
    if not found:
        item = first_json_item(path)
        held = f" (its first item has the keys {sorted(item)})" if isinstance(item, dict) else ""
        raise InputError(
            f"the predictions file{held} matches no predictions format ({every})",
            file=str(path),
            field="predictions_format",
        )
    names = ", ".join(n for n, _ in found)
    raise InputError(
        f"the predictions file matches several predictions formats ({names}): name one with "
        "--predictions-format (predictions_format in a run config)",
        file=str(path),
        field="predictions_format",
    )

