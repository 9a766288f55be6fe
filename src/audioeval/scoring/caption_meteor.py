"""METEOR 1.5 as the COCO caption evaluation runs it: pycocoevalcap's meteor-1.5.jar in
`-stdio` mode (`-l en -norm`), one process for the whole Python process.

A segment's statistics are the jar's answer to `SCORE ||| ref1 ||| … ||| hypothesis` (23
numbers for English: lengths, matches by module, chunks, …). The corpus METEOR is the jar's
score of the summed statistics: its `EVAL` sums the segments' statistics and scores the sum,
except that a segment matching its reference completely in one chunk adds no chunk (the jar's
`MeteorStats.addStats`: a perfect match is never fragmented). `corpus_rows` applies that rule
to each segment's row, so that `EVAL` of one summed row is exactly the jar's corpus score of
those segments, for the point value and every bootstrap resample.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from audioeval.scoring.caption_java import (
    JavaItemError,
    JavaToolError,
    LineProcess,
    coco_dir,
    shared_process,
)

METEOR_JAR = "meteor-1.5.jar"
METEOR_ARGS = ("-", "-", "-stdio", "-l", "en", "-norm")
DESCRIPTION = f"{METEOR_JAR} {' '.join(METEOR_ARGS[2:])}"


def _meteor() -> LineProcess:
    folder = coco_dir() / "meteor"
    return shared_process("METEOR", ["-Xmx2G", "-jar", METEOR_JAR, *METEOR_ARGS], folder)


def _clean(text: str) -> str:
    """As pycocoevalcap: no field separator in a sentence, double spaces made single."""
    return text.replace("|||", "").replace("  ", " ")


# Where the jar's English statistics keep what the perfect-match rule reads (23 numbers: test and
# reference lengths, function words, four stages of matches, then chunks and total matches).
TEST_LENGTH, REFERENCE_LENGTH, CHUNKS, TEST_MATCHES, REFERENCE_MATCHES = 0, 1, 20, 21, 22


def corpus_rows(rows: np.ndarray) -> np.ndarray:
    """Segment rows (n, 23) as the jar adds them to a corpus: a perfect match (every test and
    reference word matched, one chunk) adds no chunk."""
    rows = np.array(rows, dtype=np.float64, copy=True)
    if rows.size:
        perfect = (
            (rows[:, TEST_MATCHES] == rows[:, TEST_LENGTH])
            & (rows[:, REFERENCE_MATCHES] == rows[:, REFERENCE_LENGTH])
            & (rows[:, CHUNKS] == 1)
        )
        rows[perfect, CHUNKS] = 0.0
    return rows


def meteor_stats(hypothesis: str, references: Sequence[str]) -> list[float]:
    """The jar's statistics of one segment (tokenised hypothesis and references)."""
    line = " ||| ".join(("SCORE", " ||| ".join(_clean(r) for r in references), _clean(hypothesis)))
    (answer,) = _meteor().ask([line], 1)
    try:
        return [float(x) for x in answer.split()]
    except ValueError as exc:  # its own error about this segment ("Error: specify …"): the sample's
        raise JavaItemError(f"METEOR answered {answer!r} to a SCORE line") from exc


def meteor_of_sums(sums: np.ndarray) -> np.ndarray:
    """The jar's METEOR of each row of summed segment statistics (m, 23) -> (m,)."""
    if len(sums) == 0:
        return np.empty(0, dtype=np.float64)
    rows = [" ".join(repr(float(x)) for x in row) for row in sums]
    answers = _meteor().ask(["EVAL ||| " + " ||| ".join(rows)], len(rows) + 1)
    try:
        return np.asarray([float(a) for a in answers[: len(rows)]], dtype=np.float64)
    except ValueError as exc:
        raise JavaToolError(f"METEOR answered {answers[:3]!r} to an EVAL line") from exc
