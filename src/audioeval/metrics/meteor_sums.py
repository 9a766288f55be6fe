"""METEOR from summed segment statistics: the jar scores each row of sums (`caption_meteor`).

The jar's corpus METEOR is its score of the segments' summed statistics (a perfect match adding
no chunk: `caption_meteor.corpus_rows`), so the point value and every bootstrap resample are one
`EVAL` of summed rows, answered by the one METEOR process.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from audioeval.metrics.stat_table import Prepared, Stats, column


def meteor_table(stats_list: Sequence[Stats], metric: str = "meteor") -> Prepared:
    """(n, 23) segment statistics and the jar's METEOR of summed rows."""
    from audioeval.scoring.caption_meteor import corpus_rows, meteor_of_sums

    rows = column(stats_list, "meteor_stats", metric)
    widths = {len(r) for r in rows}
    if len(widths) != 1:
        raise ValueError(f"metric {metric!r}: segment statistics of different lengths {sorted(widths)}")
    return corpus_rows(np.asarray(rows, dtype=np.float64)), meteor_of_sums
