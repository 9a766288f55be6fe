"""Codecs as isolated runtimes: `audioeval codec --codec my-codec.yaml` beside a built-in codec.

The runtime is the stdlib fake `tests/fakes/worker_codec.py` (requantises 16-bit PCM to
`bits` bits), run with this interpreter through `AUDIOEVAL_RUNTIME_PYTHON_<NAME>` (dev mode),
so no venv is built. The fake reads WAV only, so the bundled FLAC clips are written as WAVs
with a manifest first. Every codec scorer (ASR-WER, SIM, DNSMOS, PESQ/STOI) runs on its output.
"""

from __future__ import annotations

import json
import os
import sys
import wave
from array import array
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.adapters.runtimes.spec import load_runtime_spec_file
from audioeval.cli.main import app
from tests.run_helpers import demo_speech_as_wavs

runner = CliRunner()
DEMO = Path(__file__).resolve().parents[1] / "src" / "audioeval" / "benchmarks" / "demo" / "demo_data" / "speech"
WORKER = Path(__file__).parent / "fakes" / "worker_codec.py"
METRICS = {"wer", "sim", "dnsmos_ovrl", "dnsmos_p808", "pesq", "stoi"}
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def write_spec(
    folder: Path, name: str, *, bits: int = 6, tasks: str = "[codec]", output: str = "audio"
) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(
        f"name: {name}\n"
        f"description: fake codec, 16-bit PCM requantised to {bits} bits\n"
        f"worker: {WORKER}\n"
        f"worker_args: {{bits: {bits}}}\n"
        f"tasks: {tasks}\n"
        f"output: {output}\n",
        encoding="utf-8",
    )
    return path


def dev_python(monkeypatch: pytest.MonkeyPatch, *specs: Path) -> None:
    for spec in specs:
        monkeypatch.setenv(load_runtime_spec_file(spec).env_var_name, sys.executable)


