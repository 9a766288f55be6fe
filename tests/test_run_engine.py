"""`audioeval run / rescore / list / validate` end to end, with baselines and a fake
OpenAI-compatible audio model on 127.0.0.1 (it decodes the audio and measures the pitch)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli import exit_codes
from audioeval.cli.main import app
from tests.fakes.mcq_server import FakeMcqConfig, FakeMcqServer, tone_wav
from tests.run_helpers import tone_asr_manifest, tone_mcq_manifest, write_jsonl

runner = CliRunner()
REPO = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> Any:
    return runner.invoke(app, ["run", *args, "--no-progress"], catch_exceptions=False)


def summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


def records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]


def test_adhoc_asr_manifest_with_baselines(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "set")
    out = tmp_path / "out"
    res = run_cli("--model", "oracle,constant", "--task", "asr", "--benchmark", str(manifest), "-o", str(out))
    assert res.exit_code == 0, res.output
    s = summary(out)
    assert s["scores"]["asr"]["oracle"]["wer"] == 0.0
    assert s["scores"]["asr"]["constant"]["wer"] == 1.0  # the empty answer deletes every word
    board = s["boards"]["understanding"]["rows"]
    assert [r["model"] for r in board] == ["oracle", "constant"]
    assert (out / "leaderboard.md").read_text().count("| oracle |") == 1
    rec = records(out / "asr" / "oracle")[0]
    assert rec["scores"]["wer"]["stats"] and rec["sample"]["fields"]["reference"].startswith("the tone")
    assert "Understanding leaderboard" in res.output and str(out) in res.output


def test_single_pair_summary_has_corpus_wer_at_top(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "audio": "a.wav", "text": "red green blue black"},
        {"id": "b", "audio": "b.wav", "text": "pink gray"},
    ]
    manifest = write_jsonl(tmp_path / "m.jsonl", rows)
    for row in rows:
        tone_wav(tmp_path / row["audio"], 440, seconds=0.2)
    out = tmp_path / "out"
    res = run_cli(
        "--model", "constant:red green", "--task", "asr", "--benchmark", str(manifest), "-o", str(out)
    )
    assert res.exit_code == 0, res.output
    s = summary(out)
    # corpus WER from summed edits: a has 1 sub ... (2 deleted of 4: 'one two' hit, 2 deletions), b: 2 subs
    # a: hits 2, deletions 2; b: substitutions 2 -> (2 + 2) / 6
    assert s["wer"] == pytest.approx(4 / 6)
    assert s["cer"] is not None and s["n"] == 2 and s["failed"] == 0


def test_an_output_folder_named_like_a_task_does_not_shadow_its_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--output_dir asr` from the current directory: the folder `asr` is not read as the `asr`
    prompt template."""
    rows = [{"id": "a", "audio": "a.wav", "text": "red green"}]
    write_jsonl(tmp_path / "m.jsonl", rows)
    tone_wav(tmp_path / "a.wav", 440, seconds=0.2)  # a baseline is asked only about readable clips
    monkeypatch.chdir(tmp_path)
    res = run_cli("--model", "constant:red green", "--task", "asr", "--benchmark", "m.jsonl", "-o", "asr")
    assert res.exit_code == 0, res.output
    assert summary(tmp_path / "asr")["wer"] == 0.0


