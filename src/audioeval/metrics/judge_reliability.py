"""How reliable a judge was in a run, from its stored answers: the `reliability` block.

Every judged scorer turns its stored judge answers (`SampleRecord.judge[scorer]`) into a
uniform view (`reliability_items(stored) -> list[JudgedItem]`, `judge/judged_items.py`): a judged item (an MMAE
rubric, an MMAR-Rubrics rubric item, an answer graded by `qa_judge`, a yes/no rubric item)
and every vote asked about it, valid or not. From that view, with no judge call:

- `valid_answer_rate`: judge requests whose answer was a valid vote, over all requests
  (failed calls and unreadable answers included).
- `fleiss_kappa`: agreement of the valid votes of an item beyond chance, over the items with
  at least two valid votes; categories are the verdicts. Items may have different numbers of
  votes: P_i = (Σ_j n_ij² − n_i) / (n_i (n_i − 1)), chance p_j = Σ_i n_ij / Σ_i n_i (Fleiss'
  κ when every item has the same number of votes).
- `unanimous_share`: items with at least two valid votes whose verdicts all agree.
- `position_bias`: the letter a multiple-choice judge chose against the uniform expectation
  (options are shuffled per vote, so an unbiased judge picks every position equally often),
  Pearson's χ² summed over the option counts, with its p-value.
- `order_swap_consistency`: pairs of valid votes on one item shown in different option
  orders that gave the same verdict.
- `repeat_stability`: pairs of valid votes on one item shown in the same order (or with no
  options) that gave the same verdict.
- `ece`: expected calibration error of P(yes) against the item's label (10 equal-width bins),
  when P(yes) votes and labels exist.
- `verifier_audit` (only when items were also measured: MMAE's `--verify audit`): the share of
  those items where the judge's verdict and the measured one agree (`value`, `n`, `agree`),
  the same per group of each item's own keys (`by_axis`) and of each taxonomy key of its sample
  (`by_operation`, `by_modality`, …; a sample in several groups counts in each), and the
  disagreeing items (`disagreeing`: sample id, the item's detail, both verdicts).

Each figure has its `n`; a figure that cannot be computed has `value` null and a `reason`,
never 0.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import combinations
from typing import Any, NotRequired, Protocol, TypedDict

from audioeval.core.json_value import JsonValue
from audioeval.core.record import JudgeAnswers, SampleRecord
from audioeval.judge.judged_items import JudgedItem, JudgeVote, MeasuredCheck
from audioeval.metrics import binary_judge
from audioeval.metrics.binary_judge import ECE_BINS
from audioeval.metrics.grouping import taxonomy_groups
from audioeval.scoring.hook_guard import call_hook
from audioeval.scoring.judged import is_judged
from audioeval.scoring.scorer_hooks import Scorer

SMALL_EXPECTED = 5.0  # below this expected count per cell, χ² is only a rough approximation


class PositionCounts(TypedDict):
    """How often each position was chosen among `n` options, and the uniform expectation."""

    counts: list[int]
    expected: float


class ReliabilityFigure(TypedDict, total=False):
    """One figure of the block: its `value` (None, with a `reason`, when it cannot be
    computed) and `n`, and what the figure adds (its counts, its χ², its bins)."""

    value: float | None
    n: int
    reason: str
    valid: int
    categories: int
    observed_agreement: float
    chance_agreement: float
    chi2: float
    dof: int
    by_n_options: dict[str, PositionCounts]
    warning: str
    bins: list[dict[str, float | int | None]]


class Agreement(TypedDict):
    """The judge against the measurement: the share of items they agree on, of `n`."""

    value: float | None
    n: int
    agree: int


class VerifierAudit(Agreement, total=False):
    """`verifier_audit`: the agreement overall, `by_<key>` per group of each key (the items'
    own groups and the samples' taxonomy), and the items they disagree on (id, the item's
    detail, both answers)."""

    disagreeing: list[dict[str, JsonValue]]


class ReliabilityBlock(TypedDict):
    """The reliability block of one judged scorer (the module doc says what each figure is)."""

    items: int
    requests: int
    valid_votes: int
    valid_answer_rate: ReliabilityFigure
    fleiss_kappa: ReliabilityFigure
    unanimous_share: ReliabilityFigure
    position_bias: ReliabilityFigure
    order_swap_consistency: ReliabilityFigure
    repeat_stability: ReliabilityFigure
    ece: ReliabilityFigure
    verifier_audit: NotRequired[VerifierAudit]


class ReliabilitySource(Protocol):
    """A judged scorer whose stored answers the reliability block reads."""

    name: str

    def reliability_items(self, stored: JudgeAnswers) -> list[JudgedItem]: ...


def _figure(value: float, n: int, **extra: Any) -> ReliabilityFigure:
    return ReliabilityFigure(value=value, n=n, **extra)


def _none(n: int, reason: str, **extra: Any) -> ReliabilityFigure:
    return ReliabilityFigure(value=None, n=n, reason=reason, **extra)


# -- χ² survival function ------------------------------------------------------------------


def chi2_sf(x: float, dof: int) -> float:
    """P(X ≥ x) for X ~ χ²(dof): the regularized upper incomplete gamma Q(dof/2, x/2)."""
    if dof < 1:
        raise ValueError(f"degrees of freedom must be ≥ 1, not {dof}")
    if x <= 0:
        return 1.0
    return gamma_q(dof / 2.0, x / 2.0)


def gamma_q(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) = Γ(a, x) / Γ(a): a series below a + 1,
    a continued fraction (modified Lentz) above."""
    if a <= 0 or x < 0:
        raise ValueError(f"Q(a, x) needs a > 0 and x ≥ 0, not a={a}, x={x}")
    if x == 0:
        return 1.0
    log_prefix = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_prefix))
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return math.exp(log_prefix) * h


