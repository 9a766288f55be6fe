"""The `audioeval judge-eval` summary printed on a console: the benchmark's tables
(`benchmarks/anyaudio_bench/console_table.py`) and the judge reliability block."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from audioeval.benchmarks.anyaudio_bench.console_table import footer_line, judge_eval_tables
from audioeval.report.reliability_table import print_reliability

__all__ = ["footer_line", "print_judge_eval_summary"]


def print_judge_eval_summary(
    summary: dict[str, Any],
    *,
    console: Console | None = None,
    title: str = "AnyAudio-Judge Bench",
    paper_style: bool = True,
) -> None:
    """The paper's row, the subset table, the type table, the footer line, the reliability."""
    console = console or Console()
    for item in judge_eval_tables(summary, title, paper_style):
        console.print(item, highlight=False)
    print_reliability(summary.get("reliability"), console=console)
