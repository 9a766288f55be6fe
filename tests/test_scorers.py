"""Per-sample scorers: hand-computed statistics, normalisation on both sides, clear errors."""

from __future__ import annotations

import importlib.util
import json

import pytest
import sacrebleu

from audioeval.core.errors import InputError, OptionalDependencyError
from audioeval.core.sample import Sample
from audioeval.scoring.base import DeferredFactory, Prediction, Score, Scorer
from audioeval.scoring.rouge import lcs_length, rouge_l
from audioeval.scoring.scorer_registry import SCORERS, build_scorer, register_scorer
from tests.run_helpers import text_scorers

SPEC = "benchmarks/asr.yaml"


def scorer(name: str, **args: object) -> Scorer:
    return build_scorer(name, args, where=SPEC)


def score(name: str, text: str | None, fields: dict, **args: object) -> Score:
    return scorer(name, **args).score(
        Prediction(text, text), Sample("s1", fields=fields, source="data.jsonl")
    )


# --- wer / cer -------------------------------------------------------------------------


def test_wer_counts_edits_by_hand() -> None:
    # the cat sat on the mat -> the cat sit on mat: sat->sit (S), second "the" deleted (D)
    out = score("wer", "the cat sit on mat", {"reference": "The cat sat on the mat."})
    assert out.stats == {"hits": 4, "substitutions": 1, "deletions": 1, "insertions": 0, "ref_len": 6}
    assert out.values == {"wer": pytest.approx(2 / 6)}
    assert out.detail["reference"] == "the cat sat on the mat"


def test_whisper_normaliser_applies_to_both_sides() -> None:
    fields = {"reference": "Mr. Smith paid twenty-five dollars."}
    assert score("wer", "mister smith paid $25", fields).values["wer"] == 0.0
    assert score("wer", "Mister Smith paid 25 dollars!", fields).values["wer"] == 0.0
    # without normalisation, case, punctuation and number forms all count as errors
    raw = score("wer", "mister smith paid $25", fields, normaliser=[])
    assert raw.values["wer"] == pytest.approx(4 / 5)  # only "paid" matches
    assert raw.stats["ref_len"] == 5


def test_wer_insertions_and_empty_reference() -> None:
    out = score("wer", "hello big world", {"reference": "hello world"})
    assert (out.stats["insertions"], out.stats["ref_len"], out.values["wer"]) == (1, 2, 0.5)
    empty = score("wer", "some words", {"reference": ""})
    assert empty.stats == {"hits": 0, "substitutions": 0, "deletions": 0, "insertions": 2, "ref_len": 0}
    assert empty.values["wer"] == 1.0
    assert score("wer", "", {"reference": "  "}).values["wer"] == 0.0


def test_unparseable_prediction_is_all_deletions_and_flagged() -> None:
    out = scorer("wer").score(
        Prediction(None, "<garbled>", outcome="unparseable"),
        Sample("s", fields={"reference": "red green blue"}),
    )
    assert out.stats == {"hits": 0, "substitutions": 0, "deletions": 3, "insertions": 0, "ref_len": 3}
    assert out.detail["missing"] is True and out.detail["outcome"] == "unparseable"


def test_wer_several_references_takes_the_closest() -> None:
    out = score("wer", "a dog barks", {"reference": ["the cat meows", "a dog barks loudly"]})
    assert out.stats["deletions"] == 1 and out.stats["ref_len"] == 4


def test_cer_chinese_counts_characters_without_spaces_or_punctuation() -> None:
    fields = {"reference": "今天天气很好。", "language": "zh"}
    out = score("cer", "今天 天汽很好", fields)
    assert out.stats == {"hits": 5, "substitutions": 1, "deletions": 0, "insertions": 0, "ref_len": 6}
    assert out.values["cer"] == pytest.approx(1 / 6)
    # the language argument overrides the sample's field
    assert score("cer", "今天天气很好", {"reference": "今天天气很好"}, language="zh-CN").stats["ref_len"] == 6