# -- the figures ---------------------------------------------------------------------------


def _valid_votes(item: JudgedItem) -> list[JudgeVote]:
    return [v for v in item.votes if v.valid and v.verdict is not None]


Valid = Sequence[list[JudgeVote]]
"""The valid votes of each item (`_valid_votes`), listed once for every figure of a block."""


def valid_answer_rate(items: Sequence[JudgedItem]) -> ReliabilityFigure:
    """Requests that gave a valid vote over all requests (a request shared by several items
    counts once, valid when all its votes are)."""
    if all(vote.request is None for item in items for vote in item.votes):
        # every vote is its own request: the dict below, without building it
        n = sum(len(item.votes) for item in items)
        if not n:
            return _none(0, "no judge request")
        valid = sum(vote.valid for item in items for vote in item.votes)
        return _figure(valid / n, n, valid=valid)
    requests: dict[Hashable, bool] = {}
    for i, item in enumerate(items):
        for j, vote in enumerate(item.votes):
            key = ("vote", i, j) if vote.request is None else ("request", vote.request)
            requests[key] = requests.get(key, True) and vote.valid
    if not requests:
        return _none(0, "no judge request")
    valid = sum(requests.values())
    return _figure(valid / len(requests), len(requests), valid=valid)


def fleiss_kappa(items: Sequence[JudgedItem]) -> ReliabilityFigure:
    """Fleiss' κ of the verdicts of items with at least two valid votes (see the module doc)."""
    return _fleiss_kappa([_valid_votes(item) for item in items])


def _fleiss_kappa(valid: Valid) -> ReliabilityFigure:
    tables = [_tally(votes) for votes in valid if len(votes) >= 2]
    if not tables:
        return _none(0, "no item has two valid votes")
    totals: dict[str | None, int] = {}  # verdicts in the order first seen, as a Counter's update
    agreement = 0.0
    for table in tables:
        n = sum(table.values())
        for verdict, count in table.items():
            totals[verdict] = totals.get(verdict, 0) + count
        agreement += (sum(c * c for c in table.values()) - n) / (n * (n - 1))
    observed = agreement / len(tables)
    all_votes = sum(totals.values())
    expected = sum((c / all_votes) ** 2 for c in totals.values())
    extra = {"categories": len(totals), "observed_agreement": observed, "chance_agreement": expected}
    if expected >= 1.0 - 1e-12:
        return _none(len(tables), "every valid vote gave the same verdict: chance agreement is 1", **extra)
    return _figure((observed - expected) / (1.0 - expected), len(tables), **extra)


