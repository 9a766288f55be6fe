"""Reading a JSON object or list that a command wrote (a summary, run.json, a pair's
sample_ids.json): one error wording."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.core.errors import RunConfigError
from audioeval.core.json_value import JsonValue
from audioeval.store.bounded_json import loads


def _read_json(path: Path, kind: type, what: str) -> Any:
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunConfigError(f"{path}: cannot be read ({exc})") from None
    if not isinstance(data, kind):
        raise RunConfigError(f"{path}: expected {what}")
    return data


def read_json_object(path: Path) -> dict[str, JsonValue]:
    """The object in `path`; RunConfigError naming the file when it cannot be read or is not
    a JSON object."""
    data: dict[str, JsonValue] = _read_json(path, dict, "a JSON object")
    return data


def read_sample_ids(path: Path) -> list[str]:
    """The sample ids a command listed in `path` (a pair's sample_ids.json), in order;
    RunConfigError naming the file when it cannot be read or is not a JSON list."""
    return [str(i) for i in _read_json(path, list, "a JSON list of sample ids")]
