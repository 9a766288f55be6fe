"""`audioeval rank`'s outputs: `robustness.json`, `spearman.json`, the Spearman heatmap
(`spearman.svg`, drawn by matplotlib), the terminal table of ranks, and `index.html` (a page
of the kind `audioeval report` writes: `report/html_page.py`) with the robustness table, the
heatmap and the bootstrap rank intervals.

Model and benchmark names are shown literally (`report/escaping.py`; on the page, by its
autoescaping); in the SVG, matplotlib draws text as paths, so no name reaches the file as
markup.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from audioeval.analysis.ranking import RobustnessJson, ScoreTable, SpearmanJson
from audioeval.report.escaping import console_cell
from audioeval.report.html_page import Section, render_page
from audioeval.report.html_page import Table as PageTable
from audioeval.report.plots import heatmap
from audioeval.store.atomic import write_json_atomic, write_text_atomic
from audioeval.store.csv_cells import neutralise_cell

ROBUSTNESS_FILE = "robustness.json"
SPEARMAN_FILE = "spearman.json"
HEATMAP_FILE = "spearman.svg"
SCORES_FILE = "scores.csv"
PAGE_FILE = "index.html"


def _span(pair: Sequence[int] | None) -> str:
    if not pair:
        return "–"
    return str(pair[0]) if pair[0] == pair[1] else f"{pair[0]}–{pair[1]}"


def _number(x: Any, fmt: str = "{:.2f}") -> str:
    return "–" if x is None else fmt.format(x)


def robustness_rows(robustness: RobustnessJson) -> tuple[list[str], list[list[str]]]:
    """The headers and rows (plain text) of the robustness table: one row per model, by rank:
    score, rank, best–worst under each kind of variant, and the bootstrap interval if any."""
    models = robustness["models"]
    with_bootstrap = any("bootstrap" in m for m in models.values())
    n_columns = len(robustness.get("columns", []))
    headers = ["#", "model", "score ↑", "LOBO", "LOTGO", "alt-norm", "z-score", "min-max"]
    headers += ["bootstrap 95 %"] if with_bootstrap else []
    rows = []
    for name, m in models.items():
        score = _number(m.get("score"))
        if m.get("covered", n_columns) != n_columns and m.get("score") is not None:
            score += f" ({m['covered']}/{n_columns})"
        cells = [
            _number(m.get("rank"), "{}"),
            name,
            score,
            _span(m.get("lobo")),
            _span(m.get("lotgo")),
            _span(m.get("alt_norm")),
            _number(m.get("zscore"), "{}"),
            _number(m.get("minmax"), "{}"),
        ]
        if with_bootstrap:
            cells.append(_span(m.get("bootstrap")))
        rows.append(cells)
    return headers, rows


def robustness_table(robustness: RobustnessJson) -> Table:
    """The robustness table on the console."""
    headers, rows = robustness_rows(robustness)
    table = Table(title="Ranking robustness (rank 1 is best)")
    for head in headers:
        table.add_column(head, justify="left" if head == "model" else "right")
    for cells in rows:
        table.add_row(*(console_cell(c) for c in cells))
    return table


def rank_page(robustness: RobustnessJson, spearman_svg: str | None) -> str:
    """`index.html`: the robustness table (with the bootstrap rank intervals when there are
    some), the Spearman heatmap (None: fewer than two columns, none drawn), the columns and
    their task groups."""
    headers, rows = robustness_rows(robustness)
    notes = [
        "Score: the mean of each model's available values, every column on one higher-is-better"
        " scale (100 − x for error rates, 20 × a MOS). LOBO, LOTGO, alt-norm: the best–worst rank"
        " when one benchmark or one task group is left out, or the columns are z-scored or"
        " min-max scaled."
    ]
    boot = robustness.get("bootstrap")
    if boot:
        notes.append(
            f"Bootstrap 95 %: the rank interval over {boot['resamples']} resamples (seed"
            f" {boot['seed']}) of each benchmark's samples, one draw for every model."
        )
        if boot.get("held"):
            notes.append("Held at their value in every resample: " + "; ".join(boot["held"]) + ".")
    columns = [
        [c["name"], c["group"], "higher" if c["higher_is_better"] else "lower"] for c in robustness["columns"]
    ]
    sections = [
        Section("Ranking robustness", "robustness", notes, [PageTable(headers, rows)]),
        Section(
            "Spearman correlation",
            "spearman",
            [
                "ρ between every two columns, the models as observations; each cell shows n, how many"
                f" models it is over (spearman.json `n`), and is greyed below {SPEARMAN_MIN_MODELS}."
                if spearman_svg is not None
                else "No correlation to draw: ρ is between two columns or more, and this table has one."
            ],
            figures=[spearman_svg] if spearman_svg is not None else [],
        ),
        Section("Columns", "columns", tables=[PageTable(["column", "task group", "better"], columns)]),
    ]
    subtitle = f"{len(robustness['models'])} model(s) × {len(robustness['columns'])} column(s)"
    return render_page("audioeval rank", subtitle, sections, {"pairs": []})


SPEARMAN_MIN_MODELS = 5
"""Below this many models a Spearman cell is greyed: ρ over so few ranks says little."""


def heatmap_svg(spearman: SpearmanJson) -> str | None:
    """The Spearman matrix as an SVG heatmap (−1 … 1); each cell shows its n (how many models
    the ρ is over) and is greyed below `SPEARMAN_MIN_MODELS`. None for fewer than two columns
    (a 1 × 1 matrix of ρ = 1 says nothing)."""
    cols = [str(c) for c in spearman["columns"]]
    if len(cols) < 2:
        return None
    counts = spearman.get("n") or [[SPEARMAN_MIN_MODELS] * len(cols) for _ in cols]
    return heatmap(
        "Spearman correlation between benchmarks (models as observations)",
        cols,
        cols,
        spearman["matrix"],
        "{:.2f}",
        cmap="RdBu_r",
        limits=(-1.0, 1.0),
        label="Spearman's ρ",
        notes=[[f"n={n}" for n in row] for row in counts],
        grey=[[n < SPEARMAN_MIN_MODELS for n in row] for row in counts],
    )


def scores_csv(table: ScoreTable) -> str:
    """The table as a scores CSV that `audioeval rank --table` reads back (empty = missing);
    names that a spreadsheet would read as a formula are quoted (`store/csv_cells.py`)."""
    import csv
    import math

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["model", *(neutralise_cell(c.name) for c in table.columns)])
    for model, row in zip(table.models, table.values.tolist(), strict=True):
        writer.writerow([neutralise_cell(model), *("" if math.isnan(v) else repr(v) for v in row)])
    return buf.getvalue()


def write_rank_outputs(
    out_dir: Path,
    robustness: RobustnessJson,
    spearman: SpearmanJson,
    *,
    scores: ScoreTable | None = None,
) -> list[Path]:
    """Write the JSON files, the heatmap (with two columns or more), the page and (from runs)
    the scores CSV; the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / ROBUSTNESS_FILE, out_dir / SPEARMAN_FILE]
    write_json_atomic(written[0], robustness)
    write_json_atomic(written[1], spearman)
    svg = heatmap_svg(spearman)
    if svg is not None:
        write_text_atomic(out_dir / HEATMAP_FILE, '<?xml version="1.0" encoding="utf-8"?>\n' + svg)
        written.append(out_dir / HEATMAP_FILE)
    write_text_atomic(out_dir / PAGE_FILE, rank_page(robustness, svg))
    (out_dir / PAGE_FILE).chmod(0o644)
    written.append(out_dir / PAGE_FILE)
    if scores is not None:
        write_text_atomic(out_dir / SCORES_FILE, scores_csv(scores))
        written.append(out_dir / SCORES_FILE)
    return written
