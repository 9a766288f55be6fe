"""Macro-F1 over labels, from per-sample (pred, gold) pairs.

Classes are the gold labels that occur. Per class c: TP = pred = gold = c, FP = pred = c
≠ gold, FN = gold = c ≠ pred; F1 = 2·TP / (2·TP + FP + FN). A prediction outside the
classes (or no prediction) is a false negative for its gold class and a false positive for
none. Macro-F1 is the unweighted mean over classes; a class with no gold sample in a
bootstrap resample is left out of that resample's mean. Equals
`sklearn.metrics.f1_score(gold, pred, labels=classes, average="macro", zero_division=0)`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from audioeval.metrics.stat_table import Prepared, Stats, column


def macro_f1_table(stats_list: Sequence[Stats], metric: str = "macro_f1") -> Prepared:
    """Columns: TP per class, then FP per class, then gold count per class."""
    golds = [str(g) for g in column(stats_list, "gold", metric)]
    preds = [None if p is None else str(p) for p in column(stats_list, "pred", metric)]
    classes = {c: i for i, c in enumerate(sorted(set(golds)))}
    k = len(classes)
    table = np.zeros((len(golds), 3 * k), dtype=np.float64)
    for row, (gold, pred) in enumerate(zip(golds, preds, strict=True)):
        g = classes[gold]
        table[row, 2 * k + g] = 1.0
        if pred == gold:
            table[row, g] = 1.0
        elif pred in classes:
            table[row, k + classes[pred]] = 1.0

    def reduce(sums: np.ndarray) -> np.ndarray:
        tp, fp, support = sums[:, :k], sums[:, k : 2 * k], sums[:, 2 * k :]
        denom = 2 * tp + fp + (support - tp)
        f1 = np.divide(2 * tp, denom, out=np.zeros_like(tp), where=denom > 0)
        present = support > 0
        n_present = present.sum(axis=1)
        out = np.full(sums.shape[0], np.nan)
        np.divide((f1 * present).sum(axis=1), n_present, out=out, where=n_present > 0)
        return out

    return table, reduce
