"""The MMAE summary as rich tables: overall, single vs multiple, complexity, modality.

Group labels come from the metadata and are shown literally (`report/escaping.py`)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from audioeval.report.escaping import console_cell
from audioeval.report.reliability_table import print_reliability


def _cell(group: dict[str, Any], metric: str) -> str:
    value = group.get(metric)
    if value is None:
        return "–"
    ci = group.get(f"{metric}_ci")
    return f"{value:.2f}" + (f" [dim]({ci[0]:.1f}–{ci[1]:.1f})[/dim]" if ci else "")


def _table(title: str, groups: dict[str, dict[str, Any]]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("group")
    table.add_column("n", justify="right")
    for metric in ("IFR", "CR", "EMR"):
        table.add_column(f"{metric} % (95% CI)", justify="right")
    for name, group in groups.items():
        table.add_row(
            console_cell(name), str(group["n"]), _cell(group, "IFR"), _cell(group, "CR"), _cell(group, "EMR")
        )
    return table


def print_mmae_summary(tax: dict[str, Any], *, console: Console | None = None, title: str = "MMAE") -> None:
    console = console or Console()
    overall = tax["overall"]
    groups = {_overall_label(tax): overall, **tax.get("complexity_group", {})}
    console.print(_table(f"{title}: Instruction Following, Consistency and Exact Match rates", groups))
    console.print(_table("by complexity", tax.get("complexity", {})))
    console.print(_table("by modality", tax.get("modality", {})))
    console.print(
        f"samples scored {overall['n']} · skipped {overall['n_skipped']} · unscored "
        f"{overall['n_unscored']} · without usable output {overall.get('n_failed_outputs', 0)} · rubrics {overall['n_rubrics']} · failed rubrics "
        f"{overall['n_rubrics_failed']} · samples without consistency rubric "
        f"{overall['n_no_consistency_rubric']} (excluded from CR) · EMR undetermined "
        f"{overall['n'] - overall['EMR_n']}"
    )
    print_reliability(tax.get("reliability"), console=console)


def _overall_label(tax: dict[str, Any]) -> str:
    """`overall`, with the samples without a usable output and how the headline treats them."""
    failed = tax.get("failed_outputs") or {}
    if not failed.get("n"):
        return "overall"
    how = "excluded" if failed.get("in_headline") == "excluded" else "scored 0"  # "counted" as 0
    return f"overall ({failed['n']} without output: {how})"
