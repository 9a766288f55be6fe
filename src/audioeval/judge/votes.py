"""The one vote collector of every judge, and the named reducers of valid votes.

A judged item (an MMAE rubric, an MMAR-Rubrics item, an open answer graded by `qa_judge`)
needs `votes_needed` valid judge answers. `collect_votes` launches, all at once, as many
attempts as valid votes are still missing, waits for them, and repeats until enough are
valid or `max_attempts` attempts were made (failures included). Attempt indices are fixed
(0, 1, 2, …), so the cache key and option shuffle of every attempt do not depend on timing.

The valid votes are then reduced by a named reducer (`REDUCERS`): the reducer's name goes
into the signature of the scorer that uses it.
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


async def collect_votes(ask: AskVote, *, votes_needed: int, max_attempts: int) -> int:
    """Ask until `votes_needed` valid votes or `max_attempts` attempts; return attempts made."""
    if votes_needed < 1 or max_attempts < votes_needed:
        raise ValueError(f"need 1 ≤ votes ({votes_needed}) ≤ max_attempts ({max_attempts})")
    launched = valid = 0
    while True:
        n = min(votes_needed - valid, max_attempts - launched)
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


def reduce_votes(valid: Sequence[Vote], votes_needed: int, reducer: str) -> VoteOutcome:
    """The outcome of a judged item from its valid votes in attempt order: the first
    `votes_needed` count, reduced by the named reducer; fewer is a failure (never a score)."""
    votes = first_votes(valid, votes_needed)
    failed = len(votes) < votes_needed
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
