"""`audioeval leaderboard`'s outputs: `leaderboard.json`, `leaderboard.md` and `index.html` (a
page of the kind `audioeval report` writes: `report/html_page.py`), and the console tables.

Each board is shown as `report/leaderboard_table.py` shows a run's boards, then its board
scores with their CIs and the p-value between each two adjacent ranks
(`analysis/leaderboard_runs.py`). On the page, a bar chart of the board scores with CI
whiskers (`report/plots.py`); every model and benchmark name is escaped by the page's Jinja
autoescaping (or drawn as paths by matplotlib), in Markdown by `escape_markdown_cell`, on the
console by `console_cell`.
"""

from __future__ import annotations

from pathlib import Path

from rich.table import Table as RichTable

from audioeval.analysis.leaderboard_runs import LeaderboardDoc
from audioeval.engine.leaderboard import AdjacentTest, Board, BoardRow
from audioeval.report.escaping import console_cell, escape_markdown_cell
from audioeval.report.html_page import Section, Table, render_page
from audioeval.report.leaderboard_table import (
    CELLS_NOTE,
    HEALTH_HEADER,
    HEALTH_NOTE,
    board_layout,
    board_markdown,
    board_notes,
    board_rows,
    column_headers,
    health_headers,
    rank_text,
    usage_shown,
    usage_text,
)
from audioeval.report.plots import bars_with_ci
from audioeval.report.portable import machine_prefixes, model_label, scrub
from audioeval.store.atomic import write_json_atomic, write_text_atomic

JSON_FILE = "leaderboard.json"
MARKDOWN_FILE = "leaderboard.md"
PAGE_FILE = "index.html"
ADJACENT_HEADERS = ["#", "model", "board score", "95 % CI", "vs the next rank", "difference", "p", "note"]


