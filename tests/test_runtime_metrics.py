"""Metric models the user has, as isolated runtimes: `{utmos: {runtime: …}}` (task mos),
`{sim: {runtime: …}}` (task speaker_embedding) and `{asr_wer: {runtime: …}}` (task asr).

MOS and SIM use the stdlib fake `tests/fakes/worker_metric.py` (its answers are functions of
the clip that are recomputed here), run with this interpreter through
`AUDIOEVAL_RUNTIME_PYTHON_<NAME>` (dev mode), so no venv is built; ASR uses the shipped
whisper-tiny.en runtime for real. The model under test is the built-in μ-law codec on the
bundled speech clips, whose outputs are 16-bit WAVs.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from audioeval.adapters.runtimes.environment import setup_environment
from audioeval.adapters.runtimes.spec import load_runtime_spec, load_runtime_spec_file
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from tests.run_helpers import demo_speech_as_wavs

runner = CliRunner()
DEMO = Path(__file__).resolve().parents[1] / "src" / "audioeval" / "benchmarks" / "demo" / "demo_data" / "speech"
WORKER = Path(__file__).parent / "fakes" / "worker_metric.py"
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def mos_spec(
    folder: Path, name: str = "mos-fake", *, tasks: str = "[mos]", output: str = "text", **args
) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(
        f"name: {name}\ndescription: fake MOS\nworker: {WORKER}\nworker_args: {json.dumps(args)}\n"
        f"tasks: {tasks}\noutput: {output}\n",
        encoding="utf-8",
    )
    return path


def bench_spec(
    folder: Path, runtime: Path | None, scorers: str | None = None, manifest: Path = DEMO / "manifest.jsonl"
) -> Path:
    utmos = f"{{utmos: {{runtime: {runtime}}}}}" if runtime else "utmos"
    path = folder / "clips.yaml"
    path.write_text(
        f"name: clips\ntask: codec\nsource: {{type: jsonl, path: {manifest}}}\n"
        f"scorers: {scorers or f'[dnsmos, {utmos}]'}\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def wav_manifest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three bundled clips as 16-bit WAVs (the stdlib fake reads WAV only), with a manifest."""
    return demo_speech_as_wavs(tmp_path_factory.mktemp("wavs"), name="clips.jsonl")


def dev_python(monkeypatch: pytest.MonkeyPatch, spec: Path) -> None:
    monkeypatch.setenv(load_runtime_spec_file(spec).env_var_name, sys.executable)


def run(bench: Path, out: Path, *extra: str):
    return runner.invoke(
        app,
        ["run", "-m", "mulaw", "-b", str(bench), "-o", str(out), "--no-progress", "--resamples", "0", *extra],
        catch_exceptions=False,
    )


def records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "clips" / "mulaw" / "records.jsonl").read_text().splitlines()]


def expected_mos(path: str) -> float:
    pcm, _ = sf.read(path, dtype="int16")
    rms = math.sqrt(float(np.mean((pcm.astype(np.float64) / 32768.0) ** 2)))
    return round(1 + 4 * min(1.0, 20 * rms), 6)


def expected_embedding(path: str | Path) -> np.ndarray:
    x = sf.read(str(path), dtype="int16")[0].astype(np.float64) / 32768.0
    n = len(x) // 8
    return np.array([math.sqrt(float(np.mean(x[i * n : (i + 1) * n] ** 2))) for i in range(8)])


def test_sim_from_a_runtime_is_the_cosine_of_its_embeddings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wav_manifest: Path
) -> None:
    spec = mos_spec(tmp_path, name="wavlm-fake", tasks="[speaker_embedding]")
    dev_python(monkeypatch, spec)
    out = tmp_path / "out"
    scorers = f"[{{sim: {{runtime: {spec}, against: audio}}}}]"
    res = run(bench_spec(tmp_path, None, scorers, wav_manifest), out)
    assert res.exit_code == 0, res.output
    recs = records(out)
    assert len(recs) == 3 and all(r["error"] is None for r in recs)
    for rec in recs:
        a = expected_embedding(rec["output"]["audio_path"])
        b = expected_embedding(wav_manifest.parent / f"{rec['id']}.wav")
        want = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
        assert rec["scores"]["sim"]["values"]["sim"] == pytest.approx(want, abs=1e-9)
        assert rec["scores"]["sim"]["detail"]["backend"] == "runtime:wavlm-fake"
    summary = json.loads((out / "summary.json").read_text())
    assert (
        summary["sim"] is not None
        and summary["metric_models"]["runtime wavlm-fake (speaker_embedding)"]["calls"] == 6
    )
    sig = json.loads((out / "clips" / "mulaw" / "signature.json").read_text())
    (sim_sig,) = sig["benchmark"]["scorers"]
    assert sim_sig["backend"] == "runtime:wavlm-fake" and sim_sig["runtime"]["task"] == "speaker_embedding"


