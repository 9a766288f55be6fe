"""BLEU-1..4 as the COCO caption evaluation computes it (pycocoevalcap's `Bleu(4)`, reported by
captioning papers and UltraEval-Audio as `Bleu_1`..`Bleu_4`), from per-sample statistics.

On PTB tokens (`caption_tokens`; split on whitespace), for one caption and its references:

    testlen     = the caption's length
    reflen      = the length of the reference closest to it (a tie: the shorter)   (`closest`)
    guess[k]    = max(0, testlen - k)                       k = 0..3 (n-gram order k + 1)
    correct[k]  = Σ over the caption's (k+1)-grams g of min(count(g), max count of g in one reference)

pycocoevalcap's corpus BLEU sums these over the set, then

    b_k  = Π_{j ≤ k} (correct[j] + 1e-15) / (guess[j] + 1e-9),   Bleu_{k+1} = b_k ** (1 / (k + 1))
    ratio = (testlen + 1e-15) / (reflen + 1e-9);  ratio < 1: every Bleu_n × exp(1 - 1 / ratio)

(its tiny and small constants included), and a sample's own value is the same formula on its
own row. So the corpus value is a function of summed statistics: a bootstrap resample sums
the resampled rows (`metrics/coco_bleu.py`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypedDict

import numpy as np

ORDERS = 4
TINY = 1e-15
SMALL = 1e-9
STATS_KEYS = ("bleu_testlen", "bleu_reflen", "bleu_guess", "bleu_correct")
"""The stats keys of the `coco_bleu` scorer (prefixed: `correct` is accuracy's key)."""


def _ngrams(words: Sequence[str]) -> dict[tuple[str, ...], int]:
    counts: dict[tuple[str, ...], int] = {}
    for k in range(1, ORDERS + 1):
        for i in range(len(words) - k + 1):
            gram = tuple(words[i : i + k])
            counts[gram] = counts.get(gram, 0) + 1
    return counts


class BleuStats(TypedDict):
    """One caption's BLEU statistics (pycocoevalcap's): its length, the closest reference
    length, and per n-gram order (1-4) the n-grams guessed and those correct."""

    bleu_testlen: int
    bleu_reflen: int
    bleu_guess: list[int]
    bleu_correct: list[int]


def bleu_stats(candidate: str, references: Sequence[str]) -> BleuStats:
    """The statistics of one tokenised caption against its tokenised references (≥ 1)."""
    if not references:
        raise ValueError("BLEU needs at least one reference")
    words = candidate.split()
    testlen = len(words)
    max_ref: dict[tuple[str, ...], int] = {}
    lengths = []
    for ref in references:
        ref_words = ref.split()
        lengths.append(len(ref_words))
        for gram, count in _ngrams(ref_words).items():
            if count > max_ref.get(gram, 0):
                max_ref[gram] = count
    reflen = min((abs(length - testlen), length) for length in lengths)[1]
    correct = [0] * ORDERS
    for gram, count in _ngrams(words).items():
        correct[len(gram) - 1] += min(count, max_ref.get(gram, 0))
    return {
        "bleu_testlen": testlen,
        "bleu_reflen": reflen,
        "bleu_guess": [max(0, testlen - k) for k in range(ORDERS)],
        "bleu_correct": correct,
    }


def stats_row(stats: BleuStats) -> list[float]:
    """A sample's statistics as one row: testlen, reflen, guess[4], correct[4]."""
    testlen, reflen = stats["bleu_testlen"], stats["bleu_reflen"]
    guess, correct = list(stats["bleu_guess"]), list(stats["bleu_correct"])
    if len(guess) != ORDERS or len(correct) != ORDERS:
        raise ValueError(f"BLEU statistics hold {ORDERS} orders, got guess {guess}, correct {correct}")
    return [float(testlen), float(reflen), *map(float, guess), *map(float, correct)]


def bleu_of_sums(sums: np.ndarray) -> np.ndarray:
    """Bleu_1..Bleu_4 of each row of summed statistics (m, 10) -> (m, 4), as pycocoevalcap."""
    sums = np.asarray(sums, dtype=np.float64).reshape(-1, 2 + 2 * ORDERS)
    out = np.empty((len(sums), ORDERS), dtype=np.float64)
    for i, row in enumerate(sums):
        testlen, reflen = row[0], row[1]
        guess, correct = row[2 : 2 + ORDERS], row[2 + ORDERS :]
        product = 1.0
        for k in range(ORDERS):  # the same operations in the same order: the same bits
            product *= float(correct[k] + TINY) / (guess[k] + SMALL)
            out[i, k] = product ** (1.0 / (k + 1))
        ratio = (testlen + TINY) / (reflen + SMALL)
        if ratio < 1:
            out[i] *= math.exp(1 - 1 / ratio)
    return out
