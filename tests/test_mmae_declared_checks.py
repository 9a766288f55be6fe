"""A rubric item of MMAE metadata may declare its check (`check`, `judge/checkable.py`): it is
read by the one metadata reader, answers the item in `--verify audit|first` and
`--judge verifiers`, and a bad one is an error naming file, sample id and field."""

import json
import subprocess
import sys

import pytest

from audioeval.benchmarks.mmae.check_rules import MMAE_CHECK_RULES
from audioeval.benchmarks.mmae.loading import load_metadata
from audioeval.benchmarks.mmae.source import load_mmae_samples, mmae_from_fields
from audioeval.benchmarks.mmae.synthetic import write_synthetic_set
from audioeval.judge.checkable import plan_check

AUDIOEVAL = [sys.executable, "-m", "audioeval.cli.main"]
UNRECOGNISED = "Does <audio output> keep what the instruction asked to keep?"


@pytest.fixture(scope="module")
def declared(tmp_path_factory):
    """A 7-sample synthetic set whose first rubric of each sample is reworded past every rule,
    its check declared instead (the expression the rule gave for the original wording)."""
    data = write_synthetic_set(tmp_path_factory.mktemp("declared") / "set", 7)
    meta = json.loads(data.metadata.read_text())
    for s in meta:
        r = s["rubrics"][0]
        r["check"] = plan_check({"question": r["question"]}, MMAE_CHECK_RULES).expression
        r["question"] = UNRECOGNISED
        assert plan_check({"question": r["question"]}, MMAE_CHECK_RULES) is None
    path = data.root / "declared.json"
    path.write_text(json.dumps(meta))
    return data, path, meta


def score(data, meta, out, *extra):
    p = subprocess.run(
        [*AUDIOEVAL, "mmae", "score", "--predictions", str(data.oracle_predictions), "--metadata", str(meta),
         "--audio_root", str(data.root), "--output_dir", str(out), *map(str, extra)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return p


def results(out):
    return {(x["id"], x["rubric_index"]): x for x in map(json.loads, (out / "results.jsonl").read_text().splitlines())}


def test_the_reader_keeps_a_declared_check_through_the_run_sample(declared):
    data, path, meta = declared
    samples, errors = load_mmae_samples(path, audio_root=data.root)
    assert not errors
    ms = mmae_from_fields(samples[0])
    assert ms.rubrics[0].check == meta[0]["rubrics"][0]["check"] and ms.rubrics[1].check is None
    assert "check" not in samples[0].fields["rubrics"][1]  # an item without one is as before


def test_verifiers_answer_a_declared_check(declared, tmp_path):
    data, path, meta = declared
    p = score(data, path, tmp_path / "out", "--judge", "verifiers")
    assert p.returncode == 0, p.stderr[-2000:]
    by_key = results(tmp_path / "out")
    for s in meta:
        first = by_key[(s["id"], 0)]
        assert first["check_source"] == "metadata" and first["check"] == s["rubrics"][0]["check"]
        assert first["score"] == 1  # the oracle edit, measured
    overall = json.loads((tmp_path / "out" / "taxonomy.json").read_text())["overall"]
    assert overall["n_rubrics_not_judged"] == 0


def test_first_and_audit_use_a_declared_check(declared, judge_server, tmp_path):
    data, path, meta = declared
    before = judge_server.stats.requests
    p = score(data, path, tmp_path / "first", "--judge", judge_server.base_url, "--verify", "first")
    assert p.returncode == 0, p.stderr[-2000:]
    assert judge_server.stats.requests == before  # the reworded rubrics too: measured, not asked
    by_key = results(tmp_path / "first")
    assert all(by_key[(s["id"], 0)]["measured"]["check_source"] == "metadata" for s in meta)
    p = score(data, path, tmp_path / "audit", "--judge", judge_server.base_url, "--verify", "audit", "--judge-votes", 1)
    assert p.returncode == 0, p.stderr[-2000:]
    by_key = results(tmp_path / "audit")
    assert all(by_key[(s["id"], 0)]["audit"]["check_source"] == "metadata" for s in meta)


@pytest.mark.parametrize(
    "check,says",
    [
        ("loud(output)", "unknown check"),
        ("tone_present(output)", "takes a clip and 1 more"),
        ("louder(output, 3)", "should be a clip"),
        ("tone_present(output, high)", "should be a number"),
        ("silent(input2)", "'input2', no clip of this sample"),
        ("louder(output, input3[1s:])", "'input3', no clip of this sample"),
        ("silent(output[x:y])", "not a time slice"),
        ("", "non-empty check expression"),
        (3, "non-empty check expression"),
        (["silent(output)"], "non-empty check expression"),
    ],
)
def test_a_bad_declared_check_names_file_sample_and_field(declared, tmp_path, check, says):
    data, _, meta = declared
    bad = json.loads(json.dumps(meta))
    bad[2]["rubrics"][1]["check"] = check
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    samples, errors = load_metadata(path)
    [err] = errors
    assert err.file == str(path) and err.sample_id == bad[2]["id"] and err.field == "rubrics[1].check"
    assert says in err.message
    assert bad[2]["id"] not in samples and len(samples) == len(bad) - 1  # skipped, the rest go on


def test_a_bad_declared_check_is_named_on_the_console(declared, tmp_path):
    data, _, meta = declared
    bad = json.loads(json.dumps(meta))
    bad[3]["rubrics"][0]["check"] = "tone_present(output, 440, 660)"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    p = score(data, path, tmp_path / "out", "--judge", "verifiers")
    text = p.stdout + p.stderr
    assert bad[3]["id"] in text and "rubrics[0].check" in text and "bad.json" in text
