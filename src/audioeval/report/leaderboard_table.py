"""Leaderboards (`engine/leaderboard.py` boards) as terminal tables and as Markdown
(`leaderboard.md`): one table per board, never one across task families.

A column shows the raw value on the metric's display scale (fractions and SIM as %, MOS 0–5,
BLEU and IFR as they are) with its CI (below it on the console); a group (the acoustic score) is one column listing its
members' values, as UltraEval-Audio's tables do. Failed samples are noted in the first cell of
their benchmark. Model and benchmark names are shown literally (`report/escaping.py`). A value
whose normalised value is below 0 (an error rate above 100 %) and the average it enters carry
`NEGATIVE_MARK`; a partial row's average says over how many of the board's entries it is, and
the notes name the columns it lacks. A board whose pairs' outputs are audio has a column of
unhealthy outputs per model (`health_text`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal

from rich.table import Table
from rich.text import Text

from audioeval.engine.leaderboard import Board, BoardColumn, BoardGroup, BoardRow, PairCounts
from audioeval.engine.run_summary import RunSummaryJson
from audioeval.report.escaping import console_cell, escape_markdown_cell, one_line
from audioeval.report.units import show_value
from audioeval.report.usage_table import calls_and_cost

NEGATIVE_MARK = "⚠"
NEGATIVE_NOTE = (
    f"{NEGATIVE_MARK} marks a value whose normalised value is below 0 (an error rate above 100 %:"
    " more errors than reference words) and an average that includes one; the value enters the"
    " average unclipped, as `negative_columns` in summary.json says."
)
CELLS_NOTE = (
    "Cells: the metric (fractions and SIM as %, MOS 0–5) with its 95 % bootstrap CI; failed samples"
    " are counted, and those the model gave no usable output for are in the value as wrong (full"
    " deletion for error rates) unless marked excluded (UltraEval-Audio drops failed samples instead)."
    " The average puts each entry on a 0–100 higher-is-better scale and takes the mean of the available"
    " ones; (k/n) marks an average over k of the board's n entries."
)
Item = tuple[Literal["column"], BoardColumn, list[BoardColumn]] | tuple[Literal["group"], BoardGroup, list[BoardColumn]]
"""A displayed column: ("column", column, []) or ("group", group, its member columns)."""


def board_layout(board: Board) -> list[Item]:
    """Columns in order; a group's members shown together where its first member stands."""
    columns = {c["key"]: c for c in board["columns"]}
    groups = {g["key"]: g for g in board["groups"]}
    items: list[Item] = []
    shown: set[str] = set()
    for col in board["columns"]:
        if col["group"] is None:
            items.append(("column", col, []))
        elif col["group"] not in shown:
            shown.add(col["group"])
            group = groups[col["group"]]
            items.append(("group", group, [columns[k] for k in group["columns"]]))
    return items


def _arrow(column: BoardColumn) -> str:
    return "↑" if column["direction"] == "higher" else "↓"


def _number(value: float | None, column: BoardColumn, digits: int = 2, *, sign: bool = True) -> str:
    """A column's value in its unit (`report/units.py`): a fraction as `2.47 %`, a metric in
    percent (its `unit`, shown as it is) as `71.43 %`."""
    unit = "fraction" if column["transform"] == "percent" else None
    if column["transform"] == "as_is" and column.get("unit") == "percent":
        unit = "percent"
    return show_value(value, unit, digits, sign=sign)


def column_headers(item: Item) -> list[str]:
    """The lines of a displayed column's header: its benchmark (if it has one), its label and
    direction, and a group's members."""
    kind, what, members = item
    lines = [] if what["benchmark"] is None else [what["benchmark"]]
    if kind == "column":
        return [*lines, f"{what['label']} {_arrow(what)}"]
    return [*lines, f"{what['label']} ↑", "(" + " / ".join(m["label"] for m in members) + ")"]


def _failed_note(pair: PairCounts | None) -> str:
    """` (3 failed; 2 without output counted)`, or '' when none failed."""
    if not pair or not pair.get("failed"):
        return ""
    n = pair.get("failed_outputs") or 0
    how = "excluded" if pair.get("failed_outputs_in_headline") == "excluded" else "counted"
    without = f"; {n} without output {how}" if n else ""
    return f" ({pair['failed']} failed{without})"


