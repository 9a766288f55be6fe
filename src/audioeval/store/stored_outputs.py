"""The model outputs a stored folder holds, by sample id: what a `replay:` model answers with,
read through the run folder's checked reader (`store/run_folder.py`) when the folder is a
run's pair folder, else line by line (`{"id", "output"}` lines, each checked)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.core.model_output import ModelOutput
from audioeval.store.bounded_json import loads
from audioeval.store.run_folder import (
    CUT_SHORT,
    RECORDS_FILE,
    RUN_FILE,
    RunFolderError,
    Unvouched,
    iter_lines,
    pair_run_id,
    read_pair,
)
from audioeval.store.signature import SIGNATURE_FILE


@dataclass
class StoredOutputs:
    """The model outputs a folder's records.jsonl holds, by sample id (what a replay answers),
    and the lines it cannot vouch for (their samples get no stored output)."""

    outputs: dict[str, ModelOutput] = field(default_factory=dict)
    lines: list[Unvouched] = field(default_factory=list)


def read_stored_outputs(folder: Path) -> StoredOutputs:
    """The outputs of a run's pair folder (read as `read_pair` reads it: signature.json
    beside the records, run.json two levels up), or of a folder of `{"id", "output"}` lines;
    RunFolderError when its files cannot be used."""
    path = folder / RECORDS_FILE
    if path.exists() and not path.is_file():
        raise RunFolderError([Unvouched(path, None, "is not a file")])
    if (folder / SIGNATURE_FILE).exists() or (folder.parent.parent / RUN_FILE).is_file():
        files = read_pair(folder, pair_run_id(folder)).usable()
        latest = {r.id: r for r in files.records}
        out = StoredOutputs(lines=files.lines)
        out.outputs = {sid: r.output for sid, r in latest.items() if r.output is not None and r.output.ok}
        return out
    return _plain_outputs(path) if path.is_file() else StoredOutputs()


def _plain_outputs(path: Path) -> StoredOutputs:
    out = StoredOutputs()
    seen: dict[str, tuple[int, Any]] = {}
    clashing: set[str] = set()
    for lineno, raw, complete in iter_lines(path):
        if not raw.strip():
            continue
        if not complete:
            out.lines.append(Unvouched(path, lineno, CUT_SHORT))
            break
        found, why = _plain_line(raw)
        if why is not None:
            out.lines.append(Unvouched(path, lineno, why, found[0] if found else None))
        if found is None or found[1] is None:
            continue
        sid, output = found
        key = (output.text, output.audio_path)
        if sid in seen and seen[sid][1] != key:
            out.lines.append(
                Unvouched(path, lineno, f"id {sid!r}: another output than line {seen[sid][0]}", sid)
            )
            clashing.add(sid)
        seen.setdefault(sid, (lineno, key))
        out.outputs.setdefault(sid, output)
    for sid in clashing:
        del out.outputs[sid]
    out.lines.sort(key=lambda p: p.line or 0)
    return out


def _plain_line(raw: bytes) -> tuple[tuple[str, ModelOutput | None] | None, str | None]:
    """A line `{"id", "output"}` as (id, output; None for a stored failure), or why not."""
    try:
        data = loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (byte {exc.start})"
    except (ValueError, RecursionError):
        return None, "not a JSON object (cut short or damaged)"
    if not isinstance(data, dict) or not isinstance(data.get("id"), str) or not data["id"]:
        return None, "not an object with a sample id"
    sid, output = data["id"], data.get("output")
    if not isinstance(output, dict):
        return (sid, None), f"id {sid!r}: output {output!r} is not a mapping"
    if output.get("error") is not None:
        return (sid, None), None  # a stored failure: no answer to replay
    try:
        return (sid, ModelOutput.from_record(output)), None
    except (KeyError, TypeError, ValueError) as exc:
        return (sid, None), f"id {sid!r}: not an output ({type(exc).__name__}: {exc})"
