"""A folder of audio files: one sample per file; the label is the parent folder's name
(`labels_from: folder`, e.g. GTZAN's genre folders) and the transcript a sidecar `.txt`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from audioeval.core.errors import InputError
from audioeval.store.text_input import read_text_input

AUDIO_SUFFIXES = {".wav", ".flac", ".mp3", ".ogg", ".opus", ".m4a", ".aiff", ".aif"}


def read_folder(root: Path, *, labels_from_folder: bool) -> Iterator[tuple[int, dict[str, str]]]:
    if not root.is_dir():
        raise InputError("audio folder not found", file=str(root))
    files = sorted(p for p in root.rglob("*") if p.suffix.lower() in AUDIO_SUFFIXES and p.is_file())
    if not files:
        raise InputError(
            f"no audio files ({', '.join(sorted(AUDIO_SUFFIXES))}) in the folder", file=str(root)
        )
    for i, path in enumerate(files):
        rel = path.relative_to(root)
        row: dict[str, str] = {"id": rel.with_suffix("").as_posix(), "audio": str(path)}
        if labels_from_folder:
            if len(rel.parts) < 2:
                raise InputError("file is not inside a label folder", file=str(path), field="label")
            row["label"] = rel.parts[-2]
        sidecar = path.with_suffix(".txt")
        if sidecar.is_file():
            row["text"] = read_text_input(sidecar, "transcript").strip()
        yield i, row
