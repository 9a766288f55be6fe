"""Reading a JSON object that a command wrote (a summary, run.json): one error wording."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from audioeval.core.errors import RunConfigError


def read_json_object(path: Path) -> dict[str, Any]:
    """The object in `path`; RunConfigError naming the file when it cannot be read or is not
    a JSON object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunConfigError(f"{path}: cannot be read ({exc})") from None
    if not isinstance(data, dict):
        raise RunConfigError(f"{path}: expected a JSON object")
    return data
