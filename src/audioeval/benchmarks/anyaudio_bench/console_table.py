"""The `audioeval judge-eval` summary as rich tables: the benchmark's `console_table`
(`judge_eval_summary.json` -> what is printed; the judge reliability block is printed by the
caller).

First the paper's view (accuracy per subset in columns, then our macro average over subsets,
which the official script does not compute: its overall accuracy is pooled over rows), then
one row per subset with n, accuracy, balanced accuracy and AUROC with their 95 % CIs, the
pooled overall and the macro average, accuracy per row type, and a last line with the
unscored and failed counts, the threshold and where it came from, and the ECE. Subset and
type names come from the data and are shown literally (as `report/escaping.py` shows them).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from rich.markup import escape
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from audioeval.benchmarks.anyaudio_bench.judge_eval_doc import (
        GroupFigures,
        JudgeEvalSummary,
        SubsetFigures,
        TypeFigures,
    )

NONE = "–"
_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")


def console_cell(text: object, style: str = "") -> Text:
    """A data label as a table cell or title, shown literally on one line."""
    return Text(_LINE_BREAKS.sub(" ", str(text)), style=style)


def console_text(text: object) -> str:
    """A data label inside a markup string, shown literally on one line."""
    return escape(_LINE_BREAKS.sub(" ", str(text)))


def _pct(value: float | None, ci: list[float] | None) -> str:
    if value is None:
        return NONE
    return f"{value:.2f}" + (f" [dim]({ci[0]:.1f}–{ci[1]:.1f})[/dim]" if ci else "")


def _auroc(group: GroupFigures) -> str:
    value = group.get("auroc")
    if value is None:
        return NONE
    ci = group.get("auroc_ci")
    return f"{value:.3f}" + (f" [dim]({ci[0]:.3f}–{ci[1]:.3f})[/dim]" if ci else "")


def paper_table(summary: JudgeEvalSummary, title: str = "AnyAudio-Judge Bench") -> Table:
    """Accuracy (%) per subset in columns, then the macro average over subsets (ours; the
    official overall is pooled, shown in the subset table)."""
    table = Table(title=console_cell(f"{title}: accuracy %"), title_justify="left")
    subsets = summary["subsets"]
    for name in subsets:
        table.add_column(console_cell(name), justify="right")
    table.add_column("macro avg", justify="right", style="bold")
    cells = [NONE if g["accuracy"] is None else f"{g['accuracy']:.2f}" for g in subsets.values()]
    macro = summary["overall"].get("accuracy_macro")
    table.add_row(*cells, NONE if macro is None else f"{macro:.2f}")
    return table


def subset_table(summary: JudgeEvalSummary, title: str = "by subset") -> Table:
    """One row per subset, then the pooled overall and the macro average over subsets."""
    table = Table(title=console_cell(title), title_justify="left")
    for name, justify in (
        ("subset", "left"),
        ("n", "right"),
        ("accuracy % (95% CI)", "right"),
        ("balanced acc. % (95% CI)", "right"),
        ("AUROC (95% CI)", "right"),
        ("yes %", "right"),
        ("unscored", "right"),
        ("failed", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for name, group in summary["subsets"].items():
        table.add_row(*_group_cells(console_cell(name), group, group["unscored"], group["failed"]))
    overall = summary["overall"]
    table.add_section()
    table.add_row(
        *_group_cells(
            console_cell("overall (pooled)", "bold"), overall, summary["unscored"]["n"], summary["failed"]["n"]
        )
    )
    table.add_row(
        console_cell("macro average", "bold"),
        str(sum(1 for g in summary["subsets"].values() if g["n"])) + " subsets",
        _pct(overall["accuracy_macro"], overall["accuracy_macro_ci"]),
        *[""] * 5,
    )
    return table


def _group_cells(label: Text, group: GroupFigures | SubsetFigures, unscored: int, failed: int) -> list[Any]:
    yes = group["yes_rate"]
    return [
        label,
        str(group["n"]),
        _pct(group["accuracy"], group["accuracy_ci"]),
        _pct(group["balanced_accuracy"], group["balanced_accuracy_ci"]),
        _auroc(group),
        NONE if yes is None else f"{yes:.1f}",
        str(unscored),
        str(failed),
    ]


def _type_cell(group: TypeFigures) -> str:
    return _pct(group["accuracy"], group["accuracy_ci"])


def type_table(summary: JudgeEvalSummary, title: str = "by type") -> Table:
    table = Table(title=console_cell(title), title_justify="left")
    table.add_column("type")
    table.add_column("n", justify="right")
    table.add_column("accuracy % (95% CI)", justify="right")
    for name, group in summary["types"].items():
        table.add_row(console_cell(name), str(group["n"]), _type_cell(group))
    return table


def footer_line(summary: JudgeEvalSummary) -> str:
    """Counts, the threshold and its source, the ECE (a Rich markup string)."""
    threshold = summary["threshold"]
    source = console_text(threshold["source"])
    dev = ""
    if threshold.get("dev_accuracy") is not None:
        dev = f", {threshold['dev_accuracy']:.2f} % on its {threshold['dev_n']} rows"
    ece = summary.get("ece")
    return (
        f"rows {summary['n']} · scored {summary['n_scored']} · unscored (empty rubric) "
        f"{summary['unscored']['n']} · failed (judge) {summary['failed']['n']} · threshold "
        f"{threshold['value']:g} ({source}{dev}) · ECE {NONE if ece is None else f'{ece:.4f}'}"
    )


def judge_eval_tables(
    summary: JudgeEvalSummary, title: str = "AnyAudio-Judge Bench", paper_style: bool = True
) -> list[Any]:
    """The paper's row, the subset table, the type table and the footer line (markup)."""
    shown: list[Any] = [paper_table(summary, title)] if paper_style else []
    shown.append(subset_table(summary, f"{title}: judge vs label, by subset"))
    if summary["types"]:
        shown.append(type_table(summary))
    shown.append(Text.from_markup(footer_line(summary)))
    return shown


def console_table(figures: JudgeEvalSummary) -> list[Any]:
    """The benchmark's `console_table` hook: `judge-eval`'s figures (its summary)."""
    return judge_eval_tables(figures)
