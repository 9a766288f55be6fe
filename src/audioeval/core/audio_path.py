"""Whether a string from an input file can be a local audio file path.

Checked where paths are read, so that a `data:` URI, a NUL byte or a path too long for the
file system is a one-line input error naming the sample and field, not an OSError later.
"""

from __future__ import annotations

import posixpath

from audioeval.core.shorten import shorten

MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255


def audio_path_problem(value: str) -> str | None:
    """Why `value` is not a usable audio file path (a message naming it, shortened), or None."""
    shown = shorten(value)
    if value.startswith("data:"):
        return f"a data: URI is not an audio file path: {shown}; write the audio to a file and give its path"
    if "\x00" in value:
        return f"a NUL character in an audio file path: {shown}"
    encoded = value.encode("utf-8", errors="surrogateescape")
    if len(encoded) > MAX_PATH_BYTES or any(len(part) > MAX_NAME_BYTES for part in encoded.split(b"/")):
        return f"too long for an audio file path: {shown}"
    return None


def root_escape_problem(value: str) -> str | None:
    """Why a relative path that climbs out of its audio root with `..` is refused (a message
    naming it), or None; an absolute path is taken as written."""
    if value.startswith(("/", "~", "file://")):
        return None
    normal = posixpath.normpath(value.replace("\\", "/"))
    if normal == ".." or normal.startswith("../"):
        return (
            f"the audio path {shorten(value)} leads out of the audio root (--audio_root); "
            "give a path under it, or an absolute path"
        )
    return None
