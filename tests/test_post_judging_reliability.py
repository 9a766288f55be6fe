"""The judge reliability block after judging, pinned to the code it replaced: the figures
from each item's valid votes listed once (`judge_reliability.reliability`), the verdict
parser's short cuts (no think tag without "<", no fence without "```"), and MMAE's votes
taken from attempts recorded in this process (`rubric_votes.ParsedAttempt`) instead of parsed
again. Each gives exactly what the former code gave."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Sequence
from itertools import combinations
from typing import Any

import pytest

from audioeval.benchmarks.mmae.rubric_scorer import MmaeRubricScorer, _vote
from audioeval.benchmarks.mmae.rubric_votes import McqRubric, ParsedAttempt, RubricVoting
from audioeval.benchmarks.mmae.verdict import Verdict, _letter, parse_verdict
from audioeval.core.generation import Generation
from audioeval.judge.judged_items import JudgedItem, JudgeVote
from audioeval.metrics import judge_reliability as jr
from audioeval.postprocess.json_in_text import fenced_blocks, json_values
from audioeval.postprocess.think_tags import strip_think

# -- the former code, as it was -------------------------------------------------------------


def _valid(item: JudgedItem) -> list[JudgeVote]:
    return [v for v in item.votes if v.valid and v.verdict is not None]


def old_valid_answer_rate(items: Sequence[JudgedItem]) -> dict[str, Any]:
    requests: dict[Hashable, bool] = {}
    for i, item in enumerate(items):
        for j, vote in enumerate(item.votes):
            key = ("vote", i, j) if vote.request is None else ("request", vote.request)
            requests[key] = requests.get(key, True) and vote.valid
    if not requests:
        return {"value": None, "n": 0, "reason": "no judge request"}
    valid = sum(requests.values())
    return {"value": valid / len(requests), "n": len(requests), "valid": valid}


def old_fleiss(items: Sequence[JudgedItem]) -> dict[str, Any]:
    tables = [Counter(v.verdict for v in _valid(item)) for item in items]
    tables = [t for t in tables if sum(t.values()) >= 2]
    if not tables:
        return {"value": None, "n": 0, "reason": "no item has two valid votes"}
    totals: Counter[str | None] = Counter()
    agreement = 0.0
    for table in tables:
        n = sum(table.values())
        totals.update(table)
        agreement += (sum(c * c for c in table.values()) - n) / (n * (n - 1))
    observed = agreement / len(tables)
    all_votes = sum(totals.values())
    expected = sum((c / all_votes) ** 2 for c in totals.values())
    extra = {"categories": len(totals), "observed_agreement": observed, "chance_agreement": expected}
    if expected >= 1.0 - 1e-12:
        reason = "every valid vote gave the same verdict: chance agreement is 1"
        return {"value": None, "n": len(tables), "reason": reason, **extra}
    return {"value": (observed - expected) / (1.0 - expected), "n": len(tables), **extra}


def old_unanimous(items: Sequence[JudgedItem]) -> dict[str, Any]:
    verdicts = [{v.verdict for v in votes} for votes in map(_valid, items) if len(votes) >= 2]
    if not verdicts:
        return {"value": None, "n": 0, "reason": "no item has two valid votes"}
    return {"value": sum(len(s) == 1 for s in verdicts) / len(verdicts), "n": len(verdicts)}


def old_pairs(items: Sequence[JudgedItem], same_order: bool) -> list[bool]:
    out: list[bool] = []
    for item in items:
        for a, b in combinations(_valid(item), 2):
            if a.order is None and b.order is None:
                same = True
            elif a.order is None or b.order is None:
                continue
            else:
                same = a.order == b.order
            if same == same_order:
                out.append(a.verdict == b.verdict)
    return out


def old_share(agree: list[bool], reason: str) -> dict[str, Any]:
    if not agree:
        return {"value": None, "n": 0, "reason": reason}
    return {"value": sum(agree) / len(agree), "n": len(agree)}


def old_reliability(items: Sequence[JudgedItem]) -> dict[str, Any]:
    valid = old_valid_answer_rate(items)
    return {
        "items": len(items),
        "requests": valid["n"],
        "valid_votes": sum(len(_valid(item)) for item in items),
        "valid_answer_rate": valid,
        "fleiss_kappa": old_fleiss(items),
        "unanimous_share": old_unanimous(items),
        "position_bias": jr.position_bias(items),  # unchanged but for the shared list
        "order_swap_consistency": old_share(
            old_pairs(items, False), "no item has two valid votes shown in different option orders"
        ),
        "repeat_stability": old_share(
            old_pairs(items, True), "no item has two valid votes asked the same way"
        ),
        "ece": jr.expected_calibration_error(items),
    }


def old_parse_verdict(raw: str, n_options: int) -> Verdict:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:n_options]
    text = strip_think(raw or "")
    if not text:
        return Verdict(None, None, "empty answer")
    choices: list[tuple[str | None, str | None]] = []
    for chunk in [*fenced_blocks(text), text]:
        for obj in json_values(chunk, "{", nested=False):
            if isinstance(obj, dict) and "choice" in obj:
                reason = obj.get("reason")
                choices.append((_letter(obj["choice"]), reason if isinstance(reason, str) else None))
        if choices:
            break
    if not choices:
        import re

        choices = [(_letter(v), None) for v in re.findall(r'"choice"\s*:\s*"([^"]*)"', text)]
    if not choices:
        return Verdict(None, None, "no JSON object with a 'choice' key")
    picked = {c for c, _ in choices}
    if len(picked) > 1:
        return Verdict(None, None, f"conflicting choices {sorted(str(p) for p in picked)}")
    letter, reason = choices[-1]
    if letter is None:
        return Verdict(None, reason, "choice is not a single option letter")
    if letter not in letters:
        return Verdict(None, reason, f"choice {letter!r} out of range A-{letters[-1]}")
    return Verdict(letter, reason, None)


# -- inputs ---------------------------------------------------------------------------------


def _items(seed: int, n: int = 300) -> list[JudgedItem]:
    rng = random.Random(seed)
    verdicts = ["right", "wrong 1", "wrong 2", None]
    items = []
    for i in range(n):
        votes = []
        for _ in range(rng.choice([0, 1, 2, 3, 3, 5])):
            valid = rng.random() < 0.75
            k = rng.choice([None, 1, 2, 3, 3, 4])
            pos = None if k is None else rng.randrange(-1, k + 1)
            order = None if rng.random() < 0.3 else tuple(rng.sample(["right", "wrong 1", "wrong 2"], 3))
            request = None if rng.random() < 0.7 else ("call", i // 3, rng.randrange(2))
            p_yes = None if rng.random() < 0.6 else rng.random()
            votes.append(JudgeVote(valid, rng.choice(verdicts), pos, k, order, p_yes, request))
        items.append(JudgedItem(votes, label=rng.choice([None, True, False])))
    return items


ANSWERS = [
    '{"reason": "clear", "choice": "B"}',
    '  {"choice": "a"}  ',
    '```json\n{"choice": "C"}\n```',
    'Sure: ```\n{"choice": "B"}\n``` and {"choice": "A"}',
    '<think>maybe {"choice": "A"}</think>{"choice": "B"}',
    '<THINK>hmm</THINK> {"choice": "(c)"}',
    'reasoning cut </think> {"choice": "A"}',
    '{"choice": "A"} <think> unfinished',
    'a < b, so the answer is {"choice": "B"}',
    '{"choice": "A"} {"choice": "B"}',
    '{"choice": "Z"}',
    '"choice": "B" without braces',
    "I cannot tell from these clips.",
    "",
    "   ",
    "```",
    "<>",
    '{"choice": 3}',
    '{"reason": "x"}',
    '{"choice": "B. Yes, a tone"}',
]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reliability_block_equals_the_former_figures(seed: int) -> None:
    items = _items(seed)
    assert jr.reliability(items) == old_reliability(items)
    assert jr.valid_answer_rate(items) == old_valid_answer_rate(items)
    assert jr.fleiss_kappa(items) == old_fleiss(items)
    assert jr.unanimous_share(items) == old_unanimous(items)


def test_reliability_of_votes_each_its_own_request() -> None:
    items = [
        JudgedItem([JudgeVote(v.valid, v.verdict, v.position, v.n_options, v.order) for v in i.votes])
        for i in _items(4)
    ]
    assert jr.reliability(items) == old_reliability(items)
    assert jr.reliability([]) == old_reliability([])
    assert jr.reliability([JudgedItem([])]) == old_reliability([JudgedItem([])])


@pytest.mark.parametrize("raw", ANSWERS)
@pytest.mark.parametrize("n", [2, 3])
def test_parse_verdict_equals_the_former_parser(raw: str, n: int) -> None:
    assert parse_verdict(raw, n) == old_parse_verdict(raw, n)


def _voting(seed: int) -> RubricVoting:
    rubric = McqRubric("Consistency", "Is it there?", "Yes", ("No", "Maybe"))
    voting = RubricVoting(
        rubric, f"s{seed}", seed % 3, seed=seed, votes_needed=3, max_attempts=len(ANSWERS) + 2
    )
    for a, raw in enumerate(ANSWERS):
        voting.record(a, voting.options_for(a), Generation(text=raw))
    voting.record(len(ANSWERS), voting.options_for(len(ANSWERS)), Generation(text=None, error="HTTP 503"))
    return voting


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_votes_of_recorded_attempts_equal_those_parsed_again(seed: int) -> None:
    attempts = _voting(seed).outcome()["attempts"]
    assert all(type(a) is ParsedAttempt for a in attempts)
    plain = [dict(a) for a in attempts]  # as read back from records.jsonl
    assert [_vote(a) for a in attempts] == [_vote(a) for a in plain]
    scorer = MmaeRubricScorer()
    stored = {"rubrics": [{"attempts": attempts}]}
    again = {"rubrics": [{"attempts": plain}]}
    assert jr.reliability(scorer.reliability_items(stored)) == jr.reliability(scorer.reliability_items(again))


def test_a_recorded_letter_is_the_parser_s() -> None:
    """What the short cut relies on: the letter recorded is the parse of the raw answer."""
    for a in _voting(5).outcome()["attempts"]:
        if isinstance(a["raw"], str):
            assert a["letter"] == parse_verdict(a["raw"], len(a["options"])).letter
