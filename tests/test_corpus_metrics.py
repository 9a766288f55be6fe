"""Corpus metrics from summed statistics, checked against sacrebleu, sklearn and hand counts."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import sacrebleu

from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.metrics.bootstrap import resampled_sums
from audioeval.metrics.corpus import (
    METRICS,
    MetricValue,
    aggregate,
    breakdown,
    get_metric,
)
from audioeval.scoring.base import Prediction, declared_metrics
from audioeval.scoring.scorer_registry import build_scorer
from tests.run_helpers import CAPTION_SCORERS, SPEECH_SCORERS, text_scorers

HYPS = [
    "the cat sat on the mat",
    "a quick brown fox jumps over the dog",
    "hello there general kenobi",
    "",
    "it is raining cats and dogs today",
    "we will meet at noon tomorrow",
]
REFS = [
    "the cat is sitting on the mat",
    "the quick brown fox jumped over the lazy dog",
    "hello there",
    "nothing was said here",
    "it rains cats and dogs",
    "we meet tomorrow at noon",
]
REFS2 = [
    "a cat sat on a mat",
    "quick brown foxes jump over lazy dogs",
    "hello general kenobi",
    "nothing at all",
    "raining cats and dogs today",
    "see you tomorrow at noon",
]


def stats_for(scorer: str, hyps: list[str], fields: list[dict], **args: object) -> list[dict]:
    built = build_scorer(scorer, args, where="t.yaml")
    return [
        built.score(Prediction(h, h), Sample(str(i), fields=f)).stats
        for i, (h, f) in enumerate(zip(hyps, fields, strict=True))
    ]


def test_corpus_wer_is_summed_edits_not_mean_of_rates() -> None:
    hyps = ["one small step for a man one giant leap for mankind", "a dog"]
    refs = ["one small step for man one giant leap for mankind", "the cat"]
    stats = stats_for("wer", hyps, [{"reference": r} for r in refs], normaliser=[])
    assert [s["ref_len"] for s in stats] == [10, 2]
    wer = get_metric("wer").compute(stats)
    assert wer == pytest.approx(3 / 12)  # 1 insertion + 2 substitutions over 12 reference words
    mean_of_rates = np.mean([0.1, 1.0])
    assert abs(wer - mean_of_rates) > 0.3


def test_cer_chinese_corpus() -> None:
    fields = [{"reference": "今天天气很好", "language": "zh"}, {"reference": "你好", "language": "zh"}]
    stats = stats_for("cer", ["今天天汽很好", "你好吗"], fields)
    assert get_metric("cer").compute(stats) == pytest.approx(2 / 8)


@pytest.mark.parametrize("tokenize", ["13a", "intl", "char"])
def test_corpus_bleu_equals_sacrebleu(tokenize: str) -> None:
    fields = [{"references": [r1, r2]} for r1, r2 in zip(REFS, REFS2, strict=True)]
    stats = stats_for("bleu", HYPS, fields, tokenize=tokenize)
    expected = sacrebleu.corpus_bleu(HYPS, [REFS, REFS2], tokenize=tokenize).score
    assert get_metric("bleu").compute(stats) == pytest.approx(expected, abs=1e-12)
    single = stats_for("bleu", HYPS, [{"reference": r} for r in REFS], tokenize=tokenize)
    assert get_metric("bleu").compute(single) == pytest.approx(
        sacrebleu.corpus_bleu(HYPS, [REFS], tokenize=tokenize).score, abs=1e-12
    )


def test_corpus_bleu_chinese_tokenizer_equals_sacrebleu() -> None:
    hyps, refs = ["今天天气很好", "我们明天见"], ["今天天气不错", "我们明天再见"]
    stats = stats_for("bleu", hyps, [{"reference": r} for r in refs], tokenize="zh")
    assert get_metric("bleu").compute(stats) == pytest.approx(
        sacrebleu.corpus_bleu(hyps, [refs], tokenize="zh").score, abs=1e-12
    )


@pytest.mark.parametrize("word_order", [0, 2])
def test_corpus_chrf_equals_sacrebleu(word_order: int) -> None:
    fields = [{"references": [r1, r2]} for r1, r2 in zip(REFS, REFS2, strict=True)]
    stats = stats_for("chrf", HYPS, fields, word_order=word_order)
    expected = sacrebleu.corpus_chrf(HYPS, [REFS, REFS2], word_order=word_order).score
    assert get_metric("chrf").compute(stats) == pytest.approx(expected, abs=1e-12)


def test_chrf_refuses_mixed_settings() -> None:
    a = stats_for("chrf", HYPS[:1], [{"reference": REFS[0]}])
    b = stats_for("chrf", HYPS[1:2], [{"reference": REFS[1]}], word_order=2)
    with pytest.raises(ValueError, match="different chrF settings"):
        get_metric("chrf").compute(a + b)


def test_accuracy_includes_and_mcq_match_share_correct() -> None:
    stats = [{"correct": 1}, {"correct": 0}, {"correct": 1}, {"correct": True}]
    assert get_metric("accuracy").compute(stats) == 0.75
    assert get_metric("includes").compute(stats) == 0.75


MACRO_GOLD = ["a", "a", "b", "b", "c"]
MACRO_PRED = ["a", "b", "b", "b", "x"]


def test_macro_f1_by_hand() -> None:
    stats = [
        {"correct": int(p == g), "pred": p, "gold": g} for p, g in zip(MACRO_PRED, MACRO_GOLD, strict=True)
    ]
    # a: TP1 FN1 -> 2/3; b: TP2 FP1 -> 4/5; c: FN1 -> 0 ("x" is no class, counts against c)
    assert get_metric("macro_f1").compute(stats) == pytest.approx((2 / 3 + 4 / 5 + 0) / 3)
    stats[0]["pred"] = None  # an unparseable answer counts against its gold class
    assert get_metric("macro_f1").compute(stats) == pytest.approx((0 + 4 / 5 + 0) / 3)


def test_macro_f1_equals_sklearn() -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    rng = random.Random(3)
    gold = [rng.choice("abcde") for _ in range(300)]
    pred = [g if rng.random() < 0.6 else rng.choice("abcdefg") for g in gold]
    stats = [{"correct": int(p == g), "pred": p, "gold": g} for p, g in zip(pred, gold, strict=True)]
    expected = metrics.f1_score(gold, pred, labels=sorted(set(gold)), average="macro", zero_division=0)
    assert get_metric("macro_f1").compute(stats) == pytest.approx(expected)


def test_rouge_l_and_generic_mean() -> None:
    assert get_metric("rouge_l").compute([{"rouge_l": 0.5}, {"rouge_l": 1.0}]) == 0.75
    metric = get_metric("mean:dnsmos_ovrl")
    assert (metric.name, metric.unit, metric.higher_is_better) == ("mean:dnsmos_ovrl", "mos", True)
    stats = [{"dnsmos_ovrl": 3.0}, {"dnsmos_ovrl": None}, {"dnsmos_ovrl": 4.0}, {"dnsmos_ovrl": float("nan")}]
    assert metric.compute(stats) == 3.5
    assert get_metric("mean:sim").unit == "score"


def test_metric_directions_and_units() -> None:
    lower = ("wer", "cer", "mean_wer", "mean_cer", "ece")
    assert not any(METRICS[n].higher_is_better for n in lower)
    assert all(m.higher_is_better for n, m in METRICS.items() if n not in lower)
    assert {m.unit for m in METRICS.values()} <= {"fraction", "percent", "score", "mos"}


def test_unknown_metric_suggests_and_names_file_and_field() -> None:
    with pytest.raises(InputError) as err:
        get_metric("macro-f1", where="bench.yaml", field="metrics[2]")
    assert (err.value.file, err.value.field) == ("bench.yaml", "metrics[2]")
    assert "Did you mean 'macro_f1'" in str(err.value)


def test_metric_on_the_wrong_stats_says_so() -> None:
    with pytest.raises(ValueError, match="needs stats key 'substitutions'.*right scorer"):
        get_metric("wer").compute([{"correct": 1}])


BBH_ARGS = {"task_field": "bbh_task", "answer_field": "bbh_answer"}


def test_default_metrics_of_every_text_scorer_compute_on_its_stats() -> None:
    fields = {
        "reference": "a dog barks",
        "answer": "Dog barking",
        "choices": ["Dog barking", "Cat meowing"],
        "bbh_task": "sports_understanding",
        "bbh_answer": "yes",
    }
    taxonomy = {"task_name": "Speaker_Gender_Recognition", "dataset_name": "demo"}
    # replies each scorer reads (AIR-Bench's official rule reads letters only)
    replies = {"air_bench_foundation": ["A", "B"]}
    for name in text_scorers():
        built = build_scorer(name, BBH_ARGS if name == "bbh_match" else {}, where="t.yaml")
        if built.needs_judge:
            continue  # judged scorers are exercised against a fake judge (test_openai_audio_output)
        if name in CAPTION_SCORERS:
            continue  # Java tools: tests/test_caption_metrics.py
        stats = [
            built.score(Prediction(t, t), Sample(str(i), fields=fields, taxonomy=taxonomy)).stats
            for i, t in enumerate(replies.get(name, ["a dog", "dog barking"]))
        ]
        declared = declared_metrics(built)
        assert declared is not None, f"scorer {name} declares no metrics"
        for metric in declared[1]:
            assert math.isfinite(get_metric(metric).compute(stats)), (name, metric)


def test_every_builtin_scorer_declares_the_metrics_it_feeds() -> None:
    """What a benchmark's default metrics and a summary's metric sources are built from."""
    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.scoring.scorer_registry import SCORERS
    from audioeval.scoring.speech_scorers import DnsmosScorer, PesqStoiScorer, SimScorer

    load_benchmarks()  # registers the judged scorers

    for name in text_scorers():
        built = build_scorer(name, {"votes": 1} if "rubrics" in name else {}, where="t.yaml")
        assert declared_metrics(built) is not None, name
    assert declared_metrics(DnsmosScorer()) == (("mean:dnsmos_ovrl", "mean:dnsmos_p808"),) * 2
    assert SimScorer.metrics == ("mean:sim",) and PesqStoiScorer.metrics == ("mean:pesq", "mean:stoi")
    assert declared_metrics(build_scorer("accuracy", {}, where="t.yaml")) == (
        ("accuracy",),
        ("accuracy", "macro_f1"),
    )
    assert set(SPEECH_SCORERS) <= set(SCORERS.names())


# --- aggregate and bootstrap ---------------------------------------------------------------


def wer_stats(n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        ref_len = rng.randint(1, 20)
        s, d = rng.randint(0, ref_len // 3), rng.randint(0, 2)
        out.append(
            {
                "hits": ref_len - s - min(d, ref_len - s),
                "substitutions": s,
                "deletions": min(d, ref_len - s),
                "insertions": rng.randint(0, 2),
                "ref_len": ref_len,
            }
        )
    return out


@pytest.mark.parametrize("metric", ["wer", "accuracy", "macro_f1", "bleu"])
def test_aggregate_ci_contains_value_and_is_reproducible(metric: str) -> None:
    if metric == "wer":
        stats = wer_stats(200)
    elif metric == "bleu":
        stats = stats_for("bleu", HYPS * 10, [{"reference": r} for r in REFS * 10])
    else:
        rng = random.Random(1)
        gold = [rng.choice("abc") for _ in range(200)]
        pred = [g if rng.random() < 0.7 else rng.choice("abc") for g in gold]
        stats = [{"correct": int(p == g), "pred": p, "gold": g} for p, g in zip(pred, gold, strict=True)]
    out = aggregate(metric, stats, resamples=300, seed=7)
    assert out.n == len(stats)
    assert out.value == pytest.approx(get_metric(metric).compute(stats))
    assert out.ci_low is not None and out.ci_high is not None
    assert out.ci_low <= out.value <= out.ci_high and out.ci_low < out.ci_high
    assert aggregate(metric, stats, resamples=300, seed=7) == out
    assert aggregate(metric, stats, resamples=300, seed=8) != out


def test_aggregate_wer_ci_is_of_the_corpus_ratio() -> None:
    stats = wer_stats(50)
    out = aggregate("wer", stats, resamples=200, seed=3)
    table = np.array(
        [[s["substitutions"] + s["deletions"] + s["insertions"], s["ref_len"]] for s in stats], float
    )
    rng = np.random.default_rng(3)
    idx = rng.integers(0, 50, size=(200, 50), dtype=np.int32)
    explicit = table[idx].sum(axis=1)
    ratios = explicit[:, 0] / explicit[:, 1]
    assert (out.ci_low, out.ci_high) == pytest.approx(tuple(np.quantile(ratios, [0.025, 0.975])))


def test_resampled_sums_do_not_depend_on_chunking() -> None:
    table = np.arange(60, dtype=float).reshape(30, 2)
    whole = resampled_sums(table, n_resamples=50, seed=5)
    chunked = resampled_sums(table, n_resamples=50, seed=5, max_cells=100)
    assert np.array_equal(whole, chunked)


def test_aggregate_edge_cases() -> None:
    assert aggregate("wer", []) == MetricValue(None, None, None, 0)
    undefined = [{"hits": 0, "substitutions": 0, "deletions": 0, "insertions": 2, "ref_len": 0}]
    assert aggregate("wer", undefined).value is None
    no_ci = aggregate("accuracy", [{"correct": 1}, {"correct": 0}], resamples=0)
    assert (no_ci.value, no_ci.ci_low, no_ci.ci_high) == (0.5, None, None)
    single = aggregate("accuracy", [{"correct": 1}])
    assert (single.value, single.ci_low, single.ci_high) == (1.0, 1.0, 1.0)
    assert aggregate(get_metric("mean:sim"), [{"sim": 0.5}, {"sim": 0.7}]).as_dict()["n"] == 2


def test_breakdown_by_taxonomy_keys() -> None:
    records = [
        ({"lang": "en", "tags": ["noisy", "long"]}, {"correct": 1}),
        ({"lang": "en", "tags": ["noisy"]}, {"correct": 0}),
        ({"lang": "zh", "tags": []}, {"correct": 1}),
        ({"tags": ["long"]}, {"correct": 1}),
    ]
    out = breakdown("accuracy", records, ["lang", "tags"], resamples=100, seed=0)
    assert set(out["lang"]) == {"en", "zh", "(missing)"}
    assert (out["lang"]["en"].value, out["lang"]["en"].n) == (0.5, 2)
    assert out["lang"]["zh"] == MetricValue(1.0, 1.0, 1.0, 1, total=1.0, count=1.0)
    assert (out["tags"]["noisy"].n, out["tags"]["long"].n) == (2, 2)
    assert out["tags"]["long"].value == 1.0


def test_micro_rate_is_summed_numerators_over_summed_denominators() -> None:
    """`micro:<key>`: a rate over the units inside the samples (MMAE's rubrics), not the mean
    of per-sample rates; its block says both sums; a stats value that is no pair is refused."""
    stats = [{"r": [2, 3]}, {"r": [0, 1]}, {"r": [0, 0]}, {"r": [4, 4]}]
    mv = aggregate(get_metric("micro:r"), stats, resamples=200, seed=0)
    assert mv.value == pytest.approx(6 / 8) and (mv.total, mv.count, mv.n) == (6, 8, 4)
    assert (
        get_metric("micro:r").unit == "fraction" and get_metric("micro:r", unit="percent").unit == "percent"
    )
    mean_of_rates = aggregate(get_metric("mean:x"), [{"x": 2 / 3}, {"x": 0.0}, {"x": None}, {"x": 1.0}])
    assert mean_of_rates.value != pytest.approx(mv.value)
    with pytest.raises(ValueError, match=r"sample #1 has r = 3, not \[numerator, denominator\]"):
        aggregate(get_metric("micro:r"), [{"r": [1, 1]}, {"r": 3}])
