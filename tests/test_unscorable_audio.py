"""Audio that cannot be scored fails its sample, never the run: non-finite samples (NaN/inf) are
rejected wherever audio is decoded, and a metric library failing on one clip (PESQ on silence,
librosa, onnxruntime) is that sample's recorded failure; the other samples are scored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from audioeval.audio.decode import decode_bytes, load_clip
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.errors import AudioError
from tests.run_helpers import demo_speech_as_wavs, write_jsonl

runner = CliRunner()
REPO = Path(__file__).resolve().parents[1]


def non_finite_wav(path: Path, value: float, n_bad: int = 37) -> Path:
    """Noise with `n_bad` samples set to `value` (NaN or ±inf), as 32-bit float WAV."""
    x = (0.1 * np.random.default_rng(0).standard_normal(16000)).astype(np.float32)
    x[100 : 100 + n_bad] = value
    sf.write(path, x, 16000, subtype="FLOAT")
    return path


def speech_set(folder: Path) -> Path:
    """Two real speech clips, one of digital silence, one with NaN and one with -inf samples."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = demo_speech_as_wavs(folder, n=2)
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    sf.write(folder / "silence.wav", np.zeros(16000, np.float32), 16000, subtype="PCM_16")
    non_finite_wav(folder / "nan.wav", float("nan"))
    non_finite_wav(folder / "inf.wav", float("-inf"))
    rows += [
        {"id": "silence", "audio": "silence.wav", "text": "nothing is said here"},
        {"id": "nan", "audio": "nan.wav", "text": "not a number"},
        {"id": "inf", "audio": "inf.wav", "text": "minus infinity"},
    ]
    return write_jsonl(folder / "clips.jsonl", rows)


def records(path: Path) -> dict[str, dict]:
    return {r["id"]: r for r in (json.loads(x) for x in path.read_text().splitlines())}


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_non_finite_audio_is_an_error_naming_file_id_and_field(tmp_path: Path, value: float) -> None:
    from audioeval.audio.decode import require_finite_file

    path = non_finite_wav(tmp_path / "bad.wav", value)
    with pytest.raises(AudioError) as info:
        load_clip(path, sample_id="s7", field="audio")
    text = str(info.value)
    assert str(path) in text and "'s7'" in text and "'audio'" in text
    assert "37 non-finite samples (NaN/inf)" in text
    with pytest.raises(AudioError, match="37 non-finite"):
        decode_bytes(path.read_bytes(), source="http://endpoint", sample_id="s7", field="output.audio")
    with pytest.raises(AudioError, match="37 non-finite"):  # a file handed undecoded to a runtime worker
        require_finite_file(path, sample_id="s7", field="audio")


def test_arrays_with_non_finite_samples_reach_no_metric_model_or_codec() -> None:
    from audioeval.adapters.codecs.registry import parse_codec_spec
    from audioeval.scoring.speech_models._audio import mono_at

    x = np.ones(1600, np.float32) * 0.1
    x[5] = np.nan
    with pytest.raises(AudioError, match="1 non-finite"):
        mono_at(x, 16000, 16000)
    with pytest.raises(AudioError, match="1 non-finite"):
        parse_codec_spec("mulaw").roundtrip(x, 16000)


def test_pesq_and_stoi_on_silence_are_errors_not_numbers() -> None:
    from audioeval.scoring.speech_models.reference_quality import pesq_wb, stoi

    x = load_clip(next((REPO / "src/audioeval/benchmarks/demo/demo_data/speech").glob("*.flac"))).samples
    silence = np.zeros_like(x)
    with pytest.raises(AudioError, match="PESQ could not score this pair: the degraded clip is silent"):
        pesq_wb(x, silence, 16000)  # the pesq library raises ValueError (NaN to integer) on it
    with pytest.raises(AudioError, match="STOI could not score this pair: the reference clip is silent"):
        stoi(silence, x, 16000)  # pystoi would return 1e-5


def test_codec_run_fails_only_the_clips_it_cannot_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Silence (PESQ undefined), NaN and -inf clips, and a metric library raising on one clip: each
    is that sample's recorded failure with its reason; the rest are scored and summarised."""
    from audioeval.scoring import speech_scorers

    manifest = speech_set(tmp_path / "set")
    first_speech = next(iter(records(manifest)))
    real_score = speech_scorers.DnsmosScorer.score

    def failing_on_one_clip(self, prediction, sample):  # type: ignore[no-untyped-def]
        if sample.id == first_speech:
            raise ValueError("Audio buffer is not finite everywhere")  # as librosa raises it
        return real_score(self, prediction, sample)

    monkeypatch.setattr(speech_scorers.DnsmosScorer, "score", failing_on_one_clip)
    out = tmp_path / "out"
    args = ["codec", "--codec", "mulaw", "-b", str(manifest), "-o", str(out), "--no-progress"]
    res = runner.invoke(app, [*args, "--resamples", "0"], catch_exceptions=False)
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output  # summaries written all the same
    recs = records(out / "clips" / "mulaw" / "records.jsonl")
    assert len(recs) == 5
    for bad in ("nan", "inf"):
        assert recs[bad].get("scores") is None and "non-finite samples (NaN/inf)" in recs[bad]["error"]
        assert f"{bad}.wav" in recs[bad]["error"] and f"id {bad!r}" in recs[bad]["error"]
    assert "cannot score (pesq_stoi)" in recs["silence"]["error"] and "silent" in recs["silence"]["error"]
    assert recs[first_speech]["error"].startswith("cannot score (dnsmos)")
    assert "ValueError: Audio buffer is not finite everywhere" in recs[first_speech]["error"]
    scored = [r for r in recs.values() if r["error"] is None]
    assert len(scored) == 1 and set(scored[0]["scores"]) >= {"asr_wer", "sim", "dnsmos", "pesq_stoi"}
    summary = json.loads((out / "summary.json").read_text())
    (pair,) = summary["results"]
    assert pair["failed"] == 4 and pair["scored"] == 1
    assert all(m["n"] == 1 for m in pair["metrics"].values())
    assert summary["codecs"]["mulaw"]["pesq"] > 1  # the scored clip's numbers, not a failure's
    assert (out / "clips" / "mulaw" / "summary.json").is_file()
    assert "4 sample(s) failed" in " ".join(res.output.split())


