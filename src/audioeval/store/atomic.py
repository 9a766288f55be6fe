"""Atomic writes: a summary file is either the old one or the complete new one; and plain
writes of files a reader never needs whole at every moment (a report's sample chunks).

The credentials in use never reach such a file (`core.redact.redact_known`)."""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from audioeval.core.redact import redact_known


@functools.cache
def _file_mode() -> int:
    """The mode a new file gets under this process's umask (0o666 less the umask): a summary is
    as readable by a lab's colleagues as any other file the user writes. `mkstemp` alone would
    make it 0600 whatever the umask."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def write_json_atomic(path: str | Path, obj: Any) -> None:
    text = json.dumps(obj, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    write_text_atomic(path, text)


def write_text_atomic(path: str | Path, text: str) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=str(p.parent))
    try:
        os.fchmod(fd, _file_mode())
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(redact_known(text))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, p)
    except OSError as exc:  # a full disk: the file keeps its old content; the message names it
        if os.path.exists(tmp):
            os.unlink(tmp)
        if exc.filename is None:
            raise type(exc)(exc.errno, exc.strerror or str(exc), str(p)) from None
        raise
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_text(path: str | Path, text: str, mode: int = 0o644) -> None:
    """Write a file that need not be replaced atomically (a report's sample chunk), with the
    credentials in use cut from it, as from every file written."""
    p = Path(path)
    p.write_text(redact_known(text), encoding="utf-8")
    p.chmod(mode)


def write_jsonl_atomic(path: str | Path, rows: Iterable[Any]) -> None:
    """Replace a JSONL file whole: readers see the old file or the complete new one."""
    encode = _ROW_ENCODER.encode  # built once: json.dumps builds an encoder per call for these options
    write_text_atomic(path, "".join(encode(row) + "\n" for row in rows))


_ROW_ENCODER = json.JSONEncoder(ensure_ascii=False)
