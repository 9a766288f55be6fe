"""Models behind OpenAI-compatible endpoints that answer in speech: TTS through chat
completions (`modalities: ["text", "audio"]`) and through `/audio/speech`, spoken answers to
audio questions, and failures (no audio, undecodable audio) counted, never scored.

The fake server speaks with espeak-ng and decodes the audio it is sent; the scorers are the
embedded Whisper tiny.en, DNSMOS and speaker models."""

from __future__ import annotations

import json
import os
import shutil
import threading
from pathlib import Path

import pytest
import soundfile as sf
from typer.testing import CliRunner

from audioeval.adapters.openai_chat import audio_output_fields, reply_audio
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from tests.fakes.mcq_server import tone_wav
from tests.fakes.openai_http import FakeServer, JsonHandler, completion
from tests.fakes.speech_server import FakeSpeechServer
from tests.run_helpers import write_jsonl

runner = CliRunner()
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True)
def _needs_espeak() -> None:
    if shutil.which("espeak-ng") is None:
        if os.environ.get("CI"):
            pytest.fail("espeak-ng is required on CI (make test installs it)")
        pytest.skip("espeak-ng not installed (apt-get install espeak-ng)")


def _records(out: Path) -> list[dict]:
    (records,) = out.glob("*/*/records.jsonl")
    return [json.loads(line) for line in records.read_text().splitlines()]


def _run(args: list[str], exit_code: int = 0) -> None:
    res = runner.invoke(app, ["run", *args, "--no-progress", "--resamples", "50"], catch_exceptions=False)
    assert res.exit_code == exit_code, res.output


def test_reply_audio_reads_openai_and_vllm_omni_shapes() -> None:
    openai = {"choices": [{"message": {"content": None, "audio": {"data": "UklGRg==", "transcript": "hi"}}}]}
    assert reply_audio(openai) == ("hi", "UklGRg==")
    omni = {
        "choices": [
            {"message": {"content": "hello there"}},
            {"message": {"content": None, "audio": {"data": "AAAA"}}},
        ]
    }
    assert reply_audio(omni) == ("hello there", "AAAA")
    with pytest.raises(ValueError, match="no audio"):
        reply_audio({"choices": [{"message": {"content": "text only"}}]})
    assert audio_output_fields("alloy") == {
        "modalities": ["text", "audio"],
        "audio": {"voice": "alloy", "format": "wav"},
    }


def test_tts_through_chat_completions_speaks_scores_and_resumes(tmp_path: Path) -> None:
    out = tmp_path / "out"
    config = tmp_path / "run.yaml"
    config.write_text(
        "benchmarks: [demo-tts-en]\n"
        "limit: 3\n"
        f"output_dir: {out}\n"
        "models:\n"
        "  - name: speaker\n"
        "    type: openai\n"
        "    urls: [URL]\n"
        "    voice: alloy\n"
    )
    with FakeSpeechServer() as server:
        config.write_text(config.read_text().replace("URL", server.base_url))
        _run([str(config)])
        assert server.stats.chat == 3
        assert server.stats.modalities == [["text", "audio"]] * 3
        assert server.stats.voices == ["alloy"] * 3
        assert server.stats.clips_decoded == 3  # each sample's prompt voice went out as audio
        recs = _records(out)
        assert [r["error"] for r in recs] == [None] * 3
        for rec in recs:
            info = sf.info(rec["output"]["audio_path"])
            assert info.samplerate == 16000 and info.duration > 1.0
            assert rec["output"]["text"]  # the spoken text comes back as the transcript
            assert rec["scores"]["asr_wer"]["detail"]["transcript"]
        summary = json.loads((out / "summary.json").read_text())
        assert summary["wer"] < 0.6  # espeak-ng speech, heard by Whisper tiny.en
        assert summary["dnsmos_ovrl"] > 1.5 and summary["sim"] is not None

        _run([str(config)])  # resumes: nothing asked again
        assert server.stats.chat == 3


