"""`audioeval run`: a pair folder is never resumed with other inputs, outputs the model failed
count in the headline (WER as a full deletion), and stored records are checked before reuse."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.mmae.baselines import write_baseline
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
from tests.fakes.mcq_server import tone_wav
from tests.run_helpers import tone_mcq_manifest, write_jsonl
from tests.test_run_mmae import JUDGE, write_spec

runner = CliRunner()
REFERENCES = {"a": "red green blue", "b": "cat dog", "c": "sun moon star sky"}


def run_cli(*args: str) -> Any:
    return runner.invoke(app, ["run", *args, "--no-progress", "--resamples", "20"], catch_exceptions=False)


def records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]


def asr_set(root: Path) -> Path:
    root.mkdir(parents=True)
    for i, sid in enumerate(REFERENCES):
        tone_wav(root / f"{sid}.wav", 300 + 100 * i, seconds=0.3)
    return write_jsonl(
        root / "asr.jsonl", [{"id": k, "audio": f"{k}.wav", "text": v} for k, v in REFERENCES.items()]
    )


def replay_folder(root: Path, answered: dict[str, str]) -> Path:
    """A stored benchmark × model folder whose outputs are `answered` (other ids: no output)."""
    rows = [{"id": k, "output": {"text": v, "error": None}} for k, v in answered.items()]
    write_jsonl(root / "records.jsonl", rows)
    return root


def pair_summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())["results"][0]


def test_a_failed_output_is_a_full_deletion_in_wer(tmp_path):
    manifest = asr_set(tmp_path / "set")
    model = f"replay:{replay_folder(tmp_path / 'model', {'a': REFERENCES['a'], 'b': REFERENCES['b']})}"
    out = tmp_path / "out"
    res = run_cli("-b", str(manifest), "--task", "asr", "-m", model, "-o", str(out))
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output  # one sample failed
    s = pair_summary(out)
    # by hand: a and b are exact (0 edits), c failed: its 4 reference words are all deleted
    assert s["metrics"]["wer"]["value"] == pytest.approx(4 / 9) and s["metrics"]["wer"]["n"] == 3
    assert (s["scored"], s["failed"]) == (2, 1)
    assert s["failed_outputs"] == {"n": 1, "in_headline": "counted", "ids": ["c"]}
    board = (out / "leaderboard.md").read_text()
    assert "| 44.44 % [" in board and "(1 failed; 1 without output counted) |" in board

    # rescoring reproduces it; --exclude-missing gives the scored samples only, labelled
    again = runner.invoke(app, ["rescore", str(out), "--resamples", "20"], catch_exceptions=False)
    assert again.exit_code == 0 and pair_summary(out)["metrics"]["wer"]["value"] == pytest.approx(4 / 9)
    excl = runner.invoke(app, ["rescore", str(out), "--exclude-missing"], catch_exceptions=False)
    assert excl.exit_code == 0
    s = pair_summary(out)
    assert s["metrics"]["wer"]["value"] == 0.0 and s["failed_outputs"]["in_headline"] == "excluded"
    assert "| 0.00 % [0.0, 0.0] (1 failed; 1 without output excluded) |" in (out / "leaderboard.md").read_text()


def test_a_manifest_whose_audio_changed_is_refused(tmp_path):
    manifest = tone_mcq_manifest(tmp_path / "set", n=4)
    out = tmp_path / "out"
    args = ("-b", str(manifest), "--task", "mcq", "-m", "first-choice", "-o", str(out))
    assert run_cli(*args, "--limit", "2").exit_code == 0
    grown = run_cli(*args)  # more samples of the same inputs: resumes
    assert grown.exit_code == 0 and "asked 2, reused 2" in grown.output
    tone_wav(tmp_path / "set" / "audio" / "t1.wav", 1234, seconds=0.41)
    res = runner.invoke(app, ["run", *args, "--no-progress"])
    assert res.exit_code == 2
    assert "sample 't1'" in res.output and "sample_sha256" in res.output and "reused" not in res.output


def test_another_predictions_file_is_refused(synthetic_set, tmp_path):
    spec = write_spec(tmp_path / "mmae.yaml", synthetic_set.metadata)
    preds = tmp_path / "preds.json"
    shutil.copy(synthetic_set.oracle_predictions, preds)
    rows = json.loads(preds.read_text())
    for row in rows:  # keep the clips where they are
        part = row["messages"][-1]["content"][0]
        part["audio_url"] = str(synthetic_set.root / part["audio_url"])
    preds.write_text(json.dumps(rows))
    out = tmp_path / "run"
    with FakeJudgeServer(FakeJudgeConfig(model=JUDGE)) as judge:
        args = ("-b", str(spec), "-m", f"predictions:{preds}", "--judge", judge.base_url,
                "--judge-model", JUDGE, "-o", str(out), "--limit", "3")  # fmt: skip
        assert run_cli(*args).exit_code == 0
        noise, _ = write_baseline(
            "noise",
            metadata=synthetic_set.metadata,
            audio_root=synthetic_set.root,
            out_dir=tmp_path / "noise",
        )
        shutil.copy(noise, preds)
        requests = judge.stats.requests
        res = runner.invoke(app, ["run", *args, "--no-progress"])
        assert res.exit_code == 2 and "model.predictions_sha256" in res.output
        assert judge.stats.requests == requests


def test_missing_edits_count_as_zero_in_the_run_headline(synthetic_set, tmp_path):
    spec = write_spec(tmp_path / "mmae.yaml", synthetic_set.metadata)
    rows = json.loads(synthetic_set.oracle_predictions.read_text())[:3]
    for row in rows:
        part = row["messages"][-1]["content"][0]
        part["audio_url"] = str(synthetic_set.root / part["audio_url"])
    rows[1]["messages"][-1]["content"][0]["audio_url"] = str(tmp_path / "gone.wav")
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps(rows))
    out = tmp_path / "run"
    with FakeJudgeServer(FakeJudgeConfig(model=JUDGE)) as judge:
        res = run_cli("-b", str(spec), "-m", f"predictions:{preds}", "--judge", judge.base_url,
                      "--judge-model", JUDGE, "-o", str(out), "--limit", "4")  # fmt: skip
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output  # two edits failed
    s = pair_summary(out)
    # 4 samples: 2 edited (oracle, 100), 1 whose edit is missing (0), 1 without a prediction (0)
    assert s["failed_outputs"]["n"] == 2 and s["failed"] == 2 and s["scored"] == 2
    assert s["metrics"]["mean:em"]["value"] == pytest.approx(50.0) and s["metrics"]["mean:em"]["n"] == 4


def test_resume_ignores_invalid_records(tmp_path):
    manifest = tone_mcq_manifest(tmp_path / "set", n=4)
    out = tmp_path / "out"
    args = ("-b", str(manifest), "--task", "mcq", "-m", "first-choice", "-o", str(out))
    assert run_cli(*args).exit_code == 0
    (folder,) = [p for p in (out / "mcq").iterdir() if p.is_dir()]
    recs = records(folder)
    recs[2]["scores"]["mcq_match"]["stats"]["correct"] = 7
    bad = recs[2]["id"]  # the third line: whichever sample finished third
    (folder / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    res = run_cli(*args)
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "ignored 1 stored result line(s)" in text and f"records.jsonl:3: id '{bad}'" in text
    assert "correct 7 is outside 0–1" in text and "asked 1, reused 3" in text
    assert pair_summary(out)["metrics"]["accuracy"]["value"] <= 1.0
