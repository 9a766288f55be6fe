"""The prompt fast paths pinned to the slow ones: a prompt's digest and text worked out once per
distinct text prompt are those of `messages_digest` and the joined text; a pair's memo of
rendered texts (`RenderedTexts`) gives what rendering every sample gives, and belongs to one
pair of one run (nothing kept leaks into another run)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from audioeval.benchmarks.mcq.preset import SCORE
from audioeval.core.errors import InputError
from audioeval.core.messages import AudioRef, Message, TextPart
from audioeval.engine.sample_pipeline import PairContext, messages_digest, prompt_facts, prompt_text
from audioeval.presets.preset_run import run_preset
from audioeval.prompts import templates
from audioeval.prompts.templates import PromptTemplate, RenderedTexts, render, shipped_templates


def _messages(*texts: str, audio: AudioRef | None = None) -> tuple[Message, ...]:
    template = PromptTemplate("t", "{{ q }}", system=texts[0] if len(texts) > 1 else None)
    return tuple(render(template, {"q": texts[-1]}, audio))


@pytest.mark.parametrize(
    "messages",
    [
        _messages("Dog\nCat"),
        _messages("Dog\nCat"),  # equal messages, other objects
        _messages("Be brief.", "Dög"),
        _messages("Why?", audio=AudioRef("a.wav")),
        _messages("Why?", audio=AudioRef("a.wav", 0.0, 1)),
        _messages("Why?", audio=AudioRef("a.wav", -0.0, 1.0)),
        (Message("user", [TextPart("parts in a list")]),),  # type: ignore[arg-type]
        (Message("user", (TextPart("two"), TextPart("parts"))),),
        (Message("system", ()), Message("user", (TextPart("a"),)), Message("assistant", (TextPart("b"),))),
        (Message("user", (TextPart(["a", "list"]),)),),  # type: ignore[arg-type]
    ],
)
def test_prompt_facts_are_the_digest_and_the_text(messages: tuple[Message, ...]) -> None:
    assert _outcome(prompt_facts, messages) == _outcome(
        lambda m: (messages_digest(m), prompt_text(m)), messages
    )


def test_clips_that_compare_equal_keep_their_own_digests() -> None:
    plus = _messages("Why?", audio=AudioRef("a.wav", 0.0, 1.0))
    minus = _messages("Why?", audio=AudioRef("a.wav", -0.0, 1.0))
    assert plus == minus  # 0.0 == -0.0
    assert prompt_facts(plus)[0] != prompt_facts(minus)[0]


VALUES: list[Any] = [
    "Dog", "", 1, 1.0, True, 0.0, -0.0, math.nan, None, ["Dog", "Cat"], ("Dog", "Cat"), ["Dog", 1],
    {"a": 1, "b": 2}, {"b": 2, "a": 1}, [["x"], ("x",)], "Dög\n{{ x }}",
]  # fmt: skip
TEXTS = [
    "{{ choices | join('\\n') }}",
    "{% for c in choices %}({{ 'ABCD'[loop.index0] }}) {{ c }}\n{% endfor %}",
    "{% if question is defined %}{{ question }}{% else %}none{% endif %} {{ choices }}",
    "{{ question }} {{ question | length }} {{ choices[0] }} {{ choices[-1:] }}",
    "{{ choices | join(', ') }} {{ n * 2 }} {{ n ~ question }}",
    "{% set k = choices | length %}{{ k }} {{ question }}",
]


def _outcome(render_with: Any, *args: Any, **kwargs: Any) -> str:
    try:
        return "ok: " + repr(render_with(*args, **kwargs))
    except Exception as exc:  # the same error, unkept
        return f"{type(exc).__name__}: {exc}"


def test_memo_texts_are_those_rendered_anew() -> None:
    rng = random.Random(7)
    memo = RenderedTexts()
    for _ in range(3000):
        text = rng.choice(TEXTS)
        variables = {k: rng.choice(VALUES) for k in ("choices", "question", "n") if rng.random() < 0.9}
        assert _outcome(memo.render, text, variables) == _outcome(templates._render_bounded, text, variables)


NAMES = ("question", "choices", "letters", "language", "reference", "instruction", "response")
NAMES += ("target_language", "description", "first", "second", "caption")


@pytest.mark.parametrize("name", shipped_templates())
def test_shipped_templates_render_the_same_through_the_memo(name: str) -> None:
    template = templates.load_template(name)
    memo = RenderedTexts()
    rng = random.Random(name)
    for _ in range(40):
        values = ["Dog", ["Dog", "Cat", "Bird"], "en", "zh", 3]
        variables = {k: rng.choice(values) for k in NAMES if rng.random() < 0.8}
        assert _outcome(render, template, variables, memo=memo) == _outcome(render, template, variables)


@pytest.mark.parametrize(
    "text",
    [
        "{{ lipsum() }}",  # a call
        "{{ choices | random }}",  # not a function of the values
        "{{ question.upper }}",  # an attribute: a method's repr holds its address
        "{{ question['upper'] }}",  # an item that falls back to the attribute
        "{{ choices | map(attribute='x') | join }}",
        "{{ loop }}{% for c in choices %}{{ loop.cycle('a', 'b') }}{% endfor %}",
        "{% for c in choices %}{% endfor %}{{ loop.index }}",  # `loop` outside a loop is a variable
        "{% include 'x' %}",
    ],
)
def test_what_may_depend_on_more_than_the_values_is_never_kept(text: str) -> None:
    assert templates._reads(text) is None


def test_what_is_read_is_every_name_loaded() -> None:
    assert templates._reads("{{ choices | join('\\n') }}") == ("choices",)
    text = "{% for c in choices %}{{ letters[loop.index0] }}{{ c }}{% endfor %}{{ range }}"
    assert templates._reads(text) == ("c", "choices", "letters", "loop", "range")


def test_values_that_render_differently_have_other_keys() -> None:
    keys = [
        templates._key_of(v)
        for v in (1, 1.0, True, "1", [1], (1,), 0.0, -0.0, {"a": 1, "b": 2}, {"b": 2, "a": 1})
    ]
    assert len(set(keys)) == len(keys)
    with pytest.raises(templates._Unkeyed):
        templates._key_of(object())


def test_a_changed_value_is_rendered_again() -> None:
    memo = RenderedTexts()
    choices = ["Dog", "Cat"]
    assert memo.render("{{ choices | join(',') }}", {"choices": choices}) == "Dog,Cat"
    choices.append("Cow")  # the same list, now other values
    assert memo.render("{{ choices | join(',') }}", {"choices": choices}) == "Dog,Cat,Cow"


def test_a_failed_render_is_not_kept_and_fails_again() -> None:
    memo = RenderedTexts()
    template = PromptTemplate("t", "{{ question }}")
    for _ in range(2):
        with pytest.raises(InputError, match="'question' is undefined"):
            render(template, {}, memo=memo)
    assert render(template, {"question": "Why?"}, memo=memo)[0].parts[0].text == "Why?"


def test_a_memo_holds_at_most_its_limit() -> None:
    memo = RenderedTexts(limit=3)
    for k in range(10):
        assert memo.render("{{ q }}", {"q": str(k)}) == str(k)
    assert len(memo._texts) == 3
    assert memo.render("{{ q }}", {"q": "0"}) == "0"


def test_each_pair_context_has_its_own_memo() -> None:
    first, second = PairContext(*[None] * 6), PairContext(*[None] * 6)  # type: ignore[arg-type]
    assert isinstance(first.prompts, RenderedTexts) and first.prompts is not second.prompts


def _mcq_file(path: Path) -> Path:
    item = {"question": "Which?", "choices": ["Dog", "Cat"], "answer": "Cat", "modality": "sound"}
    item.update({"category": "Signal Layer", "sub-category": "Counting", "answer_prediction": "Cat"})
    path.write_text("".join(json.dumps({**item, "id": f"q{k}"}) + "\n" for k in range(4)), encoding="utf-8")
    return path


def test_nothing_kept_in_one_run_reaches_the_next(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two runs in one process: the second, under a size limit its prompts exceed (as a test
    might set), refuses them rather than reusing the texts the first run rendered."""
    preds = _mcq_file(tmp_path / "p.jsonl")
    run_preset(
        SCORE, {"benchmark": "mmar", "predictions": preds, "output_dir": tmp_path / "a", "progress": False}
    )
    monkeypatch.setattr(templates, "MAX_RENDERED_CHARS", 3)
    run_preset(
        SCORE, {"benchmark": "mmar", "predictions": preds, "output_dir": tmp_path / "b", "progress": False}
    )

    def failures(folder: Path) -> list[Any]:
        lines = (folder / "mmar" / "predictions" / "records.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line)["failure"] for line in lines]

    assert failures(tmp_path / "a") == [None] * 4
    assert failures(tmp_path / "b") == ["prompt"] * 4
