"""Content hashes of input files, for run signatures: what a resumed run must have read the same.

Each file is hashed once per process (read whole when under 1 MiB, else streamed 1 MiB at a
time), keyed by its absolute path, size and modification time, so a benchmark shared by
several models, or a file referenced by many samples, is read once. Many files are hashed by
a few threads, each taking a run of them: hashlib releases the GIL on large buffers, and the
reads overlap.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

MISSING = "missing"
"""The hash written for a file that does not exist (so a file appearing later changes it)."""

_CHUNK = 1 << 20
_memo: dict[tuple[str, int, int], str] = {}
_memo_lock = threading.Lock()


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes (hex), or MISSING when it is not a readable file."""
    p = os.path.abspath(path)
    try:
        st = os.stat(p)
    except OSError:
        return MISSING
    key = (p, st.st_size, st.st_mtime_ns)
    with _memo_lock:
        hit = _memo.get(key)
    if hit is not None:
        return hit
    try:
        with open(p, "rb") as fh:
            # A small file whole, in a buffer of its size: a 1 MiB one per clip cost more than the hash.
            if st.st_size < _CHUNK:
                h = hashlib.sha256(fh.read())
            else:
                h = hashlib.sha256()
                while chunk := fh.read(_CHUNK):
                    h.update(chunk)
    except OSError:
        return MISSING
    digest = h.hexdigest()
    with _memo_lock:
        _memo[key] = digest
    return digest


def _hash_all(paths: list[str]) -> list[str]:
    return [file_sha256(p) for p in paths]


def files_sha256(paths: Iterable[str | Path], *, threads: int = 4) -> dict[str, str]:
    """`{path: sha256}` of many files (each hashed once), in a few threads, each hashing one
    run of the files in turn (a task per file cost more than hashing a short clip)."""
    unique = list(dict.fromkeys(str(p) for p in paths))
    n = min(threads, os.cpu_count() or 1, len(unique) // 8)
    if n < 2:
        return {p: file_sha256(p) for p in unique}
    step = -(-len(unique) // n)
    with ThreadPoolExecutor(max_workers=n) as pool:
        runs = pool.map(_hash_all, [unique[i : i + step] for i in range(0, len(unique), step)])
        return dict(zip(unique, (h for run in runs for h in run), strict=True))


def relative_name(path: str | Path, root: Path | None) -> str:
    """The path relative to `root` when it lies under it, else the absolute path."""
    p = Path(os.path.abspath(path))
    if root is not None:
        try:
            return p.relative_to(os.path.abspath(root)).as_posix()
        except ValueError:
            pass
    return p.as_posix()


def audio_digest(paths: Iterable[str | Path], root: Path | None) -> str:
    """One hash over the files read: each file's name (relative to `root`) and content hash."""
    hashes = files_sha256(paths)
    lines = sorted(f"{relative_name(p, root)}\t{h}" for p, h in hashes.items())
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def json_digest(value: object) -> str:
    """SHA-256 of a JSON-able value (keys sorted), for digests of sample fields: the text of
    `json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)`, whose digests
    earlier runs' records hold."""
    return hashlib.sha256(_DIGEST_ENCODER.encode(value).encode("utf-8")).hexdigest()


_DIGEST_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str)
"""Built once: `json.dumps` builds an encoder per call when given options."""
