"""Captioning's BLEU-1..4 and ROUGE-L as the COCO caption evaluation computes them
(pycocoevalcap's `Bleu(4)` and `Rouge()` on PTB tokens: UltraEval-Audio's `compute_caption`,
official-rules §2.8): values worked out by hand from the rules, then the whole path (raw captions
-> our scorers -> corpus metrics and bootstrap resamples) against pycocoevalcap itself run on the
same captions, and the captioning specs and task defaults in every scoring profile."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pytest

from audioeval.benchmarks.registry import load_shipped
from audioeval.benchmarks.resolved import profile_names, resolve, with_profile
from audioeval.benchmarks.spec import parse_spec
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.metrics.corpus import aggregate, get_metric
from audioeval.scoring.base import Prediction
from audioeval.scoring.caption_bleu import bleu_stats
from audioeval.scoring.rouge import coco_rouge_l
from audioeval.scoring.scorer_registry import build_scorer

BLEUS = [f"bleu_{k}" for k in range(1, 5)]
TINY, SMALL = 1e-15, 1e-9  # pycocoevalcap's guards against a zero count


def _bleu(stats: list[dict]) -> list[float]:
    return [get_metric(m).compute(stats) for m in BLEUS]


# --- by hand, from the rules ------------------------------------------------------------------


def test_short_caption_pays_the_brevity_penalty_of_the_closest_reference() -> None:
    """3 words against references of 6 and 4 words: the closest is 4, BP = exp(1 - 4/3); every
    n-gram matches up to order 3; no 4-gram at all (0 matches of 0: tiny / small)."""
    stats = bleu_stats("a dog barks", ["a dog barks at night today", "a dog barks loudly"])
    assert stats == {
        "bleu_testlen": 3,
        "bleu_reflen": 4,
        "bleu_guess": [3, 2, 1, 0],
        "bleu_correct": [3, 2, 1, 0],
    }
    bp = math.exp(1 - 4 / 3)
    b1, b2, b3, b4 = _bleu([stats])
    assert b1 == pytest.approx(bp, rel=1e-9)
    assert b2 == pytest.approx(bp, rel=1e-9) and b3 == pytest.approx(bp, rel=1e-9)
    assert b4 == pytest.approx((TINY / SMALL) ** 0.25 * bp, rel=1e-6)


def test_long_caption_has_no_penalty_and_counts_are_clipped() -> None:
    """6 words against 3 and 4: closest 4, ratio 6/4 > 1, no penalty. Unigrams: a dog barks
    loudly of 6; bigrams: a·dog, dog·barks, barks·loudly of 5; trigrams 2 of 4; 4-grams 0 of 3."""
    stats = bleu_stats("a dog barks loudly at night", ["a dog barks", "the dog barks loudly"])
    assert stats["bleu_reflen"] == 4 and stats["bleu_correct"] == [4, 3, 2, 0]
    b1, b2, b3, b4 = _bleu([stats])
    assert b1 == pytest.approx(4 / 6, rel=1e-9)
    assert b2 == pytest.approx(math.sqrt(4 / 6 * 3 / 5), rel=1e-9)
    assert b3 == pytest.approx((4 / 6 * 3 / 5 * 2 / 4) ** (1 / 3), rel=1e-9)
    assert b4 == pytest.approx((4 / 6 * 3 / 5 * 2 / 4 * TINY / 3) ** 0.25, rel=1e-6)
    # clipping: "the" 4 times, at most twice in one reference
    clipped = bleu_stats("the the the the", ["the cat on the mat", "the dog"])
    assert clipped["bleu_correct"][0] == 2


def test_closest_reference_length_tie_takes_the_shorter() -> None:
    """3 words, references of 4 and 2 (both 1 away): 2, so no penalty and BLEU-1 is 1."""
    stats = bleu_stats("a b c", ["a b c d", "a b"])
    assert stats["bleu_reflen"] == 2
    assert _bleu([stats])[0] == pytest.approx(1.0, rel=1e-9)


def test_corpus_bleu_sums_statistics_before_the_penalty() -> None:
    """The short caption alone pays a penalty; with the long one the summed lengths are 9
    against 8, so the corpus pays none: BLEU-1 = 7 / 9, not a mean of per-sample values."""
    short = bleu_stats("a dog barks", ["a dog barks at night today", "a dog barks loudly"])
    long = bleu_stats("a dog barks loudly at night", ["a dog barks", "the dog barks loudly"])
    assert get_metric("bleu_1").compute([short, long]) == pytest.approx(7 / 9, rel=1e-9)
    # and the other way: two short captions, summed 6 against 8: BP exp(1 - 8/6)
    assert get_metric("bleu_1").compute([short, short]) == pytest.approx(math.exp(1 - 8 / 6), rel=1e-9)


def test_empty_caption_scores_zero_against_the_shortest_reference() -> None:
    stats = bleu_stats("", ["rain falls on a tin roof", "rain"])
    assert stats["bleu_testlen"] == 0 and stats["bleu_reflen"] == 1 and stats["bleu_guess"] == [0] * 4
    assert _bleu([stats]) == [0.0] * 4


def test_coco_rouge_l_takes_best_precision_and_best_recall_separately() -> None:
    """ "a dog barks loudly" against "a dog" (P 2/4, R 1) and "dog barks loudly at night"
    (P 3/4, R 3/5): P = 3/4 and R = 1 come from different references; β = 1.2."""
    value = coco_rouge_l("a dog barks loudly", ["a dog", "dog barks loudly at night"])
    assert value == pytest.approx(2.44 * 0.75 * 1 / (1 + 1.44 * 0.75), rel=1e-12)
    assert coco_rouge_l("a dog", ["rain falls"]) == 0.0
    assert coco_rouge_l("", ["rain falls"]) == 0.0
    # split on single spaces: an empty caption is one empty token, which an emptied reference holds
    assert coco_rouge_l("", ["", "rain"]) == 1.0


def test_bleu_metric_names_a_missing_stats_key() -> None:
    with pytest.raises(ValueError, match="bleu_testlen"):
        get_metric("bleu_4").compute([{"rouge_l": 0.5}])


# --- specs and task defaults: the same metrics in every profile ----------------------------------


@pytest.mark.parametrize("name", ["audiocaps-test", "clotho-eval", None])
def test_captioning_is_scored_by_the_coco_metrics_in_every_profile(name: str | None) -> None:
    """The shipped caption specs and the captioning task's defaults (None), under each profile."""
    if name is None:
        where = "t"
        spec = parse_spec(
            {"name": "caps", "task": "captioning", "source": {"type": "jsonl", "path": "x"}}, where
        )
    else:
        spec, where = load_shipped(name)
    profiles = profile_names()
    assert "ultraeval" in profiles
    for profile in profiles:
        bench = resolve(with_profile(spec, profile), where)
        assert [s.name for s in bench.scorers] == ["coco_bleu", "coco_rouge_l", "cider_d", "meteor"]
        assert [m.name for m in bench.metrics] == [*BLEUS, "rouge_l", "cider_d", "meteor"]
        assert bench.headline == "cider_d"
        assert bench.summary_plan().feeds["bleu_4"] == ["coco_bleu"]
        assert bench.summary_plan().feeds["rouge_l"] == ["coco_rouge_l"]


