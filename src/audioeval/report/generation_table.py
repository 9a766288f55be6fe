"""Generation / codec leaderboards: raw metrics per model and the normalised average."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.table import Table

LOWER_IS_BETTER = ("wer", "cer")


def _fmt(metric: str, value: float | None) -> str:
    if value is None:
        return "–"
    if metric in LOWER_IS_BETTER:
        return f"{100 * value:.2f}"
    return f"{value:.3f}"


def generation_table(benchmark: str, board: Mapping[str, Any]) -> Table:
    table = Table(title=f"{benchmark} ({board.get('task')}): raw metrics and average")
    table.add_column("#", justify="right")
    table.add_column("model")
    for m in board["metrics"]:
        arrow = "↓" if m in LOWER_IS_BETTER else "↑"
        unit = " %" if m in LOWER_IS_BETTER else ""
        table.add_column(f"{m}{unit} {arrow}", justify="right")
    table.add_column("average ↑", justify="right")
    for rank, row in enumerate(board["rows"], start=1):
        avg = "–" if row["average"] is None else f"{row['average']:.2f}"
        cells = [_fmt(m, row["values"].get(m)) for m in board["metrics"]]
        name = row["model"] + (f" ({row['failed']} failed)" if row.get("failed") else "")
        table.add_row(str(rank), name, *cells, avg)
    table.caption = (
        f"average over {', '.join(board['averaged'])}: WER/CER as 100 − value, MOS × 20, SIM × 100; "
        "– = not applicable or no value"
    )
    return table


def generation_markdown(benchmark: str, board: Mapping[str, Any]) -> str:
    heads = [f"{m} {'↓' if m in LOWER_IS_BETTER else '↑'}" for m in board["metrics"]]
    lines = [
        f"### {benchmark} ({board.get('task')})",
        "",
        "| # | model | " + " | ".join(heads) + " | average |",
        "|---:|---|" + "---:|" * len(heads) + "---:|",
    ]
    for rank, row in enumerate(board["rows"], start=1):
        avg = "–" if row["average"] is None else f"{row['average']:.2f}"
        cells = [_fmt(m, row["values"].get(m)) for m in board["metrics"]]
        lines.append(f"| {rank} | {row['model']} | " + " | ".join(cells) + f" | {avg} |")
    lines.append("")
    lines.append(
        f"Average over {', '.join(board['averaged'])} (WER/CER as 100 − value in %, MOS × 20, SIM × 100)."
    )
    return "\n".join(lines) + "\n"
