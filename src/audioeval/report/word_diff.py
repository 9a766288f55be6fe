"""The word-level diff the sample browser shows for an ASR or AST sample: jiwer's alignment of
the reference and the hypothesis *after the scorer's normaliser* (the texts the scorer stored in
its `detail`), so what is marked is exactly what was counted.

A diff is a list of `[op, ref, hyp]` triples: op `=` (equal), `s` (substituted), `d` (deleted
from the reference) or `i` (inserted by the hypothesis); `ref`/`hyp` are the words (joined by
one space when the aligned run is longer than one word; '' where a side has none). For a
character-level scorer (CER on text without spaces) the units are characters.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from audioeval.core.record import ScoreJson

_OPS = {"equal": "=", "substitute": "s", "delete": "d", "insert": "i"}


def _units(text: str, chars: bool) -> list[str]:
    return [c for c in text if not c.isspace()] if chars else text.split()


def word_diff(reference: str, hypothesis: str, *, chars: bool = False) -> list[list[str]]:
    """The aligned runs of `reference` against `hypothesis` (see the module doc)."""
    ref, hyp = _units(reference, chars), _units(hypothesis, chars)
    joiner = "" if chars else " "
    if not ref or not hyp:
        return ([["d", joiner.join(ref), ""]] if ref else []) + ([["i", "", joiner.join(hyp)]] if hyp else [])
    import jiwer

    out = jiwer.process_words(" ".join(ref), " ".join(hyp))
    diff = []
    for chunk in out.alignments[0]:
        r = joiner.join(ref[chunk.ref_start_idx : chunk.ref_end_idx])
        h = joiner.join(hyp[chunk.hyp_start_idx : chunk.hyp_end_idx])
        diff.append([_OPS[chunk.type], r, h])
    return diff


class WordDiff(TypedDict):
    """The diff the sample browser draws: which scorer's texts, in words or characters, and
    each aligned chunk as [op, reference part, hypothesis part]."""

    scorer: str
    units: str
    ops: list[list[str]]


def diff_of_scores(scores: Mapping[str, ScoreJson]) -> WordDiff | None:
    """The diff for a record's scores (`{scorer: Score.to_json()}`): from the first scorer whose
    detail holds the normalised `reference` and `hypothesis` (WER before CER, as word units),
    or None when no scorer stored both."""
    ordered = sorted(scores.items(), key=lambda kv: (not kv[0].endswith("wer"), kv[0]))
    for name, score in ordered:
        detail = score.get("detail") if isinstance(score, dict) else None
        if not isinstance(detail, dict):
            continue
        ref, hyp = detail.get("reference"), detail.get("hypothesis")
        if isinstance(ref, str) and isinstance(hyp, str):
            chars = name.endswith("cer") and " " not in ref.strip()
            return {"scorer": name, "units": "characters" if chars else "words", "ops": word_diff(ref, hyp, chars=chars)}
    return None
