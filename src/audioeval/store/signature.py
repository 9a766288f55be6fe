"""The run signature: every choice that moves a number, stored beside the results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from audioeval.core.errors import RunConfigError
from audioeval.store.atomic import write_json_atomic

SIGNATURE_FILE = "signature.json"


def check_or_write_signature(run_dir: str | Path, signature: dict[str, Any]) -> None:
    """Write the signature of a new run, or check a resumed run was made the same way.

    A run directory holding results made with other choices would mix incomparable numbers,
    so any difference is an error that names the fields.
    """
    path = Path(run_dir) / SIGNATURE_FILE
    if path.exists():
        stored = json.loads(path.read_text(encoding="utf-8"))
        diffs = [
            f"{k}: stored {stored.get(k)!r}, now {signature.get(k)!r}"
            for k in sorted(set(stored) | set(signature))
            if stored.get(k) != signature.get(k)
        ]
        if diffs:
            raise RunConfigError(
                f"{path} was written by a run with other settings ("
                + "; ".join(diffs)
                + "). Use a new --output_dir, or delete the old results to start over."
            )
        return
    write_json_atomic(path, signature)


def read_signature(run_dir: str | Path) -> dict[str, Any]:
    path = Path(run_dir) / SIGNATURE_FILE
    if not path.exists():
        raise RunConfigError(f"{path} not found: {run_dir} is not an audioeval run directory")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data
