"""What a run's requests cost, and the budget that limits them: which name each model and the
judge are priced by (`priced_as`), each pair's costs at a price table (`pair_costs`: the run's
`--prices`; `stored_costs`: the table run.json keeps, for `rescore`), and the command's budget
(`run_budget`: --max-calls, --max-cost; `run_budget.py`). docs/cost.md."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from audioeval.adapters.base import ModelAdapter
from audioeval.core.errors import InputError
from audioeval.core.prices import PriceTable
from audioeval.core.record import SampleRecord
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.openai_model import OpenAIChatModel
from audioeval.engine.realtime_model import RealtimeModel
from audioeval.engine.run_budget import RunBudget
from audioeval.engine.run_judge import JudgeSettings
from audioeval.metrics.usage_totals import CostTotals, cost_totals
from audioeval.scoring.judged import is_judged
from audioeval.store.run_folder import RunFile

PairCosts = Callable[[Any, list[SampleRecord]], CostTotals]
"""(a pair being summarised: `evaluate.PairRun`, its records) -> its `cost` block."""



def priced_as(adapter: ModelAdapter) -> str | None:
    """The served model name a price file prices an adapter's requests by (None: it makes none)."""
    return adapter.served_model if isinstance(adapter, OpenAIChatModel | RealtimeModel) else None


def run_budget(
    max_calls: int | None,
    max_cost: float | None,
    prices: PriceTable | None,
    adapters: Mapping[str, ModelAdapter],
    judge: JudgeSettings | None,
) -> RunBudget | None:
    """The command's budget (None: no limit). --max-cost needs a price for every model that
    makes requests and for the judge: an InputError naming the first without one."""
    if max_calls is None and max_cost is None:
        return None
    if max_cost is not None:
        if prices is None:
            raise InputError(
                "--max-cost needs --prices FILE (what each model's requests cost)", field="--max-cost"
            )
        names = [n for a in adapters.values() if (n := priced_as(a)) is not None]
        names += [judge.model] if judge is not None else []
        for name in names:
            if prices.price_of(name) is None:
                raise InputError(
                    f"--max-cost: {prices.source} has no price for {name!r}, so its cost could not be kept",
                    field="--prices",
                )
    return RunBudget(max_calls, max_cost, prices)


def pair_costs(
    prices: PriceTable | None, served: Mapping[str, str | None], judge: str | None
) -> PairCosts | None:
    """What a pair's records cost at `prices`, by role: its model priced by its served name
    (`served`, by model folder; None: a model that makes no request), its judge by `judge`
    (None without prices)."""
    if prices is None:
        return None

    def costs(pair: Any, records: list[SampleRecord]) -> CostTotals:
        names: dict[str, str | None] = {"model": served.get(pair.model.slug)}
        if any(is_judged(s) for s in pair.bench.scorers):
            names["judge"] = judge
        return cost_totals(records, prices, names)

    return costs


def stored_costs(run: RunFile, models: list[ModelConfig]) -> PairCosts | None:
    """The costs of a run folder's pairs at the prices its run.json keeps (None: none kept)."""
    table = run.get("prices")
    if not isinstance(table, Mapping):
        return None
    prices = PriceTable.from_mapping(table, "run.json")  # type: ignore[arg-type]  # checked there
    signatures = {str(m.get("config", {}).get("name")): m.get("signature", {}) for m in run.get("models", [])}
    served: dict[str, str | None] = {}
    for m in models:
        name = signatures.get(m.name, {}).get("served_model")
        served[m.slug] = name if isinstance(name, str) else None
    judge = run.get("judge", {}).get("model")
    return pair_costs(prices, served, judge if isinstance(judge, str) else None)
