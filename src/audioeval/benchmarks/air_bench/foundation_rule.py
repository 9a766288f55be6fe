"""AIR-Bench foundation's official reading of one reply (`score_foundation.py`, official-rules
§4.1), step by step, as plain functions.

- `official_letter(response)`: strip both ends, delete every newline; "None" or empty is
  unreadable; else the first character if it is one of the upper-case letters A-D, else (for
  more than one character) the second-to-last if it is; else unreadable. Unreadable replies
  are left out of the official count (`fail_num`), never scored.
- `gold_letter(answer_gt, choices)`: the letter of the first choice equal (exact string
  equality, in order A-D) to `answer_gt`; None when none is, where the official script stops
  the whole run (`exit(1)`; checked only for replies whose letter was read).
- `task_id(task_name, dataset_name)`: the official per-task key, `task_name + "_" +
  dataset_name`; a line whose task_name is None is skipped, not even counted as a failure.
"""

from __future__ import annotations

from collections.abc import Sequence

LETTERS = ("A", "B", "C", "D")


def official_letter(response: str | None) -> str | None:
    """The letter the official script reads from a reply, or None (left out of the count)."""
    p = (response or "").strip().replace("\n", "")
    if p == "None" or not p:
        return None
    if p[0] in LETTERS:
        return p[0]
    if len(p) > 1 and p[-2] in LETTERS:
        return p[-2]
    return None


def gold_letter(answer_gt: str, choices: Sequence[str | None]) -> str | None:
    """The letter of the choice that is `answer_gt` (choices in order A-D, absent ones None)."""
    for letter, choice in zip(LETTERS, choices, strict=False):
        if choice is not None and choice == answer_gt:
            return letter
    return None


def task_id(task_name: str, dataset_name: str) -> str:
    return f"{task_name}_{dataset_name}"
