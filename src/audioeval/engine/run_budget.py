"""A run's budget: `--max-calls` (requests) and `--max-cost` (dollars, at `--prices`).

The budget counts the requests of this command (every model and the judge together; a
request retried counts once) and what they cost. A request starts only while the budget
allows (`admit`, called by the clients before each request: `chat_client.py`,
`realtime_model.py`); once a limit is reached no request starts (`BudgetReached`), requests
already in flight finish and their samples are recorded, the sample that was refused is not
recorded (a rerun asks it), and the run writes its summaries and stops with exit code 7
(`cli/exit_codes.BUDGET_REACHED`). A rerun of the same command resumes where it stopped: the
limits count the requests of each command anew.

The budget of the running command is found through a context variable set by the engine for
the run (`using`), so every client of the run sees it without being handed it. A command that
runs the engine more than once (`audioeval run` of a benchmark whose rubrics are decomposed
from captions first: `presets/rubrics_on_the_fly.py`) holds one budget over all its runs
(`command_budget`): each run of the engine counts against it instead of a budget of its own.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from audioeval.core.errors import BudgetReached
from audioeval.core.prices import PriceTable
from audioeval.core.usage import Usage

_CURRENT: contextvars.ContextVar[RunBudget | None] = contextvars.ContextVar(
    "audioeval_run_budget", default=None
)


@dataclass
class RunBudget:
    """The limits of one command (None: none) and what it has used so far."""

    max_calls: int | None = None
    max_cost: float | None = None
    prices: PriceTable | None = None
    calls: int = 0
    cost: float = 0.0
    reached: str | None = None  # why no request may start any more

    def admit(self, who: str) -> None:
        """Count one request of `who` about to start; BudgetReached when none may."""
        if self.reached is None:
            if self.max_calls is not None and self.calls >= self.max_calls:
                self.reached = f"--max-calls {self.max_calls} reached: {self.calls} request(s) made"
            elif self.max_cost is not None and self.cost >= self.max_cost:
                self.reached = f"--max-cost {self.max_cost:g} reached: ${self.cost:.4f} spent"
        if self.reached is not None:
            raise BudgetReached(f"{self.reached} ({who} asked for another); {RESUME}")
        self.calls += 1

    def spent(self, priced_as: str | None, usage: Usage | None, who: str) -> None:
        """Add what a finished request cost (only with --max-cost). A cost that cannot be known
        (no usage in the answer) stops further requests: the limit could not be kept."""
        if self.max_cost is None or self.prices is None:
            return
        cost = self.prices.cost(priced_as, usage)
        if cost is None:
            if self.reached is None:
                self.reached = (
                    f"--max-cost {self.max_cost:g}: the cost of a request of {who} is unknown "
                    "(its answer gave no usage), so the limit cannot be kept"
                )
            return
        self.cost += cost


RESUME = "what finished is kept; rerun the same command to resume"


def current_budget() -> RunBudget | None:
    """The budget of the command running in this context (None: no limit)."""
    return _CURRENT.get()


@contextmanager
def using(budget: RunBudget | None) -> Iterator[RunBudget | None]:
    """Make `budget` the current one for what runs inside (tasks created inside inherit it)."""
    token = _CURRENT.set(budget)
    try:
        yield budget
    finally:
        _CURRENT.reset(token)


@contextmanager
def command_budget(
    max_calls: int | None, max_cost: float | None, prices: PriceTable | None
) -> Iterator[RunBudget | None]:
    """One budget over every run of the engine inside (None: no limit): the engine's runs
    count their requests and costs against it (`current_budget`)."""
    limited = max_calls is not None or max_cost is not None
    with using(RunBudget(max_calls, max_cost, prices) if limited else None) as budget:
        yield budget
