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


# --- AudioBench's speech translation BLEU (src/dataset_src/covost2_*_test.py, compute_score) ---


def their_bleu(predictions: list[str], answers: list[str], tokenize: str) -> float:
    """Their `compute_score`, written from their code: an empty text becomes "empty", then
    `evaluate.load("sacrebleu").compute(predictions, references, tokenize=...)`, which is
    `sacrebleu.corpus_bleu` with one reference each, `exp` smoothing, no lower-casing and no
    effective order (huggingface/evaluate metrics/sacrebleu/sacrebleu.py)."""
    import sacrebleu

    preds = [p if len(p) != 0 else "empty" for p in predictions]
    refs = [a if len(a) != 0 else "empty" for a in answers]
    return float(
        sacrebleu.corpus_bleu(
            preds, [refs], smooth_method="exp", smooth_value=None, force=False, lowercase=False,
            use_effective_order=False, tokenize=tokenize,
        ).score
    )  # fmt: skip


def our_bleu(predictions: list[str | None], answers: list[str], target: str) -> float:
    from audioeval.metrics.corpus import get_metric
    from audioeval.scoring.scorer_registry import build_scorer

    load_benchmarks()
    scorer = build_scorer("bleu", {"profile": "audiobench"}, where="test")
    stats = [
        scorer.score(Prediction(text=p, raw=p), Sample(str(i), fields={"reference": a, "target_language": target})).stats
        for i, (p, a) in enumerate(zip(predictions, answers, strict=True))
    ]
    return float(get_metric("bleu").compute(stats))


ST_CASES = {
    # (target language, their tokenizer): covost2_en_zh -> zh; en_id, en_ta, zh_en, id_en, ta_en -> 13a
    ("zh", "zh"): (
        ["我们今天去公园散步。", "他喜欢iPhone手机", "", "天气很好"],
        ["我们今天去公园散步", "他喜欢苹果手机。", "你好", ""],
    ),
    ("en", "13a"): (
        ["The cat sat on the mat.", "", "It's raining, isn't it?", "Hello world"],
        ["The cat is sitting on the mat.", "Good morning", "It is raining, isn't it?", ""],
    ),
    ("id", "13a"): (["Saya suka makan nasi goreng.", "Terima kasih"], ["Saya suka nasi goreng.", "Terima kasih banyak"]),
}


@pytest.mark.parametrize(("target", "tokenize"), sorted(ST_CASES))
def test_translation_bleu_equals_their_compute_score(target: str, tokenize: str) -> None:
    preds, refs = ST_CASES[(target, tokenize)]
    assert our_bleu(list(preds), refs, target) == pytest.approx(their_bleu(preds, refs, tokenize), abs=1e-9)


def test_translation_bleu_empty_text_is_the_word_empty_not_dropped() -> None:
    """Their rule, not UltraEval-Audio's (which drops a pair with an empty reference)."""
    preds, refs = ["empty", "a b c d"], ["", "a b c d"]
    assert our_bleu(preds, refs, "en") == pytest.approx(100.0)
    assert our_bleu([None, "a b c d"], ["", "a b c d"], "en") == pytest.approx(100.0)  # no output: ""


# --- AudioBench's string match as the profile's multiple-choice rule (mcq_match) ---


def their_mmau_string_match(reference: str, prediction: str, choices: list[str]) -> float:
    """`mmau_string_match` for one item, written from their code: `[4:]` cuts, then
    `string_match_one_sample`."""
    import re

    def tokenize(text: str) -> set[str]:
        return set(re.findall(r"\b\w+\b", text.lower()))

    answer, options = reference[4:], [c[4:] for c in choices]
    said, gold = tokenize(prediction), tokenize(answer)
    if not said:
        return 0.0
    wrong: set[str] = set()
    for option in options:
        tokens = tokenize(option)
        if tokens != gold:
            wrong.update(tokens - gold)
    return 1.0 if gold.issubset(said) and said.isdisjoint(wrong) else 0.0


MCQ_CASES = [
    ("(B) Man", "The voice is a man's... a man.", ["(A) Woman", "(B) Man", "(C) Child", "(D) Robot"]),
    ("(B) Man", "(B)", ["(A) Woman", "(B) Man", "(C) Child", "(D) Robot"]),  # a letter alone
    ("(A) From far to near", "from near to far", ["(A) From far to near", "(B) From near to far"]),  # order-blind
    ("(C) Lyndon B. Johnson", "Lyndon B. Johnson", ["(A) Richard Nixon", "(B) J F K", "(C) Lyndon B. Johnson"]),
    ("(A) Dog", "Dog barking", ["(A) Dog", "(B) Dog barking"]),
    ("(D) Live band", "", ["(A) Radio", "(B) Live band practice", "(C) Band", "(D) Live band"]),
]


@pytest.mark.parametrize(("reference", "reply", "choices"), MCQ_CASES)
def test_mcq_match_under_the_profile_equals_their_string_match(reference: str, reply: str, choices: list[str]) -> None:
    from audioeval.scoring.scorer_registry import build_scorer

    load_benchmarks()
    scorer = build_scorer("mcq_match", {"profile": "audiobench"}, where="test")
    sample = Sample("q", fields={"answer": reference, "choices": choices})
    got = scorer.score(Prediction(text=reply, raw=reply), sample).values["mcq_match"]
    assert got == their_mmau_string_match(reference, reply, choices)
    assert scorer.signature()["profile"] == "audiobench" and "string_match.py" in scorer.signature()["texts"]


def test_mcq_match_on_unlabelled_items_is_the_official_figure() -> None:
    """audioeval's MMAU items carry no `(A) ` labels: nothing is cut, and their rule is then
    MMAU's own, item for item."""
    from audioeval.scoring.mcq_official import official_match
    from audioeval.scoring.scorer_registry import build_scorer

    load_benchmarks()
    scorer = build_scorer("mcq_match", {"profile": "audiobench"}, where="test")
    for reference, reply, choices in MCQ_CASES:
        answer, options = reference[4:], [c[4:] for c in choices]
        sample = Sample("q", fields={"answer": answer, "choices": options})
        got = scorer.score(Prediction(text=reply, raw=reply), sample).values["mcq_match"]
        assert got == float(official_match(answer, reply, options).correct)


def test_a_profile_without_a_multiple_choice_rule_keeps_the_official_one() -> None:
    from audioeval.scoring.scorer_registry import build_scorer

    load_benchmarks()
    assert "profile" not in build_scorer("mcq_match", {"profile": "ultraeval"}, where="test").signature()


def test_classification_accuracy_is_judged_by_them_and_refused_with_the_reason() -> None:
    from audioeval.core.errors import InputError
    from audioeval.scoring.scorer_registry import build_scorer

    load_benchmarks()
    with pytest.raises(InputError, match="has no rule for accuracy: AudioBench scores its classification sets"):
        build_scorer("accuracy", {"profile": "audiobench"}, where="test")
