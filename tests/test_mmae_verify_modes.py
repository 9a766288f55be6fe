"""`mmae score --verify off|audit|first`: measurement beside the judge, or before it."""

import json
import subprocess
import sys

import pytest

from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer

AUDIOEVAL = [sys.executable, "-m", "audioeval.cli.main"]


def score(data, judge, out, *extra):
    p = subprocess.run(
        [*AUDIOEVAL, "mmae", "score", "--predictions", str(data.oracle_predictions), "--metadata",
         str(data.metadata), "--audio_root", str(data.root), "--judge", judge.base_url, "--output_dir",
         str(out), *map(str, extra)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    return p, json.loads((out / "taxonomy.json").read_text())


def signature_of(out):
    [sig] = list(out.glob("mmae/*/signature.json"))
    return json.loads(sig.read_text())["benchmark"]["scorers"][0]


def test_off_is_the_default_and_leaves_the_signature_as_before(small_synthetic_set, judge_server, tmp_path):
    _, tax = score(small_synthetic_set, judge_server, tmp_path / "off")
    assert "verify" not in signature_of(tmp_path / "off")
    assert "verifier_audit" not in tax and "verifier_first" not in tax
    assert "verifier_audit" not in tax["reliability"]["mmae_rubrics"]


def test_audit_reports_agreement_per_axis_and_operation_with_the_disagreeing_votes(
    small_synthetic_set, tmp_path
):
    with FakeJudgeServer(FakeJudgeConfig(wrong_rate=0.3, seed=3)) as judge:
        p, tax = score(
            small_synthetic_set, judge, tmp_path / "audit", "--verify", "audit", "--judge-votes", 1
        )
    fig = tax["reliability"]["mmae_rubrics"]["verifier_audit"]
    assert fig["n"] == 34 and 0 < fig["value"] < 1  # a judge wrong 30 % of the time disagrees
    assert fig["agree"] + len(fig["disagreeing"]) == fig["n"]
    assert set(fig["by_axis"]) == {"IF", "CR"} and sum(v["n"] for v in fig["by_axis"].values()) == 34
    assert any(op.endswith("removal") for op in fig["by_operation"])  # the summary's operation groups
    assert set(fig["by_modality"]) and set(fig["by_complexity"])  # every taxonomy key of the samples
    [summary] = list((tmp_path / "audit").glob("mmae/*/summary.json"))
    assert json.loads(summary.read_text())["reliability"]["mmae_rubrics"]["verifier_audit"] == fig
    d = fig["disagreeing"][0]
    assert (
        d["judge"] != d["measured"] and d["check"].startswith("tone_present") and d["measurement"]["answer"]
    )
    assert "judge vs measurement" in p.stdout  # the figure in the console's reliability table
    sig = signature_of(tmp_path / "audit")
    assert sig["verify"]["mode"] == "audit" and sig["verify"]["verifiers_version"]


@pytest.mark.parametrize("votes", [3])
def test_first_answers_measured_rubrics_without_the_judge(small_synthetic_set, judge_server, tmp_path, votes):
    before = judge_server.stats.requests
    p, tax = score(small_synthetic_set, judge_server, tmp_path / "first", "--verify", "first")
    assert judge_server.stats.requests == before  # every rubric of the set is measurable
    assert tax["verifier_first"] == {"rubrics_measured": 34, "calls_saved": 34 * votes, "figure": "ours"}
    assert tax["run"]["calls_saved_by_measurement"] == 34 * votes
    assert "the figure is ours" in p.stdout
    assert tax["overall"]["EMR"] == 100.0
    lines = [json.loads(x) for x in (tmp_path / "first" / "results.jsonl").read_text().splitlines()]
    assert all(x["measured"]["check"].startswith("tone_present") for x in lines)
    r = subprocess.run(
        [*AUDIOEVAL, "mmae", "rescore", str(tmp_path / "first"), "--metadata", str(small_synthetic_set.metadata)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr[-2000:]
    again = json.loads((tmp_path / "first" / "taxonomy.json").read_text())
    assert again["overall"]["EMR"] == 100.0 and again["verifier_first"]["rubrics_measured"] == 34
