"""Rewrite the golden figures from the code as it is: `python -m tests.golden.record`.

Run it only to change the golden figures on purpose (a fix that moves a figure): it builds
every golden run in a temporary folder, reads every figure, writes `tests/golden/figures.json`
and prints what moved against the file it replaces (file, path, before, after), so that each
intended change can be listed with its before and after.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from tests.golden.figures import collect, flat, same
from tests.golden.runs import RUNS, build_runs

FIGURES_FILE = Path(__file__).with_name("figures.json")
REL_TOL = 1e-9
ABOUT = (
    "Golden figures: every figure of the golden runs (tests/golden/runs.py), FILE -> JSON path -> "
    "value; compared by tests/test_golden_figures.py within a relative tolerance of 1e-9. "
    "Rewritten only on purpose by `python -m tests.golden.record`."
)


def read_golden(path: Path = FIGURES_FILE) -> dict[str, dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))["files"]


def differences(before: dict[str, Any], after: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """(changed, missing, added) lines, `FILE::PATH before -> after`, of flat figures."""
    changed = [
        f"{key}: {before[key]!r} -> {after[key]!r}"
        for key in before
        if key in after and not same(before[key], after[key], REL_TOL)
    ]
    missing = [f"{key}: {before[key]!r} -> (missing)" for key in before if key not in after]
    added = [f"{key}: (new) -> {after[key]!r}" for key in after if key not in before]
    return changed, missing, added


def write_golden(files: dict[str, dict[str, Any]], path: Path = FIGURES_FILE) -> int:
    count = sum(len(paths) for paths in files.values())
    doc = {
        "about": ABOUT,
        "runs": [run.name for run in RUNS],
        "rel_tol": REL_TOL,
        "count": count,
        "files": {f: dict(sorted(files[f].items())) for f in sorted(files)},
    }
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return count


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="golden-") as tmp:
        build_runs(Path(tmp))
        files = collect(Path(tmp))
    if FIGURES_FILE.is_file():
        changed, missing, added = differences(flat(read_golden()), flat(files))
        for title, lines in (("changed", changed), ("missing", missing), ("added", added)):
            print(f"{len(lines)} figure(s) {title}")
            for line in lines[:200]:
                print(f"  {line}")
    count = write_golden(files)
    print(f"{count} figures of {len(files)} files written to {FIGURES_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