def _number(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def p_text(test: AdjacentTest | None) -> str:
    """A p-value as shown: `0.012`, `< 0.001` when no resample flipped the sign, `–` when none."""
    if not test or test.get("p") is None:
        return "–"
    if test["p"] == 0:
        return f"< {1 / test['n_resamples']:.2g}"
    return f"{test['p']:.3g}"


def adjacent_rows(board: Board) -> list[list[str]]:
    """Per row, best first: rank, model, board score, its CI, the next model, the difference,
    the p-value and why there is none (plain text, escaped where shown)."""
    out = []
    for row in board["rows"]:
        ci = row.get("score_ci")
        test = row.get("adjacent")
        note = (test or {}).get("reason") or ""
        if not ci and row.get("score_ci_reason") and row.get("score") is not None:
            note = "; ".join(x for x in (f"no CI: {row['score_ci_reason']}", note) if x)
        out.append(
            [
                rank_text(row),
                row["model"],
                _number(row.get("score")),
                f"[{ci[0]:.1f}, {ci[1]:.1f}]" if ci else "–",
                "" if test is None else test["below"],
                "" if test is None else _number(test.get("difference")),
                "" if test is None else p_text(test),
                note,
            ]
        )
    return out


def adjacent_table(board: Board) -> RichTable:
    table = RichTable(title=console_cell(f"{board['title']}: board scores and adjacent ranks"))
    for head in ADJACENT_HEADERS:
        table.add_column(head, justify="left" if head in ("model", "vs the next rank", "note") else "right")
    for cells in adjacent_rows(board):
        table.add_row(*(console_cell(c) for c in cells))
    return table


def adjacent_markdown(board: Board) -> str:
    lines = [
        f"### {escape_markdown_cell(board['title'])}: board scores and adjacent ranks",
        "",
        "| " + " | ".join(ADJACENT_HEADERS) + " |",
        "|---:|---|---:|---:|---|---:|---:|---|",
    ]
    lines += [
        "| " + " | ".join(escape_markdown_cell(c) for c in cells) + " |" for cells in adjacent_rows(board)
    ]
    return "\n".join(lines) + "\n\n"


def _method(doc: LeaderboardDoc) -> str:
    b = doc["bootstrap"]
    return (
        f"Board score: each row's first ranking key (its average, unless the board ranks by a column)."
        f" CI: the {b['confidence']:.0%} percentile interval of the row's own resamples. p between"
        f" adjacent ranks: {b['method']}. {b['resamples']} resamples, seed {b['seed']}."
    )


def leaderboard_markdown(doc: LeaderboardDoc) -> str:
    """`leaderboard.md`: every board, each followed by its board scores and adjacent p-values."""
    head = (
        "# Leaderboards\n\nFrom the run directories "
        + ", ".join(
            escape_markdown_cell(scrub(str(Path(r).resolve()), page_prefixes(doc))) for r in doc["run_dirs"]
        )
        + ". One board per task family (and per user board): numbers of different families are"
        " never averaged together.\n\n"
    )
    boards = doc["boards"]
    if not boards:
        return head + "No board: no pair was scored.\n"
    parts = [board_markdown(board) + adjacent_markdown(board) for board in boards.values()]
    return head + "\n".join(parts) + CELLS_NOTE + "\n\n" + escape_markdown_cell(_method(doc)) + "\n"


def board_table(board: Board, health_link: str = "") -> Table:
    """The board as the page's table: the same cells as `leaderboard.md`; a row with unhealthy
    outputs links its health cell to `health_link` (the page's list of their samples)."""
    headers = ["#", "model", *(" ".join(column_headers(item)) for item in board_layout(board))]
    headers += health_headers(board)
    headers += ["average ↑"] if board["average"] else []
    usage = usage_shown(board)
    headers += ["usage"] if usage else []
    rows = [
        [rank, model, *cells, *([avg] if board["average"] else []), *([usage_text(row)] if usage else [])]
        for row, (rank, model, cells, avg) in zip(board["rows"], board_rows(board), strict=True)
    ]
    if not (board.get("health") and health_link):
        return Table(headers, rows, f"{board['title']} leaderboard")
    links = [health_link if _unhealthy(r) else "" for r in board["rows"]]
    return Table(headers, rows, f"{board['title']} leaderboard", link_column=HEALTH_HEADER, links=links)


def _unhealthy(row: BoardRow) -> int:
    health = row.get("output_health")
    return 0 if health is None else health["n_unhealthy"]


MAX_HEALTH_IDS = 20


def health_rows(board: Board) -> list[list[str | int]]:
    """Per model and benchmark of the board, each output-health problem with its count and samples."""
    out: list[list[str | int]] = []
    for row in board["rows"]:
        for bench, pair in row["pairs"].items():
            health = pair.get("output_health")
            if health is None:
                continue
            problems = dict(health["problems"])
            if health["unreadable"]["n"]:
                problems["unreadable"] = health["unreadable"]
            for name, found in sorted(problems.items()):
                ids = [str(i) for i in found["ids"]]
                more = f", … ({len(ids)} in all)" if len(ids) > MAX_HEALTH_IDS else ""
                out.append(
                    [
                        row["model"],
                        bench,
                        name,
                        found["n"],
                        ", ".join(ids[:MAX_HEALTH_IDS]) + more,
                    ]
                )
    return out


def health_section(board: Board, anchor: str) -> Section | None:
    """The samples behind a board's health column: what its cells link to."""
    rows = health_rows(board)
    if not rows:
        return None
    table = Table(["model", "benchmark", "problem", "n", "samples"], rows, right_aligned=("n",))
    return Section(f"{board['title']}: unhealthy outputs", anchor, paragraphs=[HEALTH_NOTE], tables=[table])


def board_section(board: Board, anchor: str) -> Section:
    """A board on the page: notes, the bar chart of its board scores, its table, the p-values."""
    scored = [r for r in board["rows"] if r.get("score") is not None]
    figures = []
    if scored:
        figures.append(
            bars_with_ci(
                f"{board['title']}: board score (95 % CI)",
                [model_label(str(r["model"])) for r in scored],
                [float(r["score"]) for r in scored],
                [tuple(r["score_ci"]) if r.get("score_ci") else None for r in scored],
            )
        )
    adjacent = Table(ADJACENT_HEADERS, adjacent_rows(board), "Board scores and adjacent ranks")
    return Section(
        str(board["title"]),
        anchor,
        paragraphs=board_notes(board),
        tables=[board_table(board, f"#{anchor}-health"), adjacent],
        figures=figures,
    )


def page_prefixes(doc: LeaderboardDoc) -> list[str]:
    """The folders of the machine a leaderboard's text may name (`report/portable.py`): those
    of each run directory, and the folder of every model named by a file path."""
    models = [str(r["model"]) for b in doc["boards"].values() for r in b["rows"]]
    files = [m.partition(":")[2] or m for m in models]
    prefixes: set[str] = set()
    for run_dir in doc["run_dirs"]:
        prefixes.update(machine_prefixes(Path(run_dir).resolve(), files))
    return sorted(prefixes, key=len, reverse=True)


def leaderboard_page(doc: LeaderboardDoc) -> str:
    """`index.html`: one section per board, then how the numbers were made; each run directory
    named by its folder, with no path of the machine (`…/run1`)."""
    boards = list(doc["boards"].values())
    sections = []
    for i, b in enumerate(boards):
        sections.append(board_section(b, f"board-{i}"))
        health = health_section(b, f"board-{i}-health")
        if health is not None:
            sections.append(health)
    prefixes = page_prefixes(doc)
    sources = Table(["run directory"], [[scrub(str(Path(r).resolve()), prefixes)] for r in doc["run_dirs"]])
    sections.append(Section("Method", "method", paragraphs=[CELLS_NOTE, _method(doc)], tables=[sources]))
    subtitle = (
        f"{len(boards)} board(s) from {len(doc['run_dirs'])} run director"
        f"{'y' if len(doc['run_dirs']) == 1 else 'ies'}; from stored runs, no model or judge call"
    )
    page = render_page("audioeval leaderboard", subtitle, sections, {"pairs": []})
    return scrub(page, prefixes)


def write_leaderboard_outputs(out_dir: Path, doc: LeaderboardDoc) -> list[Path]:
    """Write `leaderboard.json`, `leaderboard.md` and `index.html`; the paths written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / JSON_FILE, out_dir / MARKDOWN_FILE, out_dir / PAGE_FILE]
    write_json_atomic(paths[0], doc)
    write_text_atomic(paths[1], leaderboard_markdown(doc))
    write_text_atomic(paths[2], leaderboard_page(doc))
    paths[2].chmod(0o644)
    return paths
