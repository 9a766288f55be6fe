"""The `ultraeval` scoring profile, rule by rule: UltraEval-Audio's English normaliser (OpenAI
Whisper's plus their full-width rule; none of the `whisper-normalizer` fork's extra rules),
their `compute_wer` examples (en / zh / yue / jp), the profile registry, and TTS WER in every
CV3-Eval language their evaluator scores.

Expected values are worked out by hand from docs in official-rules.md §2.2, §2.3 and §2.9.2."""

from __future__ import annotations

from typing import Any

import pytest

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.ultraeval.english_normaliser import english_normalise
from audioeval.core.errors import InputError, OptionalDependencyError
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction
from audioeval.scoring.scorer_registry import build_scorer

load_benchmarks()  # registers the `ultraeval` profile

# (input, EN(input)) — one row per rule of their chain
ENGLISH = [
    ("It's 5.5 o'clock", "it is 5.50 clock"),  # contraction; "o" is a zero word
    ("one oh one", "101"),
    ("$20 million", "$20000000"),
    ("twenty five percent", "25%"),
    ("two and a half", "2.5"),
    ("double five", "55"),
    ("point five", ".5"),
    ("twentieth", "20th"),
    ("1st place", "1st place"),
    ("$2 and 7 cents", "$2.07"),
    ("£5 and 20p", "£5 and 20 p"),
    ("minus five", "-5"),
    ("5 %", "5 "),  # % not after a digit goes, and the trailing space stays
    ("50%", "50%"),
    ("Café naïve", "cafe naive"),  # diacritics
    ("x-ray", "x ray"),  # symbols -> space
    ("(laughs) yes [noise] <unk> ok", "yes ok"),  # brackets and parentheses
    ("uh yes hmm", "yes"),  # fillers
    ("He's been there", "he has been there"),
    ("I'd been", "i had been"),
    ("won't can't let's y'all gonna", "will not can not let us you all going to"),
    ("Mr. Smith", "mister smith"),  # title, then the period goes
    ("colour", "color"),  # British -> American
    ("1, 2", "one 2"),  # a standalone 1 becomes "one"
    ("1,000,000", "1000000"),  # commas between digits
    ("Ｈｅｌｌｏ１２３％", "hello 123%"),  # NFKD: full-width ASCII
    ("（你好）世界", "你好 世界"),  # full-width parentheses around CJK: only the brackets go
    ("（hello）你好", "你好"),  # their rule: full-width parentheses around Latin text go
]


@pytest.mark.parametrize(("text", "expected"), ENGLISH)
def test_english_normaliser_rule(text: str, expected: str) -> None:
    assert english_normalise(text).strip() == expected.strip()
    if expected.endswith(" "):
        assert english_normalise(text) == expected


@pytest.mark.parametrize(
    ("text", "theirs", "fork"),
    [
        ("dunno", "dunno", "do not know"),
        ("kinda", "kinda", "kind of"),
        ("sorta", "sorta", "sort of"),
        ("'cause", "cause", "because"),
        ("the cause of it", "the cause of it", "the because of it"),
    ],
)
def test_english_has_none_of_the_forks_extra_rules(text: str, theirs: str, fork: str) -> None:
    from whisper_normalizer.english import EnglishTextNormalizer

    assert english_normalise(text).strip() == theirs
    assert EnglishTextNormalizer()(text).strip() == fork  # why the fork's chain is not used


def test_openai_chain_without_their_fullwidth_rule() -> None:
    assert english_normalise("（hello）你好", fullwidth_rule=False).strip() == "hello 你好"


def _rate(language: str, ref: str, hyp: str, unit: str = "word") -> float:
    scorer = build_scorer("wer" if unit == "word" else "cer", {"language": language, "profile": "ultraeval"},
                          where="test")  # fmt: skip
    return float(
        scorer.score(Prediction(hyp, hyp), Sample("s", fields={"reference": ref})).values[scorer.name]
    )


COMPUTE_WER = [
    ("en", "Hello, world!", "hello world", 0.0),
    ("en", "I can't go.", "I cannot go", 0.5),  # can not vs cannot
    ("en", "Mr. Smith paid $20.", "mister smith paid twenty dollars", 0.0),
    ("en", "dunno", "do not know", 3.0),  # no dunno rule: 1 substitution, 2 insertions
    ("en", "(laughs) yes", "yes", 0.0),
    ("en", "uh yes", "yes", 0.0),
    ("zh", "今天天气很好。", "今天天气真好", 1 / 6),
    ("zh", "我有3个苹果", "我有三个苹果", 0.0),
    ("zh", "2019年", "两千零一十九年", 0.6),  # ref: 二 零 一 九 年
    ("zh", "（笑）你好", "你好", 1 / 3),  # full-width brackets around Chinese are kept
    ("zh", "(笑)你好", "你好", 0.0),  # ASCII parentheses always go
    ("zh", "（haha）你好", "你好", 0.0),
    ("zh", "hello世界", "helo世界", 1 / 3),  # a Latin run is one token
    ("zh", "ok好的", "okay好的", 1 / 3),
    ("yue", "我有3個", "我有三个", 0.0),  # zhconv, then CN reads the numeral
    ("yue", "佢哋2019年嚟", "佢哋二零一九年嚟", 0.0),
    ("yue", "佢哋喺邊度", "佢地喺边度", 0.2),
]