def test_asr_run_records_non_finite_clips_as_failed_not_transcribed(tmp_path: Path) -> None:
    from audioeval.adapters.runtimes.environment import setup_environment
    from audioeval.adapters.runtimes.spec import load_runtime_spec

    setup_environment(load_runtime_spec("whisper-tiny.en"))  # idempotent: a marker check once set up
    manifest = speech_set(tmp_path / "set")
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        [
            "run",
            "-m",
            "whisper-tiny.en",
            "--task",
            "asr",
            "-b",
            str(manifest),
            "-o",
            str(out),
            "--no-progress",
        ],
        catch_exceptions=False,
    )
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    recs = records(out / "clips" / "whisper-tiny.en" / "records.jsonl")
    for bad in ("nan", "inf"):
        # the benchmark's clip is unreadable: an input error, the model is not asked
        assert recs[bad].get("scores") is None and recs[bad]["output"] is None
        assert recs[bad]["error"].startswith("input: ") and not recs[bad].get("output_failed")
        assert "non-finite samples (NaN/inf)" in recs[bad]["error"] and f"id {bad!r}" in recs[bad]["error"]
    # silence is audio: transcribed, not refused as input; its empty transcript is no output
    # (the output gate: counted, asked again on a rerun, a full deletion in the headline)
    assert recs["silence"]["output"] is not None and recs["silence"]["failure"] == "no output"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["results"][0]["failed"] == 3 and summary["results"][0]["scored"] == 2


def test_a_speech_metric_run_writes_nothing_under_home(tmp_path: Path) -> None:
    """onnxruntime's telemetry would write ~/.cache/Microsoft/DeveloperTools/.onnxruntime/."""
    manifest = demo_speech_as_wavs(tmp_path, n=1)
    home = tmp_path / "home"
    home.mkdir()
    unset = ("XDG_CACHE_HOME", "ORT_DISABLE_TELEMETRY", "HF_HUB_OFFLINE", "HF_HOME")  # as in a user's shell
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env.update(HOME=str(home), PYTHONPATH=str(REPO / "src"))
    env.setdefault("AUDIOEVAL_RUNTIMES", str(tmp_path / "runtimes"))  # not used by codec: no runtime
    cmd = [sys.executable, "-m", "audioeval.cli.main", "codec", "--codec", "mulaw", "-b", str(manifest)]
    proc = subprocess.run(
        [*cmd, "-o", str(tmp_path / "out"), "--no-progress", "--resamples", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["codecs"]["mulaw"]["dnsmos_ovrl"]
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []


def test_mmae_never_sends_non_finite_audio_to_the_judge(synthetic_set, judge_server, tmp_path: Path) -> None:
    """A NaN output clip and an inf input clip: both samples are skipped with the reason, and the
    judge is asked only about the other samples."""
    import shutil

    from tests.mmae_helpers import config, results, run_mmae

    root = tmp_path / "set"
    shutil.copytree(synthetic_set.root, root)
    meta = json.loads((root / "MMAE-meta.json").read_text())
    preds = json.loads((root / "predictions-oracle.json").read_text())
    nan_id = preds[0]["id"]
    non_finite_wav(root / preds[0]["messages"][-1]["content"][0]["audio_url"], float("nan"))
    inf_sample = next(m for m in meta[1:] if any("<audio input1" in r["question"] for r in m["rubrics"]))
    inf_clip = next(p["audio_url"] for p in inf_sample["messages"][0]["content"] if p["type"] == "audio")
    non_finite_wav(root / inf_clip, float("inf"))

    out = tmp_path / "o"
    r = run_mmae(
        config(root / "predictions-oracle.json", root / "MMAE-meta.json", out, [judge_server.base_url])
    )
    # the NaN edit is the system's failure (counted at 0 in the headline); the inf input clip is
    # the benchmark's (skipped and listed)
    failed = [e.describe() for e in r.failed_outputs]
    assert any(nan_id in m and "non-finite samples (NaN/inf)" in m and "oracle" in m for m in failed), failed
    msgs = [e.describe() for e in r.skipped]
    assert any(inf_sample["id"] in m and "non-finite samples (NaN/inf)" in m and inf_clip in m for m in msgs)
    judged = results(out)
    assert {nan_id, inf_sample["id"]}.isdisjoint(rec["id"] for rec in judged)
    assert judge_server.stats.requests == sum(not a["cached"] for rec in judged for a in rec["attempts"])
