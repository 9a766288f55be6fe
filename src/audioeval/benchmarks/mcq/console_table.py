"""MMAR / MMAU results: the official scripts' printout, and rich tables of both modes; the
family's `Benchmark.console_table` (`mcq score`'s figures: its `mcq_summary.json` plus
`official_print`).

Group labels come from the metadata and are shown literally (`report/escaping.py`); the judge
reliability block (`reliability`) is printed by the caller."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from audioeval.benchmarks.mcq.definitions import McqBenchmark, get_benchmark

if TYPE_CHECKING:
    from audioeval.benchmarks.mcq.aggregate import McqGroup, ModeFigures
    from audioeval.benchmarks.mcq.export import McqSummary

RULE = "*" * 30
OFFICIAL_NO_PREDICTION_LINE = "No prediction count: 0"
"""What the official MMAR and MMAU scripts print, whatever the file holds."""
_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")


def _cell(text: object) -> Text:
    """A group label as a table cell, shown literally on one line."""
    return Text(_LINE_BREAKS.sub(" ", str(text)))


def official_lines(summary: McqSummary, bench: McqBenchmark, mode: str = "official") -> list[str]:
    """The official `evaluation.py` printout, from the summary's figures.

    Figures are `(correct / n) * 100` with two decimals, as the scripts print them; an empty
    group prints 0.00 %. The last line is the script's own: `No prediction count: 0`, which it
    always prints (its count cannot be reached); the true count is on the counts line of
    `mcq_tables` ("without prediction").
    """
    lines: list[str] = []
    for axis in bench.axes:
        lines += [RULE, axis.title]
        for name, group in summary["breakdowns"][axis.name].items():
            lines.append(f"{name} : {_mode(group, mode)['accuracy']:.2f}% over {group['n']} samples")
    overall = summary["overall"]
    lines += [
        RULE,
        f"Total Accuracy: {_mode(overall, mode)['accuracy']:.2f}% over {overall['n']} samples",
        RULE,
        OFFICIAL_NO_PREDICTION_LINE,
    ]
    return lines


def _mode(group: McqGroup, mode: str) -> ModeFigures:
    """A group's figures of one mode (`official` or `robust`)."""
    if mode == "official":
        return group["official"]
    if mode == "robust":
        return group["robust"]
    raise ValueError(f"no mode {mode!r}: official or robust")


def _acc(mode: ModeFigures | None) -> str:
    if mode is None:
        return "–"
    ci = mode.get("ci")
    return f"{mode['accuracy']:.2f}" + (f" [dim]({ci[0]:.1f}–{ci[1]:.1f})[/dim]" if ci else "")


def _rubric(group: McqGroup) -> str:
    rubric = group.get("rubric")
    if not rubric or rubric.get("score") is None:
        return "–"
    ci = rubric.get("ci")
    return f"{rubric['score']:.2f}" + (f" [dim]({ci[0]:.1f}–{ci[1]:.1f})[/dim]" if ci else "")


def _table(title: str, groups: Mapping[str, McqGroup], rubrics: bool) -> Table:
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
        if not group["n"]:  # an empty group has no accuracy (the official printout says 0.00)
            table.add_row(_cell(name), "0", *["–"] * (len(table.columns) - 2))
            continue
        cells = [
            _cell(name),
            str(group["n"]),
            _acc(group["official"]),
            _acc(group["robust"]),
            f"{group['robust']['unparseable_rate']:.2f}",
        ]
        table.add_row(*cells, *([_rubric(group)] if rubrics else []))
    return table


def mcq_tables(summary: McqSummary, bench: McqBenchmark, *, official_style: bool = True) -> list[Any]:
    """Official-style lines (official mode), then one table per breakdown, then the counts."""
    shown: list[Any] = []
    if official_style:
        shown += [Text(line) for line in official_lines(summary, bench)]
    rubrics = summary.get("rubrics") is not None
    title = bench.name.upper()
    overall = {"overall": summary["overall"]}
    shown.append(_table(f"{title}: official and robust accuracy", overall, rubrics))
    for axis in bench.axes:
        shown.append(_table(f"by {axis.name}", summary["breakdowns"][axis.name], rubrics))
    counts = summary["counts"]
    dis = summary["disagreements"]
    shown.append(
        Text(
            f"items {counts['items']} · scored {counts['scored']} · without prediction "
            f"{counts['without_prediction']} · answer not among choices "
            f"{counts['answer_not_in_choices']} · unparseable (robust) "
            f"{summary['overall']['robust']['unparseable']} · modes disagree on {dis['n']} "
            f"(official only {dis['official_only']}, robust only {dis['robust_only']})"
        )
    )
    return shown


def console_table(figures: McqSummary) -> list[Any]:
    """`mcq score`'s figures (its summary, with `official_print`) as console renderables."""
    bench = get_benchmark(figures["benchmark"])
    return mcq_tables(figures, bench, official_style=bool(figures.get("official_print", True)))
