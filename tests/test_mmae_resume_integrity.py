"""`mmae score`: a folder is never resumed with another system's outputs, samples without a
usable output count in the headline, and stored result lines are checked before reuse."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.mmae.baselines import write_baseline
from audioeval.benchmarks.mmae.records import is_instruction_following
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from tests.fakes.mcq_server import tone_wav
from tests.mmae_helpers import records_file, results

runner = CliRunner()


def small_set(synthetic_set: Any, tmp_path: Path, n: int) -> tuple[Path, Path, list[dict[str, Any]]]:
    """A copy of the first `n` synthetic samples: (metadata, oracle predictions, their items)."""
    root = tmp_path / "set"
    shutil.copytree(synthetic_set.root, root)
    meta = json.loads((root / "MMAE-meta.json").read_text())[:n]
    preds = json.loads((root / "predictions-oracle.json").read_text())[:n]
    (root / "MMAE-meta.json").write_text(json.dumps(meta))
    (root / "predictions-oracle.json").write_text(json.dumps(preds))
    return root / "MMAE-meta.json", root / "predictions-oracle.json", preds


def score(preds: Path, meta: Path, out: Path, url: str, *extra: str) -> Any:
    args = ["mmae", "score", "--predictions", str(preds), "--metadata", str(meta), "--base_urls", url,
            "--output_dir", str(out), "--no-progress", "--bootstrap", "50", *extra]  # fmt: skip
    return runner.invoke(app, args, catch_exceptions=False)


def overall(out: Path) -> dict[str, Any]:
    return json.loads((out / "taxonomy.json").read_text())["overall"]


def test_another_predictions_file_into_the_same_folder_is_refused(synthetic_set, judge_server, tmp_path):
    meta, oracle, _ = small_set(synthetic_set, tmp_path, 4)
    out = tmp_path / "o"
    assert score(oracle, meta, out, judge_server.base_url).exit_code == 0
    lines = len(results(out))
    noise, errors = write_baseline("noise", metadata=meta, audio_root=meta.parent, out_dir=tmp_path / "noise")
    assert not errors
    res = score(noise, meta, out, judge_server.base_url, "--audio_root", str(meta.parent))
    assert res.exit_code == 2
    assert "predictions_sha256" in res.output and "outputs_sha256" in res.output
    assert "reused" not in res.output and len(results(out)) == lines
    assert overall(out)["EMR"] == 100.0  # the oracle's numbers, untouched

    # the same predictions file whose edited audio changed on disk is refused as well
    first = json.loads(oracle.read_text())[0]["messages"][-1]["content"][0]["audio_url"]
    tone_wav(meta.parent / first, 999, seconds=0.5)
    res = score(oracle, meta, out, judge_server.base_url)
    assert res.exit_code == 2 and "outputs_sha256" in res.output and "predictions_sha256" not in res.output


def test_missing_and_unreadable_outputs_count_as_zero(synthetic_set, judge_server, tmp_path):
    meta, oracle, preds = small_set(synthetic_set, tmp_path, 6)
    items = json.loads(meta.read_text())
    text_file = meta.parent / "not-audio.txt"
    text_file.write_text("this is not audio")
    preds[1]["messages"][-1]["content"][0]["audio_url"] = text_file.name  # unreadable output
    del preds[4]  # no prediction
    partial = meta.parent / "partial.json"
    partial.write_text(json.dumps(preds))
    out = tmp_path / "o"
    res = score(partial, meta, out, judge_server.base_url)
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output  # the system did not produce 2
    assert "2 sample(s) without a usable output, counted in the headline with every rubric at 0" in res.output

    # by hand: the oracle scores 100 on every rubric; the two failed samples score 0
    failed = {items[1]["id"], items[4]["id"]}
    has_if = [any(is_instruction_following(r["category"]) for r in m["rubrics"]) for m in items]
    has_cr = [any(not is_instruction_following(r["category"]) for r in m["rubrics"]) for m in items]
    ifr = 100 * sum(h and m["id"] not in failed for h, m in zip(has_if, items, strict=True)) / sum(has_if)
    cr = 100 * sum(h and m["id"] not in failed for h, m in zip(has_cr, items, strict=True)) / sum(has_cr)
    got = overall(out)
    assert (got["n"], got["n_failed_outputs"], got["n_samples_judged"]) == (6, 2, 4)
    assert got["IFR"] == pytest.approx(ifr, abs=0.01) and got["CR"] == pytest.approx(cr, abs=0.01)
    assert got["EMR"] == pytest.approx(100 * 4 / 6, abs=0.01) and got["EMR"] < 100
    tax = json.loads((out / "taxonomy.json").read_text())
    assert tax["failed_outputs"] == {
        "n": 2,
        "in_headline": "counted",
        "ids": [items[1]["id"], items[4]["id"]],
    }
    assert {x["id"] for x in json.loads((out / "failed_outputs.json").read_text())} == failed
    assert not json.loads((out / "skipped.json").read_text())

    # --exclude-missing gives the judged samples only, labelled; rescore switches between views
    excl = score(partial, meta, out, judge_server.base_url, "--exclude-missing")
    # the choice is not in the signature: it resumes (and the 2 outputs are still failed work)
    assert excl.exit_code == exit_codes.TOO_MANY_FAILURES, excl.output
    assert (overall(out)["EMR"], overall(out)["n"]) == (100.0, 4)
    assert json.loads((out / "taxonomy.json").read_text())["failed_outputs"]["in_headline"] == "excluded"
    assert "overall (2 without output: excluded)" in excl.output
    # a rescore keeps the run's view unless told otherwise (as `audioeval rescore` does)
    same = runner.invoke(app, ["mmae", "rescore", str(out), "--metadata", str(meta), "--bootstrap", "50"])
    assert same.exit_code == 0, same.output
    assert (overall(out)["EMR"], overall(out)["n"]) == (100.0, 4)
    back = runner.invoke(
        app, ["mmae", "rescore", str(out), "--metadata", str(meta), "--bootstrap", "50", "--count-missing"]
    )
    assert back.exit_code == 0, back.output
    assert overall(out)["EMR"] == pytest.approx(100 * 4 / 6, abs=0.01)


def test_resume_ignores_invalid_stored_lines_and_judges_them_again(synthetic_set, judge_server, tmp_path):
    meta, oracle, _ = small_set(synthetic_set, tmp_path, 4)
    out = tmp_path / "o"
    assert score(oracle, meta, out, judge_server.base_url).exit_code == 0
    path = records_file(out)  # the record stream (results.jsonl is exported from it)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    lines[1]["scores"]["mmae_rubrics"]["stats"]["ifr"] = 700.0  # would give IFR 700 %
    lines[2]["id"] = 7
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    res = score(oracle, meta, out, judge_server.base_url)
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "ignored 2 stored result line(s)" in text
    assert (
        f"records.jsonl:2: id {lines[1]['id']!r}: scores.mmae_rubrics.stats: ifr 700.0 is outside 0–100"
        in text
    )
    again = sum(len(x["sample"]["fields"]["rubrics"]) for x in lines[1:3])
    assert f"judged {again} rubric(s) now" in text
    got = overall(out)
    assert got["IFR"] == got["CR"] == got["EMR"] == 100.0
