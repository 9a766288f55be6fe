"""Reading back `results.jsonl` of `mmae score`: each line is checked before a rerun trusts it.

A line is used only when it is a result the judge could have written for a known sample:
`id` a sample of the metadata, `rubric_index` an integer rubric of that sample, `failed` a
bool, `votes` a list of bools, and `score` 0 or 1 (null exactly when failed). Any other line
(hand-edited, from another metadata file, cut short) is ignored, so its rubric is judged
again, and the reason is reported as `file:line: why`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.benchmarks.mmae.records import MmaeSample
from audioeval.store.jsonl import read_jsonl

ResultKey = tuple[str, int]


@dataclass
class StoredResults:
    """The latest valid line of each rubric, and why other lines were ignored."""

    done: dict[ResultKey, dict[str, Any]] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def line_problem(rec: Mapping[str, Any], rubric_counts: Mapping[str, int]) -> str | None:
    """Why a stored result line cannot be used, or None when it can."""
    sid, index = rec.get("id"), rec.get("rubric_index")
    if not isinstance(sid, str) or sid not in rubric_counts:
        return f"id {sid!r} is not a sample of the metadata"
    if not _is_int(index) or not 0 <= index < rubric_counts[sid]:
        return f"id {sid!r}: rubric_index {index!r} is not one of its {rubric_counts[sid]} rubric(s)"
    failed, score, votes = rec.get("failed"), rec.get("score"), rec.get("votes")
    if not isinstance(failed, bool):
        return f"id {sid!r}, rubric {index}: failed {failed!r} is not true or false"
    if not isinstance(votes, list) or not all(isinstance(v, bool) for v in votes):
        return f"id {sid!r}, rubric {index}: votes {votes!r} is not a list of true/false"
    if failed and score is not None:
        return f"id {sid!r}, rubric {index}: a failed rubric with score {score!r}"
    if not failed and (not _is_int(score) or score not in (0, 1)):
        return f"id {sid!r}, rubric {index}: score {score!r} is not 0 or 1"
    return None


def read_results(path: Path, samples: Mapping[str, MmaeSample]) -> StoredResults:
    """Every valid line by (id, rubric); a later valid line of a rubric supersedes an earlier one."""
    report = read_jsonl(path)
    counts = {sid: len(s.rubrics) for sid, s in samples.items()}
    out = StoredResults()
    ignored = [(n, "not a JSON object") for n in report.bad_lines]
    for rec, lineno in zip(report.records, report.line_numbers, strict=True):
        problem = line_problem(rec, counts)
        if problem is not None:
            ignored.append((lineno, problem))
            continue
        out.done[(rec["id"], rec["rubric_index"])] = rec
    out.ignored = [f"{path}:{n}: {why}" for n, why in sorted(ignored)]
    return out
