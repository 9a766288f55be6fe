"""MMAR / MMAU results: the official scripts' printout, and rich tables of both modes.

Group labels come from the metadata and are shown literally (`report/escaping.py`)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from audioeval.benchmarks.mcq.aggregate import accuracy
from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.report.escaping import console_cell
from audioeval.report.reliability_table import print_reliability

RULE = "*" * 30


def official_lines(summary: dict[str, Any], bench: McqBenchmark, mode: str = "official") -> list[str]:
    """The official `evaluation.py` printout, from the summary's counts.

    Figures are `(correct / n) * 100` with two decimals, as the scripts print them; an empty
    group prints 0.00 %. The last line gives the true count of items without a prediction
    (the original always prints 0).
    """
    lines: list[str] = []
    for axis in bench.axes:
        lines += [RULE, axis.title]
        for name, group in summary["breakdowns"][axis.name].items():
            acc = accuracy(group[mode]["correct"], group["n"])
            lines.append(f"{name} : {acc:.2f}% over {group['n']} samples")
    overall = summary["overall"]
    total = accuracy(overall[mode]["correct"], overall["n"])
    lines += [
        RULE,
        f"Total Accuracy: {total:.2f}% over {overall['n']} samples",
        RULE,
        f"No prediction count: {summary['counts']['without_prediction']}",
    ]
    return lines


def _acc(mode: dict[str, Any] | None) -> str:
    if mode is None:
        return "–"
    ci = mode.get("ci")
    return f"{mode['accuracy']:.2f}" + (f" [dim]({ci[0]:.1f}–{ci[1]:.1f})[/dim]" if ci else "")


def _rubric(group: dict[str, Any]) -> str:
    rubric = group.get("rubric")
    if not rubric or rubric.get("score") is None:
        return "–"
    ci = rubric.get("ci")
    return f"{rubric['score']:.2f}" + (f" [dim]({ci[0]:.1f}–{ci[1]:.1f})[/dim]" if ci else "")


def _table(title: str, groups: dict[str, dict[str, Any]], rubrics: bool) -> Table:
    table = Table(title=title, title_justify="left")
    for name, justify in (
        ("group", "left"),
        ("n", "right"),
        ("official % (95% CI)", "right"),
        ("robust % (95% CI)", "right"),
        ("unparseable %", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    if rubrics:
        table.add_column("rubric score (95% CI)", justify="right")
    for name, group in groups.items():
        cells = [
            console_cell(name),
            str(group["n"]),
            _acc(group["official"]),
            _acc(group["robust"]),
            f"{group['robust']['unparseable_rate']:.2f}",
        ]
        table.add_row(*cells, *([_rubric(group)] if rubrics else []))
    return table


def print_mcq_summary(
    summary: dict[str, Any],
    bench: McqBenchmark,
    *,
    console: Console | None = None,
    official_style: bool = True,
) -> None:
    """Official-style lines (official mode), then one table per breakdown, then the counts."""
    console = console or Console()
    if official_style:
        for line in official_lines(summary, bench):
            console.print(line, highlight=False, markup=False)
    rubrics = summary.get("rubrics") is not None
    title = bench.name.upper()
    overall = {"overall": summary["overall"]}
    console.print(_table(f"{title}: official and robust accuracy", overall, rubrics))
    for axis in bench.axes:
        console.print(_table(f"by {axis.name}", summary["breakdowns"][axis.name], rubrics))
    counts = summary["counts"]
    dis = summary["disagreements"]
    console.print(
        f"items {counts['items']} · scored {counts['scored']} · without prediction "
        f"{counts['without_prediction']} · answer not among choices "
        f"{counts['answer_not_in_choices']} · unparseable (robust) "
        f"{summary['overall']['robust']['unparseable']} · modes disagree on {dis['n']} "
        f"(official only {dis['official_only']}, robust only {dis['robust_only']})",
        highlight=False,
    )
    print_reliability(summary.get("reliability"), console=console)
