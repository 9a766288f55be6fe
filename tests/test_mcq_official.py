"""Official mode: parity with an independent implementation of the official scripts,
the measured counts of the reference, and every quirk reproduced."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from audioeval.benchmarks.mcq.definitions import MMAR, MMAU, McqBenchmark
from audioeval.report.mcq_table import official_lines
from audioeval.scoring.mcq_official import official_match, tokens
from tests.run_helpers import mcq_score_file as score_file

SHARED = Path(__file__).resolve().parents[2] / "shared"
FILES = {
    "mmar-jsonl": ("data/mmar/MMAR-meta.jsonl", MMAR, "answer_prediction"),
    "mmar-json": ("data/mmar/MMAR-meta.json", MMAR, "model_prediction"),
    "mmau": ("data/mmau/mmau-test-mini.json", MMAU, "model_output"),
}


def shared(rel: str) -> Path:
    p = SHARED / rel
    if not p.exists():
        pytest.skip(f"{p}: ../shared not present (a user's clone has no shared data)")
    return p


def load(rel: str) -> list[dict[str, Any]]:
    p = shared(rel)
    if p.suffix == ".jsonl":
        return [json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()]
    return json.loads(p.read_text(encoding="utf-8"))


# --- an independent implementation of the official evaluation.py, written from the spec ---


def ref_match(answer: str, prediction: str, choices: list[str]) -> bool:
    def tok(text: str) -> set[str]:
        return set(re.findall(r"\b\w+\b", text.lower()))

    pred, ans = tok(prediction), tok(answer)
    if not pred:
        return False
    wrong: set[str] = set()
    for c in choices:
        if tok(c) != ans:
            wrong |= tok(c) - ans
    return ans.issubset(pred) and pred.isdisjoint(wrong)


REF_AXES = {
    "mmar": [
        (
            "Modality-wise Accuracy:",
            "modality",
            [
                "sound",
                "music",
                "speech",
                "mix-sound-music",
                "mix-sound-speech",
                "mix-music-speech",
                "mix-sound-music-speech",
            ],
        ),
        (
            "Category-wise Accuracy:",
            "category",
            ["Signal Layer", "Perception Layer", "Semantic Layer", "Cultural Layer"],
        ),
    ],
    "mmau": [
        ("Task-wise Accuracy:", "task", ["sound", "music", "speech"]),
        ("Difficulty-wise Accuracy:", "difficulty", ["easy", "hard", "medium"]),
    ],
}


def ref_evaluate(data: list[dict[str, Any]], key: str, bench: str) -> tuple[list[str], list[int]]:
    """The official loop: fixed dicts, sub-categories first-seen, keyless items skipped."""
    fixed = [(title, fld, {k: [0, 0] for k in keys}) for title, fld, keys in REF_AXES[bench]]
    subcat: dict[str, list[int]] = {}
    corr = total = 0
    matches = []
    for sample in data:
        if key not in sample:
            continue
        hit = ref_match(sample["answer"], sample[key], sample["choices"])
        matches.append(int(hit))
        sc = sample.get("sub-category", None)
        if sc is not None:
            subcat.setdefault(sc, [0, 0])
            subcat[sc][0] += hit
            subcat[sc][1] += 1
        for _, fld, metrics in fixed:
            metrics[sample[fld]][0] += hit
            metrics[sample[fld]][1] += 1
        corr += hit
        total += 1
    lines = []
    for title, metrics in [(t, m) for t, _, m in fixed] + [("Sub-category-wise Accuracy:", subcat)]:
        lines += ["*" * 30, title]
        for name, (c, n) in metrics.items():
            acc = (c / n) * 100 if n > 0 else 0
            lines.append(f"{name} : {acc:.2f}% over {n} samples")
    lines += [
        "*" * 30,
        f"Total Accuracy: {(corr / total) * 100:.2f}% over {total} samples",
        "*" * 30,
        "No prediction count: 0",
    ]
    return lines, matches


# --- generated prediction sets ---


def _other(item: dict[str, Any], rng: random.Random) -> str:
    others = [c for c in item["choices"] if c != item["answer"]] or item["choices"]
    return rng.choice(others)


def _letter(item: dict[str, Any]) -> str:
    ch = item["choices"]
    return "ABCDEFGH"[ch.index(item["answer"])] if item["answer"] in ch else "A"


GENERATORS = {
    "correct": lambda it, rng: it["answer"],
    "wrong": _other,
    "letter_only": lambda it, rng: _letter(it),
    "letter_prefixed": lambda it, rng: f"({_letter(it)}) {it['answer']}",
    "reasoning": lambda it, rng: (
        f"Let me weigh the options: {'; '.join(it['choices'])}. Therefore the answer is {it['answer']}."
    ),
    "others_mentioned": lambda it, rng: f"{it['answer']}, not {_other(it, rng)}",
    "empty": lambda it, rng: "",
    "missing": lambda it, rng: None,
}


def make_predictions(data: list[dict[str, Any]], key: str, kind: str, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for item in data:
        rec = dict(item)
        k = rng.choice([g for g in GENERATORS if g != "mixed"]) if kind == "mixed" else kind
        value = GENERATORS[k](item, rng)
        if value is not None and not (kind == "mixed" and rng.random() < 0.05):
            rec[key] = value
        out.append(rec)
    return out


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    else:
        path.write_text(json.dumps(records, ensure_ascii=False, indent=1))
    return path


def score(tmp_path: Path, name: str, bench: McqBenchmark, records: list[dict], suffix: str):
    return score_file(bench, write(tmp_path / f"{name}{suffix}", records), n_resamples=50)


@pytest.mark.parametrize("which", list(FILES))
@pytest.mark.parametrize(
    "kind",
    ["correct", "wrong", "letter_only", "letter_prefixed", "reasoning", "others_mentioned", "empty", "mixed"],
)
def test_official_mode_equals_reference(tmp_path: Path, which: str, kind: str) -> None:
    rel, bench, key = FILES[which]
    data = load(rel)
    preds = make_predictions(data, key, kind)
    result = score(tmp_path, kind, bench, preds, Path(rel).suffix)
    ref_lines, ref_matches = ref_evaluate(preds, key, bench.name)
    ours = official_lines(result.summary, bench)
    missing = sum(1 for p in preds if key not in p)
    assert ours == ref_lines  # the whole printout, its "No prediction count: 0" included
    assert [r["official"] for r in result.rows if r["official"] is not None] == ref_matches
    assert result.summary["counts"]["without_prediction"] == missing


def test_items_without_prediction_are_skipped_but_counted(tmp_path: Path) -> None:
    data = load(FILES["mmau"][0])
    preds = [dict(d, model_output=d["answer"]) for d in data[:900]] + [dict(d) for d in data[900:]]
    result = score(tmp_path, "half", MMAU, preds, ".json")
    s = result.summary
    assert s["counts"] == {
        "items": 1000,
        "scored": 900,
        "without_prediction": 100,
        "answer_not_in_choices": 0,
    }
    assert s["overall"]["n"] == 900 and s["overall"]["official"]["accuracy"] == 100.0
    assert len(s["without_prediction_ids"]) == 100
    assert official_lines(s, MMAU)[-1] == "No prediction count: 0"  # what the script prints


@pytest.mark.parametrize("which", list(FILES))
def test_oracle_scores_100(tmp_path: Path, which: str) -> None:
    rel, bench, key = FILES[which]
    data = load(rel)
    result = score(tmp_path, "oracle", bench, [dict(d, **{key: d["answer"]}) for d in data], Path(rel).suffix)
    assert result.summary["overall"]["official"]["correct"] == len(data) == 1000
    assert result.summary["overall"]["official"]["accuracy"] == 100.0


@pytest.mark.parametrize(
    ("which", "items", "options"), [("mmar-jsonl", 20, 28), ("mmar-json", 21, 29), ("mmau", 9, 12)]
)
def test_order_blind_items_score_a_wrong_option_correct(
    tmp_path: Path, which: str, items: int, options: int
) -> None:
    rel, bench, key = FILES[which]
    data = load(rel)
    blind = [
        (d, c) for d in data for c in d["choices"] if c != d["answer"] and tokens(c) == tokens(d["answer"])
    ]
    assert len({d["id"] for d, _ in blind}) == items and len(blind) == options
    preds, seen = [], set()
    for d, wrong in blind:
        if d["id"] not in seen:
            seen.add(d["id"])
            preds.append(dict(d, **{key: wrong}))
    result = score(tmp_path, "blind", bench, preds, Path(rel).suffix)
    # Old JSON: one "wrong" option is the answer with a trailing space ('2040 ').
    same = sum(1 for p in preds if p[key].strip() == p["answer"].strip())
    assert same == (1 if which == "mmar-json" else 0)
    assert result.summary["overall"]["official"]["correct"] == items  # the official quirk
    assert result.summary["overall"]["robust"]["correct"] == same  # robust reads word order
    assert result.summary["disagreements"]["n"] == items - same


@pytest.mark.parametrize(("which", "broken"), [("mmar-jsonl", 15), ("mmau", 33), ("mmar-json", 20)])
def test_letter_prefix_breaks_the_measured_items(tmp_path: Path, which: str, broken: int) -> None:
    """'(X) answer' fails when a distractor holds the letter as a word; items whose answer is
    not among the choices (6 in the old JSON) have no letter and count as broken."""
    rel, bench, key = FILES[which]
    data = load(rel)
    preds = [dict(d, **{key: f"({_letter(d)}) {d['answer']}"}) for d in data if d["answer"] in d["choices"]]
    result = score(tmp_path, "prefixed", bench, preds, Path(rel).suffix)
    failed = result.summary["overall"]["n"] - result.summary["overall"]["official"]["correct"]
    assert failed + (len(data) - len(preds)) == broken
    assert result.summary["overall"]["robust"]["correct"] == len(preds)


def test_mmar_avg_is_the_micro_total(tmp_path: Path) -> None:
    rel, bench, key = FILES["mmar-jsonl"]
    preds = make_predictions(load(rel), key, "mixed", seed=3)
    s = score(tmp_path, "mixed", bench, preds, ".jsonl").summary
    modal = s["breakdowns"]["modality"]
    assert list(modal) == list(MMAR.axis("modality").fixed)
    assert sum(g["n"] for g in modal.values()) == s["overall"]["n"]
    weighted = sum(g["official"]["correct"] for g in modal.values()) / s["overall"]["n"] * 100
    assert round(weighted, 2) == s["overall"]["official"]["accuracy"]


# --- quirks, one by one ---


def test_word_order_is_ignored() -> None:
    choices = ["From far to near", "From near to far", "Stays still"]
    assert official_match("From far to near", "From near to far", choices).correct


def test_letter_in_parentheses_collides_with_a_middle_initial() -> None:
    choices = ["Richard Nixon", "Lyndon B. Johnson", "Gerald Ford"]
    m = official_match("Richard Nixon", "(A) Richard Nixon", choices)
    assert m.correct
    m = official_match("Richard Nixon", "(B) Richard Nixon", choices)
    assert not m.correct and m.reason == "distractor_tokens" and m.conflicts == ("b",)


def test_letter_only_is_wrong_unless_the_answer_is_that_letter() -> None:
    assert not official_match(
        "Gerald Ford", "C", ["Richard Nixon", "Lyndon B. Johnson", "Gerald Ford"]
    ).correct
    assert official_match("B", "B", ["A", "B", "C"]).correct


def test_empty_and_punctuation_only_predictions_are_wrong() -> None:
    for pred in ("", "   ", "...", "?!"):
        m = official_match("Dog", pred, ["Dog", "Cat"])
        assert not m.correct and m.reason == "empty_prediction"


def test_answer_that_is_a_subset_of_a_distractor() -> None:
    choices = ["Dog", "Dog barking", "Cat"]
    assert official_match("Dog", "Dog", choices).correct
    assert not official_match("Dog", "Dog barking", choices).correct


def test_mentioning_a_distractor_word_in_reasoning_fails() -> None:
    choices = ["Violin", "Cello", "Piano"]
    m = official_match("Cello", "Not a violin: it is a cello", choices)
    assert not m.correct and m.conflicts == ("violin",)


def test_case_and_punctuation_do_not_matter_but_cjk_runs_are_one_token() -> None:
    assert official_match("Open Grassland", "open-grassland!", ["Open Grassland", "Forest"]).correct
    assert tokens("答案是中文") == frozenset({"答案是中文"})
    assert not official_match("中文", "答案是中文", ["中文", "英文"]).correct


# --- every figure is the engine's: mcq_summary.json formats the run's own pair summary ---


def summary_cis(summary: dict[str, Any]) -> dict[str, Any]:
    """Each group's official and robust CI, by `axis=group/mode` (`overall/mode`)."""
    out: dict[str, Any] = {}
    groups = [("overall", summary["overall"])] + [
        (f"{axis}={name}", g) for axis, gs in summary["breakdowns"].items() for name, g in gs.items()
    ]
    for where, group in groups:
        for mode in ("official", "robust"):
            out[f"{where}/{mode}"] = group[mode]["ci"]
    return out


