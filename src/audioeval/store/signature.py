"""The run signature: every choice that moves a number, stored beside the results."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from audioeval.core.errors import RunConfigError
from audioeval.core.json_value import JsonValue
from audioeval.store.atomic import write_json_atomic
from audioeval.store.json_file import read_json_object

SIGNATURE_FILE = "signature.json"


def _shown(key: str, value: Any) -> str:
    """A value for the message: content hashes cut to 12 characters."""
    if key.endswith(("sha256", "digest")) and isinstance(value, str) and len(value) > 12:
        return repr(value[:12] + "…")
    return repr(value)


def signature_diffs(stored: Any, now: Any, prefix: str = "") -> list[str]:
    """Each differing field as `a.b: stored X, now Y` (nested mappings compared key by key)."""
    if isinstance(stored, dict) and isinstance(now, dict):
        out: list[str] = []
        for k in sorted(set(stored) | set(now)):
            out += signature_diffs(stored.get(k), now.get(k), f"{prefix}{k}.")
        return out
    if stored == now:
        return []
    name = prefix.rstrip(".")
    last = name.rsplit(".", 1)[-1]
    if stored is None:
        return [f"{name}: not recorded by the earlier run, now {_shown(last, now)}"]
    return [f"{name}: stored {_shown(last, stored)}, now {_shown(last, now)}"]


def check_or_write_signature(run_dir: str | Path, signature: Mapping[str, JsonValue]) -> None:
    """Write the signature of a new run, or check a resumed run was made the same way.

    A run directory holding results made with other choices, or from other inputs (content
    hashes of predictions, metadata and audio), would mix incomparable numbers, so any
    difference is an error that names the fields.
    """
    path = Path(run_dir) / SIGNATURE_FILE
    if path.exists():
        stored = read_json_object(path)
        diffs = signature_diffs(stored, signature)
        if diffs:
            raise RunConfigError(
                f"{path} was written by a run with other settings or inputs ("
                + "; ".join(diffs)
                + "). Use a new --output_dir, or delete the old results to start over."
            )
        return
    write_json_atomic(path, signature)
