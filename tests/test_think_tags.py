"""One think-tag stripper for model answers and judge answers alike.

Closed blocks, a lone `</think>` (the opening tag was in the prompt), an unclosed `<think>`
(the reply was cut off mid-reasoning), nested blocks and any letter case are all reasoning;
only what is left is read, by the answer chains and by the judge parsers.
"""

from __future__ import annotations

import json

import pytest

from audioeval.benchmarks.mcq.rubric_prompt import parse_rubric, parse_rubric_answer
from audioeval.benchmarks.mmae.verdict import parse_verdict
from audioeval.postprocess.think_tags import split_think, strip_think


@pytest.mark.parametrize(
    ("text", "answer", "reasoning"),
    [
        ("<think>why</think> B", "B", "why"),
        ("<THINK>why</Think>B", "B", "why"),
        ("draft A</think>B", "B", "draft A"),
        ("B<think>cut off mid-reason", "B", "cut off mid-reason"),
        ("<think>outer <think>inner</think> still outer</think>B", "B", "outer <think>inner\nstill outer"),
        ("<think>a</think>B<think>b</think>", "B", "a\nb"),
        ("no reasoning at all", "no reasoning at all", ""),
    ],
)
def test_split_think_forms(text: str, answer: str, reasoning: str) -> None:
    assert split_think(text) == (answer, reasoning)
    assert strip_think(text) == answer


@pytest.mark.parametrize(
    ("raw", "letter"),
    [
        ('Maybe {"choice": "A"}? No.</think>{"reason": "r", "choice": "B"}', "B"),
        ('<think>x <think>{"choice": "A"}</think> y {"choice": "C"}</think>{"choice": "B"}', "B"),
        ('<THINK>{"choice": "C"}</THINK>{"choice": "B"}', "B"),
    ],
)
def test_verdict_reads_only_the_text_outside_reasoning(raw: str, letter: str) -> None:
    verdict = parse_verdict(raw, 3)
    assert verdict.valid and verdict.letter == letter


def test_verdict_of_a_judge_cut_off_mid_reasoning_is_invalid() -> None:
    verdict = parse_verdict('<think>Leaning to {"choice": "A"}, but', 3)
    assert not verdict.valid and verdict.error == "empty answer"


def _rubric_answer(score: int) -> str:
    items = [{"name": f"r{i}", "score": score, "justification": "j"} for i in range(2)]
    return json.dumps(items)


def test_rubric_answer_ignores_drafts_in_reasoning() -> None:
    rubric = parse_rubric([{"name": f"r{i}", "scoring_point": "p", "choices": [0, 1]} for i in range(2)])
    drafted = f"Draft: {_rubric_answer(0)} then reconsidered</think>{_rubric_answer(1)}"
    assert parse_rubric_answer(drafted, rubric).score == 1.0
    cut_off = parse_rubric_answer(f"<think>Draft: {_rubric_answer(1)}", rubric)
    assert not cut_off.valid and cut_off.error == "no JSON list of rubric scores"
