"""Every figure of the golden runs, keyed by file and JSON path.

A figure is a number, a boolean or a null found in a run folder's JSON files (`summary.json`
at the top and per pair, the benchmark exporters' files), in `leaderboard.json`, and in the
report's data (the JSON the page embeds, `<script type="application/json">`, and its
sample chunks `report/samples/*.js`), and in the report's data also a number as the page shows
it (`"50.00 %"`). Other strings are not figures (names, ids, paths, messages).

Keys are `FILE::PATH`: FILE relative to the golden root (`runs/<run>/…`,
`leaderboards/<run>/leaderboard.json`); PATH a JSON path in which an element of a list of
objects is named by the fields that tell the elements apart (`results[benchmark=mmar,
model=predictions]`), so that a file written in another order gives the same keys; a JSONL
file's lines are a list. Volatile values are left out: times and durations, timestamps,
versions, absolute paths, and what depends on the machine (`VOLATILE_KEYS`,
`VOLATILE_FILES`).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

Figure = bool | int | float | None

SKIPPED_FILES = {
    "records.jsonl",  # the engine's store (raw outputs, judge answers): read by every file below
    "signature.json",  # the settings that moved the figures, not figures
    "run.json",  # the run's settings
    "sample_ids.json",  # which samples a pair holds (ids: strings)
}
VOLATILE_KEYS = re.compile(
    r"(^|_)(s|ms|sec|seconds|time|elapsed|duration|wall|busy|latency|started|finished|created|"
    r"timestamp|date|version|pid|rss|mb|audio_seconds|real_time|x_real_time|rtf|throughput)$"
    r"|^(audioeval_version|audioeval|endpoints|endpoint|metric_models|work|timings|cache_hits|cached|judge_calls)$"
)
"""Keys whose value is a time, a version or the machine's work, at any depth (the whole
subtree below them is left out)."""
VOLATILE_FILES = re.compile(r"(^|/)(judge_cache\.sqlite|\.audioeval\.lock|leaderboard\.md|[^/]*\.wav)$")
IDENTITY_KEYS: tuple[tuple[str, ...], ...] = (
    ("id", "rubric_index"),
    ("id",),
    ("uuid",),
    ("benchmark", "model"),
    ("model",),
    ("key",),
    ("name",),
    ("attempt",),
)
"""Fields that name an element of a list of objects, tried in this order: the first set
every element has, with scalar values, distinct across the elements."""


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, str | int | float | bool)


def element_names(items: list[Any]) -> list[str] | None:
    """Each element's name (`a=x,b=y`) by the first `IDENTITY_KEYS` that tell them apart."""
    if not items or not all(isinstance(x, dict) for x in items):
        return None
    for keys in IDENTITY_KEYS:
        if all(all(k in x and _is_scalar(x[k]) for k in keys) for x in items):
            names = [",".join(f"{k}={x[k]}" for k in keys) for x in items]
            if len(set(names)) == len(names):
                return names
    return None


SHOWN_NUMBER = re.compile(r"^[-−]?\d+(\.\d+)?( ?%)?$")
"""A number as the report shows it (`50.00 %`, `0.65`): a figure of the report's data."""


def walk(value: Any, path: str = "$", shown: bool = False) -> Iterator[tuple[str, Figure | str]]:
    """Every figure below `value` with its JSON path (with `shown`, numbers written as text
    too)."""
    if isinstance(value, dict):
        for key, sub in value.items():
            if VOLATILE_KEYS.search(str(key)):
                continue
            yield from walk(sub, f"{path}.{key}", shown)
    elif isinstance(value, list):
        names = element_names(value)
        for i, sub in enumerate(value):
            yield from walk(sub, f"{path}[{names[i] if names else i}]", shown)
    elif isinstance(value, str):
        if shown and SHOWN_NUMBER.match(value):
            yield path, value
    elif value is None or isinstance(value, bool | int | float):
        if isinstance(value, float) and not math.isfinite(value):
            yield path, str(value)  # type: ignore[misc]  # NaN and inf as text, compared exactly
        else:
            yield path, value


class _ScriptJson(HTMLParser):
    """The `<script type="application/json" id=…>` blocks of a page, by id."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks: dict[str, str] = {}
        self._id: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "script" and a.get("type") == "application/json":
            self._id = a.get("id") or f"script{len(self.blocks)}"
            self.blocks[self._id] = ""

    def handle_data(self, data: str) -> None:
        if self._id is not None:
            self.blocks[self._id] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._id = None


def page_data(page: Path) -> dict[str, Any]:
    """The JSON a page embeds, by its script element's id."""
    parser = _ScriptJson()
    parser.feed(page.read_text(encoding="utf-8"))
    return {key: json.loads(text) for key, text in parser.blocks.items()}


CHUNK_RE = re.compile(r"^aeChunk\((\d+),(\d+),(.*)\);\s*$", re.S)


def chunk_data(path: Path) -> Any:
    """The samples a report chunk file hands to the page (`aeChunk(pair, chunk, [...])`)."""
    match = CHUNK_RE.match(path.read_text(encoding="utf-8"))
    assert match, f"{path}: not a sample chunk of the report"
    return json.loads(match.group(3))


def read_file(path: Path) -> Any | None:
    """A file's data, or None when it holds no figures."""
    if path.suffix == ".json":
        return json.loads(path.read_text(encoding="utf-8"))
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if path.suffix == ".html" and path.parent.name == "report":
        return page_data(path)
    if path.suffix == ".js" and path.parent.name == "samples":
        return chunk_data(path)
    return None


def figure_files(root: Path) -> list[Path]:
    """The files figures are read from, under the golden root."""
    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or rel.split("/")[1].endswith(".data") or VOLATILE_FILES.search(rel):
            continue
        if path.name in SKIPPED_FILES or (path.suffix == ".html" and path.parent.name != "report"):
            continue
        if path.parent.parent.name == "report" and path.parent.name != "samples":
            continue  # the report's copies of clips
        if rel.startswith("runs/") and "/" not in rel[len("runs/") :]:
            continue  # inputs written beside the run folders (predictions files)
        out.append(path)
    return out


def collect(root: Path) -> dict[str, dict[str, Figure | str]]:
    """Every figure under the golden root: FILE -> PATH -> value."""
    figures: dict[str, dict[str, Figure | str]] = {}
    for path in figure_files(root):
        data = read_file(path)
        if data is None:
            continue
        rel = path.relative_to(root).as_posix()
        shown = "/report/" in rel
        figures[rel] = dict(walk(data, shown=shown))
    return figures


def flat(figures: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """`FILE::PATH` -> value."""
    return {f"{file}::{path}": value for file, paths in figures.items() for path, value in paths.items()}


def same(before: Figure, after: Figure, rel_tol: float = 1e-9) -> bool:
    """Equal figures: numbers within `rel_tol` (relative), anything else exactly (a bool is
    not a number here)."""
    numbers = (int, float)
    if isinstance(before, bool) or isinstance(after, bool):
        return before is after
    if isinstance(before, numbers) and isinstance(after, numbers):
        return math.isclose(before, after, rel_tol=rel_tol, abs_tol=0.0) or before == after
    return before == after
