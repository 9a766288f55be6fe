"""The leaderboard as a terminal table and as Markdown (`leaderboard.md`).

Model and benchmark names are shown literally (`report/escaping.py`). A cell whose normalised
value is below 0 (an error rate above 100 %) and the average it enters carry `NEGATIVE_MARK`;
Markdown explains it in a footnote.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from audioeval.report.escaping import console_cell, escape_markdown_cell, one_line

NEGATIVE_MARK = "⚠"
NEGATIVE_NOTE = (
    f"{NEGATIVE_MARK} marks a headline whose normalised value is below 0 (an error rate above 100 %:"
    " more errors than reference words) and an average that includes one; the value enters the"
    " average unclipped, as `negative_columns` in summary.json says.\n"
)


def format_value(cell: Mapping[str, Any] | None) -> str:
    """`12.34 [10.1, 14.6]` on the metric's display scale (fractions as percent)."""
    if not cell or cell.get("value") is None:
        return "–"
    scale = 100.0 if cell.get("unit") == "fraction" else 1.0
    text = f"{cell['value'] * scale:.2f}"
    ci = cell.get("ci")
    if ci and ci[0] is not None:
        text += f" [{ci[0] * scale:.1f}, {ci[1] * scale:.1f}]"
    if cell.get("failed"):
        text += f" ({cell['failed']} failed{_without_output(cell)})"
    if (cell.get("normalised") or 0.0) < 0:
        text += f" {NEGATIVE_MARK}"
    return text


def _without_output(cell: Mapping[str, Any]) -> str:
    """`; 2 without output counted` (in the value as wrong) or `…excluded` (left out of it)."""
    n = cell.get("failed_outputs") or 0
    if not n:
        return ""
    how = "excluded" if cell.get("failed_outputs_in_headline") == "excluded" else "counted"
    return f"; {n} without output {how}"


def _average(row: Mapping[str, Any], total: int) -> str:
    """The normalised average; `(k/n)` when it covers only k of the n benchmarks."""
    if row["average"] is None:
        return "–"
    text = f"{row['average']:.2f}"
    if row.get("negative_columns"):
        text += f" {NEGATIVE_MARK}"
    return text if row.get("covered", total) == total else f"{text} ({row['covered']}/{total})"


def _arrow(board: Mapping[str, Any], bench: str) -> str:
    for row in board["rows"]:
        cell = row["cells"].get(bench)
        if cell:
            return "↑" if cell.get("higher_is_better", True) else "↓"
    return ""


def has_negative(board: Mapping[str, Any]) -> bool:
    """Whether any row has a normalised value below 0 (flagged, never clipped)."""
    return any(row.get("negative_columns") for row in board["rows"])


def leaderboard_table(board: Mapping[str, Any], title: str = "Leaderboard") -> Table:
    table = Table(title=title, show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("model")
    for bench in board["benchmarks"]:
        metric = f"{one_line(board['headlines'][bench])} {_arrow(board, bench)}"
        table.add_column(Text(f"{one_line(bench)}\n{metric}"), justify="right")
    table.add_column("average ↑\n(normalised)", justify="right")
    for row in board["rows"]:
        avg = _average(row, len(board["benchmarks"]))
        cells = [format_value(row["cells"].get(b)) for b in board["benchmarks"]]
        table.add_row(str(row["rank"]), console_cell(row["model"]), *cells, avg)
    if has_negative(board):
        table.caption = NEGATIVE_NOTE.strip()
    return table


def leaderboard_markdown(board: Mapping[str, Any]) -> str:
    heads = [
        f"{escape_markdown_cell(b)} {escape_markdown_cell(board['headlines'][b])} {_arrow(board, b)}"
        for b in board["benchmarks"]
    ]
    lines = [
        "| # | model | " + " | ".join(heads) + " | average (normalised) |",
        "|---:|---|" + "---:|" * len(heads) + "---:|",
    ]
    for row in board["rows"]:
        avg = _average(row, len(board["benchmarks"]))
        cells = [format_value(row["cells"].get(b)) for b in board["benchmarks"]]
        model = escape_markdown_cell(row["model"])
        lines.append(f"| {row['rank']} | {model} | " + " | ".join(cells) + f" | {avg} |")
    note = (
        "\nCells: headline metric (fractions as %) with its 95 % bootstrap CI; failed samples are"
        " counted, and those the model gave no usable output for are in the value as wrong (full"
        " deletion for error rates) unless marked excluded. The average puts every"
        " headline on a 0–100 higher-is-better scale (100 − error rate, 20 × MOS) and averages them;"
        " (k/n) marks an average over only k of the n benchmarks (a model that does not serve a task).\n"
    )
    if has_negative(board):
        note += "\n" + NEGATIVE_NOTE
    return "\n".join(lines) + "\n" + note


def write_leaderboard(run_dir: Path, summary: Mapping[str, Any]) -> Path:
    """`leaderboard.md`: the headline leaderboard, then any generation/codec boards."""
    from audioeval.report.generation_table import generation_markdown
    from audioeval.store.atomic import write_text_atomic

    text = leaderboard_markdown(summary["leaderboard"])
    for bench, board in (summary.get("generation_leaderboards") or {}).items():
        text += "\n" + generation_markdown(bench, board)
    path = run_dir / "leaderboard.md"
    write_text_atomic(path, text)
    return path
