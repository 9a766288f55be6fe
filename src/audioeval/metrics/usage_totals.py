"""A pair's usage: what its model's and its judge's requests used, summed over its records.

Every record of the pair counts, a sample asked again included (its earlier attempts were
paid for too): the sum is what the run folder spent, not what the latest records needed.

- the model: a record's `output.usage`; a record whose model was not asked (its prompt or
  input clip could not be read) used nothing; one whose output has no usage (a record written
  before usage was recorded; a baseline, predictions file or local runtime, which make no API
  request) is unknown.
- the judge: a record's `judge_usage`; one with judge answers but no usage (an earlier
  version's) is unknown; one without either was not judged and used nothing.

A sum that meets an unknown value is unknown (null): `without_usage` says how many records
made it so. Costs (`cost_totals`) are summed request by request the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import NotRequired, TypedDict

from audioeval.core.prices import PriceTable, sum_costs
from audioeval.core.record import SampleRecord
from audioeval.core.usage import Usage, UsageRecord, total

ROLES = ("model", "judge")


class UsageTotals(TypedDict):
    """A pair summary's `usage`: its model's and its judge's requests summed, and how many
    records made a sum unknown, by role."""

    model: UsageRecord
    judge: NotRequired[UsageRecord]
    without_usage: dict[str, int]


class CostTotals(TypedDict, total=False):
    """A pair summary's `cost` (with --prices): dollars by role and in all (None: unknown)."""

    model: float | None
    judge: float | None
    total: float | None


def model_usage(rec: SampleRecord) -> Usage:
    if rec.output is None:
        return Usage.nothing_asked()
    return rec.output.usage if rec.output.usage is not None else Usage.unknown()


def judge_usage(rec: SampleRecord) -> Usage:
    if rec.judge_usage is not None:
        return rec.judge_usage
    return Usage.unknown() if rec.judge else Usage.nothing_asked()


USAGE_OF: dict[str, Callable[[SampleRecord], Usage]] = {"model": model_usage, "judge": judge_usage}


def usage_totals(records: Iterable[SampleRecord], *, judged: bool) -> UsageTotals:
    """{"model": summed usage, "judge": … (only when `judged`), "without_usage": {role: n}}."""
    recs = list(records)
    unknown: dict[str, int] = {}
    summed: dict[str, UsageRecord] = {}
    for role in ROLES if judged else ROLES[:1]:
        used = [USAGE_OF[role](r) for r in recs]
        summed[role] = _to_the_millisecond(total(used))
        unknown[role] = sum(1 for u in used if u.calls is None)
    out = UsageTotals(model=summed["model"], without_usage=unknown)
    if judged:
        out["judge"] = summed["judge"]
    return out


def _to_the_millisecond(usage: Usage) -> UsageRecord:
    """Seconds to the millisecond: the same records in any order give the same figures."""

    def ms(seconds: float | None) -> float | None:
        return None if seconds is None else round(seconds, 3)

    rounded = replace(
        usage, audio_sent_s=ms(usage.audio_sent_s), audio_received_s=ms(usage.audio_received_s), wall_s=ms(usage.wall_s)
    )
    return rounded.to_record()


def cost_totals(
    records: Iterable[SampleRecord], prices: PriceTable, priced_as: dict[str, str | None]
) -> CostTotals:
    """Dollars per role (`priced_as`: role -> the served model name its prices are under),
    and `total`; None where unknown."""
    recs = list(records)
    out: dict[str, float | None] = {}  # built as CostTotals
    for role, name in priced_as.items():
        cost = sum_costs(prices.cost(name, USAGE_OF[role](r)) for r in recs)
        out[role] = None if cost is None else round(cost, 6)
    out["total"] = sum_costs(out.values())
    return CostTotals(**out)  # type: ignore[typeddict-item]