def test_wer_for_chinese_splits_characters_and_keeps_latin_words() -> None:
    out = score("wer", "我有 apple", {"reference": "我有一个apple", "language": "zh"})
    assert out.stats["ref_len"] == 5 and out.stats["deletions"] == 2


def test_cer_english_counts_spaces() -> None:
    out = score("cer", "helo world", {"reference": "Hello world"})
    assert out.stats["ref_len"] == len("hello world") and out.stats["deletions"] == 1


def test_wer_signature_names_the_normaliser() -> None:
    sig = scorer("wer", normaliser=["whisper_basic", "cjk_split"]).signature()
    assert sig["normaliser"] == ["whisper_basic", "cjk_split"] and "jiwer" in sig
    by_language = scorer("cer").signature()["normaliser"]
    assert by_language["zh"] == ["whisper_basic", "cjk_split"]
    assert by_language["en"] == ["whisper_english"]
    letters = scorer("cer", latin="letter").signature()
    assert letters["normaliser"]["zh"] == ["whisper_basic", "remove_whitespace"]
    assert letters["cjk_tokens"] != scorer("cer").signature()["cjk_tokens"]


@pytest.mark.parametrize(
    ("ref", "hyp", "latin", "tokens", "edits"),
    [
        ("我用iPhone打电话", "我用iPhone打电话", "word", 6, 0),  # 我 用 iphone 打 电 话
        ("我用iPhone打电话", "我用i phone打电话", "word", 6, 2),  # 1 substitution + 1 insertion
        ("我用iPhone打电话", "我用iPhone打电话", "letter", 11, 0),  # every letter a character
        ("今天天气很好 hello world", "今天天气很好", "word", 8, 2),  # 2 Latin words deleted
        ("今天天气很好 hello world", "今天天气很好", "letter", 16, 10),  # 10 letters deleted
        ("2019年", "2019年", "word", 2, 0),  # a run of digits is one token
    ],
)
def test_chinese_cer_counts_a_latin_word_as_one_token(
    ref: str, hyp: str, latin: str, tokens: int, edits: int
) -> None:
    """The default CJK CER counts as WeNet, ESPnet, AudioBench and UltraEval-Audio count: each
    Hanzi a token, a Latin run one token; `latin: letter` is the older per-character rule."""
    out = scorer("cer", language="zh", latin=latin).score(
        Prediction(hyp, hyp), Sample("s", fields={"reference": ref})
    )
    st = out.stats
    assert st["ref_len"] == tokens and st["substitutions"] + st["deletions"] + st["insertions"] == edits


def test_an_unknown_latin_rule_is_refused() -> None:
    with pytest.raises(Exception, match="latin must be one of word, letter"):
        scorer("cer", latin="letters")


# --- bleu / chrf -------------------------------------------------------------------------


def test_bleu_sentence_value_and_statistics_match_sacrebleu() -> None:
    hyp, refs = "the cat sat on the mat", ["the cat is on the mat", "there is a cat on the mat"]
    out = score("bleu", hyp, {"references": refs})
    expected = sacrebleu.sentence_bleu(hyp, refs)
    assert out.values["bleu"] == pytest.approx(expected.score)
    assert out.stats["correct"] == expected.counts and out.stats["total"] == expected.totals
    assert (out.stats["sys_len"], out.stats["ref_len"]) == (expected.sys_len, expected.ref_len)


def test_bleu_single_reference_field_and_chinese_tokenizer() -> None:
    out = score("bleu", "今天天气很好", {"reference": "今天天气不错"}, tokenize="zh")
    assert out.stats["sys_len"] == 6 and out.stats["correct"][0] == 4
    assert scorer("bleu", tokenize="zh").signature()["tokenize"] == "zh"


