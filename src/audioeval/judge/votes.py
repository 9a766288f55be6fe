"""The one vote collector of every judge, and the named reducers of valid votes.

A judged item (an MMAE rubric, an MMAR-Rubrics item, an open answer graded by `qa_judge`)
needs `votes_needed` valid judge answers. `collect_votes` launches, all at once, as many
attempts as valid votes are still missing, waits for them, and repeats until enough are
valid or `max_attempts` attempts were made (failures included). Attempt indices are fixed
(0, 1, 2, …), so the cache key and option shuffle of every attempt do not depend on timing.

The valid votes are then reduced by a named reducer (`REDUCERS`): the reducer's name goes
into the signature of the scorer that uses it.

Early stop (opt-in, `--early-stop`): a reducer whose verdict can be fixed before every vote
is in has a rule in `DECIDERS` (only `strict_majority`): from the valid votes so far, how
many more valid votes could still change the verdict. `collect_votes(to_decide=…)` then
launches a round of only that many (with 3 votes needed: 2, then 1 more only if they
disagree) and stops once it is 0. The first valid votes in attempt order are the same
whatever the protocol (attempt indices are fixed), so the verdict equals the full
protocol's; what the full protocol would still have asked is recorded as `not_asked`, and
`reduce_votes(early_stop=True)` reads stored votes the same way on a rescore. The one case
where the votes not asked could have mattered: the full protocol fails an item whose
missing valid votes never come within `max_attempts`; early stop scores it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from audioeval.core.registry import Registry

Vote = TypeVar("Vote")

AskVote = Callable[[int], Awaitable[bool]]
"""Run attempt `i` and record its answer; return whether it gave a valid vote."""


VotesToDecide = Callable[[], int]
"""From the votes recorded so far: how many more valid votes could still change the verdict."""


async def collect_votes(
    ask: AskVote, *, votes_needed: int, max_attempts: int, to_decide: VotesToDecide | None = None
) -> int:
    """Ask until `votes_needed` valid votes or `max_attempts` attempts; return attempts made.

    With `to_decide` (early stop), each round launches only the valid votes that could still
    change the verdict, and the item stops once none could."""
    if votes_needed < 1 or max_attempts < votes_needed:
        raise ValueError(f"need 1 ≤ votes ({votes_needed}) ≤ max_attempts ({max_attempts})")
    launched = valid = 0
    while True:
        missing = votes_needed - valid
        if to_decide is not None:
            missing = min(missing, to_decide())
        n = min(missing, max_attempts - launched)
        if n <= 0:
            return launched
        answers = await asyncio.gather(*(ask(i) for i in range(launched, launched + n)))
        launched += n
        valid += sum(bool(a) for a in answers)


def first_votes(votes: Sequence[Vote], votes_needed: int) -> list[Vote]:
    """The votes that count: the first `votes_needed` valid ones, in attempt order."""
    return list(votes)[:votes_needed]


@dataclass(frozen=True)
class VoteOutcome:
    """The votes that count, whether too few were valid, and their reduction (None if failed)."""

    votes: list[Any]
    failed: bool
    score: float | None
    not_asked: int = 0  # valid votes early stop did not ask: they could not change the verdict


def reduce_votes(
    valid: Sequence[Vote], votes_needed: int, reducer: str, *, early_stop: bool = False
) -> VoteOutcome:
    """The outcome of a judged item from its valid votes in attempt order: the first
    `votes_needed` count, reduced by the named reducer; fewer is a failure (never a score),
    unless `early_stop` and the votes there already decide the verdict (`DECIDERS`)."""
    votes = first_votes(valid, votes_needed)
    missing = votes_needed - len(votes)
    if missing and early_stop and DECIDERS[reducer](votes, votes_needed) == 0:
        return VoteOutcome(votes, False, REDUCERS[reducer](votes), missing)
    failed = missing > 0
    return VoteOutcome(votes, failed, None if failed else REDUCERS[reducer](votes))


def strict_majority(votes: Sequence[bool]) -> float:
    """1.0 when more than half of the votes are true, else 0.0 (ties fail)."""
    return 1.0 if 2 * sum(bool(v) for v in votes) > len(votes) else 0.0


def trimmed_mean(values: Sequence[float]) -> float | None:
    """Mean after dropping one highest and one lowest value (with 3 or more values)."""
    if not values:
        return None
    ordered = sorted(values)
    kept = ordered[1:-1] if len(ordered) >= 3 else ordered
    return sum(kept) / len(kept)


def mean(values: Sequence[float]) -> float | None:
    """The plain mean (e.g. of P(yes) over judge calls)."""
    return sum(values) / len(values) if values else None


REDUCERS: Registry[Callable[..., float | None]] = Registry(
    "vote reducer",
    [("strict_majority", strict_majority), ("trimmed_mean", trimmed_mean), ("mean", mean)],
)
"""Named reducers of valid votes; scorers record the name in their signature."""


def majority_to_decide(votes: Sequence[bool], votes_needed: int) -> int:
    """How many more valid votes could change the strict majority of `votes_needed` votes,
    given the first ones (0: decided). A pass needs ⌊n/2⌋ + 1 true votes; it is out of reach
    once n − ⌊n/2⌋ votes are false. With n = 3: 2 at first, 0 after two agreeing votes, else 1."""
    counted = list(votes)[:votes_needed]
    yes = sum(bool(v) for v in counted)
    pass_at = votes_needed // 2 + 1
    fail_at = votes_needed - pass_at + 1
    return max(0, min(pass_at - yes, fail_at - (len(counted) - yes)))


DECIDERS: Registry[Callable[[Sequence[Any], int], int]] = Registry(
    "early-stop rule", [("strict_majority", majority_to_decide)]
)
"""Reducers whose verdict can be decided before every vote is in, with the rule that says
how many more valid votes could still change it (early stop). `trimmed_mean` and `mean`
have none: every vote moves them."""

EARLY_STOP_NAME = "decided-majority"
"""The early stop's name in the signature of a scorer that has it on."""


def check_early_stop(reducer: str, scorer: str) -> None:
    """ValueError unless the reducer's verdict can be decided early (early stop allowed)."""
    if reducer not in DECIDERS:
        raise ValueError(
            f"early stop needs a majority verdict; {scorer} reduces its votes by {reducer} "
            "(every vote moves the score), so it always collects every vote: leave early_stop out"
        )
