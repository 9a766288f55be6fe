"""MMAE's `Benchmark.console_table`: its taxonomy (`taxonomy.json`) as rich tables: overall,
single vs multiple, complexity, modality, and the counts line.

Group labels come from the metadata and are shown literally (a `Text`, never markup, on one
line). The judge reliability block of the figures is printed by the caller, as for every
benchmark (`report/reliability_table.py`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from audioeval.benchmarks.mmae.metrics import RATES

if TYPE_CHECKING:
    from audioeval.benchmarks.mmae.aggregate import GroupFigures, TaxonomyFile

_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]+")


def _label(text: object) -> Text:
    return Text(_LINE_BREAKS.sub(" ", str(text)))


def _cell(group: GroupFigures, metric: str) -> str:
    value = group.get(metric)
    if value is None:
        return "–"
    ci = group.get(f"{metric}_ci")
    return f"{value:.2f}" + (f" [dim]({ci[0]:.1f}–{ci[1]:.1f})[/dim]" if ci else "")


def _table(title: str, groups: Mapping[str, GroupFigures]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("group")
    table.add_column("n", justify="right")
    keys = [rate.per_sample.key for rate in RATES if rate.per_sample is not None]  # taxonomy.json's
    for rate in RATES:  # as declared: IFR, CR, EMR, in percent
        table.add_column(f"{rate.display} % (95% CI)", justify="right")
    for name, group in groups.items():
        table.add_row(_label(name), str(group["n"]), *(_cell(group, key) for key in keys))
    return table


def _overall_label(tax: TaxonomyFile) -> str:
    """`overall`, with the samples without a usable output and how the headline treats them."""
    failed = tax.get("failed_outputs")
    if not failed or not failed.get("n"):
        return "overall"
    how = "excluded" if failed.get("in_headline") == "excluded" else "scored 0"  # "counted" as 0
    return f"overall ({failed['n']} without output: {how})"


def mmae_tables(tax: TaxonomyFile, title: str = "MMAE") -> list[Table | str]:
    """The tables and the counts line of an MMAE taxonomy, in print order."""
    overall = tax["overall"]
    groups = {_overall_label(tax): overall, **tax.get("complexity_group", {})}
    counts = (
        f"samples scored {overall['n']} · skipped {overall['n_skipped']} · unscored "
        f"{overall['n_unscored']} · without usable output {overall.get('n_failed_outputs', 0)} · rubrics "
        f"{overall['n_rubrics']} · failed rubrics {overall['n_rubrics_failed']} · samples without "
        f"consistency rubric {overall['n_no_consistency_rubric']} (excluded from CR) · EMR undetermined "
        f"{overall['n'] - overall['EMR_n']}"
    )
    return [
        _table(f"{title}: Instruction Following, Consistency and Exact Match rates", groups),
        _table("by complexity", tax.get("complexity", {})),
        _table("by modality", tax.get("modality", {})),
        counts,
    ]


def console_table(figures: TaxonomyFile) -> list[Table | str]:
    """The hook: MMAE's taxonomy as printed after `mmae score` and `mmae rescore`."""
    return mmae_tables(figures)
