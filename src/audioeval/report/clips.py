"""The clips a report page plays, copied into the report folder: `report/audio/<hash>.<ext>`.

Why copies rather than links: a sample's clips live wherever the data set, the predictions or
the run put them (often outside the run directory, by absolute path), and a link that climbs
out of the report folder dies when the folder is copied to a colleague or served over HTTP.
A copy named by its content hash is stored once however many samples play it, and the page
refers to it by a path inside the report folder only (docs/reports.md, "Portable pages").
A clip that cannot be read is shown as missing, by its name, never by its path.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

AUDIO_DIR = "audio"


class ClipCopier:
    """Copies each distinct clip once into `report_dir/audio/`; `link(path)` is the page's
    relative link to the copy (None when the clip is not a readable file)."""

    def __init__(self, report_dir: Path, base: Path, run_parent: Path) -> None:
        self.report_dir = report_dir
        self.base = base  # a relative stored path is read from here first (the working directory)
        self.run_parent = run_parent  # …else from the run directory's parent
        self.done: dict[Path, str | None] = {}
        self.bytes = 0

    def _source(self, path: str) -> Path:
        p = Path(path)
        if p.is_absolute():
            return p
        return self.base / p if (self.base / p).exists() else self.run_parent / p

    def link(self, path: str | None) -> str | None:
        if not path:
            return None
        src = self._source(path)
        try:
            key = src.resolve()
        except OSError:
            return None
        if key in self.done:
            return self.done[key]
        link = None
        if key.is_file():
            digest = hashlib.sha256()
            with key.open("rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    digest.update(block)
            name = f"{digest.hexdigest()[:20]}{key.suffix.lower() or '.bin'}"
            dest = self.report_dir / AUDIO_DIR / name
            if not dest.exists():
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(key, dest)
                dest.chmod(0o644)
                self.bytes += dest.stat().st_size
            link = f"{AUDIO_DIR}/{name}"
        self.done[key] = link
        return link
