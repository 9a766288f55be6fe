"""No path of the machine that made a page in the page: the folders a run's text may name
(the run directory's parent, the working directory, the home and temporary folders, and the
folders of every clip and predictions file a record names) are written as `…/` in everything
the report writes (the page, its sample chunks). A clip is played from its copy inside the
report folder (`report/clips.py`), never from where it lay.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


def machine_prefixes(run_dir: Path, paths: Iterable[str | None]) -> list[str]:
    """The folders to hide, longest first (so a deeper folder is replaced before its parent)."""
    package = Path(__file__).resolve().parents[2]  # where audioeval is installed (its built-in specs)
    folders = {run_dir.parent, Path.cwd(), Path.home(), Path(tempfile.gettempdir()), package}
    for p in paths:
        if p and os.path.isabs(p):
            folders.add(Path(p).parent)
    out: set[str] = set()
    for f in folders:
        for form in (f, f.resolve()):
            text = str(form).rstrip("/")
            if len(text) > 1:
                out.add(text)
    return sorted(out, key=len, reverse=True)


def scrub(text: str, prefixes: list[str]) -> str:
    """`text` with every `PREFIX/` written as `…/`."""
    for prefix in prefixes:
        text = text.replace(prefix + "/", "…/")
    return text


def model_label(name: str) -> str:
    """A model's name as a chart draws it: a spec naming a file (`predictions:/…/run/preds.json`)
    with its folder written as `…/` (`predictions:…/preds.json`); any other name as it is. For
    pages whose text is not scrubbed as a whole: a chart's text is drawn, not written."""
    kind, sep, rest = name.partition(":")
    path = rest if sep else kind
    if not os.path.isabs(path) or path.startswith("//"):  # a URL (`model@http://…`) stays
        return name
    hidden = f"…/{Path(path).name}"
    return f"{kind}:{hidden}" if sep else hidden