def _cell_text(item: Item, row: BoardRow, failed_here: set[str], sep: str) -> str:
    """The cell's value; then (after `sep`) its CI and failures, and the negative mark."""
    kind, what, members = item
    if kind == "group":
        values = [row["cells"][m["key"]] for m in members]
        text = " / ".join(_number(c["value"], m) for c, m in zip(values, members, strict=True))
        negative = any((c["normalised"] or 0.0) < 0 for c in values)
        return text + (f" {NEGATIVE_MARK}" if negative else "")
    cell = row["cells"][what["key"]]
    text = _number(cell["value"], what)
    mark = f" {NEGATIVE_MARK}" if (cell["normalised"] or 0.0) < 0 else ""
    more = ""
    ci = cell.get("ci")
    if cell["value"] is not None and ci and ci[0] is not None:
        more += f"[{_number(ci[0], what, 1, sign=False)}, {_number(ci[1], what, 1, sign=False)}]"
    if what["key"] in failed_here:
        more += _failed_note(row["pairs"].get(what["benchmark"]))
    if not more:
        return text + mark
    # the mark ends the value's line: the first on the console, the only one in Markdown
    return f"{text}{mark}{sep}{more.strip()}" if sep == "\n" else f"{text}{sep}{more.strip()}{mark}"


def _first_columns(board: Board) -> dict[str, str]:
    """{benchmark: the key of its first ungrouped column}, where its failures are noted."""
    first: dict[str, str] = {}
    for col in board["columns"]:
        if col["benchmark"] is not None and col["group"] is None:
            first.setdefault(col["benchmark"], col["key"])
    return first


def _model_text(row: BoardRow, first: Mapping[str, str]) -> str:
    """The model, with the failures of its benchmarks that have no column of their own."""
    return row["model"] + "".join(_failed_note(p) for b, p in row["pairs"].items() if b not in first)


def _average(row: BoardRow) -> str:
    if row.get("average") is None:
        return "–"
    text = f"{row['average']:.2f}"
    if row.get("negative_columns"):
        text += f" {NEGATIVE_MARK}"
    partial = row.get("averaged_over", 0) < row.get("entries", 0)
    return f"{text} ({row['averaged_over']}/{row['entries']})" if partial else text


HEALTH_HEADER = "unhealthy outputs"
HEALTH_NOTE = (
    "Unhealthy outputs: the model's audio outputs with a problem (silent, clipped, DC offset; for"
    " codecs and edits also truncated, padded or the input returned unchanged) or unreadable, of"
    " those checked, each problem with its count; such an output is still scored as its benchmark"
    " says, and its samples are listed in the pair's summary.json (output_health) and on the page."
)


def health_headers(board: Board) -> list[str]:
    """The health column's header, on a board whose rows' outputs are audio."""
    return [HEALTH_HEADER] if board.get("health") else []


def health_text(row: BoardRow) -> str:
    """`2 / 40 (silent 1, clipped 1)`: unhealthy outputs of those checked, each problem's count;
    `–` for a row without audio outputs."""
    health = row.get("output_health")
    if not health:
        return "–"
    text = f"{health['n_unhealthy']} / {health['n_checked'] + health['problems'].get('unreadable', 0)}"
    found = ", ".join(f"{name} {n}" for name, n in sorted(health["problems"].items()) if n)
    return f"{text} ({found})" if found else text


def rank_text(row: BoardRow) -> str:
    """A row's rank as shown: `–` for an unranked (incomplete) row."""
    return "–" if row.get("rank") is None else str(row["rank"])


def board_rows(board: Board, sep: str = " ") -> list[tuple[str, str, list[str], str]]:
    """(rank, model, cells, average) of every row, as text."""
    first = _first_columns(board)
    failed_here = set(first.values())
    items = board_layout(board)
    return [
        (
            rank_text(row),
            _model_text(row, first),
            [_cell_text(item, row, failed_here, sep) for item in items]
            + ([health_text(row)] if board.get("health") else []),
            _average(row) if board["average"] else "",
        )
        for row in board["rows"]
    ]


