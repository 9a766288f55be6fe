"""Generation and codec evaluation end to end on real audio: the bundled speech clips through
built-in codecs, and espeak-ng as the TTS model, scored by the embedded metric models."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.cli.main import app
from audioeval.engine.board_spec import parse_board
from audioeval.engine.family_boards import FAMILY_BOARDS
from audioeval.engine.leaderboard import build_board, normalised

runner = CliRunner()
DEMO = Path(__file__).resolve().parents[1] / "src" / "audioeval" / "benchmarks" / "demo" / "demo_data" / "speech"
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _espeak() -> None:
    if shutil.which("espeak-ng") is None:
        if os.environ.get("CI"):
            pytest.fail("espeak-ng is required on CI (make test installs it)")
        pytest.skip("espeak-ng not installed (apt-get install espeak-ng)")


@pytest.fixture(scope="module")
def codec_run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("codec") / "out"
    res = runner.invoke(
        app,
        [
            "codec",
            "--codec",
            "opus:6k,opus:24k,codec2:3200",
            "-b",
            "demo-speech-en",
            "--limit",
            "2",
            "-o",
            str(out),
            "--no-progress",
            "--resamples",
            "200",
        ],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    return {"out": out, "output": res.output, "summary": json.loads((out / "summary.json").read_text())}


def test_codec_summary_has_every_metric_per_codec(codec_run: dict) -> None:
    codecs = codec_run["summary"]["codecs"]
    assert set(codecs) == {"opus:6k", "opus:24k", "codec2:3200"}
    for values in codecs.values():
        assert set(values) == {"wer", "sim", "dnsmos_ovrl", "dnsmos_p808", "pesq", "stoi"}
        assert all(v is not None for v in values.values()), values
    assert codecs["opus:6k"]["pesq"] <= codecs["opus:24k"]["pesq"]
    assert codecs["codec2:3200"]["pesq"] < codecs["opus:24k"]["pesq"]
    assert codecs["opus:24k"]["sim"] > codecs["codec2:3200"]["sim"]
    assert codecs["opus:24k"]["wer"] < 0.4  # the clips stay intelligible to Whisper tiny.en


def test_codec_leaderboard_is_data_and_table(codec_run: dict) -> None:
    board = codec_run["summary"]["boards"]["codec"]
    assert [c["label"] for c in board["columns"]] == ["wer", "SIM", "OVRL", "P.808", "PESQ", "STOI"]
    assert [g["columns"] for g in board["groups"]] == [["demo-speech-en · OVRL", "demo-speech-en · P.808"]]
    top = board["rows"][0]
    v = {key.split(" · ")[1]: cell["value"] for key, cell in top["cells"].items()}
    acoustic = (20 * v["OVRL"] + 20 * v["P.808"]) / 2  # one score, as UltraEval-Audio's codec board
    expected = (100 - 100 * v["wer"] + 100 * v["SIM"] + acoustic) / 3  # PESQ, STOI: shown only
    assert top["average"] == pytest.approx(expected)
    assert list(codec_run["summary"]["boards"]) == ["codec"]
    assert "Codec leaderboard" in codec_run["output"] and "opus:24k" in codec_run["output"]
    md = (codec_run["out"] / "leaderboard.md").read_text()
    assert "## Codec" in md and "| opus:24k |" in md and "Shown, not averaged: PESQ, STOI." in md
    rec = json.loads(
        (codec_run["out"] / "demo-speech-en" / "opus_24k" / "records.jsonl").read_text().splitlines()[0]
    )
    assert Path(rec["output"]["audio_path"]).is_file()
    assert rec["scores"]["asr_wer"]["detail"]["transcript"]


def test_codec_run_reports_the_metric_models_work(codec_run: dict) -> None:
    """summary.json and the console say how much audio each metric model scored, how fast."""
    import soundfile as sf

    rows = [json.loads(line) for line in (DEMO / "manifest.jsonl").read_text().splitlines()][:2]
    seconds = sum(sf.info(str(DEMO / r["audio"])).duration for r in rows)
    work = codec_run["summary"]["metric_models"]
    by_kind = {label.split(":", 1)[0].split(" ", 1)[0]: w for label, w in work.items()}
    assert {"dnsmos-p835+p808", "faster-whisper", "dvector", "pesq-wb+stoi"} <= set(by_kind), work
    dnsmos = by_kind["dnsmos-p835+p808"]
    assert dnsmos["calls"] == 6  # 3 codecs × 2 clips, each reconstruction scored once
    assert dnsmos["audio_seconds"] == pytest.approx(3 * seconds, rel=0.01)  # same length as the input
    assert by_kind["dvector"]["calls"] == 12  # output and reference of each of the 6
    for w in work.values():
        assert w["busy_seconds"] > 0
        # rounded to 0.1: below 1 × real time (a busy machine) the rounding alone is up to 0.05
        assert w["x_realtime"] == pytest.approx(w["audio_seconds"] / w["busy_seconds"], rel=0.05, abs=0.051)
    text = " ".join(codec_run["output"].split())
    assert "metric models (this command):" in text and "6 call(s)" in text and "× real time" in text


def test_rescore_reports_only_its_own_metric_model_work(codec_run: dict, tmp_path: Path) -> None:
    run_dir = tmp_path / "copy"
    shutil.copytree(codec_run["out"], run_dir)
    res = runner.invoke(app, ["rescore", str(run_dir), "--resamples", "0"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    work = json.loads((run_dir / "summary.json").read_text())["metric_models"]
    dnsmos = next(w for label, w in work.items() if label.startswith("dnsmos"))
    assert dnsmos["calls"] == 6  # the rescore's own calls, not the run's before it
    # the stored transcripts are reused: Whisper was not asked again, and the WER is the same
    assert not any(label.startswith("faster-whisper") for label in work), work
    assert "faster-whisper" not in res.output
    stored = sorted(codec_run["out"].glob("*/*/records.jsonl"))
    assert len(stored) == 3  # one pair per codec
    for records in stored:
        run = [json.loads(line)["scores"]["asr_wer"] for line in records.read_text().splitlines()]
        copy = run_dir / records.relative_to(codec_run["out"])
        assert [json.loads(line)["scores"]["asr_wer"] for line in copy.read_text().splitlines()] == run


def test_tts_with_espeak_ng(tmp_path: Path) -> None:
    _espeak()
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["run", "-m", "espeak-ng", "-b", "demo-tts-en", "--limit", "4", "-o", str(out), "--no-progress"],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    s = json.loads((out / "summary.json").read_text())
    assert s["wer"] < 0.6, s["wer"]  # espeak is hard for Whisper, but far from noise
    assert 1.0 < s["dnsmos_ovrl"] < 5.0 and 1.0 < s["dnsmos_p808"] < 5.0
    assert s["sim"] is not None and s["sim"] < 0.7  # espeak's voice is not the recorded one
    assert s["boards"]["generation"]["rows"][0]["model"] == "espeak-ng"


def test_neural_codec_and_utmos_fail_clearly(tmp_path: Path) -> None:
    res = runner.invoke(
        app, ["codec", "--codec", "encodec:24k", "-b", "demo-speech-en", "-o", str(tmp_path / "o")]
    )
    assert res.exit_code == 2
    assert "encodec" in res.output and "runtime" in res.output
    res = runner.invoke(
        app, ["codec", "--codec", "opsu:12k", "-b", "demo-speech-en", "-o", str(tmp_path / "o2")]
    )
    assert res.exit_code == 2 and "opus" in res.output
    spec = tmp_path / "u.yaml"
    spec.write_text(
        f"name: u\ntask: tts\nsource: {{type: jsonl, path: {DEMO / 'manifest.jsonl'}}}\nscorers: [utmos]\n"
    )
    res = runner.invoke(app, ["run", "-m", "espeak-ng", "-b", str(spec), "-o", str(tmp_path / "o3")])
    assert res.exit_code == 2 and "UTMOS" in res.output


def test_generation_normalisation_rules() -> None:
    assert normalised(0.1, transform="percent", higher_is_better=False) == pytest.approx(90.0)
    assert normalised(3.0, transform="mos", higher_is_better=True) == pytest.approx(60.0)
    assert normalised(0.8, transform="percent", higher_is_better=True) == pytest.approx(80.0)
    assert normalised(None, transform="percent", higher_is_better=True) is None
    results = [
        {
            "benchmark": "b",
            "model": "m",
            "task": "tts",
            "headline": "wer",
            "metrics": {
                "wer": {"value": 0.2, "higher_is_better": False, "unit": "fraction"},
                "mean:sim": {"value": None, "higher_is_better": True, "unit": "score"},
            },
        }
    ]
    board = build_board(parse_board(FAMILY_BOARDS["generation"], "generation"), results)
    assert board is not None and board["not_applicable"] == ["b · SIM"]  # SIM does not apply: left out
    assert board["rows"][0]["average"] == pytest.approx(80.0)
    assert (board["rows"][0]["averaged_over"], board["rows"][0]["entries"]) == (1, 1)
