"""Named post-processing steps and chains: every step on real answers, errors that say where."""

from __future__ import annotations

import pytest

from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.postprocess.chain import ROBUST_MCQ
from audioeval.postprocess.outcome import Processed
from audioeval.postprocess.steps import STEPS, build_chain, build_normaliser, normalise

SPEC = "benchmarks/demo.yaml"
ANIMALS = Sample("s1", fields={"choices": ["Dog barking", "Cat meowing", "Bird singing", "Silence"]})


def run(spec: list, text: str, sample: Sample = ANIMALS) -> Processed:
    return build_chain(spec, where=SPEC)(text, sample)


def ok(spec: list, text: str, sample: Sample = ANIMALS) -> str | None:
    out = run(spec, text, sample)
    assert out.outcome == "ok", out
    return out.text


def unparseable(spec: list, text: str, sample: Sample = ANIMALS) -> str:
    out = run(spec, text, sample)
    assert out == Processed(None, "unparseable", out.detail)
    assert out.detail is not None
    return out.detail


@pytest.mark.parametrize(
    ("step", "text", "expected"),
    [
        ("strip", "  B \n", "B"),
        ("strip_think", "<think>maybe A</think> The answer is B.", "The answer is B."),
        ("strip_markdown", "**Answer:** `B`", "Answer: B"),
        ("first_line", "\n\n  Yes.\nBecause a dog barks.", "Yes."),
        ("lower", "Dog BARKING", "dog barking"),
        ("squeeze_whitespace", " a \t b\n\nc ", "a b c"),
        ("remove_whitespace", "今天 天气\t很好", "今天天气很好"),
        ("remove_punctuation", "Don't stop, believing!", "Don't stop believing"),
        ("remove_punctuation", "你好，世界！", "你好世界"),
        ("cjk_split", "我有3个apple和two bananas", "我 有 3 个 apple 和 two bananas"),
        ("cjk_split", "こんにちは世界", "こ ん に ち は 世 界"),
        ("whisper_english", "Mr. Smith paid twenty-five dollars.", "mister smith paid $25"),
        ("whisper_english", "I'm gonna colour it", "i am going to color it"),
        ("whisper_basic", "Hello, World! (applause) Ça va?", "hello world ça va"),
        ("whisper_basic", "今天天气很好。", "今天天气很好"),
    ],
)
def test_text_steps(step: str, text: str, expected: str) -> None:
    assert ok([step], text) == expected


def test_whisper_basic_arguments_remove_diacritics() -> None:
    assert ok([{"whisper_basic": {"remove_diacritics": True}}], "Ça va, Zoë?") == "ca va zoe"


def test_remove_punctuation_keep_argument() -> None:
    assert (
        ok([{"remove_punctuation": {"keep": "-"}}], "state-of-the-art, isn't it?")
        == "state-of-the-art isnt it"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("B", "Cat meowing"),
        ("The answer is (C).", "Bird singing"),
        ("cat meowing.", "Cat meowing"),
        ("**Answer:** D", "Silence"),
    ],
)
def test_extract_choice_returns_the_option_text(text: str, expected: str) -> None:
    assert ok(["strip_markdown", "extract_choice"], text) == expected


def test_extract_choice_unparseable_and_missing_choices() -> None:
    assert "several options" in unparseable(["extract_choice"], "Either a dog barking or a cat meowing.")
    with pytest.raises(InputError) as err:
        run(["extract_choice"], "B", Sample("x9", source="data.jsonl"))
    assert (err.value.file, err.value.sample_id, err.value.field) == ("data.jsonl", "x9", "choices")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("B", "B"),
        ("(c)", "C"),
        ("**D**", "D"),
        ("The answer is (B).", "B"),
        ("Answer: C", "C"),
        ("I choose A because the dog barks.", "A"),
        ("答案是D", "D"),
        ("我选C。", "C"),
        ("\\boxed{A}", "A"),
        ("B. Cat meowing", "B"),
        ("A is correct.", "A"),
        ("D - silence", "D"),
        ("A dog is barking, so I pick option D", "D"),
        ("I think C fits best.", "C"),
        ("A dog barks, so B", "B"),
    ],
)
def test_extract_letter(text: str, expected: str) -> None:
    assert ok(["extract_letter"], text) == expected


def test_extract_letter_unparseable_and_range() -> None:
    assert "several option letters" in unparseable(["extract_letter"], "Either B or C.")
    assert "not an option (A-D)" in unparseable(["extract_letter"], "E")
    assert "no option letter" in unparseable(["extract_letter"], "a dog is barking")
    # letters follow the sample's number of choices, or the argument
    three = Sample("t", fields={"choices": ["x", "y", "z"]})
    assert "not an option (A-C)" in unparseable(["extract_letter"], "D", three)
    assert ok([{"extract_letter": {"letters": "ABCDE"}}], "E") == "E"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Yes", "yes"),
        ("yes, a dog is barking.", "yes"),
        ("No.", "no"),
        ("**No**, there is only rain.", "no"),
        ("I think the answer is yes.", "yes"),
        ("After listening carefully, no.", "no"),
        ("Is there a dog? Hard to say.\nYes", "yes"),
        ("是", "yes"),
        ("是的，有狗叫声。", "yes"),
        ("对", "yes"),
        ("否", "no"),
        ("不是，这是猫叫。", "no"),
        ("答案是：否", "no"),
    ],
)
def test_yes_no(text: str, expected: str) -> None:
    assert ok(["yes_no"], text) == expected


