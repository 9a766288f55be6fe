"""Corpus BLEU and chrF from summed sentence statistics, computed by sacrebleu itself.

`sacrebleu.corpus_bleu` sums its segment statistics and computes the score from the sums;
doing the same with the statistics the `bleu` / `chrf` scorers stored gives the same
number. BLEU uses sacrebleu's defaults (exponential smoothing, 4-gram order, no effective
order); tokenisation and lowercasing already happened when the statistics were made.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from audioeval.metrics.stat_table import Prepared, Stats, column, row_by_row


def _ints(row: np.ndarray) -> list[int]:
    return [int(round(x)) for x in row]


def bleu_table(stats_list: Sequence[Stats], metric: str = "bleu") -> Prepared:
    """Columns: sys_len, ref_len, correct[1..4], total[1..4] (sacrebleu's stats order)."""
    from sacrebleu.metrics import BLEU

    sys_len = column(stats_list, "sys_len", metric)
    ref_len = column(stats_list, "ref_len", metric)
    correct = column(stats_list, "correct", metric)
    total = column(stats_list, "total", metric)
    rows = [[s, r, *c, *t] for s, r, c, t in zip(sys_len, ref_len, correct, total, strict=True)]
    table = np.asarray(rows, dtype=np.float64).reshape(len(rows), -1)
    bleu = BLEU()
    return table, row_by_row(lambda row: float(bleu._compute_score_from_stats(_ints(row)).score))


def chrf_table(stats_list: Sequence[Stats], metric: str = "chrf") -> Prepared:
    """Columns: [hyp, ref, match] counts per n-gram order; orders and beta must agree."""
    from sacrebleu.metrics import CHRF

    params = {
        (s["char_order"], s["word_order"], s["beta"])
        for s in stats_list
        if {"char_order", "word_order", "beta"} <= set(s)
    }
    if len(params) > 1:
        raise ValueError(
            f"metric {metric!r}: samples were scored with different chrF settings {sorted(params)}"
        )
    char_order, word_order, beta = params.pop() if params else (6, 0, 2)
    counts = column(stats_list, "counts", metric)
    table = np.asarray(counts, dtype=np.float64).reshape(len(counts), -1)
    chrf = CHRF(char_order=char_order, word_order=word_order, beta=beta)
    return table, row_by_row(lambda row: float(chrf._compute_score_from_stats(_ints(row)).score))
