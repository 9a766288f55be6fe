"""The issue's ad-hoc form, for real: embedded Whisper tiny.en in its isolated runtime on a
local manifest of real speech (the bundled demo clips), scored with corpus WER and CER."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.adapters.runtimes.environment import setup_environment
from audioeval.adapters.runtimes.spec import load_runtime_spec
from audioeval.cli.main import app

DEMO = Path(__file__).resolve().parents[1] / "src" / "audioeval" / "benchmarks" / "demo" / "demo_data" / "speech"


@pytest.fixture(scope="module")
def whisper_runtime() -> None:
    setup_environment(load_runtime_spec("whisper-tiny.en"))  # idempotent: a marker check once set up


def test_adhoc_manifest_with_embedded_whisper(whisper_runtime: None, tmp_path: Path) -> None:
    rows = [json.loads(x) for x in (DEMO / "manifest.jsonl").read_text().splitlines()][:4]
    (tmp_path / "clips").mkdir()
    for r in rows:
        shutil.copy(DEMO / r["audio"], tmp_path / "clips" / r["audio"])
    noise = tmp_path / "clips" / "noise.wav"
    import numpy as np
    import soundfile as sf

    sf.write(noise, (0.3 * np.random.default_rng(0).standard_normal(32000)).astype(np.float32), 16000)
    manifest = tmp_path / "my.jsonl"
    lines = [{"audio": f"clips/{r['audio']}", "text": r["text"]} for r in rows]
    lines.append({"audio": "clips/noise.wav", "text": "four hours of steady work faced us"})
    lines.append({"audio": "clips/missing.wav", "text": "this file does not exist"})
    manifest.write_text("".join(json.dumps(x) + "\n" for x in lines))
    out = tmp_path / "out"
    res = CliRunner().invoke(
        app,
        [
            "run",
            "--model",
            "whisper-tiny.en",
            "--task",
            "asr",
            "--benchmark",
            str(manifest),
            "--output_dir",
            str(out),
            "--no-progress",
            "--max-failed",
            "2",  # the sample whose clip is missing, the noise clip transcribed as nothing
        ],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    # 4 real sentences (about 10 % WER for tiny.en) plus one noise clip (all its words missed:
    # an empty transcript is no output, counted in the headline as every word deleted)
    assert 0.1 < summary["wer"] < 0.45, summary
    assert 0.0 < summary["cer"] < summary["wer"] + 0.2
    assert summary["n"] == 6 and summary["scored"] == 4 and summary["failed"] == 2
    recs = [
        json.loads(x) for x in (out / "my" / "whisper-tiny.en" / "records.jsonl").read_text().splitlines()
    ]
    by_id = {r["id"]: r for r in recs}
    # samples without an id are named by their manifest line number
    assert "missing.wav" in by_id["6"]["error"]  # recorded and counted, not scored as a wrong answer
    assert by_id["5"]["failure"] == "no output" and by_id["5"]["output_failed"]  # noise: nothing heard
    clean = [by_id[str(i)]["scores"]["wer"]["values"]["wer"] for i in range(1, 5)]
    assert sum(clean) / 4 < 0.3, [by_id[str(i)]["output"]["text"] for i in range(1, 5)]
    sig = json.loads((out / "my" / "whisper-tiny.en" / "signature.json").read_text())
    assert sig["model"]["isolated"] is True and sig["benchmark"]["scorers"][0]["scorer"] == "wer"
