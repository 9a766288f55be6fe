"""The prompt fast path pinned to the slow one: a prompt's digest and text worked out once per
distinct text prompt are those of `messages_digest` and the joined text."""

from __future__ import annotations

import pytest

from audioeval.core.messages import AudioRef, Message, TextPart
from audioeval.engine.sample_pipeline import messages_digest, prompt_facts, prompt_text
from audioeval.prompts.templates import PromptTemplate, render


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
    ],
)
def test_prompt_facts_are_the_digest_and_the_text(messages: tuple[Message, ...]) -> None:
    assert prompt_facts(messages) == (messages_digest(messages), prompt_text(messages))


def test_clips_that_compare_equal_keep_their_own_digests() -> None:
    plus = _messages("Why?", audio=AudioRef("a.wav", 0.0, 1.0))
    minus = _messages("Why?", audio=AudioRef("a.wav", -0.0, 1.0))
    assert plus == minus  # 0.0 == -0.0
    assert prompt_facts(plus)[0] != prompt_facts(minus)[0]
