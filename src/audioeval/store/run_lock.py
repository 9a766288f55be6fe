"""One audioeval process per output folder, and output folders that can be written.

`hold_run_lock(folder)` takes an exclusive `flock` on `<folder>/.audioeval.lock` (without
waiting) and writes its pid there; a second process asking for the same folder gets
`RunLocked` naming the holder's pid. The kernel drops the lock when the holder exits, even
on `kill -9`, so a stale lock file never blocks a rerun.

`prepare_output_dir` is the one check that an output folder can be used (not an existing
file, creatable, writable), done before any work.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from audioeval.core.errors import InputError, RunLocked
from audioeval.core.shorten import shorten_path

LOCK_FILE = ".audioeval.lock"


def prepare_output_dir(folder: Path, *, create: bool = True) -> Path:
    """`folder`, created when `create` (else it must exist: the folder of an earlier run);
    InputError naming it when it cannot be written to."""
    where = str(folder)
    try:
        if folder.exists() and not folder.is_dir():
            raise InputError("the output folder is an existing file; give a folder path", file=where)
        if not folder.exists():
            if not create:
                raise InputError("no such folder: not an audioeval run directory", file=where)
            folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the output folder ({_reason(exc)})", file=where) from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError("the output folder is not writable", file=where)
    return folder


def check_output_file(path: Path, what: str = "output file") -> Path:
    """`path` for a file to write (`what` names it in errors): not a folder, in a folder
    that can be written to."""
    if path.is_dir():
        raise InputError(f"{what} must be a file path, not a folder", file=str(path))
    prepare_output_dir(path.parent)
    return path


def _reason(exc: OSError) -> str:
    if exc.errno in (errno.ENOTDIR, errno.EEXIST):
        return "a part of its path is a file"
    return exc.strerror or type(exc).__name__


def writer_alive(folder: Path) -> bool:
    """Whether a process of this machine holds (or last held) `folder`'s lock and is still
    running: read from the pid in the lock file, without taking the lock (a reader taking it,
    even shared, could make a run starting at that moment find its folder locked). False
    when there is no lock file, no pid in it, or no process of that pid."""
    try:
        text = (folder / LOCK_FILE).read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return False
    if not text.isdigit():
        return False
    try:
        os.kill(int(text), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True  # a process of another user: running
    return True


def _holder(fd: int) -> str:
    os.lseek(fd, 0, os.SEEK_SET)
    text = os.read(fd, 64).decode("ascii", errors="replace").strip()
    return f"pid {text}" if text.isdigit() else "pid unknown"


def _first_missing(folder: Path) -> Path | None:
    """The outermost folder of `folder`'s path that does not exist yet (None: it exists)."""
    missing = None
    try:
        for candidate in (folder, *folder.parents):
            if candidate.exists():
                break
            missing = candidate
    except OSError:
        return None  # a path the file system refuses: prepare_output_dir says why
    return missing


def _remove_if_untouched(folder: Path, top: Path) -> None:
    """Remove `folder` (and its parents up to `top`) when it holds nothing but the lock file."""
    try:
        if [p.name for p in folder.iterdir()] != [LOCK_FILE]:
            return
        (folder / LOCK_FILE).unlink()
        for path in (folder, *folder.parents):
            path.rmdir()
            if path == top:
                return
    except OSError:
        return  # another process wrote there meanwhile: leave it


@contextlib.contextmanager
def hold_run_lock(folder: Path, *, create: bool = True) -> Iterator[Path]:
    """Hold `folder` for this process (prepared as by `prepare_output_dir`) until the block
    ends. A folder created here is removed again when the block fails having written nothing,
    so that a command refused for bad input leaves no trace."""
    created = _first_missing(folder) if create else None
    prepare_output_dir(folder, create=create)
    try:
        fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise InputError(
            f"cannot write the lock file {LOCK_FILE} ({_reason(exc)})", file=str(folder)
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            created = None
            raise RunLocked(
                f"{shorten_path(folder)} is in use by another audioeval process ({_holder(fd)}); wait for it to "
                "finish, or give another output folder"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield folder
    except BaseException:
        if created is not None:
            _remove_if_untouched(folder, created)
        raise
    finally:
        os.close(fd)  # closing the descriptor releases the lock
