"""The judge reliability block (`metrics/judge_reliability.py`): figures checked against
hand-computed and textbook values, each judged scorer's view of its stored answers, and the
block in the summaries and printouts of real runs against the fake judges (over HTTP on
127.0.0.1), recomputed by `audioeval rescore` with the judge stopped."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.mcq.rubric_scorer import McqRubricScorer
from audioeval.benchmarks.mmae.baselines import write_baseline
from audioeval.benchmarks.mmae.rubric_scorer import MmaeRubricScorer
from audioeval.cli.main import app
from audioeval.judge.qa_judge import QaJudgeScorer
from audioeval.judge.rubric_items import RubricItemsScorer
from audioeval.metrics.judge_reliability import (
    JudgedItem,
    JudgeVote,
    chi2_sf,
    expected_calibration_error,
    fleiss_kappa,
    gamma_q,
    order_swap_consistency,
    position_bias,
    reliability,
    repeat_stability,
    unanimous_share,
    valid_answer_rate,
)
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
from tests.fakes.mcq_server import FakeMcqConfig, FakeMcqServer, tone_wav, write_tone_set
from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer
from tests.mmae_helpers import config, run_mmae
from tests.run_helpers import write_jsonl

runner = CliRunner()
JUDGE = "fake-judge"


def votes(*verdicts: str | None) -> JudgedItem:
    """An item whose votes have these verdicts (None: an invalid vote), with no options."""
    return JudgedItem([JudgeVote(v is not None, v) for v in verdicts])


# -- χ² survival function -------------------------------------------------------------------


def sf_even(x: float, dof: int) -> float:
    """Closed form for even dof: e^(−x/2) Σ_{i<dof/2} (x/2)^i / i!."""
    return math.exp(-x / 2) * sum((x / 2) ** i / math.factorial(i) for i in range(dof // 2))


def sf_odd(x: float, dof: int) -> float:
    """Closed form for odd dof: erfc(√(x/2)) + e^(−x/2) Σ_{i=1}^{(dof−1)/2} (x/2)^(i−½) / Γ(i+½)."""
    tail = sum((x / 2) ** (i - 0.5) / math.gamma(i + 0.5) for i in range(1, (dof - 1) // 2 + 1))
    return math.erfc(math.sqrt(x / 2)) + math.exp(-x / 2) * tail


@pytest.mark.parametrize("dof", [1, 2, 3, 4, 5, 7, 10, 30])
@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 2.0, 3.0, 7.5, 15.0, 40.0, 120.0])
def test_chi2_sf_matches_the_closed_forms(x: float, dof: int) -> None:
    want = sf_even(x, dof) if dof % 2 == 0 else sf_odd(x, dof)
    assert chi2_sf(x, dof) == pytest.approx(want, rel=1e-10, abs=1e-300)


@pytest.mark.parametrize(
    ("x", "dof", "p"),
    [  # critical values of χ² tables
        (3.841458820694124, 1, 0.05),
        (6.634896601021214, 1, 0.01),
        (5.991464547107979, 2, 0.05),
        (11.070497693516351, 5, 0.05),
        (18.307038053275146, 10, 0.05),
        (23.209251158954356, 10, 0.01),
        (124.34211340400407, 100, 0.05),
    ],
)
def test_chi2_sf_gives_the_table_p_values(x: float, dof: int, p: float) -> None:
    assert chi2_sf(x, dof) == pytest.approx(p, rel=1e-8)


def test_chi2_sf_edges() -> None:
    assert chi2_sf(0.0, 3) == 1.0
    assert chi2_sf(2.0, 2) == pytest.approx(math.exp(-1))
    assert chi2_sf(1000.0, 2) == pytest.approx(math.exp(-500), rel=1e-10)  # no underflow to 0
    assert gamma_q(1.0, 0.0) == 1.0
    assert gamma_q(0.5, 2.0) == pytest.approx(math.erfc(math.sqrt(2.0)))  # series and fraction meet
    with pytest.raises(ValueError, match="degrees of freedom"):
        chi2_sf(1.0, 0)


# -- the figures ----------------------------------------------------------------------------


def test_fleiss_kappa_of_the_textbook_example() -> None:
    """Fleiss (1971) as on Wikipedia: 10 subjects, 14 raters, 5 categories: κ = 0.210."""
    table = [
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ]  # fmt: skip
    items = [votes(*(str(j) for j, c in enumerate(row) for _ in range(c))) for row in table]
    kappa = fleiss_kappa(items)
    assert kappa["n"] == 10 and kappa["categories"] == 5
    assert kappa["observed_agreement"] == pytest.approx(0.378, abs=5e-4)
    assert kappa["chance_agreement"] == pytest.approx(0.213, abs=5e-4)
    assert kappa["value"] == pytest.approx(0.20993, abs=5e-5)


def test_fleiss_kappa_with_unequal_votes_and_undefined_cases() -> None:
    # P_i: (4+1−3)/6 = 1/3, (4−2)/2 = 1; P̄ = 2/3. p_yes = 3/5, p_no = 2/5: P_e = 13/25.
    kappa = fleiss_kappa([votes("yes", "yes", "no"), votes("no", "no", None), votes("yes")])
    assert kappa["n"] == 2  # the item with one valid vote is not rated twice
    assert kappa["value"] == pytest.approx((2 / 3 - 13 / 25) / (1 - 13 / 25))
    same = fleiss_kappa([votes("a", "a"), votes("a", "a", "a")])
    assert same["value"] is None and same["n"] == 2 and "chance agreement is 1" in same["reason"]
    lone = fleiss_kappa([votes("a"), votes(None, "b")])
    assert lone == {"value": None, "n": 0, "reason": "no item has two valid votes"}


def test_unanimous_share_and_valid_answer_rate() -> None:
    items = [votes("a", "a", "a"), votes("a", "b", None), votes("b", None, None), votes(None)]
    assert unanimous_share(items) == {"value": 0.5, "n": 2}
    assert valid_answer_rate(items) == {"value": 0.6, "n": 10, "valid": 6}
    # votes on several items answered by one request count once (valid when all are)
    r1, r2 = object(), object()
    shared = [
        JudgedItem([JudgeVote(True, "1", request=r1), JudgeVote(False, request=r2)]),
        JudgedItem([JudgeVote(True, "0", request=r1), JudgeVote(False, request=r2)]),
    ]
    assert valid_answer_rate(shared) == {"value": 0.5, "n": 2, "valid": 1}
    assert valid_answer_rate([])["value"] is None


def lettered(
    position: int, n_options: int = 3, verdict: str = "x", order: tuple = ("a", "b", "c")
) -> JudgeVote:
    return JudgeVote(True, verdict, position, n_options, order)


def test_position_bias_chi2_by_hand() -> None:
    # 3 options: A 10, B 5, C 0 -> expected 5 each, χ² = (25 + 0 + 25) / 5 = 10, dof 2, p = e^-5.
    items = [JudgedItem([lettered(0)] * 10 + [lettered(1)] * 5)]
    bias = position_bias(items)
    assert (bias["chi2"], bias["dof"], bias["n"]) == (10.0, 2, 15)
    assert bias["value"] == pytest.approx(math.exp(-5))
    assert bias["by_n_options"] == {"3": {"counts": [10, 5, 0], "expected": 5.0}}
    assert "warning" not in bias
    # and 2 options: A 6, B 2 -> expected 4, χ² += (4 + 4) / 4 = 2, dof += 1
    items.append(JudgedItem([lettered(0, 2, order=("a", "b"))] * 6 + [lettered(1, 2, order=("a", "b"))] * 2))
    both = position_bias(items)
    assert (both["chi2"], both["dof"]) == (12.0, 3)
    assert both["value"] == pytest.approx(sf_odd(12.0, 3))
    few = position_bias([JudgedItem([lettered(0), lettered(1), lettered(2)])])
    assert few["value"] == pytest.approx(1.0) and "approximate" in few["warning"]
    none = position_bias([votes("yes", "no")])
    assert none["value"] is None and none["n"] == 0 and "lettered options" in none["reason"]


def test_order_swap_consistency_and_repeat_stability_by_hand() -> None:
    ab, ba = ("r", "w"), ("w", "r")
    item = JudgedItem(
        [
            JudgeVote(True, "r", 0, 2, ab),
            JudgeVote(True, "r", 1, 2, ba),
            JudgeVote(True, "w", 1, 2, ab),
            JudgeVote(False, None, None, 2, ba),  # invalid: in no pair
        ]
    )
    # pairs: (0,1) swapped, same; (0,2) same order, differ; (1,2) swapped, differ
    assert order_swap_consistency([item]) == {"value": 0.5, "n": 2}
    assert repeat_stability([item]) == {"value": 0.0, "n": 1}
    plain = [votes("yes", "yes", "no")]  # no options shown: every pair is a repeat
    assert repeat_stability(plain) == {"value": pytest.approx(1 / 3), "n": 3}
    swap = order_swap_consistency(plain)
    assert swap["value"] is None and swap["n"] == 0 and "different option orders" in swap["reason"]


def test_ece_by_hand() -> None:
    def item(p: float, label: bool | None) -> JudgedItem:
        return JudgedItem([JudgeVote(True, "yes" if p >= 0.5 else "no", p_yes=p)], label)

    # bins: [0,.1) p .05 label no: .05; [.1,.2) p .15 yes: .85; [.9,1] p .95 yes, .92 no and
    # 1.0 yes (1.0 in the last bin): mean p .95667, rate 2/3: .29. ECE = (.05 + .85 + 3 × .29) / 5
    items = [item(0.05, False), item(0.15, True), item(0.95, True), item(0.92, False), item(1.0, True)]
    ece = expected_calibration_error(items)
    last = (0.95 + 0.92 + 1.0) / 3
    assert ece["value"] == pytest.approx((0.05 + 0.85 + 3 * abs(2 / 3 - last)) / 5)
    assert ece["n"] == 5 and len(ece["bins"]) == 10
    assert [b["n"] for b in ece["bins"]] == [1, 1, 0, 0, 0, 0, 0, 0, 0, 3]
    assert ece["bins"][2] == {"low": 0.2, "high": 0.3, "n": 0, "mean_score": None, "rate_yes": None}
    unlabelled = expected_calibration_error([item(0.3, None)])
    assert unlabelled["value"] is None and "no label" in unlabelled["reason"]
    assert expected_calibration_error([votes("yes")])["reason"] == "no P(yes) vote"


def test_a_figure_that_cannot_be_computed_is_null_with_a_reason_never_zero() -> None:
    block = reliability([])
    assert block["items"] == block["requests"] == block["valid_votes"] == 0
    for key in ("valid_answer_rate", "fleiss_kappa", "unanimous_share", "position_bias",
                "order_swap_consistency", "repeat_stability", "ece"):  # fmt: skip
        assert block[key]["value"] is None and block[key]["n"] == 0 and block[key]["reason"], key


# -- each judged scorer's view of its stored answers ------------------------------------------


def mmae_attempt(attempt: int, options: list[str], right: str, raw: str | None) -> dict[str, Any]:
    return {"attempt": attempt, "options": options, "right_letter": right, "raw": raw}


def test_mmae_votes_name_the_option_chosen_where_it_was_shown() -> None:
    yes, no, none = "Yes, a tone", "No, no tone", "None of the above"
    stored = {
        "rubrics": [
            {
                "rubric_index": 0,
                "attempts": [
                    mmae_attempt(0, [none, yes, no], "B", '{"choice": "B"}'),
                    mmae_attempt(1, [yes, no, none], "A", '{"choice": "b"}'),
                    mmae_attempt(2, [no, none, yes], "C", "not JSON"),  # parsed again: invalid
                    mmae_attempt(3, [no, none, yes], "C", None),  # the call failed
                ],
            }
        ]
    }
    (item,) = MmaeRubricScorer().reliability_items(stored)
    a, b, c, d = item.votes
    # wrong options numbered by the order of their texts: "No, …" is 1, "None of …" is 2
    assert a == JudgeVote(True, "right", 1, 3, ("wrong 2", "right", "wrong 1"))
    assert b == JudgeVote(True, "wrong 1", 1, 3, ("right", "wrong 1", "wrong 2"))
    assert (c.valid, c.n_options, d.valid) == (False, 3, False)
    assert MmaeRubricScorer().reliability_items({"rubric_scores": [0]}) == []  # a failed output


def test_qa_judge_and_mmar_rubric_votes() -> None:
    stored = {"attempts": [
        {"attempt": 0, "answer": "Yes.", "error": None, "verdict": "yes"},
        {"attempt": 1, "answer": None, "error": "HTTP 503", "verdict": None},
        {"attempt": 2, "answer": "maybe", "error": None, "verdict": None},
        {"attempt": 3, "answer": "no", "error": None, "verdict": "no"},
    ]}  # fmt: skip
    (item,) = QaJudgeScorer().reliability_items(stored)
    assert [(v.valid, v.verdict, v.order) for v in item.votes] == [
        (True, "yes", None), (False, None, None), (False, None, None), (True, "no", None)
    ]  # fmt: skip
    assert QaJudgeScorer().reliability_items({"failed_output": True}) == []

    calls = [
        {"attempt": 0, "raw": "x", "score": 0.5, "scores": [1.0, 0.0], "error": None},
        {"attempt": 1, "raw": "garbage", "score": None, "scores": [], "error": "no JSON list"},
        {"attempt": 2, "raw": "y", "score": 1.0, "scores": [1.0, 1.0], "error": None},
    ]
    items = McqRubricScorer().reliability_items({"eligible": True, "attempts": calls})
    assert [[v.verdict for v in it.votes] for it in items] == [["1", None, "1"], ["0", None, "1"]]
    block = reliability(items)
    assert block["valid_answer_rate"] == {"value": pytest.approx(2 / 3), "n": 3, "valid": 2}  # calls
    assert block["unanimous_share"] == {"value": 0.5, "n": 2}
    failed = McqRubricScorer().reliability_items({"attempts": [calls[1], calls[1]]})
    assert len(failed) == 1 and not any(v.valid for v in failed[0].votes)
    assert McqRubricScorer().reliability_items({"eligible": True, "matched": False, "attempts": []}) == []


# -- in runs ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def identity_preds(synthetic_set, tmp_path_factory) -> Path:
    preds, errors = write_baseline(
        "identity",
        metadata=synthetic_set.metadata,
        audio_root=synthetic_set.root,
        out_dir=tmp_path_factory.mktemp("identity"),
    )
    assert not errors
    return preds


def write_spec(path: Path, metadata: Path) -> Path:
    path.write_text(
        f"name: mmae-syn\ntask: audio_edit\nsource: {{type: mmae, path: {json.dumps(str(metadata))}}}\n",
        encoding="utf-8",
    )
    return path


def stored_attempts(folder: Path) -> list[dict[str, Any]]:
    recs = [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]
    latest = {r["id"]: r for r in recs}
    return [
        a for r in latest.values() for rub in r["judge"]["mmae_rubrics"]["rubrics"] for a in rub["attempts"]
    ]


def test_mmae_run_reports_reliability_and_rescore_recomputes_it(synthetic_set, identity_preds, tmp_path):
    spec = write_spec(tmp_path / "mmae.yaml", synthetic_set.metadata)
    out = tmp_path / "run"
    with FakeJudgeServer(FakeJudgeConfig(model=JUDGE, garbage_rate=0.1)) as judge:
        res = runner.invoke(
            app,
            ["run", "--benchmark", str(spec), "--model", f"predictions:{identity_preds}", "--judge",
             judge.base_url, "--judge-model", JUDGE, "-o", str(out), "--no-progress", "--resamples", "20"],
            catch_exceptions=False,
        )  # fmt: skip
        assert res.exit_code == 0, res.output
    (folder,) = [p for p in (out / "mmae-syn").iterdir() if p.is_dir()]
    pair = json.loads((folder / "summary.json").read_text())
    block = pair["reliability"]["mmae_rubrics"]
    attempts = stored_attempts(folder)
    valid = sum(1 for a in attempts if a["valid"])
    assert block["requests"] == len(attempts)  # every attempt stored, from the judge or its cache
    assert block["valid_answer_rate"] == {"value": valid / len(attempts), "n": len(attempts), "valid": valid}
    assert 0.8 < block["valid_answer_rate"]["value"] < 1.0  # 10 % garbage answers, asked again
    assert block["items"] == sum(len(r) for r in synthetic_set_rubrics(synthetic_set))
    # the fake judge measures the clip: every valid vote on a rubric picks the same option,
    # right or wrong (the identity "edit" fails most instructions), wherever it is shown
    assert block["unanimous_share"] == {"value": 1.0, "n": block["items"]}
    assert block["fleiss_kappa"]["value"] == 1.0 and block["fleiss_kappa"]["categories"] >= 2
    assert block["order_swap_consistency"]["value"] == 1.0 and block["order_swap_consistency"]["n"] > 100
    assert block["repeat_stability"]["value"] == 1.0
    bias = block["position_bias"]
    assert bias["n"] == valid and bias["dof"] == 2 and bias["value"] > 0.01  # options are shuffled
    assert sum(bias["by_n_options"]["3"]["counts"]) == valid
    assert block["ece"]["value"] is None and block["ece"]["reason"] == "no P(yes) vote"

    # the same block in MMAE's taxonomy.json and in the run summary, and in the printout
    assert json.loads((folder / "taxonomy.json").read_text())["reliability"] == pair["reliability"]
    run = json.loads((out / "summary.json").read_text())
    assert run["reliability"]["mmae-syn"][pair["model"]] == pair["reliability"]
    assert "judge reliability: mmae_rubrics · mmae-syn" in res.output
    assert "position bias" in res.output and "Fleiss' κ" in res.output

    # the judge is stopped: a rescore computes the block again from the stored answers
    del pair["reliability"]
    (folder / "summary.json").write_text(json.dumps(pair))
    again = runner.invoke(app, ["rescore", str(out)], catch_exceptions=False)
    assert again.exit_code == 0, again.output
    rescored = json.loads((folder / "summary.json").read_text())
    assert rescored["reliability"]["mmae_rubrics"] == block
    assert json.loads((out / "summary.json").read_text())["reliability"] == run["reliability"]
    assert "judge reliability: mmae_rubrics" in again.output


def synthetic_set_rubrics(synthetic_set) -> list[list[Any]]:
    return [m["rubrics"] for m in json.loads(synthetic_set.metadata.read_text())]


def test_a_position_biased_judge_has_a_small_p_value(synthetic_set, tmp_path):
    with FakeJudgeServer(FakeJudgeConfig(model=JUDGE, first_letter_rate=0.5)) as judge:
        res = run_mmae(
            config(
                synthetic_set.oracle_predictions, synthetic_set.metadata, tmp_path / "out", [judge.base_url],
                model=JUDGE, audio_root=synthetic_set.root, n_resamples=20,
            )
        )  # fmt: skip
    block = res.taxonomy["reliability"]["mmae_rubrics"]
    bias = block["position_bias"]
    counts = bias["by_n_options"]["3"]["counts"]
    assert counts[0] > 1.5 * max(counts[1:])  # A: about 1/2 + 1/6 of the votes
    assert bias["value"] < 1e-6 and bias["chi2"] > 30
    # a vote that picked A whatever the order disagrees with the measured one
    assert block["order_swap_consistency"]["value"] < 0.9
    assert block["unanimous_share"]["value"] < 1.0
    assert block["fleiss_kappa"]["value"] < 0.9


def test_mcq_rubric_judge_reliability_by_hand(tmp_path: Path) -> None:
    """The fake rubric judge gives the n-th identical call 5, 4, 3, 2, 1 points (rubric items
    1..k score 1): over the 5 calls on an answer, item 1 gets 11111, item 2 11110, item 3
    11100, item 4 11000, item 5 10000. P_i = 1, .6, .4, .4, .6: P̄ = .6; p(1) = 15/25,
    p(0) = 10/25: P_e = .52; κ = (.6 − .52) / .48 = 1/6. Agreeing pairs, of 10 per item:
    10, 6, 4, 4, 6 = 30 of 50."""
    items = write_tone_set(tmp_path / "set", 4)
    for it in items:
        it["answer_prediction"] = it["answer"]
        it["thinking_prediction"] = "A steady tone."
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(x) + "\n" for x in items))
    out = tmp_path / "out"
    with FakeMcqServer(FakeMcqConfig()) as server:
        res = runner.invoke(
            app,
            ["mcq", "score", "--benchmark", "mmar", "--predictions", str(preds), "--output_dir", str(out),
             "--rubrics", "--judge-base-urls", server.base_url, "--judge-model", "fake-judge",
             "--no-progress", "--bootstrap", "50"],
        )  # fmt: skip
        assert res.exit_code == 0, res.output
    summary = json.loads((out / "mcq_summary.json").read_text())
    block = summary["reliability"]["mmar_rubrics"]
    assert (block["items"], block["requests"], block["valid_votes"]) == (4 * 5, 4 * 5, 4 * 25)
    assert block["valid_answer_rate"] == {"value": 1.0, "n": 20, "valid": 20}
    assert block["fleiss_kappa"]["value"] == pytest.approx(1 / 6)
    assert block["unanimous_share"] == {"value": 0.2, "n": 20}
    assert block["repeat_stability"] == {"value": pytest.approx(0.6), "n": 4 * 50}
    assert block["position_bias"]["value"] is None and block["order_swap_consistency"]["value"] is None
    assert "judge reliability: mmar_rubrics" in res.output
    again = runner.invoke(app, ["rescore", str(out)])  # no judge: the same block from stored answers
    assert again.exit_code == 0, again.output
    assert json.loads((out / "mcq_summary.json").read_text())["reliability"] == summary["reliability"]
    assert "judge reliability: mmar_rubrics" in again.output


def first_token(top: list[tuple[str, float]] | None) -> str:
    """A stored logprobs answer (what `reply_first_token` keeps)."""
    return json.dumps({"text": "Yes", "top_logprobs": None if top is None else [list(t) for t in top]})


def test_rubric_items_votes_and_calibration_against_labels() -> None:
    sure_yes = first_token([("Yes", math.log(0.9)), ("No", math.log(0.1))])
    sure_no = first_token([("No", math.log(0.8)), ("Yes", math.log(0.2))])
    stored = {
        "mode": "per_item",
        "items": [
            {"question": "a", "p_yes": 0.9, "label": "yes", "attempts": [{"answer": sure_yes}]},
            {"question": "b", "p_yes": 0.2, "label": True, "attempts": [{"answer": None, "error": "HTTP 500"},
                                                                         {"answer": sure_no}]},
            {"question": "c", "p_yes": 0.4, "method": "sampled", "attempts": [{"answer": first_token(None)}],
             "sampled": [{"answer": "yes"}, {"answer": "No."}, {"answer": "no"}, {"answer": "hmm"}, {"answer": "no"}]},
        ],
    }  # fmt: skip
    items = RubricItemsScorer().reliability_items(stored)
    assert [i.label for i in items] == [True, True, None]
    assert [(v.valid, v.verdict, v.p_yes) for v in items[1].votes] == [
        (False, None, None), (True, "no", pytest.approx(0.2))
    ]  # fmt: skip
    block = reliability(items)
    # requests: 1 + 2 + (1 logprobs without logprobs + 5 sampled); valid: 1 + 1 + 4
    assert block["valid_answer_rate"] == {"value": 6 / 9, "n": 9, "valid": 6}
    # ECE over the labelled P(yes) votes: bin 9 (.9, yes): .1; bin 2 (.2, yes): .8 -> (.1 + .8) / 2
    assert block["ece"]["value"] == pytest.approx(0.45) and block["ece"]["n"] == 2
    # the sampled answers of item c: yes, no, no, no -> 3 of 6 pairs agree
    assert block["repeat_stability"] == {"value": 0.5, "n": 6}
    assert block["position_bias"]["value"] is None

    at_once = {
        "mode": "all_at_once",
        "items": [{"question": "a", "label": 1}, {"question": "b", "label": "no"}],
        "attempts": [
            {"attempt": 0, "answer": "not a list"},
            {"attempt": 1, "answer": '[{"id": 1, "answer": "yes"}, {"id": 2, "answer": "yes"}]'},
        ],
    }
    items = RubricItemsScorer().reliability_items(at_once)
    block = reliability(items)
    assert block["valid_answer_rate"] == {"value": 0.5, "n": 2, "valid": 1}  # one request per attempt
    assert block["ece"]["value"] == pytest.approx(0.5)  # P(yes) 1 for a yes item and a no item
    assert RubricItemsScorer().reliability_items({"failed_output": True}) == []


def test_rubric_items_run_has_a_reliability_block(tmp_path: Path) -> None:
    root = tmp_path / "data"
    root.mkdir()
    rows = []
    for i, hz in enumerate((440, 660)):
        tone_wav(root / f"c{i}.wav", hz, seconds=0.4)
        rubric = [
            {"dimension": "tone", "question": f"Is there a steady tone near {f} Hz?"} for f in (hz, 1320)
        ]
        rows.append({"id": f"c{i}", "audio": f"c{i}.wav", "caption": f"a {hz} Hz tone", "rubric": rubric})
    write_jsonl(root / "instruct.jsonl", rows)
    spec = root / "instruct.yaml"
    spec.write_text(
        "name: instruct-syn\ntask: audio_instruct\n"
        f"source: {{type: jsonl, path: {json.dumps(str(root / 'instruct.jsonl'))}}}\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE)) as server:
        res = runner.invoke(
            app,
            ["run", "--benchmark", str(spec), "--model", "echo", "--judge", server.base_url,
             "--judge-model", JUDGE, "-o", str(out), "--no-progress", "--resamples", "20"],
            catch_exceptions=False,
        )  # fmt: skip
        assert res.exit_code == 0, res.output
    block = json.loads(next(out.glob("*/*/summary.json")).read_text())["reliability"]["rubric_items"]
    assert (block["items"], block["requests"], block["valid_votes"]) == (4, 4, 4)
    assert block["valid_answer_rate"]["value"] == 1.0
    # one P(yes) request per item: no agreement to measure, and no labels to calibrate against
    assert block["fleiss_kappa"]["reason"] == "no item has two valid votes"
    assert block["ece"]["value"] is None and "no label" in block["ece"]["reason"]
    assert "judge reliability: rubric_items" in res.output