@pytest.mark.parametrize(("language", "ref", "hyp", "expected"), COMPUTE_WER)
def test_compute_wer_examples(language: str, ref: str, hyp: str, expected: float) -> None:
    unit = "word" if language == "en" else "char"
    assert _rate(language, ref, hyp, unit) == pytest.approx(expected)


def test_empty_normalised_reference_is_not_scored() -> None:
    with pytest.raises(InputError, match="empty after normalisation"):
        _rate("zh", "，。", "你好", "char")


def test_japanese_uses_ja_mecab_or_says_how_to_get_it() -> None:
    try:
        import MeCab  # noqa: F401
    except ImportError:
        with pytest.raises(OptionalDependencyError, match="sacrebleu\\[ja\\]"):
            _rate("ja", "こんにちは", "こんにちは")
    else:  # pragma: no cover - with MeCab installed
        assert _rate("ja", "こんにちは", "こんにちは") == 0.0


def test_unknown_profile_lists_the_known_ones() -> None:
    from audioeval.scoring.profiles import TextProfile, get_profile, register_profile

    with pytest.raises(InputError, match="unknown scoring profile 'nope': one of audioeval, ultraeval"):
        build_scorer("wer", {"profile": "nope"}, where="test")
    with pytest.raises(ValueError, match="already registered"):
        register_profile("ultraeval", get_profile("ultraeval"))
    register_profile("bare-test", TextProfile("bare-test", "no hooks"))
    with pytest.raises(InputError, match="'bare-test' has no rule for bleu"):
        build_scorer("bleu", {"profile": "bare-test"}, where="test")


# (spec, reference, transcript, per-utterance rate) per CV3-Eval language, §2.9.2
CV3 = [
    ("cv3-eval-en", "It's well-known.", "its well known", 1.5),  # ref: it's wellknown
    ("cv3-eval-hard-en", "Dr. Smith", "doctor smith", 0.5),
    ("cv3-eval-cross-lingual-en", "Hello, World!", "hello world", 0.0),
    ("cv3-eval-zh", "我有3个", "我有三个", 0.25),  # no number normalisation
    ("cv3-eval-hard-zh", "你好，世界！", "你好世界", 0.0),
    ("cv3-eval-ja", "こんにちは、世界", "こんにちは世界", 0.0),
    ("cv3-eval-cross-lingual-ja", "こんにちは、世界", "こんばんは世界", 2 / 7),  # ち->ば, に->ん
    ("cv3-eval-ko", "안녕하세요 세계", "안녕하세요세계", 0.0),  # characters, spaces dropped
    ("cv3-eval-de", "Straße", "strasse", 1.0),
    ("cv3-eval-es", "¿Qué tal?", "qué tal", 0.5),  # ¿ is not removed: ¿qué vs qué
    ("cv3-eval-fr", "« Bonjour », dit-il.", "bonjour dit il", 0.75),  # « bonjour » ditil
    ("cv3-eval-it", "L'amico è qui.", "l'amico e qui", 1 / 3),
    ("cv3-eval-ru", "Привет, мир!", "привет мир", 0.0),
]


@pytest.mark.parametrize(("name", "ref", "hyp", "expected"), CV3)
def test_cv3_language_scored_under_the_profile(name: str, ref: str, hyp: str, expected: float) -> None:
    from audioeval.benchmarks.registry import load_shipped
    from audioeval.benchmarks.resolved import resolve, with_profile

    spec, _ = load_shipped(name)
    bench = resolve(with_profile(spec, "ultraeval"), name)
    text: Any = bench.scorers[0].text_scorer  # type: ignore[attr-defined]
    unit = "cer" if spec.language in ("zh", "ja", "ko") else "wer"
    assert bench.headline == f"mean_{unit}" and text.name == unit
    got = text.score(Prediction(hyp, hyp), Sample("s", fields={"reference": ref}))
    assert got.values[unit] == pytest.approx(expected) and got.stats[unit] == pytest.approx(expected)