def test_tts_through_audio_speech_endpoint(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeSpeechServer() as server:
        config = tmp_path / "run.yaml"
        config.write_text(
            "benchmarks: [demo-tts-en, demo-speech-en]\n"
            "limit: 2\n"
            f"output_dir: {out}\n"
            "models:\n"
            "  - {name: tts-endpoint, type: openai, api: speech, voice: nova, urls: ["
            f"{server.base_url}]}}\n"
        )
        _run([str(config)])
        assert (server.stats.speech, server.stats.chat) == (2, 0)
        assert server.stats.voices == ["nova", "nova"]
    summary = json.loads((out / "summary.json").read_text())
    # /audio/speech only speaks: the ASR benchmark is not paired with it.
    assert [r["benchmark"] for r in summary["results"]] == ["demo-tts-en"]
    recs = _records(out)
    assert all(r["error"] is None and Path(r["output"]["audio_path"]).is_file() for r in recs)


def _tone_questions(root: Path) -> Path:
    rows = []
    root.mkdir(parents=True)
    for i, hz in enumerate([220, 880, 330, 1320]):
        tone_wav(root / f"q{i}.wav", hz, seconds=0.5)
        answer = "high" if hz > 500 else "low"
        rows.append(
            {"id": f"q{i}", "audio": f"q{i}.wav", "question": "Is the tone high or low?", "answer": answer}
        )
    rows.append({"id": "mute", "audio": "q0.wav", "question": "[mute] Is it high?", "answer": "low"})
    rows.append({"id": "garbled", "audio": "q1.wav", "question": "[garbage] Is it high?", "answer": "high"})
    return write_jsonl(root / "qa.jsonl", rows)


@pytest.mark.parametrize("split_choices", [False, True], ids=["openai", "vllm-omni"])
def test_spoken_answers_are_transcribed_and_failures_counted(tmp_path: Path, split_choices: bool) -> None:
    manifest = _tone_questions(tmp_path / "data")
    out = tmp_path / "out"
    args = ["--task", "spoken_qa_audio", "-b", str(manifest), "-m", "omni@URL", "-o", str(out)]
    with FakeSpeechServer(split_choices=split_choices) as server:
        args[5] = f"omni@{server.base_url}"
        _run(args, exit_code=exit_codes.TOO_MANY_FAILURES)  # 2 of 6 failed; --max-failed 0
        assert server.stats.clips_decoded == 6
        # undecodable audio is not cached: a rerun asks both failed samples again
        _run([*args, "--max-failed", "2"])
        assert server.stats.chat == 6 + 2
    by_id = {r["id"]: r for r in _records(out)}
    for i in range(4):
        rec = by_id[f"q{i}"]
        assert rec["error"] is None, rec
        assert rec["scores"]["asr_includes"]["values"]["includes"] == 1.0, rec["scores"]
    assert "no audio" in by_id["mute"]["error"]
    assert "could not be decoded" in by_id["garbled"]["error"] and "garbled" in by_id["garbled"]["error"]
    summary = json.loads((out / "summary.json").read_text())
    (result,) = summary["results"]
    assert result["failed"] == 2 and result["scored"] == 4
    # the model's two failures (no audio, undecodable audio) are counted, and count as wrong
    assert set(result["failed_outputs"]["ids"]) == {"mute", "garbled"}
    assert result["failed_outputs"]["in_headline"] == "counted"
    assert summary["includes"] == pytest.approx(4 / 6)


def test_voice_conversion_sends_the_reference_voice(tmp_path: Path) -> None:
    demo = Path(__file__).resolve().parents[1] / "src" / "audioeval" / "benchmarks" / "demo" / "demo_data" / "speech"
    rows = [
        {
            "id": "v1",
            "reference_voice": str(demo / "h01.flac"),
            "reference": "the birch canoe slid on the smooth planks",
        },
        {
            "id": "v2",
            "reference_voice": str(demo / "h03.flac"),
            "reference": "it is easy to tell the depth of a well",
        },
    ]
    manifest = write_jsonl(tmp_path / "vc.jsonl", rows)
    out = tmp_path / "out"
    with FakeSpeechServer() as server:
        _run(["--task", "vc", "-b", str(manifest), "-m", f"cloner@{server.base_url}", "-o", str(out)])
        assert server.stats.clips_decoded == 2  # the prompt voice went out as audio
    recs = _records(out)
    assert all(r["error"] is None for r in recs), recs
    sims = [r["scores"]["sim"]["values"]["sim"] for r in recs]
    assert all(-1.0 <= s < 0.7 for s in sims), sims  # espeak-ng does not clone the recorded voice


class _QaJudgeHandler(JsonHandler):
    """A rule-based text judge: "yes" when the reference answer's words are all in the candidate
    answer. A candidate holding "tone is high" is answered with a ramble first (an invalid vote)."""

    def do_POST(self) -> None:
        body = self.read_json()
        if body is None:
            return
        user = body["messages"][-1]["content"][0]["text"]
        fields = dict(line.split(": ", 1) for line in user.splitlines() if ": " in line)
        reference = fields["Reference answer"].lower().split()
        candidate = fields["Candidate answer"].lower()
        app = self.server.app
        with app["lock"]:
            app["calls"] += 1
            first = candidate not in app["seen"]
            app["seen"].add(candidate)
        if "tone is high" in candidate and first:
            self.send_json(200, completion(1, body["model"], "Hard to say without hearing it."))
            return
        verdict = "Yes." if all(w in candidate for w in reference) else "No, it does not match."
        self.send_json(200, completion(1, body["model"], verdict))


def test_spoken_answers_judged_by_an_llm_and_rescored_without_calls(tmp_path: Path) -> None:
    rows = []
    root = tmp_path / "data"
    root.mkdir()
    for i, (hz, answer) in enumerate([(220, "low"), (880, "high"), (330, "high")]):  # q2's gold is wrong
        tone_wav(root / f"q{i}.wav", hz, seconds=0.5)
        rows.append(
            {"id": f"q{i}", "audio": f"q{i}.wav", "question": "Is the tone high or low?", "answer": answer}
        )
    manifest = write_jsonl(root / "qa.jsonl", rows)
    spec = tmp_path / "qa-judged.yaml"
    spec.write_text(
        "name: qa-judged\ntask: spoken_qa_audio\n"
        f"source: {{type: jsonl, path: {manifest}}}\n"
        "scorers: [asr_includes, dnsmos, qa_judge]\n"
    )
    out = tmp_path / "out"
    judge_app = {"lock": threading.Lock(), "calls": 0, "seen": set()}
    with FakeSpeechServer() as model, FakeServer(_QaJudgeHandler, judge_app) as judge:
        args = ["-b", str(spec), "-m", f"omni@{model.base_url}", "-o", str(out)]
        _run([*args, "--judge", judge.base_url, "--judge-model", "text-judge"])
        assert judge_app["calls"] == 4  # q1's first answer was unreadable and asked again
    by_id = {r["id"]: r for r in _records(out)}
    assert [by_id[f"q{i}"]["scores"]["qa_judge"]["values"]["judge_correct"] for i in range(3)] == [
        1.0,
        1.0,
        0.0,
    ]
    detail = by_id["q1"]["judge"]["qa_judge"]  # every judge answer, a field of the record
    assert [a["verdict"] for a in detail["attempts"]] == [None, "yes"]
    assert detail["transcript"].lower().startswith("the tone is high")
    summary = json.loads((out / "summary.json").read_text())
    (result,) = summary["results"]
    assert result["metrics"]["mean:judge_correct"]["value"] == pytest.approx(2 / 3)

    res = runner.invoke(app, ["rescore", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    again = json.loads((out / "summary.json").read_text())
    assert again["results"][0]["metrics"]["mean:judge_correct"]["value"] == pytest.approx(2 / 3)