def test_mcq_through_openai_model_resumes_without_new_calls(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set")
    out = tmp_path / "out"
    with FakeMcqServer() as server:
        model = f"fake-audio-lm@{server.base_url}"
        res = run_cli("-m", model, "--task", "mcq", "-b", str(manifest), "-o", str(out))
        assert res.exit_code == 0, res.output
        assert server.stats.audio_requests == 8 and server.stats.part_types == {"audio_url": 8}
        s = summary(out)
        assert s["accuracy"] == 1.0 and s["scored"] == 8
        again = run_cli("-m", model, "--task", "mcq", "-b", str(manifest), "-o", str(out))
        assert again.exit_code == 0, again.output
        assert server.stats.requests == 8, "a rerun must not ask finished samples again"
        assert "asked 0, reused 8" in again.output
    assert summary(out)["accuracy"] == 1.0


def test_failed_calls_are_counted_not_scored_and_retried(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=4)
    out = tmp_path / "out"
    cfg = tmp_path / "run.yaml"
    with FakeMcqServer(FakeMcqConfig(fail_first=10_000)) as server:
        cfg.write_text(
            "benchmarks: [" + str(manifest) + "]\ntask: mcq\n"
            f"models:\n  - {{name: fake-audio-lm, type: openai, urls: ['{server.base_url}'], timeout_s: 0.6}}\n"
        )
        res = runner.invoke(app, ["run", str(cfg), "-o", str(out), "--no-progress"], catch_exceptions=False)
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        s = summary(out)
        # the model failed every sample: each counts as wrong in the headline, and is counted
        assert (s["failed"], s["scored"], s["accuracy"]) == (4, 0, 0.0)
        assert s["results"][0]["failed_outputs"]["n"] == 4
        assert "4 sample(s) failed" in res.output and "4 of them without a usable output" in res.output
        assert "nothing was scored" in res.output and "HTTP 500" in res.output
        server.fake.config.fail_first = 0
        res = runner.invoke(app, ["run", str(cfg), "-o", str(out), "--no-progress"], catch_exceptions=False)
        assert res.exit_code == 0, res.output
    s = summary(out)
    assert (s["failed"], s["scored"], s["accuracy"]) == (0, 4, 1.0)
    assert "asked 4, reused 0" in res.output


def test_rescore_equals_original_without_model_calls(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set")
    out = tmp_path / "out"
    with FakeMcqServer(FakeMcqConfig(answer_style="think")) as server:
        res = run_cli(
            "-m",
            f"fake-audio-lm@{server.base_url},random-choice:3",
            "--task",
            "mcq",
            "-b",
            str(manifest),
            "-o",
            str(out),
        )
        assert res.exit_code == 0, res.output
        calls = server.stats.requests
    before = summary(out)
    res = runner.invoke(app, ["rescore", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "0 changed" in res.output
    after = summary(out)
    assert after["results"] == before["results"] and after["boards"] == before["boards"]
    assert calls == 8


def test_kill_mid_run_then_rerun_finishes_only_the_rest(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=40)
    out = tmp_path / "out"
    with FakeMcqServer(FakeMcqConfig(latency_s=0.3)) as server:
        cmd = [
            sys.executable,
            "-m",
            "audioeval.cli.main",
            "run",
            "-m",
            f"fake-audio-lm@{server.base_url}",
            "--task",
            "mcq",
            "-b",
            str(manifest),
            "-o",
            str(out),
            "--no-progress",
        ]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 60
        path = out / "mcq" / "fake-audio-lm" / "records.jsonl"
        while time.time() < deadline:
            if path.exists() and len(path.read_text().splitlines()) >= 6:
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        done_before = len([x for x in path.read_text().splitlines() if x.strip()])
        assert 6 <= done_before < 40
        res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        assert res.returncode == 0, res.stderr
        ids = [json.loads(x)["id"] for x in path.read_text().splitlines() if x.strip()]
    assert sorted(set(ids)) == sorted(f"t{i}" for i in range(40))
    assert len(ids) == 40, "no sample is recorded twice"
    assert summary(out)["accuracy"] == 1.0
    assert server.stats.requests <= 40 + 8  # at most the in-flight requests of the killed run repeat


def test_changed_settings_are_refused_on_resume(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    out = tmp_path / "out"
    assert run_cli("-m", "oracle", "--task", "asr", "-b", str(manifest), "-o", str(out)).exit_code == 0
    res = run_cli(
        "-m", "oracle", "--task", "asr", "-b", str(manifest), "-o", str(out), "--temperature", "0.7"
    )
    assert res.exit_code == 2
    assert "temperature" in res.output or "generation" in res.output


def test_bad_inputs_name_file_and_field(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    res = run_cli("-m", "orcale", "--task", "asr", "-b", str(manifest))
    assert res.exit_code == 2 and "did you mean 'oracle'" in res.output
    res = run_cli("-m", "oracle", "-b", str(manifest))
    assert res.exit_code == 2 and "needs --task" in res.output
    res = run_cli("-m", "oracle", "--task", "asr", "-b", "librispeech-tset-clean")
    assert res.exit_code == 2 and "did you mean 'librispeech-test-clean'" in res.output
    spec = tmp_path / "bad.yaml"
    spec.write_text(f"name: bad\ntask: asr\nsource: {{type: jsonl, path: {manifest}}}\nscorrers: [wer]\n")
    res = run_cli("-m", "oracle", "-b", str(spec))
    assert res.exit_code == 2
    assert str(spec) in res.output and "scorrers" in res.output and "did you mean 'scorers'" in res.output
    bad_rows = write_jsonl(
        tmp_path / "rows.jsonl", [{"id": "x", "text": "no audio here"}, {"id": "y", "audio": "y.wav"}]
    )
    res = run_cli("-m", "oracle", "--task", "asr", "-b", str(bad_rows), "-o", str(tmp_path / "o2"))
    # y has audio but no reference: it cannot be scored -> skipped naming the field, not a wrong answer
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    assert "id 'y', field 'reference'" in " ".join(res.output.split())
    skipped = json.loads((tmp_path / "o2" / "rows" / "skipped.json").read_text())
    assert {(x["id"], x["field"]) for x in skipped} == {("x", "audio"), ("y", "reference")}


def test_hf_saved_dataset_source(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets", reason="the hf extra is not installed")
    import io

    import numpy as np
    import soundfile as sf

    def wav(hz: float) -> bytes:
        buf = io.BytesIO()
        t = np.arange(8000) / 16000
        sf.write(buf, (0.3 * np.sin(2 * np.pi * hz * t)).astype(np.float32), 16000, format="WAV")
        return buf.getvalue()

    ds = datasets.Dataset.from_dict(
        {
            "id": ["u1", "u2", "u3"],
            "audio": [{"bytes": wav(300 + 100 * i), "path": f"u{i}.wav"} for i in range(3)],
            "text": ["hello world", "good morning", "see you soon"],
            "speaker_id": ["s1", "s2", "s1"],
        }
    ).cast_column("audio", datasets.Audio())
    ds.save_to_disk(str(tmp_path / "saved"))
    spec = tmp_path / "hf.yaml"
    spec.write_text(
        "name: tiny-hf\ntask: asr\nsource: {type: hf_disk, path: saved}\ntaxonomy: [speaker_id]\n"
    )
    out = tmp_path / "out"
    os.environ["AUDIOEVAL_CACHE"] = str(tmp_path / "cache")
    try:
        res = run_cli("-m", "oracle", "-b", str(spec), "-o", str(out))
    finally:
        del os.environ["AUDIOEVAL_CACHE"]
    assert res.exit_code == 0, res.output
    s = summary(out)
    assert s["wer"] == 0.0 and s["n"] == 3
    assert set(s["results"][0]["breakdowns"]["speaker_id"]) == {"s1", "s2"}
    rec = records(out / "tiny-hf" / "oracle")[0]
    audio_path = Path(rec["sample"]["audio"]["audio"][0])
    assert audio_path.is_file() and str(tmp_path / "cache") in str(audio_path)


def test_list_and_validate() -> None:
    for kind in ("benchmarks", "models", "metrics", "prompts", "tasks"):
        res = runner.invoke(app, ["list", kind])
        assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["list", "benchmarks"])
    assert "demo-speech-en" in res.output and "librispeech-test-clean" in res.output
    models = runner.invoke(app, ["list", "models"]).output
    for name in ("whisper-tiny.en", "predictions:FILE", "replay:RUN/BENCHMARK/MODEL", "espeak-ng", "mulaw"):
        assert name in models, name
    res = runner.invoke(app, ["list", "modles"])
    assert res.exit_code == 2 and "did you mean 'models'" in res.output
    res = runner.invoke(app, ["validate"])
    assert res.exit_code == 0, res.output
    assert "FAIL" not in res.output


def test_demo_sets_run_with_baselines(tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = run_cli("-m", "oracle,longest-choice,constant", "-b", "demo-speech-en,demo-mcq", "-o", str(out))
    assert res.exit_code == 0, res.output
    s = summary(out)
    assert s["scores"]["demo-speech-en"]["oracle"]["wer"] == 0.0
    assert s["scores"]["demo-mcq"]["oracle"]["accuracy"] == 1.0
    assert "longest-choice" not in s["scores"]["demo-speech-en"], "choice baselines skip ASR"
    assert 0.0 <= s["scores"]["demo-mcq"]["longest-choice"]["accuracy"] <= 1.0
    by = s["results"]
    mcq = next(r for r in by if r["benchmark"] == "demo-mcq" and r["model"] == "oracle")
    assert set(mcq["breakdowns"]["difficulty"]) == {"easy", "medium", "hard"}


def test_hf_class_labels_become_names_and_null_fields_are_dropped(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets", reason="the hf extra is not installed")
    from audioeval.benchmarks.sources.loader import load_samples
    from audioeval.benchmarks.spec import parse_spec

    ds = datasets.Dataset.from_dict(
        {"audio": ["a.wav", "b.wav"], "genre": [1, 0], "question": ["leaky text", "leaky text"]},
        features=datasets.Features(
            {
                "audio": datasets.Value("string"),
                "genre": datasets.ClassLabel(names=["blues", "jazz"]),
                "question": datasets.Value("string"),
            }
        ),
    )
    ds.save_to_disk(str(tmp_path / "saved"))
    spec = parse_spec(
        {
            "name": "g",
            "task": "classification",
            "source": {"type": "hf_disk", "path": str(tmp_path / "saved")},
            "fields": {"answer": "genre", "question": None},
            "variables": {"labels": ["blues", "jazz"]},
        },
        "g.yaml",
    )
    ss = load_samples(spec, str(tmp_path / "g.yaml"))
    assert [s.get("answer") for s in ss.samples] == ["jazz", "blues"]
    assert all(s.get("question") is None for s in ss.samples)
    assert ss.samples[0].get("choices") == ["blues", "jazz"]


def test_rerun_on_other_endpoints_resumes(tmp_path: Path) -> None:
    """Endpoints, concurrency and timeouts do not move numbers: a rerun elsewhere resumes."""
    manifest = tone_mcq_manifest(tmp_path / "set", n=4)
    out = tmp_path / "out"
    with FakeMcqServer() as first:
        res = run_cli(
            "-m", f"fake-audio-lm@{first.base_url}", "--task", "mcq", "-b", str(manifest), "-o", str(out)
        )
        assert res.exit_code == 0, res.output
    with FakeMcqServer() as second:
        res = run_cli(
            "-m", f"fake-audio-lm@{second.base_url}", "--task", "mcq", "-b", str(manifest), "-o", str(out)
        )
        assert res.exit_code == 0, res.output
        assert second.stats.requests == 0 and "asked 0, reused 4" in res.output
