"""`bleu_1` … `bleu_4`: pycocoevalcap's corpus `Bleu_1` … `Bleu_4` from the `coco_bleu` scorer's
per-sample statistics (`scoring/caption_bleu.py`): the rows are summed, then scored as
pycocoevalcap scores its totals, so a bootstrap resample is the BLEU of the resampled set."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from audioeval.metrics.stat_table import Prepared, Stats, column
from audioeval.scoring.caption_bleu import ORDERS, STATS_KEYS, bleu_of_sums, stats_row


def coco_bleu_table(stats_list: Sequence[Stats], order: int = 4) -> Prepared:
    """(testlen, reflen, guess[4], correct[4]) per sample; reduce: Bleu_`order` of the sums."""
    if not 1 <= order <= ORDERS:
        raise ValueError(f"BLEU order must be 1..{ORDERS}, got {order}")
    metric = f"bleu_{order}"
    for key in STATS_KEYS:
        column(stats_list, key, metric)  # a missing key names the metric and the sample
    table = np.asarray([stats_row(s) for s in stats_list], dtype=np.float64).reshape(-1, 2 + 2 * ORDERS)

    def reduce(sums: np.ndarray) -> np.ndarray:
        return bleu_of_sums(sums)[:, order - 1]

    return table, reduce
