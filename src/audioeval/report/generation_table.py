"""Generation / codec leaderboards: raw metrics per model and the normalised average.

Names are shown literally (`report/escaping.py`); a metric whose normalised value is below 0
(WER above 100 %) and the average it enters carry the leaderboard's negative mark.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

from audioeval.report.escaping import console_cell, escape_markdown_cell
from audioeval.report.leaderboard_table import NEGATIVE_MARK, NEGATIVE_NOTE, has_negative

LOWER_IS_BETTER = ("wer", "cer")


def _fmt(metric: str, value: float | None) -> str:
    if value is None:
        return "–"
    if metric in LOWER_IS_BETTER:
        return f"{100 * value:.2f}"
    return f"{value:.3f}"


def _cells(board: Mapping[str, Any], row: Mapping[str, Any]) -> list[str]:
    """The row's raw metrics, then its average; negative normalised values marked."""
    negative = set(row.get("negative_columns") or ())
    cells = [
        _fmt(m, row["values"].get(m)) + (f" {NEGATIVE_MARK}" if m in negative else "")
        for m in board["metrics"]
    ]
    avg = "–" if row["average"] is None else f"{row['average']:.2f}"
    return [*cells, avg + (f" {NEGATIVE_MARK}" if negative else "")]


def generation_table(benchmark: str, board: Mapping[str, Any]) -> Table:
    table = Table(title=console_cell(f"{benchmark} ({board.get('task')}): raw metrics and average"))
    table.add_column("#", justify="right")
    table.add_column("model")
    for m in board["metrics"]:
        arrow = "↓" if m in LOWER_IS_BETTER else "↑"
        unit = " %" if m in LOWER_IS_BETTER else ""
        table.add_column(console_cell(f"{m}{unit} {arrow}"), justify="right")
    table.add_column("average ↑", justify="right")
    for rank, row in enumerate(board["rows"], start=1):
        name = row["model"] + (f" ({row['failed']} failed)" if row.get("failed") else "")
        table.add_row(str(rank), console_cell(name), *_cells(board, row))
    caption = console_cell(
        f"average over {', '.join(board['averaged'])}: WER/CER as 100 − value, MOS × 20, SIM × 100; "
        "– = not applicable or no value"
    )
    if has_negative(board):
        caption.append("\n" + NEGATIVE_NOTE.strip())
    table.caption = caption
    return table


def generation_markdown(benchmark: str, board: Mapping[str, Any]) -> str:
    heads = [f"{escape_markdown_cell(m)} {'↓' if m in LOWER_IS_BETTER else '↑'}" for m in board["metrics"]]
    lines = [
        f"### {escape_markdown_cell(benchmark)} ({escape_markdown_cell(board.get('task'))})",
        "",
        "| # | model | " + " | ".join(heads) + " | average |",
        "|---:|---|" + "---:|" * len(heads) + "---:|",
    ]
    for rank, row in enumerate(board["rows"], start=1):
        cells = _cells(board, row)
        lines.append(f"| {rank} | {escape_markdown_cell(row['model'])} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        f"Average over {', '.join(map(escape_markdown_cell, board['averaged']))} "
        "(WER/CER as 100 − value in %, MOS × 20, SIM × 100)."
    )
    if has_negative(board):
        lines += ["", NEGATIVE_NOTE.strip()]
    return "\n".join(lines) + "\n"