def board_notes(board: Board, quote: Callable[[str], str] = str) -> list[str]:
    """What the board averages and how, its partial rows, columns not averaged or not applicable."""
    notes = [quote(board["description"].rstrip(".")) + "."] if board.get("description") else []
    shown = [c["label"] for c in board["columns"] if c["weight"] == 0]
    if shown and board["average"]:
        notes.append(f"Shown, not averaged: {', '.join(dict.fromkeys(map(quote, shown)))}.")
    if not board["average"] and board["rank_by"]:
        notes.append(f"Ranked by {', then '.join(map(quote, board['rank_by']))}.")
    for row in board["rows"]:
        if row.get("rank") is None and row.get("ranked") is False:
            notes.append(
                f"{quote(row['model'])} lacks {', '.join(map(quote, row['missing']))}: listed below the"
                " complete rows, unranked (--mean-of-available ranks it by the mean of its available"
                " columns, UltraEval-Audio's convention)."
            )
        elif row["missing"]:
            notes.append(f"{quote(row['model'])} lacks {', '.join(map(quote, row['missing']))}.")
    if board["not_applicable"]:
        notes.append(f"No model has a value for: {', '.join(map(quote, board['not_applicable']))}.")
    if any(row["negative_columns"] for row in board["rows"]):
        notes.append(NEGATIVE_NOTE)
    if board.get("health"):
        notes.append(HEALTH_NOTE)
    return notes


def usage_shown(board: Board) -> bool:
    """Whether the board has a usage column: some row's requests or cost are known."""
    return any((r.get("usage") or {}).get("calls") is not None or "cost" in (r.get("usage") or {}) for r in board["rows"])


def usage_text(row: BoardRow) -> str:
    """A row's usage cell (`usage_table.calls_and_cost`)."""
    return calls_and_cost(row.get("usage") or {})


def board_table(board: Board) -> Table:
    table = Table(title=console_cell(f"{board['title']} leaderboard"), show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("model")
    for item in board_layout(board):
        table.add_column(Text("\n".join(map(one_line, column_headers(item)))), justify="right")
    for head in health_headers(board):
        table.add_column(head, justify="right")
    if board["average"]:
        table.add_column("average ↑", justify="right")
    usage = usage_shown(board)
    if usage:
        table.add_column("usage", justify="right")
    for row, (rank, model, cells, avg) in zip(board["rows"], board_rows(board, sep="\n"), strict=True):
        shown = [*cells, *([avg] if board["average"] else []), *([usage_text(row)] if usage else [])]
        table.add_row(rank, console_cell(model), *(Text(cell) for cell in shown))
    notes = board_notes(board)
    if notes:
        table.caption = console_cell(" ".join(notes))
    return table


def board_markdown(board: Board) -> str:
    heads = []
    for item in board_layout(board):
        heads.append(escape_markdown_cell(" ".join(column_headers(item))))
    heads += health_headers(board)
    if board["average"]:
        heads.append("average ↑")
    usage = usage_shown(board)
    if usage:
        heads.append("usage")
    lines = [
        f"## {escape_markdown_cell(board['title'])}",
        "",
        "| # | model | " + " | ".join(heads) + " |",
        "|---:|---|" + "---:|" * len(heads),
    ]
    for row, (rank, model, cells, avg) in zip(board["rows"], board_rows(board), strict=True):
        shown = [*cells, *([avg] if board["average"] else []), *([usage_text(row)] if usage else [])]
        lines.append(f"| {rank} | {escape_markdown_cell(model)} | " + " | ".join(shown) + " |")
    notes = board_notes(board, quote=escape_markdown_cell)
    return "\n".join(lines) + "\n\n" + "".join(f"{note}\n\n" for note in notes)


def leaderboards_markdown(summary: RunSummaryJson) -> str:
    boards = summary.get("boards") or {}
    head = (
        "# Leaderboards\n\nOne board per task family (and per user board): numbers of different"
        " families are never averaged together.\n\n"
    )
    if not boards:
        return head + "No board: no pair was scored.\n"
    return head + "\n".join(board_markdown(board) for board in boards.values()) + CELLS_NOTE + "\n"


def write_leaderboard(run_dir: Path, summary: RunSummaryJson) -> Path:
    """`leaderboard.md`: every board of the run's summary."""
    from audioeval.store.atomic import write_text_atomic

    path = run_dir / "leaderboard.md"
    write_text_atomic(path, leaderboards_markdown(summary))
    return path
