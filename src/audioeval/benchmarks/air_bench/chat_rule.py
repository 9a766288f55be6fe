"""AIR-Bench chat's official reading of a judge's score line and its categories
(`cal_score.py`, official-rules §4.2).

- `official_score_pair(text)`: strip both ends, delete every newline, split on one space (so
  two spaces make an empty part); exactly two parts, each converted by Python's `int()`; a
  value above 10 is a failure (the official `exit(1)` sits inside the bare `try`, so it is
  caught and counted as a failure); negative values pass. None: a failure, left out of the
  means and counted.
- `CATEGORIES`: the task -> category map of the report; an unknown task has no category here
  (the official script silently reuses the previous line's, or crashes on the first line).
"""

from __future__ import annotations

CATEGORIES = {
    "speech_QA": "speech",
    "speech_dialogue_QA": "speech",
    "sound_QA": "sound",
    "sound_generation_QA": "sound",
    "music_QA": "music",
    "music_generation_analysis_QA": "music",
    "speech_and_sound_QA": "speech_and_sound",
    "speech_and_music_QA": "speech_and_music",
}
MIXED = ("speech_and_sound", "speech_and_music")
"""The README's "Mixed Audio" column is the mean of these two categories."""
HIGHEST = 10


def official_score_pair(text: str) -> tuple[int, int] | None:
    """(Assistant 1's score, Assistant 2's score) as `cal_score.py` reads them, or None."""
    parts = text.strip().replace("\n", "").split(" ")
    if len(parts) != 2:
        return None
    try:
        scores = (int(parts[0]), int(parts[1]))
    except ValueError:
        return None
    if max(scores) > HIGHEST:
        return None
    return scores


def category(task_name: str | None) -> str | None:
    """The report category of a chat task (None: not one of the official tasks)."""
    return CATEGORIES.get(task_name or "")
