"""Collecting valid votes on one multiple-choice rubric and taking the majority.

The engine collects the votes with the one vote collector (`judge/votes.py`) and records
each answer in a `RubricVoting`: until `votes_needed` valid votes exist, with at most
`max_attempts` attempts in all (failures included). The rubric scores 1 when a strict
majority of its valid votes pick the right choice; with fewer valid votes than needed it is
failed: recorded, counted, never scored.

With `early_stop`, a vote counts as pass or fail (the right choice or not: two votes for
two different wrong options agree that the rubric fails), and the rubric stops as soon as
the votes still missing could not change that majority (`judge/votes.py`); its outcome
records `votes_not_asked`, and a rescore reads the stored votes the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NotRequired, TypedDict

from audioeval.benchmarks.mmae.verdict import parse_verdict, verdict_check
from audioeval.core.generation import Generation
from audioeval.judge.option_shuffle import ShuffledOptions, shuffle_options, vote_seed
from audioeval.judge.votes import majority_to_decide, reduce_votes


@dataclass(frozen=True, slots=True)
class McqRubric:
    category: str
    question: str
    right_choice: str
    wrong_choices: tuple[str, ...]
    check: str | None = None  # a declared check expression (`judge/checkable.py`), validated on load


class AttemptDoc(TypedDict):
    """One judge attempt of a rubric, as records.jsonl and results.jsonl hold it."""

    attempt: int
    options: list[str]
    right_letter: str
    raw: str | None
    letter: str | None
    valid: bool
    correct: bool | None
    error: str | None
    endpoint: str | None
    latency_s: float | None
    cached: bool


class VoteResult(TypedDict):
    """The valid votes (right choice or not), the 0/1 score by strict majority (None: too few
    valid votes) and whether the rubric failed; with early stop, the votes not asked."""

    votes: list[bool]
    score: int | None
    failed: bool
    votes_not_asked: NotRequired[int]


class RubricVotes(VoteResult):
    """A judged rubric's votes, its failure (None: not failed) and every attempt."""

    failure: str | None
    attempts: list[AttemptDoc]


AttemptField = int | str | bool | float | list[str] | None
"""A value of an `AttemptDoc`."""


class ParsedAttempt(dict[str, AttemptField]):
    """An attempt's JSON-ready record as this process made it (`AttemptRecord.as_record`):
    its `letter` is what `parse_verdict(raw, len(options))` gives, so the reliability block
    takes it instead of parsing the answer again. An attempt read from a file is a plain dict,
    parsed again (an earlier parser may have read it otherwise)."""

    __slots__ = ()


@dataclass(slots=True)
class AttemptRecord:
    attempt: int
    options: list[str]
    right_letter: str
    raw: str | None
    letter: str | None
    valid: bool
    correct: bool | None
    error: str | None
    endpoint: str | None = None
    latency_s: float | None = None
    cached: bool = False

    def as_record(self) -> ParsedAttempt:
        """The JSON-ready record: what `dataclasses.asdict` gives, built directly (cheaper)."""
        return ParsedAttempt(
            {
                "attempt": self.attempt,
                "options": list(self.options),
                "right_letter": self.right_letter,
                "raw": self.raw,
                "letter": self.letter,
                "valid": self.valid,
                "correct": self.correct,
                "error": self.error,
                "endpoint": self.endpoint,
                "latency_s": self.latency_s,
                "cached": self.cached,
            }
        )


@dataclass(slots=True)
class RubricVoting:
    rubric: McqRubric
    sample_id: str
    rubric_index: int
    seed: int = 0
    votes_needed: int = 3
    max_attempts: int = 10
    early_stop: bool = False
    attempts: list[AttemptRecord] = field(default_factory=list)

    def options_for(self, attempt: int) -> ShuffledOptions:
        return shuffle_options(
            self.rubric.right_choice,
            list(self.rubric.wrong_choices),
            seed=vote_seed(self.seed, self.sample_id, self.rubric_index, attempt),
        )

    @staticmethod
    def accepts(options: ShuffledOptions) -> Callable[[str], bool]:
        """The check an answer to these options must pass to be a vote (and be cached)."""
        return verdict_check(len(options.texts))

    def record(self, attempt: int, options: ShuffledOptions, gen: Generation) -> AttemptRecord:
        if gen.ok:
            verdict = parse_verdict(gen.text or "", len(options.texts))
            correct = None if verdict.letter is None else verdict.letter == options.right_letter
            rec = AttemptRecord(
                attempt,
                list(options.texts),
                options.right_letter,
                gen.text,
                verdict.letter,
                verdict.valid,
                correct,
                verdict.error,
                gen.endpoint,
                gen.latency_s,
                gen.cached,
            )
        else:
            rec = AttemptRecord(
                attempt,
                list(options.texts),
                options.right_letter,
                None,
                None,
                False,
                None,
                gen.error,
                gen.endpoint,
                gen.latency_s,
                gen.cached,
            )
        self.attempts.append(rec)
        return rec

    def _valid_votes(self) -> list[bool]:
        """Whether each valid vote so far picked the right choice, in attempt order."""
        return [bool(a.correct) for a in sorted(self.attempts, key=lambda a: a.attempt) if a.valid]

    def to_decide(self) -> int:
        """Valid votes that could still change the verdict (early stop; 0: decided)."""
        return majority_to_decide(self._valid_votes(), self.votes_needed)

    def _failure(self, n_votes: int, attempts: list[AttemptRecord]) -> str:
        last = next((a.error for a in reversed(attempts) if a.error), None)
        why = f" (last error: {last})" if last else ""
        return f"only {n_votes} valid votes of {self.votes_needed} after {len(attempts)} attempts{why}"

    def outcome(self) -> RubricVotes:
        """Votes, score (0/1) or failure, and every attempt, as a JSON-ready record."""
        attempts = sorted(self.attempts, key=lambda a: a.attempt)
        out = _majority(self._valid_votes(), self.votes_needed, self.early_stop)
        votes: RubricVotes = {
            **out,
            "failure": self._failure(len(out["votes"]), attempts) if out["failed"] else None,
            "attempts": [a.as_record() for a in attempts],  # each an AttemptDoc, marked as parsed here
        }
        return votes


def rescore_attempts(attempts: list[AttemptDoc], votes_needed: int, early_stop: bool = False) -> VoteResult:
    """Re-parse stored raw answers and recompute votes and score, with no judge call."""
    votes: list[bool] = []
    for a in sorted(attempts, key=lambda a: a["attempt"]):
        if a.get("raw") is None:
            continue
        verdict = parse_verdict(a["raw"], len(a["options"]))
        if verdict.letter is not None:
            votes.append(verdict.letter == a["right_letter"])
    return _majority(votes, votes_needed, early_stop)


def _majority(valid: list[bool], votes_needed: int, early_stop: bool = False) -> VoteResult:
    """Votes, 0/1 score by strict majority (None when too few were valid), failed; with
    early stop, the valid votes not asked because they could not change the score."""
    out = reduce_votes(valid, votes_needed, "strict_majority", early_stop=early_stop)
    score = None if out.score is None else int(out.score)
    record: VoteResult = {"votes": out.votes, "score": score, "failed": out.failed}
    if early_stop:
        record["votes_not_asked"] = out.not_asked
    return record