# --- against pycocoevalcap, from raw captions -----------------------------------------------

needs_java = pytest.mark.skipif(
    shutil.which("java") is None, reason="no Java runtime on PATH (`make java-deps` installs it)"
)
CASES = {  # id: (caption, references)
    "short": ("A dog barks.", ["A dog barks loudly at night.", "A dog is barking!", "Dogs bark."]),
    "long": ("A large dog barks loudly, again and again, at the mailman.", ["A dog barks.", "Dog barking!"]),
    "punctuation": ("Birds chirp -- (softly); then: silence...", ["Birds chirp softly, then silence."]),
    "empty": ("", ["Rain falls on a tin roof.", "Rain."]),
    "only punctuation": ("...", ["Someone speaks.", "A man talks?"]),
    "clipping, case": ("The THE the the", ["The cat and the mat.", "the the cat"]),
    "tie": ("a b c", ["a b c d", "a b"]),
    "emptied reference": ("Silence", ["...", "Nothing happens at all."]),  # PTB leaves ""
    "both emptied": ("?", ["!", "A door closes."]),  # "" against "": ROUGE-L 1, BLEU reflen 0
    "quotes, unicode": (
        '"Hello," she said -- it\'s a café',
        ["She says hello in a café.", "A woman's voice."],
    ),
    "line break": (
        "Rain falls.\nA car passes by.",
        ["Rain falls while a car passes by.", "A car in the rain."],
    ),
    "five refs": (
        "water runs from a tap into a sink",
        [
            "Water runs from a tap.",
            "A faucet is running into a sink.",
            "Water flows into a basin.",
            "Someone fills a sink with water from the tap.",
            "Running water splashes.",
        ],
    ),
}
SHORT_SET = (
    "short",
    "empty",
    "only punctuation",
    "emptied reference",
    "both emptied",
)  # summed: shorter than refs
LONG_SET = ("long", "tie", "clipping, case", "quotes, unicode")  # summed: longer


@pytest.fixture(scope="module")
def coco():  # type: ignore[no-untyped-def]
    """pycocoevalcap's tokens of every caption (one tokenizer JVM for the module) and its scorers."""
    if shutil.which("java") is None:
        pytest.skip("no Java runtime on PATH (`make java-deps` installs it)")
    ptb = pytest.importorskip("pycocoevalcap.tokenizer.ptbtokenizer", reason="pycocoevalcap is not installed")
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.rouge.rouge import Rouge

    gts = ptb.PTBTokenizer().tokenize({k: [{"caption": r} for r in refs] for k, (_, refs) in CASES.items()})
    res = ptb.PTBTokenizer().tokenize({k: [{"caption": c}] for k, (c, _) in CASES.items()})
    return gts, res, Bleu(4), Rouge()


