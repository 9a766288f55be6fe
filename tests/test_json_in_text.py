"""One scanner of JSON inside model text, behind json_field, judge verdicts and MMAR rubric
answers: fenced blocks, bare values, nested or top-level only, and text that cannot decode."""

from __future__ import annotations

import json

from audioeval.benchmarks.mcq.rubric_prompt import parse_rubric, parse_rubric_answer
from audioeval.benchmarks.mmae.verdict import parse_verdict
from audioeval.postprocess.json_field import json_field
from audioeval.postprocess.json_in_text import fenced_blocks, json_values

NESTED = 'Here: {"a": {"b": 1}} and [1, [2]] then {"c": 2}'


def test_json_values_nested_and_top_level() -> None:
    assert list(json_values(NESTED, "{")) == [{"a": {"b": 1}}, {"b": 1}, {"c": 2}]
    assert list(json_values(NESTED, "{", nested=False)) == [{"a": {"b": 1}}, {"c": 2}]
    assert list(json_values(NESTED, "[")) == [[1, [2]], [2]]
    assert list(json_values('{broken {"ok": true}', "{")) == [{"ok": True}]
    assert list(json_values("no json", "{")) == []


def test_fenced_blocks_with_or_without_language() -> None:
    text = "```json\n{\"a\": 1}\n``` then ```\n[2]\n``` and ```python\n{'b': 3}```"
    assert fenced_blocks(text) == ['{"a": 1}\n', "[2]\n", "{'b': 3}"]


def test_values_that_cannot_be_decoded_are_skipped_not_raised() -> None:
    huge = "1" * 5000  # beyond Python's integer string conversion limit: ValueError
    deep = "[" * 3000  # beyond the recursion limit of the decoder
    assert list(json_values(f'{{"n": {huge}}} {{"ok": 1}}', "{")) == [{"ok": 1}]
    assert list(json_values(deep + '[{"ok": 1}]', "[")) == [[{"ok": 1}]]
    verdict = parse_verdict(f'{{"n": {huge}}} {{"reason": "r", "choice": "B"}}', 3)
    assert verdict.valid and verdict.letter == "B"
    assert json_field(f'{{"n": {huge}}} {{"answer": "cat"}}', "answer") == "cat"
    rubric = parse_rubric([{"name": "r", "scoring_point": "p", "choices": [0, 1]}])
    answer = json.dumps([{"name": "r", "score": 1, "justification": "j"}])
    assert parse_rubric_answer(f"[{huge}] {answer}", rubric).score == 1.0
