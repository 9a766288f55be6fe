"""Where `rescore --profile P RUN` (or `rescore --output OUT RUN`) writes: a new run folder,
the sibling `RUN-P` unless `--output` names one, so the original stays as it was.

The new folder is a copy of the run (its response cache, report and lock left out; output
audio linked, not copied) scored again. While it is being written it holds `PARTIAL_FILE`,
and every reader refuses it (`store/run_folder.read_run_file`); the original is never
touched, so a rescore stopped half-way blocks nothing but itself, and running it again
starts the copy over. Its run.json records where it came from (`rescored_from`: the
original's path and run id, a digest of the original's files and the settings asked): the
same command again finds the same origin and writes nothing.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from pathlib import Path

from audioeval.core.errors import InputError, RunConfigError
from audioeval.core.json_value import JsonValue
from audioeval.engine.run_layout import CACHE_FILE
from audioeval.store.atomic import write_json_atomic
from audioeval.store.file_digest import file_sha256, json_digest
from audioeval.store.json_file import read_json_object
from audioeval.store.run_folder import (
    IDS_FILE,
    PARTIAL_FILE,
    RECORDS_FILE,
    RUN_FILE,
    SIGNATURE_FILE,
    read_run_file,
    run_id_of,
)
from audioeval.store.run_lock import LOCK_FILE

ORIGIN_KEY = "rescored_from"
LEFT_OUT = (LOCK_FILE, "report", f"{CACHE_FILE}*", ".*.tmp", PARTIAL_FILE)
"""What the copy leaves out: the lock, the HTML report, the response cache, partial writes."""


def target_folder(run_dir: Path, profile: str | None, output: Path | None) -> Path | None:
    """The folder a rescore writes: `output`, else `RUN-PROFILE` beside the run under a
    profile; None: the run itself (a plain rescore)."""
    if output is not None:
        if output.resolve().is_relative_to(run_dir.resolve()):
            raise InputError(
                "is the run folder or lies inside it: give a folder beside it", file=str(output), field="--output"
            )
        return output
    if profile is None:
        return None
    whole = run_dir.resolve()
    return whole.parent / f"{whole.name}-{profile}"


def rescore_origin(run_dir: Path, asked: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """What a rescore into a new folder is made from: the run (path, id, a digest of every file
    whose content moves a number) and the settings asked."""
    run = read_run_file(run_dir)
    files = [run_dir / RUN_FILE, run_dir / "boards.yaml"]
    for name in (SIGNATURE_FILE, IDS_FILE, RECORDS_FILE):
        files += sorted(run_dir.glob(f"*/*/{name}"))
    digests = {str(p.relative_to(run_dir)): file_sha256(p) for p in files if p.is_file()}
    return {
        "from": str(run_dir.resolve()),
        "run_id": run_id_of(run),
        "files_sha256": json_digest(digests),
        **asked,
    }


def is_done(target: Path, origin: Mapping[str, JsonValue]) -> bool:
    """Whether `target` already holds this rescore (True: nothing to write). A folder holding
    an earlier or unfinished rescore of the same run may be written again; any other that
    exists and is not empty is refused."""
    if not target.exists():
        return False
    if not target.is_dir():
        raise InputError("exists and is not a folder", file=str(target), field="--output")
    if not any(target.iterdir()):
        return False
    earlier = _earlier_origin(target)
    same_run = earlier is not None and all(earlier.get(k) == origin[k] for k in ("from", "run_id"))
    if not same_run:
        raise RunConfigError(
            f"{target} exists and is not a rescore of {origin['from']}: give another --output, or delete it"
        )
    return earlier == origin and not (target / PARTIAL_FILE).exists()


def _earlier_origin(target: Path) -> dict[str, JsonValue] | None:
    for path in (target / PARTIAL_FILE, target / RUN_FILE):
        if path.is_file():
            try:
                data = read_json_object(path)
            except RunConfigError:
                continue
            origin = data if path.name == PARTIAL_FILE else data.get(ORIGIN_KEY)
            if isinstance(origin, dict):
                return origin
    return None


def start_copy(run_dir: Path, target: Path, origin: Mapping[str, JsonValue]) -> None:
    """Copy the run into `target` (an earlier copy there replaced), marked unfinished."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    write_json_atomic(target / PARTIAL_FILE, origin)
    shutil.copytree(
        run_dir, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns(*LEFT_OUT), copy_function=_copy
    )


def _copy(src: str, dst: str) -> None:
    """Output audio is linked (never rewritten); every other file copied (rewritten in place
    by some writers, which must not reach the original)."""
    if f"{os.sep}audio{os.sep}" in src:
        try:
            os.link(src, dst)
            return
        except OSError:
            pass
    shutil.copy2(src, dst)


def finish_copy(target: Path) -> None:
    """Record where the folder came from in its run.json, then drop the unfinished mark."""
    origin = read_json_object(target / PARTIAL_FILE)
    run = read_json_object(target / RUN_FILE)
    run[ORIGIN_KEY] = origin
    write_json_atomic(target / RUN_FILE, run)
    (target / PARTIAL_FILE).unlink()
