"""`make demo` runs the embedded demonstration end to end (offline, CPU)."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mmae_demo_scores_baselines_by_measurement_without_a_server(tmp_path):
    env = {**os.environ, "AUDIOEVAL_DEMO_OUT": str(tmp_path)}
    p = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "mmae_demo.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr[-2000:]
    assert "MEASURING JUDGE" in p.stdout and "NOT MMAE results" in p.stdout
    assert p.stdout.count("measured: ") == 3 and "not judged: 0" in p.stdout
    assert "judge_server" not in (ROOT / "examples" / "mmae_demo.py").read_text()  # no fake server
    scores = tmp_path / "mmae" / "scores"
    overall = {d.name: json.loads((d / "taxonomy.json").read_text())["overall"] for d in scores.iterdir()}
    assert set(overall) == {"identity", "noise", "oracle_edit"}
    assert all(o["n_rubrics_failed"] == 0 and o["n"] == 42 for o in overall.values())
    assert overall["oracle_edit"]["EMR"] == 100.0
    assert overall["identity"]["CR"] > 90 > overall["noise"]["CR"]
    health = {
        d.name: json.loads((d / "taxonomy.json").read_text())["output_health"] for d in scores.iterdir()
    }
    assert health["identity"]["problems"]["identical_to_input"]["n"] == 42  # the input returned unchanged
    assert health["oracle_edit"]["n_with_problems"] == 0
    sig = json.loads(
        (scores / "identity" / "mmae" / "identity" / "signature.json").read_text()
    )  # named `--name identity`
    scorer = sig["benchmark"]["scorers"][0]
    assert scorer["judge"] == "verifiers" and scorer["verifiers_version"]
    assert sig.get("judge") is None  # no judge model was asked


def test_demo_config_runs_every_pair_offline(tmp_path):
    """`audioeval run examples/demo.yaml`, as `make demo` runs it (Whisper in its runtime,
    espeak-ng TTS, baselines), into a temporary run directory."""
    from typer.testing import CliRunner

    from audioeval.adapters.runtimes.environment import setup_environment
    from audioeval.adapters.runtimes.spec import load_runtime_spec
    from audioeval.cli.main import app

    setup_environment(load_runtime_spec("whisper-tiny.en"))
    out = tmp_path / "eval"
    res = CliRunner().invoke(
        app,
        ["run", str(ROOT / "examples" / "demo.yaml"), "-o", str(out), "--no-progress"],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    s = json.loads((out / "summary.json").read_text())
    assert s["scores"]["demo-speech-en"]["whisper-tiny.en"]["wer"] < 0.3
    assert s["scores"]["demo-mcq"]["oracle"]["accuracy"] == 1.0
    assert s["scores"]["demo-tts-en"]["espeak-ng"]["dnsmos_ovrl"] > 1.0
    assert all(r["failed"] == 0 for r in s["results"]), [
        (r["benchmark"], r["model"], r["failed"]) for r in s["results"]
    ]
    # one board per task family: the TTS model is never averaged with the ASR model
    boards = {name: [r["model"] for r in b["rows"]] for name, b in s["boards"].items()}
    assert list(boards) == ["understanding", "reasoning", "generation"]
    assert "whisper-tiny.en" in boards["understanding"] and "espeak-ng" not in boards["understanding"]
    assert boards["generation"] == ["espeak-ng"]
    assert "leaderboard" not in s
    md = (out / "leaderboard.md").read_text()
    assert "## Understanding" in md and "## Reasoning (MMAR, MMAU)" in md and "## Generation" in md
    assert "Generation leaderboard" in res.output
