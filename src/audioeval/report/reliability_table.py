"""The judge's reliability (`metrics/judge_reliability.py`) as rows of text per judged scorer.

`reliability_rows(block)` turns one scorer's block (as stored in `summary.json`) into the rows
`figure · value · n · detail`, and `reliability_title` names the table: the console table
below and the report page (`run_report.py`) both draw these, so their words and numbers are
the same. A figure that could not be computed shows `–` and the reason. Titles hold user
strings (benchmark and model names): shown literally (`report/escaping.py`)."""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import NamedTuple

from rich.console import Console
from rich.table import Table

from audioeval.core.json_value import JsonValue
from audioeval.metrics.judge_reliability import ReliabilityBlock, ReliabilityFigure, VerifierAudit
from audioeval.report.escaping import console_cell

# (key in the block, label, unit of n, how the value is shown, what the figure means)
FIGURES = (
    ("valid_answer_rate", "valid answers", "requests", "percent", "answers that were a valid vote"),
    ("fleiss_kappa", "Fleiss' κ", "items", "number", "agreement beyond chance (items with ≥ 2 valid votes)"),
    ("unanimous_share", "unanimous", "items", "percent", "items whose valid votes all agree"),
    ("position_bias", "position bias", "votes", "p", "χ² test of the chosen letters against uniform"),
    ("order_swap_consistency", "order-swap", "pairs", "percent", "same verdict, options in another order"),
    ("repeat_stability", "repeat stability", "pairs", "percent", "same verdict, asked the same way"),
    ("ece", "calibration (ECE)", "votes", "number", "P(yes) against labels"),
    ("verifier_audit", "judge vs measurement", "items", "percent", "verdicts that agree with the measured one"),
)
HEADERS = ("figure", "value", "n", "detail")
RIGHT_ALIGNED = ("value", "n")
Figure = ReliabilityFigure | VerifierAudit
"""One figure of a reliability block (the verifier audit is one, with its groups)."""


class ReliabilityRow(NamedTuple):
    """One figure of a block as shown: its label, value, count with its unit, and detail."""

    figure: str
    value: str
    n: str
    detail: str


def _value(value: JsonValue, kind: str) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if kind == "percent":
        return f"{100 * value:.1f} %"
    if kind == "p":
        return f"p = {value:.3f}" if value >= 0.001 else f"p = {value:.1e}"
    return f"{value:.3f}"


def _positions(figure: ReliabilityFigure) -> str:
    """`χ² 1.83, dof 2; 3 options: A 130 · B 122 · C 126 (uniform 126.0)`."""
    parts = []
    for k, block in (figure.get("by_n_options") or {}).items():
        counts = " · ".join(f"{string.ascii_uppercase[i]} {c}" for i, c in enumerate(block["counts"]))
        parts.append(f"{k} options: {counts} (uniform {block['expected']:.1f})")
    head = f"χ² {figure['chi2']:.2f}, dof {figure['dof']}" if "chi2" in figure else ""
    return "; ".join(p for p in (head, *parts) if p)


def _detail(key: str, figure: Figure, meaning: str) -> str:
    if figure.get("value") is None:
        extra = _positions(figure) if key == "position_bias" else ""
        return "; ".join(p for p in (str(figure.get("reason") or "not computed"), extra) if p)
    if key == "valid_answer_rate":
        return f"{figure.get('valid')} valid of {figure['n']}"
    if key == "fleiss_kappa":
        return (
            f"{figure.get('categories')} verdicts; agreement {figure.get('observed_agreement', 0):.3f}, "
            f"by chance {figure.get('chance_agreement', 0):.3f}"
        )
    if key == "position_bias":
        warning = figure.get("warning")
        return _positions(figure) + (f" ({warning})" if warning else "")
    if key == "verifier_audit":
        return f"{figure.get('agree')} agree of {figure['n']}; " + "; ".join(
            f"{k[3:]}: " + ", ".join(f"{g} {_value(v.get('value'), 'percent')}" for g, v in groups.items())
            for k, groups in figure.items()
            if k in ("by_axis", "by_operation") and isinstance(groups, Mapping)
        )
    if key == "ece" and isinstance(figure.get("bins"), list):
        return f"{meaning}, {len(figure['bins'])} bins"
    return meaning


def reliability_rows(block: ReliabilityBlock) -> list[ReliabilityRow]:
    """The rows of one judged scorer's block: the known figures in `FIGURES` order, then any
    other figure of the block under its own key."""
    rows = []
    for key, label, unit, kind, meaning in FIGURES:
        figure = block.get(key)
        if isinstance(figure, Mapping):
            n = f"{figure.get('n', 0)} {unit}"
            rows.append(
                ReliabilityRow(label, _value(figure.get("value"), kind), n, _detail(key, figure, meaning))
            )
    known = {key for key, *_ in FIGURES}
    for key, figure in block.items():
        if key not in known and isinstance(figure, Mapping):
            value = _value(figure.get("value"), "number")
            rows.append(ReliabilityRow(str(key), value, str(figure.get("n", 0)), _detail(key, figure, "")))
    return rows


AUDIT_HEADERS = ("id", "rubric", "judge", "measured", "check", "measurement")


def disagreeing_rows(block: ReliabilityBlock) -> list[list[str]]:
    """The items where the judge and the measurement disagree (`verifier_audit.disagreeing`),
    one row each: sample id, item, both verdicts (1: the right choice), the check, what it measured."""
    audit = block.get("verifier_audit")
    rows = []
    for d in (audit.get("disagreeing") or []) if isinstance(audit, Mapping) else []:
        m = d.get("measurement") if isinstance(d.get("measurement"), Mapping) else {}
        measured = f"{m.get('answer', '')}: {m.get('reason', '')}" if m else ""
        rows.append([str(d.get("id")), str(d.get("rubric_index")), str(d.get("judge")), str(d.get("measured")),
                     str(d.get("check") or ""), measured])  # fmt: skip
    return rows


def reliability_title(name: str, block: ReliabilityBlock, *, where: str | None = None) -> str:
    """`judge reliability: SCORER · BENCHMARK · MODEL (N items, M requests)`."""
    title = f"judge reliability: {name}" + (f" · {where}" if where else "")
    return title + f" ({block.get('items', 0)} items, {block.get('requests', 0)} requests)"


def reliability_table(name: str, block: ReliabilityBlock, *, where: str | None = None) -> Table:
    """One judged scorer's block as a table; `where`: the benchmark · model it belongs to."""
    table = Table(title=console_cell(reliability_title(name, block, where=where)), title_justify="left")
    for column in HEADERS:
        table.add_column(column, justify="right" if column in RIGHT_ALIGNED else "left")
    for row in reliability_rows(block):
        table.add_row(*(console_cell(cell) for cell in row))
    return table


def print_reliability(
    reliability: Mapping[str, ReliabilityBlock] | None, *, console: Console, where: str | None = None
) -> None:
    """Print the table of every judged scorer of a `reliability` block (nothing without one)."""
    for name, block in (reliability or {}).items():
        if isinstance(block, Mapping):
            console.print(reliability_table(str(name), block, where=where))