@pytest.mark.parametrize("text", ["", "Maybe.", "Not sure", "I cannot tell.", "It could be yes or no."])
def test_yes_no_unparseable(text: str) -> None:
    unparseable(["yes_no"], text)


@pytest.mark.parametrize(
    "text",
    [
        '{"answer": "Dog barking", "confidence": 0.9}',
        'Sure!\n```json\n{"answer": "Dog barking"}\n```',
        'My verdict is {"answer": "Dog barking"} as requested.',
        "{'answer': 'Dog barking'}",
        '{"other": 1} then {"answer": "Dog barking"}',
    ],
)
def test_json_field_finds_the_object(text: str) -> None:
    assert ok([{"json_field": {"field": "answer"}}], text) == "Dog barking"


def test_json_field_values_and_failures() -> None:
    assert ok([{"json_field": {"field": "score"}}], '{"score": 4}') == "4"
    assert ok([{"json_field": {"field": "result.label"}}], '{"result": {"label": "yes"}}') == "yes"
    assert ok([{"json_field": {"field": "ok"}}], '{"ok": true}') == "true"
    assert "no JSON object has field" in unparseable(
        [{"json_field": {"field": "answer"}}], '{"verdict": "A"}'
    )
    assert "no JSON object found" in unparseable([{"json_field": {"field": "answer"}}], "The answer is A.")
    assert "null" in unparseable([{"json_field": {"field": "answer"}}], '{"answer": null}')


def test_regex_group_whole_match_and_last() -> None:
    assert ok([{"regex": {"pattern": r"score:\s*(\d+)"}}], "score: 7/10") == "7"
    assert ok([{"regex": {"pattern": r"\d+"}}], "between 3 and 5") == "3"
    assert ok([{"regex": {"pattern": r"\d+", "last": True}}], "between 3 and 5") == "5"
    assert ok([{"regex": {"pattern": "YES", "ignore_case": True}}], "oh yes") == "yes"
    assert "no match" in unparseable([{"regex": {"pattern": r"\d+"}}], "none")


def test_chain_stops_at_the_first_unparseable_step_and_names_it() -> None:
    spec = ["strip_think", {"json_field": {"field": "answer"}}, "extract_choice"]
    assert ok(spec, '<think>hmm</think>```json\n{"answer": "(B) Cat meowing"}\n```') == "Cat meowing"
    out = run(spec, "<think>hmm</think> It is a cat.")
    assert out.text is None and out.outcome == "unparseable"
    assert out.detail == "json_field: no JSON object found"


def test_describe_round_trips_with_arguments() -> None:
    spec = [
        "strip_think",
        {"json_field": {"field": "answer"}},
        {"whisper_basic": {"split_letters": True}},
        "lower",
    ]
    chain = build_chain(spec, where=SPEC)
    assert chain.describe() == spec
    assert build_chain(chain.describe(), where=SPEC).describe() == spec
    assert build_chain(None, where=SPEC).describe() == []


def test_every_registered_step_builds_and_describes() -> None:
    needs = {"json_field": {"field": "a"}, "regex": {"pattern": "a"}}
    for name in STEPS:
        chain = build_chain([{name: needs[name]} if name in needs else name], where=SPEC)
        assert chain.describe()[0] in (name, {name: needs.get(name)})


def test_unknown_step_suggests_and_names_file_and_field() -> None:
    with pytest.raises(InputError) as err:
        build_chain(["strip", "strip_thnik"], where=SPEC)
    e = err.value
    assert (e.file, e.field) == (SPEC, "postprocess[1]")
    assert "Did you mean 'strip_think'" in str(e)
    assert str(e).startswith(f"{SPEC}, field 'postprocess[1]'")


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"json_field": {"feild": "answer"}}, "has no argument 'feild'. Did you mean 'field'?"),
        ({"json_field": {}}, "needs argument 'field'"),
        ({"regex": {"pattern": "(unclosed"}}, "not a valid regular expression"),
        ({"lower": {"x": 1}}, "has no argument 'x'"),
        ({"strip": 1, "lower": 2}, "one-key mapping"),
        (["strip"], "one-key mapping"),
    ],
)
def test_bad_arguments_name_the_field(item: object, message: str) -> None:
    with pytest.raises(InputError) as err:
        build_chain(["strip", item], where=SPEC, field="scorers[0].normaliser")
    assert err.value.field == "scorers[0].normaliser[1]"
    assert message in str(err.value)


def test_spec_must_be_a_list() -> None:
    with pytest.raises(InputError, match="expected a list of steps"):
        build_chain("strip", where=SPEC)  # type: ignore[arg-type]


def test_normaliser_applies_to_hypothesis_and_reference_alike() -> None:
    chain = build_normaliser(["whisper_english"], where=SPEC)
    assert chain.normalises
    assert normalise("Mr. Brown has 2 cats.", chain) == normalise("mister brown has two cats", chain)


def test_normaliser_rejects_parsing_steps() -> None:
    with pytest.raises(InputError) as err:
        build_normaliser(["lower", "yes_no"], where=SPEC, field="scorers[0].normaliser")
    assert err.value.field == "scorers[0].normaliser[1]"
    assert "cannot normalise references" in str(err.value)
    with pytest.raises(ValueError, match="cannot normalise"):
        build_chain(["yes_no"], where=SPEC).normalise("yes")


def test_existing_choice_chain_still_works() -> None:
    found = ROBUST_MCQ("<think>A?</think>**B**", ["Dog", "Cat"])
    assert found.letter == "B"
    assert ROBUST_MCQ.describe()["steps"] == ["strip_think", "strip_markdown", "extract_choice"]