def _tally(votes: list[JudgeVote]) -> dict[str | None, int]:
    """Valid votes per verdict, in the order first given (`Counter` without its overhead)."""
    table: dict[str | None, int] = {}
    for vote in votes:
        table[vote.verdict] = table.get(vote.verdict, 0) + 1
    return table


def unanimous_share(items: Sequence[JudgedItem]) -> ReliabilityFigure:
    """Items with at least two valid votes whose verdicts all agree."""
    return _unanimous_share([_valid_votes(item) for item in items])


def _unanimous_share(valid: Valid) -> ReliabilityFigure:
    verdicts = [{v.verdict for v in votes} for votes in valid if len(votes) >= 2]
    if not verdicts:
        return _none(0, "no item has two valid votes")
    return _figure(sum(len(s) == 1 for s in verdicts) / len(verdicts), len(verdicts))


def position_bias(items: Sequence[JudgedItem]) -> ReliabilityFigure:
    """Chosen positions against the uniform expectation, per number of options shown: the χ²
    statistic summed over every count, its degrees of freedom and p-value (`value`)."""
    return _position_bias([_valid_votes(item) for item in items])


def _position_bias(valid: Valid) -> ReliabilityFigure:
    counts: dict[int, list[int]] = {}
    for votes in valid:
        for vote in votes:
            k, pos = vote.n_options, vote.position
            if k is None or pos is None or not 0 <= pos < k:
                continue
            counts.setdefault(k, [0] * k)[pos] += 1
    n = sum(sum(c) for c in counts.values())
    if n == 0:
        return _none(0, "no valid vote chose among lettered options")
    chi2 = 0.0
    dof = 0
    by_options: dict[str, PositionCounts] = {}
    for k in sorted(counts):
        observed, total = counts[k], sum(counts[k])
        expected = total / k
        by_options[str(k)] = {"counts": observed, "expected": expected}
        if k >= 2:
            chi2 += sum((o - expected) ** 2 / expected for o in observed)
            dof += k - 1
    extra = ReliabilityFigure(chi2=chi2, dof=dof, by_n_options=by_options)
    if dof == 0:
        return _none(n, "every vote had a single option to choose", **extra)
    low = min(b["expected"] for k, b in by_options.items() if int(k) >= 2)
    if low < SMALL_EXPECTED:
        extra["warning"] = f"expected counts below {SMALL_EXPECTED:g}: the χ² p-value is approximate"
    return _figure(chi2_sf(chi2, dof), n, **extra)


def _pairs(valid: Valid) -> tuple[list[bool], list[bool]]:
    """Whether each pair of valid votes of one item agrees: (pairs shown in different option
    orders, pairs shown in the same order or with no options)."""
    swapped: list[bool] = []
    same: list[bool] = []
    for votes in valid:
        for a, b in combinations(votes, 2):
            if a.order is None and b.order is None:
                same.append(a.verdict == b.verdict)
            elif a.order is None or b.order is None:
                continue
            else:
                (same if a.order == b.order else swapped).append(a.verdict == b.verdict)
    return swapped, same


def order_swap_consistency(items: Sequence[JudgedItem]) -> ReliabilityFigure:
    return _order_swap_consistency(_pairs([_valid_votes(item) for item in items])[0])


def _order_swap_consistency(agree: list[bool]) -> ReliabilityFigure:
    if not agree:
        return _none(0, "no item has two valid votes shown in different option orders")
    return _figure(sum(agree) / len(agree), len(agree))


def repeat_stability(items: Sequence[JudgedItem]) -> ReliabilityFigure:
    return _repeat_stability(_pairs([_valid_votes(item) for item in items])[1])


def _repeat_stability(agree: list[bool]) -> ReliabilityFigure:
    if not agree:
        return _none(0, "no item has two valid votes asked the same way")
    return _figure(sum(agree) / len(agree), len(agree))


