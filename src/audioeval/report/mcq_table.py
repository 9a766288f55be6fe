"""MMAR / MMAU results printed on a console: the family's tables (`benchmarks/mcq/console_table.py`)
and the judge reliability block."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from audioeval.benchmarks.mcq.console_table import mcq_tables, official_lines
from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.report.reliability_table import print_reliability

__all__ = ["official_lines", "print_mcq_summary"]


def print_mcq_summary(
    summary: dict[str, Any],
    bench: McqBenchmark,
    *,
    console: Console | None = None,
    official_style: bool = True,
) -> None:
    """Official-style lines (official mode), then one table per breakdown, the counts, the reliability."""
    console = console or Console()
    for item in mcq_tables(summary, bench, official_style=official_style):
        console.print(item, highlight=False)
    print_reliability(summary.get("reliability"), console=console)
