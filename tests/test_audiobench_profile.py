"""The `audiobench` profile: AudioBench's ASR text rules (preprocess_text.py), rule by rule,
and its string-match rule (eval_methods/string_match.py)."""

from __future__ import annotations

import pytest

from audioeval.benchmarks.audiobench.string_match import string_match
from audioeval.benchmarks.audiobench.text_rules import normalise, tokens
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction
from audioeval.scoring.error_rate import wer_scorer
from audioeval.scoring.profiles import profile_names


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Hello World", "hello world"),  # 1. lower case
        ("Mr Smith won't go", "mister smith will not go"),  # 2. Whisper's replacers
        ("I have 5 cats", "i have five cats"),  # 3. a lone digit becomes a word
        ("it is 21 now", "it is 21 now"),  # 3. only 0-20 and the tens are words
        ("twenty", "twenty"),  # 2 then 3: Whisper writes 20, their map writes it back
        ("a {curly} b", "a curly b"),  # 4. `{}` reach step 4 after Whisper's symbols became spaces
        ("hello, world!", "hello world"),  # 5. punctuation removed
        ("uh well er ah", "well"),  # 6. their fillers (uh, er, ah) and Whisper's (uh)
        ("  spaced   out  ", "spaced out"),  # 6. ends stripped, one space
        ("", ""),
    ],
)
def test_english_chain_rule_by_rule(raw: str, expected: str) -> None:
    assert normalise(raw) == expected


def test_bracket_spans_are_removed() -> None:
    """`<>`, `[]` and `()` spans go (Whisper's rule removes them before their own pattern)."""
    assert normalise("a <ok> b") == "a b"
    assert normalise("a (x) b") == "a b"


def test_chinese_chain_spaces_ideographs_and_keeps_latin_glued() -> None:
    assert normalise("我们去iPhone商店吧。", chinese=True) == "我 们 去iphone商 店 吧"
    assert tokens("甚至出现", "zh") == ["甚", "至", "出", "现"]


def test_empty_text_is_the_word_empty() -> None:
    assert tokens("...", "en") == ["empty"]
    assert tokens("", "zh") == ["empty"]


def test_profile_is_registered_and_scores_with_their_tokens() -> None:
    load_benchmarks()
    assert "audiobench" in profile_names()
    scorer = wer_scorer(profile="audiobench")
    sample = Sample("u1", fields={"reference": "I have 5 cats.", "language": "en"})
    score = scorer.score(Prediction(text="i have five cat", raw="i have five cat"), sample)
    assert score.stats["substitutions"] + score.stats["deletions"] + score.stats["insertions"] == 1
    assert scorer.signature()["normaliser"]["source"].endswith("preprocess_text.py")


@pytest.mark.parametrize(
    ("reply", "right"),
    [
        ("The source of the speaking voice is a man.", True),
        ("It is a man or a woman", False),  # a wrong choice's token
        ("", False),  # an empty reply is wrong
        ("The answer is (A).", False),  # the answer's tokens are not there
    ],
)
def test_string_match_rule(reply: str, right: bool) -> None:
    assert string_match("Man", reply, ["Man", "Woman", "Child", "Robot"]) is right


def test_string_match_shared_words_do_not_count_against() -> None:
    choices = ["Radio", "Live band", "Band practice"]
    assert string_match("Live band", "a live band plays", choices) is True  # `band` is shared
    assert string_match("Live band", "a live band practice", choices) is False
    assert string_match("Sound effects", "sound effects", ["Sound effects", "Animal"]) is True