def test_bleu_tokenizer_errors() -> None:
    with pytest.raises(InputError, match="tokenize must be one of"):
        scorer("bleu", tokenize="13b")
    if importlib.util.find_spec("MeCab") is None:
        with pytest.raises(OptionalDependencyError, match=r"sacrebleu\[ja\]"):
            scorer("bleu", tokenize="ja-mecab")


def test_chrf_matches_sacrebleu_sentence_chrf() -> None:
    hyp, refs = "the cat sat on the mat", ["the cat is on the mat"]
    out = score("chrf", hyp, {"references": refs}, word_order=2)
    assert out.values["chrf"] == pytest.approx(sacrebleu.sentence_chrf(hyp, refs, word_order=2).score)
    assert len(out.stats["counts"]) == 3 * (6 + 2)
    assert (out.stats["char_order"], out.stats["word_order"], out.stats["beta"]) == (6, 2, 2)


def test_missing_reference_names_sample_and_field() -> None:
    with pytest.raises(InputError) as err:
        score("bleu", "x", {"answer": "y"})
    e = err.value
    assert (e.file, e.sample_id, e.field) == ("data.jsonl", "s1", "reference")


# --- accuracy / includes -------------------------------------------------------------------


def test_accuracy_is_case_insensitive_exact_match() -> None:
    assert score("accuracy", " Dog ", {"answer": "dog"}).stats == {"correct": 1, "pred": "dog", "gold": "dog"}
    assert score("accuracy", "a dog", {"answer": "dog"}).stats == {
        "correct": 0,
        "pred": "a dog",
        "gold": "dog",
    }
    assert score("accuracy", "Dog", {"answer": "dog"}, ignore_case=False).stats["correct"] == 0


def test_accuracy_multiple_gold_labels_field_and_normaliser() -> None:
    out = score(
        "accuracy", "Happy!", {"label": ["joy", "happy"]}, field="label", normaliser=["remove_punctuation"]
    )
    assert out.stats == {"correct": 1, "pred": "happy", "gold": "happy"}
    assert out.values == {"accuracy": 1.0}


def test_accuracy_missing_prediction_is_wrong() -> None:
    out = scorer("accuracy").score(
        Prediction(None, "???", outcome="unparseable"), Sample("s", fields={"answer": "yes"})
    )
    assert out.stats == {"correct": 0, "pred": None, "gold": "yes"}
    assert out.detail["missing"] is True


def test_includes_gold_in_prediction() -> None:
    assert (
        score("includes", "I hear a Dog barking in the park.", {"answer": "dog barking"}).stats["correct"]
        == 1
    )
    assert score("includes", "It is not clear.", {"answer": ["no", "none"]}).stats["correct"] == 1
    assert score("includes", "It is not clear.", {"answer": ["no"]}, whole_words=True).stats["correct"] == 0
    assert score("includes", "No, it is not.", {"answer": ["no"]}, whole_words=True).stats["correct"] == 1


# --- rouge_l ----------------------------------------------------------------------------


def test_lcs_and_rouge_l_by_hand() -> None:
    ref = "the cat sat on the mat".split()
    assert lcs_length("the cat on the mat sat".split(), ref) == 5
    p, r, f = rouge_l("a cat sat".split(), ref)  # LCS "cat sat" = 2
    assert (p, r) == (pytest.approx(2 / 3), pytest.approx(1 / 3))
    assert f == pytest.approx(2 * (2 / 3) * (1 / 3) / (2 / 3 + 1 / 3))
    _, _, f12 = rouge_l("a cat sat".split(), ref, beta=1.2)
    assert f12 == pytest.approx((1 + 1.44) * (2 / 3) * (1 / 3) / (1 / 3 + 1.44 * 2 / 3))
    assert rouge_l([], ref) == (0.0, 0.0, 0.0)


def test_rouge_l_scorer_normalises_and_takes_best_reference() -> None:
    out = score("rouge_l", "A dog, barking!", {"references": ["a cat meowing", "A dog is barking."]})
    # best reference "a dog is barking": LCS 3, P = 3/3, R = 3/4
    assert out.stats["rouge_l"] == pytest.approx(2 * 1 * 0.75 / 1.75)
    assert out.values["rouge_l_precision"] == 1.0