def pair_cis(pair: dict[str, Any]) -> dict[str, Any]:
    """The same CIs read from the pair summary (`summary.json`), in percent, two decimals."""
    metric = {"official": "accuracy", "robust": "mean:robust_correct"}
    groups = [("overall", pair["metrics"])] + [
        (f"{axis}={name}", g) for axis, gs in pair["breakdowns"].items() for name, g in gs.items()
    ]
    out: dict[str, Any] = {}
    for where, blocks in groups:
        for mode, name in metric.items():
            ci = blocks[name]["ci"]
            out[f"{where}/{mode}"] = None if ci is None else [round(ci[0] * 100, 2), round(ci[1] * 100, 2)]
    return out


@pytest.mark.parametrize("which", ["mmar-jsonl", "mmau"])
def test_confidence_intervals_are_those_of_the_pair_summary(tmp_path: Path, which: str) -> None:
    """Every group's CI in mcq_summary.json is the engine's, drawn once (mixed predictions,
    seed 3; 200 resamples, seed 5): the same in summary.json, to the last digit."""
    rel, bench, key = FILES[which]
    preds = write(tmp_path / f"{which}{Path(rel).suffix}", make_predictions(load(rel), key, "mixed", seed=3))
    out = tmp_path / "out"
    summary = score_file(bench, preds, out, n_resamples=200, seed=5).summary
    run = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary_cis(summary) == pair_cis(run["results"][0])
