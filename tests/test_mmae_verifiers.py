"""`mmae score --judge verifiers`: rubrics answered by measurement, offline; the rest not judged."""

import json
import subprocess
import sys

import numpy as np
import soundfile as sf

from audioeval.benchmarks.mmae.synthetic import write_synthetic_set

AUDIOEVAL = [sys.executable, "-m", "audioeval.cli.main"]


def run(*args):
    return subprocess.run([*AUDIOEVAL, *map(str, args)], capture_output=True, text=True, timeout=300)


def score(data, meta, preds, out):
    return run(
        "mmae", "score", "--predictions", preds, "--metadata", meta, "--audio_root", data.root,
        "--judge", "verifiers", "--output_dir", out,
    )  # fmt: skip


def test_measured_rubrics_are_scored_and_the_rest_counted_not_scored(tmp_path):
    data = write_synthetic_set(tmp_path / "set", 7)
    meta = json.loads(data.metadata.read_text())
    natural = {
        "category": "Consistency",
        "question": "Does the edit in <audio output> sound natural?",
        "right_choice": "Yes, natural",
        "wrong_choices": ["No, not natural"],
    }
    meta[0]["rubrics"].append(natural)
    meta[1]["rubrics"][0]["question"] = (
        "In <audio output[4.0s:5.7s]>, can a steady tone near 660 Hz be heard?"
    )
    edited = tmp_path / "meta.json"
    edited.write_text(json.dumps(meta))
    out = tmp_path / "out"
    p = score(data, edited, data.oracle_predictions, out)
    assert p.returncode == 0, p.stderr[-2000:]
    assert "2 of" in p.stdout and "not judged" in p.stdout
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    by_key = {(x["id"], x["rubric_index"]): x for x in lines}
    unknown = by_key[(meta[0]["id"], len(meta[0]["rubrics"]) - 1)]
    assert unknown["score"] is None and "no check" in unknown["not_judged"]
    outside = by_key[(meta[1]["id"], 0)]
    assert outside["score"] is None and outside["measurement"]["answer"] == "cannot tell"
    assert "outside" in outside["not_judged"]  # a slice out of range is "cannot tell", never "no"
    measured = [x for x in lines if not x.get("not_judged")]
    assert measured and all(x["score"] == 1 and x["measurement"]["answer"] in ("yes", "no") for x in measured)
    overall = json.loads((out / "taxonomy.json").read_text())["overall"]
    assert overall["n_rubrics_not_judged"] == 2 and overall["n_rubrics_failed"] == 0
    assert overall["IFR"] == 100.0 and overall["CR"] == 100.0  # unmeasured rubrics are not zeros
    health = json.loads((out / "taxonomy.json").read_text())["output_health"]
    assert health == {  # the right edits are healthy; the pair summary's block, measured once
        "n_checked": 7, "n_with_problems": 0, "problems": {}, "unreadable": {"n": 0, "ids": []}, "against_input": True
    }  # fmt: skip
    [summary] = list(out.glob("mmae/*/summary.json"))
    assert json.loads(summary.read_text())["output_health"] == health
    rows = {r["id"]: r for r in json.loads((out / "per_sample.json").read_text())}
    assert rows[meta[0]["id"]]["EMR"] is None and rows[meta[0]["id"]]["n_not_judged"] == 1


def test_a_wrong_edit_scores_zero_by_measurement(tmp_path):
    data = write_synthetic_set(tmp_path / "set", 7)
    preds = json.loads(data.oracle_predictions.read_text())
    for p in preds:  # every output silent: no tone that should be there is heard
        wav = data.root / p["messages"][-1]["content"][0]["audio_url"]
        x, rate = sf.read(wav)
        sf.write(wav, np.zeros_like(x), rate)
    out = tmp_path / "out"
    p = score(data, data.metadata, data.oracle_predictions, out)
    assert p.returncode == 0, p.stderr[-2000:]
    tax = json.loads((out / "taxonomy.json").read_text())
    assert tax["overall"]["EMR"] == 0.0 and tax["overall"]["n_rubrics_not_judged"] == 0
    health = tax["output_health"]
    assert health["n_checked"] == 7 and health["problems"]["silent"]["n"] == 7
    assert "output health: 7 of 7" in p.stdout and "silent 7" in p.stdout


def test_verifiers_names_a_judge_only_for_presets_that_have_one():
    """The one gate of `--judge` values (`cli/preset_commands._checks`), for every preset."""
    import pytest

    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.cli.preset_commands import _checks
    from audioeval.core.errors import InputError

    presets = [p for b in load_benchmarks().values() for p in b.presets if p.uses("judge")]
    assert any(p.offline_judge for p in presets)
    for preset in presets:
        if preset.offline_judge == "verifiers":
            assert _checks({"judge": "verifiers"}, preset)["judge"] == "verifiers"
        else:
            with pytest.raises(InputError):
                _checks({"judge": "verifiers"}, preset)