# --- mcq_match ---------------------------------------------------------------------------


CHOICES = ["Dog barking", "Cat meowing", "Bird singing", "Silence"]


@pytest.mark.parametrize(
    ("prediction", "correct", "reason"),
    [
        ("The answer is Dog barking.", 1, "match"),
        ("dog barking", 1, "match"),
        ("A", 0, "answer_tokens_missing"),
        ("Dog barking, not cat meowing", 0, "distractor_tokens"),
        ("", 0, "empty_prediction"),
    ],
)
def test_mcq_match_official_rule(prediction: str, correct: int, reason: str) -> None:
    out = score("mcq_match", prediction, {"answer": "Dog barking", "choices": CHOICES})
    assert out.stats == {"correct": correct}
    assert out.detail["reason"] == reason


def test_mcq_match_missing_prediction() -> None:
    out = scorer("mcq_match").score(
        Prediction(None, "?"), Sample("s", fields={"answer": "Silence", "choices": CHOICES})
    )
    assert out.stats == {"correct": 0} and out.detail["missing"] is True


# --- registry ----------------------------------------------------------------------------


def test_every_text_scorer_builds_with_a_json_signature() -> None:
    # Speech scorers (asr_wer, sim, dnsmos, …) load metric models: tests/test_generation_eval.py.
    for name in text_scorers():
        built = build_scorer(name, {}, where=SPEC)
        assert isinstance(built, Scorer)
        assert built.name == name
        json.dumps(built.signature())


def test_register_scorer_lazily_and_refuse_duplicates() -> None:
    loaded: list[str] = []

    def load() -> type:
        from audioeval.scoring.match import AccuracyScorer

        loaded.append("match")
        return AccuracyScorer

    register_scorer("test_exact", DeferredFactory(load))
    try:
        assert loaded == []  # nothing imported until the scorer is built
        assert build_scorer("test_exact", {"field": "label"}, where=SPEC).signature()["field"] == "label"
        assert loaded == ["match"]
        with pytest.raises(ValueError, match="already registered"):
            register_scorer("test_exact", DeferredFactory(load))
    finally:
        del SCORERS["test_exact"]
    with pytest.raises(InputError, match="has no argument 'nope'"):  # arguments checked on the loaded factory
        register_scorer("test_exact", DeferredFactory(load))
        try:
            build_scorer("test_exact", {"nope": 1}, where=SPEC)
        finally:
            del SCORERS["test_exact"]
    with pytest.raises(TypeError, match="factory object"):
        register_scorer("test_bad", "no_colon")


def test_unknown_scorer_suggests_and_names_file_and_field() -> None:
    with pytest.raises(InputError) as err:
        build_scorer("wre", {}, where=SPEC, field="scorers[1]")
    assert (err.value.file, err.value.field) == (SPEC, "scorers[1]")
    assert "Did you mean 'wer'" in str(err.value)


def test_bad_scorer_arguments_name_the_field() -> None:
    with pytest.raises(InputError, match="has no argument 'normalizer'. Did you mean 'normaliser'"):
        build_scorer("wer", {"normalizer": ["lower"]}, where=SPEC, field="scorers[0]")
    with pytest.raises(InputError) as err:
        build_scorer("wer", {"normaliser": ["lower", "whisper_englsh"]}, where=SPEC, field="scorers[0]")
    assert err.value.field == "scorers[0].normaliser[1]"
    assert "Did you mean 'whisper_english'" in str(err.value)
    with pytest.raises(InputError, match="cannot normalise references"):
        build_scorer("accuracy", {"normaliser": ["yes_no"]}, where=SPEC)
    with pytest.raises(InputError, match="beta must be a positive number"):
        build_scorer("rouge_l", {"beta": 0}, where=SPEC)