def test_sim_runtime_answering_garbage_fails_the_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wav_manifest: Path
) -> None:
    spec = mos_spec(tmp_path, name="wavlm-fake", tasks="[speaker_embedding]", garbage=True)
    dev_python(monkeypatch, spec)
    out = tmp_path / "out"
    res = run(
        bench_spec(tmp_path, None, f"[{{sim: {{runtime: {spec}}}}}]", wav_manifest), out, "--limit", "1"
    )
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output  # the sample failed
    (rec,) = records(out)
    assert rec.get("scores") is None and "answered 'n/a', not a JSON list of numbers" in rec["error"]


def test_asr_wer_from_the_whisper_runtime(tmp_path: Path) -> None:
    """The shipped whisper-tiny.en runtime as the ASR of asr_wer: real transcripts, a low WER."""
    setup_environment(load_runtime_spec("whisper-tiny.en"))  # idempotent once set up
    out = tmp_path / "out"
    scorers = "[{asr_wer: {runtime: whisper-tiny.en}}]"
    res = run(bench_spec(tmp_path, None, scorers), out, "--limit", "3")
    assert res.exit_code == 0, res.output
    recs = records(out)
    assert all(r["error"] is None and r["scores"]["asr_wer"]["detail"]["transcript"] for r in recs)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["wer"] < 0.3, summary["wer"]  # μ-law keeps speech intelligible
    assert summary["metric_models"]["runtime whisper-tiny.en (asr)"]["calls"] == 3
    sig = json.loads((out / "clips" / "mulaw" / "signature.json").read_text())
    (asr_sig,) = sig["benchmark"]["scorers"]
    assert asr_sig["asr"]["runtime"] == "whisper-tiny.en" and asr_sig["asr"]["task"] == "asr"
    # rescoring reuses the runtime's transcripts: no call, the same WER
    res = runner.invoke(app, ["rescore", str(out), "--resamples", "0"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    again = json.loads((out / "summary.json").read_text())
    assert again["wer"] == summary["wer"] and "metric_models" not in again, again.get("metric_models")


def test_asr_with_both_model_and_runtime_is_refused(tmp_path: Path) -> None:
    scorers = "[{asr_wer: {runtime: whisper-tiny.en, model: /models/large-v3}}]"
    res = run(bench_spec(tmp_path, None, scorers), tmp_path / "out")
    assert res.exit_code == 2 and "either model" in " ".join(res.output.split())


def test_utmos_from_a_runtime_scores_every_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = mos_spec(tmp_path)
    dev_python(monkeypatch, spec)
    out = tmp_path / "out"
    res = run(bench_spec(tmp_path, spec), out, "--limit", "3")
    assert res.exit_code == 0, res.output
    recs = records(out)
    assert len(recs) == 3 and all(r["error"] is None for r in recs)
    for rec in recs:
        got = rec["scores"]["utmos"]["values"]["utmos"]
        assert got == pytest.approx(expected_mos(rec["output"]["audio_path"]), abs=1e-6)
    summary = json.loads((out / "summary.json").read_text())
    mean = np.mean([r["scores"]["utmos"]["values"]["utmos"] for r in recs])
    assert summary["utmos"] == pytest.approx(mean)  # the scorer brings its metric, mean:utmos
    board = summary["boards"]["codec"]
    assert [c["label"] for c in board["columns"]] == ["UTMOS", "OVRL", "P.808"]  # no wer, no sim: not scored
    (row,) = board["rows"]
    v = {key.split(" · ")[1]: cell["value"] for key, cell in row["cells"].items()}
    assert row["average"] == pytest.approx(20 * (v["OVRL"] + v["P.808"] + v["UTMOS"]) / 3)  # one group
    work = summary["metric_models"]["runtime mos-fake (mos)"]
    assert work["calls"] == 3 and work["audio_seconds"] > 0
    sig = json.loads((out / "clips" / "mulaw" / "signature.json").read_text())
    scorer_sig = next(s for s in sig["benchmark"]["scorers"] if s["scorer"] == "utmos")
    assert scorer_sig["runtime"]["runtime"] == "mos-fake" and scorer_sig["runtime"]["tasks"] == ["mos"]

    # rescoring asks the runtime again, with the same numbers
    res = runner.invoke(app, ["rescore", str(out), "--resamples", "0"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert json.loads((out / "summary.json").read_text())["utmos"] == pytest.approx(mean)


def test_an_answer_that_is_no_number_fails_the_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = mos_spec(tmp_path, garbage=True)
    dev_python(monkeypatch, spec)
    out = tmp_path / "out"
    res = run(bench_spec(tmp_path, spec), out, "--limit", "2")
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output  # nothing scored
    recs = records(out)
    assert all(r.get("scores") is None for r in recs)
    assert all("runtime 'mos-fake' answered 'n/a', not a number" in r["error"] for r in recs)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["failed"] == 2 and summary["scored"] == 0 and summary["utmos"] is None
    first = summary["results"][0]["first_failure"]
    in_order = json.loads((out / "clips" / "mulaw" / "sample_ids.json").read_text())
    assert first["id"] == in_order[0] and "not a number" in first["error"]  # the first in sample order
    text = " ".join(res.output.split())
    assert "2 sample(s) failed" in text and f"clips · mulaw: 2 failed, first {in_order[0]}:" in text


def test_a_worker_error_fails_only_that_sample_and_a_rerun_retries_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    durations = [
        sf.info(str(DEMO / json.loads(x)["audio"])).duration
        for x in (DEMO / "manifest.jsonl").read_text().splitlines()[:4]
    ]
    cut = sorted(durations)[1]  # the two shortest pass
    flag = tmp_path / "failing"
    flag.touch()
    spec = mos_spec(tmp_path, fail_longer_than=cut + 1e-3, fail_while=str(flag))
    dev_python(monkeypatch, spec)
    bench, out = bench_spec(tmp_path, spec), tmp_path / "out"
    res = run(bench, out, "--limit", "4")
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output  # 2 of 4 failed
    recs = records(out)
    failed = [r for r in recs if r["error"]]
    assert len(failed) == 2 and all("too long for this fake" in r["error"] for r in failed)
    assert json.loads((out / "summary.json").read_text())["failed"] == 2

    flag.unlink()  # the same runtime, now taking every clip
    res = run(bench, out, "--limit", "4")
    assert res.exit_code == 0, res.output
    latest = {r["id"]: r for r in records(out)}
    assert len(records(out)) == 6 and all(r["error"] is None for r in latest.values())


@pytest.mark.parametrize(
    "tasks, output, missing",
    [("[asr]", "text", "task mos (its tasks: asr)"), ("[mos]", "audio", "text output (its output: audio)")],
)
def test_a_runtime_that_does_not_serve_mos_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tasks: str, output: str, missing: str
) -> None:
    spec = mos_spec(tmp_path, tasks=tasks, output=output)
    dev_python(monkeypatch, spec)
    out = tmp_path / "out"
    res = run(bench_spec(tmp_path, spec), out)
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "runtime 'mos-fake'" in text and "cannot serve scorer utmos" in text and missing in text
    assert "scorers.utmos.runtime" in text and not (out / "clips").exists()


def test_a_runtime_never_set_up_names_the_setup_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = mos_spec(tmp_path, name="mos-absent")
    monkeypatch.delenv(load_runtime_spec_file(spec).env_var_name, raising=False)
    monkeypatch.setenv("AUDIOEVAL_RUNTIMES", str(tmp_path / "runtimes"))
    res = run(bench_spec(tmp_path, spec), tmp_path / "out")
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "runtime 'mos-absent' is not installed" in text and f"audioeval runtime setup {spec}" in text


def test_utmos_without_a_runtime_says_how_to_plug_one_in(tmp_path: Path) -> None:
    res = run(bench_spec(tmp_path, None), tmp_path / "out")
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert "no UTMOS of its own" in text and "scorers: [{utmos: {runtime: my-utmos.yaml}}]" in text
    assert "Metric runtimes" in text


def test_a_relative_runtime_is_read_beside_the_benchmark_spec(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = mos_spec(tmp_path)
    dev_python(monkeypatch, spec)
    bench = bench_spec(tmp_path, None, "[{utmos: {runtime: mos-fake.yaml}}]")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    res = run(bench, tmp_path / "out", "--limit", "1")
    assert res.exit_code == 0, res.output
    (rec,) = records(tmp_path / "out")
    assert rec["error"] is None and rec["scores"]["utmos"]["values"]["utmos"] > 1


def test_a_missing_runtime_spec_names_the_benchmark_spec_and_field(tmp_path: Path) -> None:
    bench = bench_spec(tmp_path, None, "[dnsmos, {utmos: {runtime: nope.yaml}}]")
    res = run(bench, tmp_path / "out")
    assert res.exit_code == 2, res.output
    text = " ".join(res.output.split())
    assert f"{bench} scorers[1]" in text and "field 'scorers.utmos.runtime'" in text
    assert "runtime spec file not found" in text
