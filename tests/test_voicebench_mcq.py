"""VoiceBench's multiple-choice reader and the `voicebench_mcq` scorer (openbookqa, mmsu).

Every example of official-rules.md §1.2.5 (official outcomes of VoiceBench @ 5338154) is a case
here; the crafted held-out set below was scored by hand from the rule text (§1.2.1-§1.2.3).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.voicebench.mcq_reader import TEMPLATES, read_letter
from audioeval.benchmarks.voicebench.mcq_scorer import official_value
from audioeval.cli.main import app
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction
from audioeval.scoring.failed_output import failed_output_score
from audioeval.scoring.scorer_registry import build_scorer
from tests.fakes.mcq_server import tone_wav
from tests.run_helpers import write_jsonl

load_benchmarks()  # registers the VoiceBench scorers

# official-rules.md §1.2.5, reply -> letter VoiceBench reads (None: unreadable, a random pick)
OFFICIAL_EXAMPLES = [
    ("A", "A"),
    ("a", "A"),
    ("B.", "B"),
    ("b)", "B"),
    ("C:", "C"),
    ("d,", "D"),
    ("B\n", None),  # nothing is stripped
    (" C. cat", "C"),  # template 153
    ("(C)", "C"),  # template 162
    ("**B**", None),  # no bare **x** template
    ("The answer is B.", "B"),
    ("The answer is actually C.", "A"),  # "the answer is a" is a substring
    ("the answer is about D", "A"),
    ("Not B. Not D. It must be C.", "B"),  # " b." first
    ("The answer is B, not A.", "B"),
    ("Both A and B are wrong; the answer is d.", "D"),
    ("Choice D is correct.", None),
    ("Answer: D", None),
    ("\\boxed{A}", None),  # boxed templates need a leading "is \( "
    ("<1> B.", "B"),
    ("<2>b", "B"),
    ("答案是C", "C"),
    ("答案是 D", "D"),
    ("选B", None),
    ("I think it's c.", "C"),
    ("It is a dog.", None),
    ("This is a cat, B.", "B"),
    ("F", None),
    ("All of them.", None),
]


@pytest.mark.parametrize(("reply", "letter"), OFFICIAL_EXAMPLES)
def test_reader_gives_voicebench_official_outcome(reply: str, letter: str | None) -> None:
    assert read_letter(reply).letter == letter


def test_template_list_is_voicebenchs_in_its_order() -> None:
    assert len(TEMPLATES) == 163 and len(set(TEMPLATES)) == 162  # 'is [CHOICE],' twice (57, 67)
    assert TEMPLATES[56] == TEMPLATES[66] == "is [CHOICE],"
    assert all("[CHOICE]" in t for t in TEMPLATES)
    assert all(t == t.lower().replace("[choice]", "[CHOICE]") for t in TEMPLATES)
    assert (TEMPLATES[0], TEMPLATES[17], TEMPLATES[98], TEMPLATES[-1]) == (
        "答案是[CHOICE]",
        "the answer is [CHOICE]",
        "is \\( \\boxed{[CHOICE] ",
        '"[CHOICE]"',
    )


def test_reader_order_rules() -> None:
    # the first template that matches any letter wins; within it, a before b
    assert read_letter("The answer is b and the answer is a").rule == "template 18"
    assert read_letter("The answer is b and the answer is a").letter == "A"
    # a template beats the bare-letter rules, which beat nothing
    assert read_letter("A. the answer is c").letter == "C"
    assert read_letter("A. dog").rule == "leading letter"
    assert read_letter("d").rule == "bare letter"
    # only <1>/<2>/<3> turn tags are removed (and then the reply is stripped)
    assert read_letter("<4>b").letter is None and read_letter("<3>b").letter == "B"
    assert read_letter("<3>  c  ").letter == "C"
    assert read_letter("The answer is \\( \\boxed{B} \\)").letter == "B"  # template 120


def test_official_value_is_the_expectation_of_the_random_pick() -> None:
    assert official_value("B", "B") == 1.0 and official_value("C", "B") == 0.0
    assert official_value(None, "D") == 0.25
    assert official_value(None, "E") == 0.0  # a pick from A-D never equals E
    assert official_value("B", "b") == 0.0  # VoiceBench compares with ==, no case folding


SAMPLE_D = Sample("q", fields={"answer": "D"})


def _score(raw: str | None, text: str | None, sample: Sample = SAMPLE_D, outcome: str = "ok") -> dict:
    scorer = build_scorer("voicebench_mcq", {}, where="t.yaml")
    return dict(scorer.score(Prediction(text, raw, outcome=outcome), sample).stats)


def test_scorer_official_reads_raw_reply_robust_reads_the_chain() -> None:
    # a think block is part of what VoiceBench reads; the chain strips it
    both = _score("<think>the answer is b</think>The answer is D.", "D")
    assert both == {"official_accuracy": 0.0, "unreadable": 0, "robust_correct": 1, "unparseable": 0}
    unread = _score("**D**", "D")
    assert unread == {"official_accuracy": 0.25, "unreadable": 1, "robust_correct": 1, "unparseable": 0}
    neither = _score("I do not know.", None, outcome="unparseable")
    assert neither == {"official_accuracy": 0.25, "unreadable": 1, "robust_correct": 0, "unparseable": 1}


def test_a_failed_output_counts_zero_and_is_not_unreadable() -> None:
    scorer = build_scorer("voicebench_mcq", {}, where="t.yaml")
    failed = failed_output_score(scorer, SAMPLE_D, "text")
    assert failed is not None and failed.stats["official_accuracy"] == 0.0
    assert failed.stats["unreadable"] == 0
    missing = scorer.score(Prediction(None, None, outcome="no output"), SAMPLE_D)
    assert missing.detail["missing"] is True and missing.stats["official_accuracy"] == 0.0


# A held-out set of replies crafted to hit each rule; the official value of each was worked out
# by hand from the rule text (references in the middle column).
HELD_OUT = [
    ("The answer is B.", "B", 1.0),
    ("the answer is c", "C", 1.0),
    ("The correct answer is actually D.", "D", 0.0),  # template 19 "the correct answer is a"
    ("Option C is correct.", "C", 0.25),  # "option c " is no template: unreadable
    ("B, since the sun is a star.", "B", 1.0),  # leading "b,"
    ("**B**", "B", 0.25),
    ("\\boxed{A}", "A", 0.25),
    ("  C  ", "C", 0.25),  # whitespace is not stripped
    ("A or B... I pick C.", "C", 0.0),  # template 153 finds " b." ("or b...") before " c."
    ("I'd say B.", "B", 1.0),  # template 60 ("i'd say b.")
    ("答案是A", "B", 0.0),
    ("<2> d", "D", 1.0),
]


def test_held_out_replies_match_hand_computed_official_values() -> None:
    for reply, gold, value in HELD_OUT:
        stats = _score(reply, None, Sample("q", fields={"answer": gold}))
        assert stats["official_accuracy"] == value, reply


def test_openbookqa_and_mmsu_report_official_and_robust_side_by_side(tmp_path: Path) -> None:
    replies = [reply for reply, _, _ in HELD_OUT]
    golds = [gold for _, gold, _ in HELD_OUT]
    expected = sum(value for _, _, value in HELD_OUT) / len(HELD_OUT)
    for name in ("voicebench-openbookqa", "voicebench-mmsu"):
        root = tmp_path / name / "data"
        (root / name).mkdir(parents=True)
        rows = []
        for i, gold in enumerate(golds):
            tone_wav(root / name / f"q{i}.wav", 220 + 20 * i, seconds=0.2)
            rows.append({"id": f"q{i}", "audio": f"q{i}.wav", "reference": gold, "domain": "law"})
        write_jsonl(root / name / "manifest.jsonl", rows)
        preds = write_jsonl(
            tmp_path / name / "preds.jsonl", [{"id": f"q{i}", "text": t} for i, t in enumerate(replies)]
        )
        out = tmp_path / name / "out"
        args = ["run", "--model", f"predictions:{preds}", "--benchmark", name, "--data-root", str(root)]
        res = CliRunner().invoke(
            app, [*args, "-o", str(out), "--no-progress", "--resamples", "0"], catch_exceptions=False
        )
        assert res.exit_code == 0, res.output
        summary = json.loads((out / "summary.json").read_text())
        assert summary["official_accuracy"] == pytest.approx(expected, abs=1e-9)
        assert summary["unreadable"] == pytest.approx(4 / len(HELD_OUT))
        assert "robust_correct" in summary and "unparseable" in summary