def expected_calibration_error(items: Sequence[JudgedItem], bins: int = ECE_BINS) -> ReliabilityFigure:
    """Σ_b (n_b / N) |rate of yes labels − mean P(yes)| over `bins` equal-width bins of P(yes)
    (P(yes) = 1 in the last bin), over the valid P(yes) votes of labelled items."""
    with_p = [(v.p_yes, item.label) for item in items for v in item.votes if v.valid and v.p_yes is not None]
    if not with_p:
        return _none(0, "no P(yes) vote")
    pairs = [(float(p), bool(y)) for p, y in with_p if y is not None and p is not None]
    if not pairs:
        return _none(0, "no label for the items with a P(yes) vote")
    scores, labels = [p for p, _ in pairs], [y for _, y in pairs]
    ece = binary_judge.expected_calibration_error(scores, labels, bins)
    return _figure(ece, len(pairs), bins=binary_judge.calibration_bins(scores, labels, bins))


def reliability(items: Sequence[JudgedItem]) -> ReliabilityBlock:
    """The reliability block of one judged scorer (see the module doc); each item's valid
    votes are listed once for all the figures."""
    valid = [_valid_votes(item) for item in items]
    answers = valid_answer_rate(items)
    swapped, same = _pairs(valid)
    return {
        "items": len(items),
        "requests": answers["n"],
        "valid_votes": sum(len(votes) for votes in valid),
        "valid_answer_rate": answers,
        "fleiss_kappa": _fleiss_kappa(valid),
        "unanimous_share": _unanimous_share(valid),
        "position_bias": _position_bias(valid),
        "order_swap_consistency": _order_swap_consistency(swapped),
        "repeat_stability": _repeat_stability(same),
        "ece": expected_calibration_error(items),
    }


def stored_reliability(
    items_of: Callable[[JudgeAnswers], list[JudgedItem]], stored: Iterable[JudgeAnswers | None]
) -> ReliabilityBlock:
    """The block of one scorer from its stored judge answers (one per record; None: none)."""
    return reliability([item for detail in stored if detail is not None for item in items_of(detail)])


def judges_of(scorers: Iterable[Scorer]) -> list[ReliabilitySource]:
    """The judged scorers that read their stored judge answers into judged items
    (`JudgedScorer.reports_reliability`)."""
    return [s for s in scorers if is_judged(s) and s.reports_reliability]


def records_reliability(
    judges: Sequence[ReliabilitySource], records: Iterable[SampleRecord]
) -> dict[str, ReliabilityBlock]:
    """`{scorer: block}` over the stored judge answers of the given records (each sample's
    latest record, as the caller chose them)."""
    recs = list(records)
    out: dict[str, ReliabilityBlock] = {}
    for j in judges:
        items_of = functools.partial(call_hook, j, "reliability_items")
        per_record = [(r, items_of(r.judge[j.name])) for r in recs if r.judge.get(j.name) is not None]
        block = reliability([item for _, items in per_record for item in items])
        audit = verifier_audit(per_record)
        if audit is not None:
            block["verifier_audit"] = audit
        out[j.name] = block
    return out


def _agreement(checks: Sequence[MeasuredCheck]) -> Agreement:
    agree = sum(1 for c in checks if c.judge == c.measured)
    return {"value": agree / len(checks) if checks else None, "n": len(checks), "agree": agree}


def verifier_audit(per_record: Sequence[tuple[SampleRecord, Sequence[JudgedItem]]]) -> VerifierAudit | None:
    """The judge against the measurement over the items both answered (the module doc), or
    None when no item was measured."""
    checks: list[MeasuredCheck] = []
    by: dict[str, dict[str, list[MeasuredCheck]]] = {}
    disagreeing: list[dict[str, JsonValue]] = []
    for rec, items in per_record:
        for item in items:
            c = item.measured
            if c is None:
                continue
            checks.append(c)
            groups = {k: [str(v)] for k, v in c.groups.items()}
            for key, value in rec.taxonomy.items():
                groups.setdefault(key, taxonomy_groups(value))
            for key, names in groups.items():
                for name in names:
                    by.setdefault(key, {}).setdefault(name, []).append(c)
            if c.judge != c.measured:
                disagreeing.append({"id": rec.id, **c.detail, "judge": c.judge, "measured": c.measured})
    if not checks:
        return None
    return {
        **_agreement(checks),
        **{f"by_{key}": {g: _agreement(v) for g, v in sorted(groups.items())} for key, groups in sorted(by.items())},
        "disagreeing": disagreeing,
    }
