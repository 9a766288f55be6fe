"""Usage and cost as people read them: the console table at the end of a run, the
`--dry-run` plan, and the cells of boards and pages. Every figure is the one the engine put in
the pair summaries (`usage`, `cost`: `metrics/usage_totals.py`); unknown shows as "–", never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from audioeval.core.usage import UsageRecord
    from audioeval.engine.leaderboard import RowUsage
    from audioeval.engine.run_plan import RunPlan
    from audioeval.metrics.summary_blocks import PairSummary

UNKNOWN = "–"


def count_text(value: int | None) -> str:
    return UNKNOWN if value is None else f"{value:,}"


def seconds_text(value: float | None) -> str:
    return UNKNOWN if value is None else f"{value:,.1f}"


def dollars_text(value: float | None) -> str:
    if value is None:
        return UNKNOWN
    return f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def tokens_text(total: int | None, audio: int | None) -> str:
    """`1,234 (audio 600)`; the audio part left out when unknown or zero."""
    if total is None:
        return UNKNOWN
    return f"{total:,}" + (f" (audio {audio:,})" if audio else "")


def usage_cells(u: UsageRecord) -> list[str]:
    """calls, retries, tokens in, tokens out, audio s in (sent), audio s out (received), wall s."""
    return [
        count_text(u.get("calls")),
        count_text(u.get("retries")),
        tokens_text(u.get("input_tokens"), u.get("input_audio_tokens")),
        tokens_text(u.get("output_tokens"), u.get("output_audio_tokens")),
        seconds_text(u.get("audio_sent_s")),
        seconds_text(u.get("audio_received_s")),
        seconds_text(u.get("wall_s")),
    ]


HEADERS = ["calls", "retries", "tokens in", "tokens out", "audio s in", "audio s out", "wall s"]
"""tokens: all, audio in brackets; audio s: seconds of audio sent (in) and received (out)."""


def usage_rows(results: Sequence[PairSummary]) -> list[list[str]]:
    """One row per pair and role (model, judge): pair, role, the usage cells, cost."""
    rows = []
    for r in results:
        usage = r.get("usage")
        cost = r.get("cost", {})
        if usage is None:  # a summary of an earlier version
            continue
        for role in ("model", "judge"):
            if role not in usage:
                continue
            rows.append(
                [
                    f"{r.get('benchmark')} · {r.get('model')}",
                    role,
                    *usage_cells(usage[role]),  # type: ignore[literal-required]
                    dollars_text(cost.get(role)),
                ]
            )
    return rows


def usage_table(results: Sequence[PairSummary], *, priced: bool) -> Table | None:
    """The console table of what each pair's model and judge used (None: nothing to show)."""
    rows = usage_rows(results)
    if not rows:
        return None
    table = Table(title="usage" + (" and cost" if priced else ""), title_justify="left")
    for header in ["pair", "role", *HEADERS, *(["cost"] if priced else [])]:
        table.add_column(header, justify="left" if header in ("pair", "role") else "right")
    for row in rows:  # Text: a name is shown as written, never read as markup
        table.add_row(*(Text(cell) for cell in (row if priced else row[:-1])))
    return table


def calls_and_cost(usage: RowUsage) -> str:
    """A board row's usage (`engine/leaderboard.row_usage`) as one cell: `12 calls`, `12 calls,
    $0.0128`; `–` where unknown."""
    text = UNKNOWN if usage.get("calls") is None else f"{usage['calls']:,} calls"
    if "cost" in usage:
        text += f", {dollars_text(usage['cost'])}"
    return text


def usage_cell(summary: PairSummary) -> str:
    """One pair's usage as one cell (the viewer's list): its board row's figures."""
    from audioeval.engine.leaderboard import row_usage

    return calls_and_cost(row_usage([summary]))


def plan_table(plan: RunPlan) -> Table:
    """The `--dry-run` plan: per pair and role, requests, audio seconds, rough tokens, cost."""
    priced = plan.prices is not None
    table = Table(title="dry run: what the run will ask (tokens and cost are rough)", title_justify="left")
    for header in [
        "pair",
        "role",
        "samples",
        "requests",
        "audio s in",
        "tokens in",
        "tokens out",
        *(["cost"] if priced else []),
    ]:
        table.add_column(header, justify="left" if header in ("pair", "role") else "right")
    for p in plan.pairs:
        where = f"{p.benchmark} · {p.model}"
        for role, usage, cost in (
            ("model", p.model_usage, p.model_cost),
            ("judge", p.judge_usage, p.judge_cost),
        ):
            if usage is None:
                continue
            row = [
                where,
                role,
                f"{p.samples:,}" + (f" (+{p.done:,} done)" if p.done else ""),
                count_text(usage.calls),
                seconds_text(usage.audio_sent_s),
                "~" + tokens_text(usage.input_tokens, usage.input_audio_tokens),
                "~" + tokens_text(usage.output_tokens, usage.output_audio_tokens),
            ]
            if priced:
                row.append(("~" + dollars_text(cost)) if cost is not None else UNKNOWN)
            table.add_row(*(Text(cell) for cell in row))
    return table
