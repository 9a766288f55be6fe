"""The depth limit of values read from a model's answer, at its boundary (the short cut for
answers with fewer brackets than the limit must give what the full scan gives)."""

from __future__ import annotations

from audioeval.postprocess.json_in_text import MAX_JSON_DEPTH, json_values, too_deep_openers


def test_a_value_nested_exactly_to_the_limit_is_read_and_one_deeper_is_passed_over() -> None:
    at_limit = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    assert too_deep_openers(at_limit) == set()
    assert len(list(json_values(at_limit, "[", nested=False))) == 1
    deeper = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    assert too_deep_openers(deeper) == {0}
    # many shallow values: more brackets than the limit, none too deep
    many = '{"choice": "A"} ' * (MAX_JSON_DEPTH + 5)
    assert too_deep_openers(many) == set()
    assert len(list(json_values(many, "{", nested=False))) == MAX_JSON_DEPTH + 5
    # brackets inside strings count for the short cut but never nest
    quoted = '{"reason": "' + "[" * (MAX_JSON_DEPTH + 1) + '", "choice": "B"}'
    assert too_deep_openers(quoted) == set()
    assert list(json_values(quoted, "{", nested=False))[0]["choice"] == "B"