def _ours(ids) -> dict[str, dict]:  # type: ignore[no-untyped-def]
    bleu, rouge = build_scorer("coco_bleu", where="t"), build_scorer("coco_rouge_l", where="t")
    out = {}
    for k in ids:
        caption, refs = CASES[k]
        sample = Sample(k, fields={"references": refs})
        out[k] = {
            "bleu": bleu.score(Prediction(caption, caption), sample),
            "rouge": rouge.score(Prediction(caption, caption), sample),
        }
    return out


@needs_java
@pytest.mark.parametrize("subset", ["all", "short", "long"])
def test_corpus_and_item_values_equal_pycocoevalcap(coco, subset: str) -> None:  # type: ignore[no-untyped-def]
    gts, res, bleu, rouge = coco
    ids = {"all": list(CASES), "short": SHORT_SET, "long": LONG_SET}[subset]
    theirs_bleu, theirs_items = bleu.compute_score(
        {k: gts[k] for k in ids}, {k: res[k] for k in ids}, verbose=0
    )
    theirs_rouge, rouge_items = rouge.compute_score({k: gts[k] for k in ids}, {k: res[k] for k in ids})
    ours = _ours(ids)
    bleu_stats_list = [ours[k]["bleu"].stats for k in ids]
    testlen = sum(s["bleu_testlen"] for s in bleu_stats_list)
    reflen = sum(s["bleu_reflen"] for s in bleu_stats_list)
    if subset == "short":
        assert testlen < reflen  # the corpus pays the brevity penalty
    if subset == "long":
        assert testlen > reflen
    for n, metric in enumerate(BLEUS):
        assert math.isclose(
            get_metric(metric).compute(bleu_stats_list), theirs_bleu[n], rel_tol=1e-12, abs_tol=1e-15
        )
        for i, k in enumerate(ids):
            assert math.isclose(
                ours[k]["bleu"].values[metric], theirs_items[n][i], rel_tol=1e-12, abs_tol=1e-15
            )
    rouge_stats = [ours[k]["rouge"].stats for k in ids]
    assert math.isclose(get_metric("rouge_l").compute(rouge_stats), theirs_rouge, rel_tol=1e-12)
    assert [ours[k]["rouge"].values["rouge_l"] for k in ids] == pytest.approx(list(rouge_items), rel=1e-12)
    assert theirs_bleu[0] > 0.1 and theirs_rouge > 0.1


@needs_java
def test_bootstrap_resamples_and_rescoring_equal_pycocoevalcap_on_the_resampled_set(coco) -> None:  # type: ignore[no-untyped-def]
    """A resample's BLEU is pycocoevalcap's BLEU of the resampled list (a sample drawn twice is
    two items); statistics read back from a record's JSON give the same numbers."""
    gts, res, bleu, rouge = coco
    ids = list(CASES)
    ours = _ours(ids)
    stats = [json.loads(json.dumps(ours[k]["bleu"].stats)) for k in ids]  # as `rescore` reads them
    counts = np.bincount(np.random.default_rng(3).integers(0, len(ids), len(ids)), minlength=len(ids))
    drawn = [f"{k}#{j}" for k, c in zip(ids, counts, strict=True) for j in range(c)]
    theirs, _ = bleu.compute_score(
        {d: gts[d.split("#")[0]] for d in drawn}, {d: res[d.split("#")[0]] for d in drawn}, verbose=0
    )
    for n, metric in enumerate(BLEUS):
        value = get_metric(metric).statistic(stats)(counts[None, :])[0]
        assert math.isclose(value, theirs[n], rel_tol=1e-12, abs_tol=1e-15)
    mv = aggregate("bleu_4", stats, resamples=200, seed=1)
    assert mv.ci_low is not None and mv.ci_low <= mv.value <= mv.ci_high
    assert aggregate("bleu_4", stats, resamples=200, seed=1) == mv


@needs_java
def test_a_missing_answer_is_an_empty_caption_and_an_empty_reference_is_not_scored() -> None:
    bleu = build_scorer("coco_bleu", where="t")
    missing = bleu.score(
        Prediction(None, "???", outcome="unparseable"), Sample("s", fields={"reference": "A dog."})
    )
    assert missing.stats["bleu_testlen"] == 0 and missing.detail["missing"] is True
    for name in ("coco_bleu", "coco_rouge_l", "cider_d"):
        with pytest.raises(InputError, match="reference caption is empty"):
            build_scorer(name, where="t").score(
                Prediction("a dog", "a dog"), Sample("e", fields={"reference": ""})
            )