def read_pcm(path: str | Path) -> tuple[array, int]:
    with wave.open(str(path), "rb") as w:
        assert w.getsampwidth() == 2
        samples = array("h")
        samples.frombytes(w.readframes(w.getnframes()))
        return samples, w.getframerate()


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two of the bundled speech clips as 16-bit WAVs, with a manifest (audio + transcript)."""
    return demo_speech_as_wavs(tmp_path_factory.mktemp("speech"), n=2)


@pytest.fixture(scope="module")
def codec_run(tmp_path_factory: pytest.TempPathFactory, speech: Path) -> dict:
    folder = tmp_path_factory.mktemp("codec_rt")
    q4, q8 = write_spec(folder, "codec-q4", bits=4), write_spec(folder, "codec-q8", bits=8)
    out = folder / "out"
    with pytest.MonkeyPatch.context() as mp:
        dev_python(mp, q4, q8)
        res = runner.invoke(
            app,
            ["codec", "--codec", f"{q4},{q8},mulaw", "-b", str(speech), "-o", str(out)]
            + ["--no-progress", "--resamples", "0"],
            catch_exceptions=False,
        )
    assert res.exit_code == 0, res.output
    return {"out": out, "output": res.output, "summary": json.loads((out / "summary.json").read_text())}


def _records(out: Path, model: str) -> list[dict]:
    return [json.loads(line) for line in (out / "speech" / model / "records.jsonl").read_text().splitlines()]


def test_runtime_codecs_are_scored_beside_a_builtin_codec(codec_run: dict, speech: Path) -> None:
    codecs = codec_run["summary"]["codecs"]
    assert set(codecs) == {"codec-q4", "codec-q8", "mulaw"}
    for name, values in codecs.items():
        assert set(values) == METRICS, name
        assert all(v is not None for v in values.values()), (name, values)
    assert "codec-q8" in codec_run["output"] and "mulaw" in codec_run["output"]
    recs = _records(codec_run["out"], "codec-q4")
    assert len(recs) == 2 and all(r["error"] is None for r in recs)
    for rec in recs:
        # The worker wrote the engine's audio_out; the output is the input requantised to 4 bits.
        audio_out = Path(rec["output"]["audio_path"])
        assert audio_out.parent == codec_run["out"] / "speech" / "codec-q4" / "audio"
        assert rec["output"]["endpoint"].startswith("runtime:codec-q4")
        decoded, rate = read_pcm(audio_out)
        original, in_rate = read_pcm(speech.parent / f"{rec['id']}.wav")
        assert rate == in_rate and len(decoded) == len(original)
        assert all(s % 4096 == 0 for s in decoded) and decoded != original
        assert set(rec["scores"]) == {"asr_wer", "sim", "dnsmos", "pesq_stoi"}
    sig = json.loads((codec_run["out"] / "speech" / "codec-q4" / "signature.json").read_text())
    assert sig["model"]["worker_args"] == {"bits": 4} and sig["model"]["isolated"] is False


def test_coarser_quantisation_scores_lower(codec_run: dict) -> None:
    codecs = codec_run["summary"]["codecs"]
    assert codecs["codec-q4"]["pesq"] < codecs["codec-q8"]["pesq"] - 0.5
    assert codecs["codec-q4"]["stoi"] < codecs["codec-q8"]["stoi"]
    coarse = {
        r["id"]: r["scores"]["pesq_stoi"]["values"]["pesq"] for r in _records(codec_run["out"], "codec-q4")
    }
    fine = {
        r["id"]: r["scores"]["pesq_stoi"]["values"]["pesq"] for r in _records(codec_run["out"], "codec-q8")
    }
    assert coarse.keys() == fine.keys() and all(coarse[k] < fine[k] for k in coarse)  # clip by clip


def test_run_task_codec_takes_the_same_spec(
    tmp_path: Path, speech: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = write_spec(tmp_path, "codec-q6")
    dev_python(monkeypatch, spec)
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["run", "--task", "codec", "-m", str(spec), "-b", str(speech), "--limit", "1", "-o", str(out)]
        + ["--no-progress", "--resamples", "0"],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    values = json.loads((out / "summary.json").read_text())["scores"]["speech"]["codec-q6"]
    assert values["pesq"] is not None and values["stoi"] is not None and values["wer"] is not None


@pytest.mark.parametrize(
    "tasks, output, missing, present",
    [
        ("[asr]", "text", ["task codec (its tasks: asr)", "audio output (its output: text"], []),
        ("[codec]", "text", ["audio output (its output: text"], ["task codec"]),
        ("[asr, tts]", "audio", ["task codec (its tasks: asr, tts)"], ["audio output"]),
    ],
)
def test_a_runtime_that_is_not_a_codec_is_rejected(
    tmp_path: Path, speech: Path, tasks: str, output: str, missing: list[str], present: list[str]
) -> None:
    spec = write_spec(tmp_path, "not-codec", tasks=tasks, output=output)
    out = tmp_path / "out"
    res = runner.invoke(app, ["codec", "--codec", f"mulaw,{spec}", "-b", str(speech), "-o", str(out)])
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "runtime 'not-codec'" in text and "cannot run as a codec" in text
    assert str(spec) in text and "Codec runtimes" in text
    assert all(m in text for m in missing), text
    assert not any(p in text for p in present), text
    assert not out.exists()  # refused before anything ran


def test_a_builtin_asr_runtime_is_not_a_codec(tmp_path: Path, speech: Path) -> None:
    res = runner.invoke(
        app, ["codec", "--codec", "whisper-tiny.en", "-b", str(speech), "-o", str(tmp_path / "o")]
    )
    assert res.exit_code == 2
    text = " ".join(res.output.split())
    assert "runtime 'whisper-tiny.en'" in text and "task codec (its tasks: asr)" in text


@pytest.mark.parametrize("name", ["wavtokenizer:40t", "xcodec"])
def test_a_neural_codec_name_says_how_to_plug_one_in(tmp_path: Path, speech: Path, name: str) -> None:
    out = tmp_path / "out"
    res = runner.invoke(app, ["codec", "--codec", f"opus:12k,{name}", "-b", str(speech), "-o", str(out)])
    assert res.exit_code == 2
    text = " ".join(res.output.split())
    kind = name.split(":")[0]
    assert f"neural codecs such as {kind} are not built in" in text and "none ship offline" in text
    assert "lists codec under `tasks`" in text and "`output: audio`" in text
    assert f"--codec my-{kind}.yaml" in text and 'docs/runtimes.md, section "Codec runtimes"' in text
    assert not out.exists()
