"""One unit per metric (`report/units.py`), the word diff of the sample browser, and system
names (`NAME=SPEC`)."""

from __future__ import annotations

from audioeval.engine.model_specs import parse_model_ref
from audioeval.report.units import axis_limits, show_span, show_value
from audioeval.report.word_diff import word_diff


def test_a_fraction_is_shown_as_a_percentage_with_its_sign_and_a_short_span() -> None:
    assert show_value(0.0247, "fraction") == "2.47 %"
    assert show_value(3.214, "mos") == "3.21" and show_value(None, "fraction") == "–"
    assert show_span([0.642857, 0.928571], "fraction") == "64.3–92.9"
    assert axis_limits("fraction") == (0.0, 100.0) and axis_limits("score") is None


def test_the_word_diff_marks_substitutions_deletions_and_insertions() -> None:
    ops = word_diff("the cat sat on the mat", "the bat sat on mat now")
    assert ["s", "cat", "bat"] in ops and ops[0] == ["=", "the", "the"]
    assert word_diff("a b", "") == [["d", "a b", ""]] and word_diff("", "x") == [["i", "", "x"]]


def test_name_equals_spec_names_any_model() -> None:
    mine = parse_model_ref("mine=predictions:hyps.jsonl")
    assert (mine.name, mine.type, mine.predictions) == ("mine", "predictions", "hyps.jsonl")
    qwen = parse_model_ref("qwen=qwen2-audio@http://127.0.0.1:8000/v1")
    assert (qwen.name, qwen.served_model) == ("qwen", "qwen2-audio")  # the server still gets its id
    assert parse_model_ref("x@http://127.0.0.1:1/v1?a=b").name == "x"  # `=` in a URL is no name
