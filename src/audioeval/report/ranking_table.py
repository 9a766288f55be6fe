"""`audioeval rank`'s outputs: `robustness.json`, `spearman.json`, the Spearman heatmap
(`spearman.svg`, drawn by matplotlib) and the terminal table of ranks.

Model and benchmark names are shown literally (`report/escaping.py`); in the SVG, matplotlib
draws text as paths, so no name reaches the file as markup.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from audioeval.analysis.ranking import ScoreTable
from audioeval.report.escaping import console_cell
from audioeval.report.plots import heatmap
from audioeval.store.atomic import write_json_atomic, write_text_atomic

ROBUSTNESS_FILE = "robustness.json"
SPEARMAN_FILE = "spearman.json"
HEATMAP_FILE = "spearman.svg"
SCORES_FILE = "scores.csv"


def _span(pair: Sequence[int] | None) -> str:
    if not pair:
        return "–"
    return str(pair[0]) if pair[0] == pair[1] else f"{pair[0]}–{pair[1]}"


def _number(x: Any, fmt: str = "{:.2f}") -> str:
    return "–" if x is None else fmt.format(x)


def robustness_table(robustness: Mapping[str, Any]) -> Table:
    """One row per model, by rank: score, rank, and best–worst under each kind of variant."""
    models = robustness["models"]
    with_bootstrap = any("bootstrap" in m for m in models.values())
    n_columns = len(robustness.get("columns", []))
    table = Table(title="Ranking robustness (rank 1 is best)")
    table.add_column("#", justify="right")
    table.add_column("model")
    table.add_column("score ↑", justify="right")
    table.add_column("LOBO", justify="right")
    table.add_column("LOTGO", justify="right")
    table.add_column("alt-norm", justify="right")
    table.add_column("z-score", justify="right")
    table.add_column("min-max", justify="right")
    if with_bootstrap:
        table.add_column("bootstrap 95 %", justify="right")
    for name, m in models.items():
        score = _number(m.get("score"))
        if m.get("covered", n_columns) != n_columns and m.get("score") is not None:
            score += f" ({m['covered']}/{n_columns})"
        cells = [
            _number(m.get("rank"), "{}"),
            console_cell(name),
            score,
            _span(m.get("lobo")),
            _span(m.get("lotgo")),
            _span(m.get("alt_norm")),
            _number(m.get("zscore"), "{}"),
            _number(m.get("minmax"), "{}"),
        ]
        if with_bootstrap:
            cells.append(_span(m.get("bootstrap")))
        table.add_row(*cells)
    return table


def heatmap_svg(spearman: Mapping[str, Any]) -> str:
    """The Spearman matrix as an SVG heatmap (−1 … 1)."""
    cols = [str(c) for c in spearman["columns"]]
    return heatmap(
        "Spearman correlation between benchmarks (models as observations)",
        cols,
        cols,
        spearman["matrix"],
        "{:.2f}",
        cmap="RdBu_r",
        limits=(-1.0, 1.0),
        label="Spearman's ρ",
    )


def scores_csv(table: ScoreTable) -> str:
    """The table as a scores CSV that `audioeval rank --table` reads back (empty = missing)."""
    import csv
    import math

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["model", *(c.name for c in table.columns)])
    for model, row in zip(table.models, table.values.tolist(), strict=True):
        writer.writerow([model, *("" if math.isnan(v) else repr(v) for v in row)])
    return buf.getvalue()


def write_rank_outputs(
    out_dir: Path,
    robustness: Mapping[str, Any],
    spearman: Mapping[str, Any],
    *,
    scores: ScoreTable | None = None,
) -> list[Path]:
    """Write the JSON files, the heatmap and (from runs) the scores CSV; the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / ROBUSTNESS_FILE, out_dir / SPEARMAN_FILE]
    write_json_atomic(written[0], robustness)
    write_json_atomic(written[1], spearman)
    write_text_atomic(
        out_dir / HEATMAP_FILE, '<?xml version="1.0" encoding="utf-8"?>\n' + heatmap_svg(spearman)
    )
    written.append(out_dir / HEATMAP_FILE)
    if scores is not None:
        write_text_atomic(out_dir / SCORES_FILE, scores_csv(scores))
        written.append(out_dir / SCORES_FILE)
    return written
