"""Models behind the Realtime API over WebSocket, against an aiohttp fake speaking its events
(tests/fakes/realtime_server.py): one turn per sample with server VAD off, text and audio
out, a dropped socket retried, error events / malformed frames / incomplete responses
recorded as failures, resume and rescore through `audioeval run`; Azure's URL and key."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import soundfile as sf
from typer.testing import CliRunner

from audioeval.adapters.base import ModelRequest
from audioeval.adapters.realtime_events import RealtimeError, TurnReply
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.messages import AudioPart, AudioRef, Message, TextPart
from audioeval.core.sample import Sample
from audioeval.engine.api_providers import provider_wire
from audioeval.engine.realtime_model import RealtimeModel
from tests.fakes.mcq_server import tone_wav
from tests.fakes.realtime_server import FakeRealtimeServer
from tests.run_helpers import write_jsonl

runner = CliRunner()


def _questions(root: Path) -> Path:
    root.mkdir(parents=True)
    rows = []
    for i, (hz, switch) in enumerate(
        [
            (220, ""),
            (880, ""),
            (330, "[drop] "),
            (880, "[error] "),
            (220, "[garbage] "),
            (880, "[incomplete] "),
        ]
    ):
        tone_wav(root / f"q{i}.wav", hz, seconds=0.3)
        answer = "high" if hz > 500 else "low"
        rows.append(
            {
                "id": f"q{i}",
                "audio": f"q{i}.wav",
                "question": f"{switch}Is the tone high or low?",
                "answer": answer,
            }
        )
    return write_jsonl(root / "qa.jsonl", rows)


def _records(out: Path) -> dict[str, dict]:
    (records,) = out.glob("*/*/records.jsonl")
    return {r["id"]: r for r in map(json.loads, records.read_text().splitlines())}


def test_turn_reply_reads_deltas_and_failures() -> None:
    reply = TurnReply()
    for event in [
        {"type": "session.created"},
        {"type": "response.output_text.delta", "delta": "Hi"},
        {"type": "response.text.delta", "delta": " there"},
        {"type": "response.done", "response": {"status": "completed"}},
    ]:
        reply.feed(event)
    assert reply.done and reply.answer(audio=False) == ("Hi there", None)
    with pytest.raises(RealtimeError, match="rate_limit"):
        TurnReply().feed({"type": "error", "error": {"type": "rate_limit", "message": "slow down"}})
    with pytest.raises(RealtimeError, match="cancelled"):
        TurnReply().feed({"type": "response.done", "response": {"status": "cancelled"}})
    with pytest.raises(ValueError):
        TurnReply().feed({"type": "response.audio.delta", "delta": "***"})


def test_realtime_spoken_qa_through_run_resumes_and_rescores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-realtime-test")
    manifest = _questions(tmp_path / "data")
    out = tmp_path / "out"
    with FakeRealtimeServer() as server:
        args = [
            "--task",
            "spoken_qa",
            "-b",
            str(manifest),
            "-m",
            f"realtime:gpt-4o-realtime@{server.base_url}",
            "-o",
            str(out),
            "--no-progress",
            "--resamples",
            "50",
        ]
        res = runner.invoke(app, ["run", *args], catch_exceptions=False)
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        state = server.state
        assert state.violations == []
        # the endpoint check's handshake, six samples, q2's dropped socket retried once
        assert len(state.connections) == 1 + 7
        first = state.connections[0]
        assert first["path"] == "/v1/realtime" and first["query"] == {"model": "gpt-4o-realtime"}
        assert first["headers"]["Authorization"] == "Bearer sk-realtime-test"
        assert first["headers"]["OpenAI-Beta"] == "realtime=v1"
        assert all(s["turn_detection"] is None and s["modalities"] == ["text"] for s in state.sessions)
        recs = _records(out)
        assert [recs[f"q{i}"]["output"]["text"] for i in range(3)] == [
            "The tone is low.",
            "The tone is high.",
            "The tone is low.",
        ]
        assert "error event: server_error" in recs["q3"]["error"]
        assert "malformed event" in recs["q4"]["error"]
        assert "response incomplete" in recs["q5"]["error"]
        summary = json.loads((out / "summary.json").read_text())
        includes = summary["results"][0]["metrics"]["includes"]["value"]

        res = runner.invoke(app, ["run", *args, "--max-failed", "3"], catch_exceptions=False)
        assert res.exit_code == 0, res.output
        assert len(state.connections) == 8 + 1 + 3  # a check, then only the three failed samples
    res = runner.invoke(app, ["rescore", str(out)], catch_exceptions=False)
    # (whether rescore's exit code counts the 3 recorded failures is rescore's own policy)
    assert res.exit_code in (0, exit_codes.TOO_MANY_FAILURES), res.output
    assert "no model call" in res.output
    again = json.loads((out / "summary.json").read_text())
    assert again["results"][0]["metrics"]["includes"]["value"] == pytest.approx(includes)
    assert includes == pytest.approx(3 / 6)  # three right, three failures counted as wrong


def _request(wav: Path, audio_out: str | None) -> ModelRequest:
    sample = Sample("s1", {"audio": AudioRef(str(wav))}, {"question": "High or low?"})
    messages = (
        Message.text("system", "Answer in one sentence."),
        Message("user", (AudioPart(AudioRef(str(wav))), TextPart("High or low?"))),
    )
    return ModelRequest(sample, messages, "spoken_qa_audio", audio_out=audio_out)


def test_realtime_audio_out_and_azure_wire(tmp_path: Path) -> None:
    wav = tmp_path / "q.wav"
    tone_wav(wav, 880, seconds=0.3)

    async def go(base_url: str) -> tuple:
        wire = provider_wire("azure", [base_url.removesuffix("/v1")], "rt-deploy", None)
        model = RealtimeModel("rt", wire, "rt-deploy", api_key="azure-key", voice="alloy")
        await model.start()
        try:
            spoken = await model.generate(_request(wav, str(tmp_path / "out.wav")))
            text = await model.generate(_request(wav, None))
        finally:
            await model.aclose()
        return spoken, text

    with FakeRealtimeServer() as server:
        spoken, text = asyncio.run(go(server.base_url))
        conn = server.state.connections[0]
        assert conn["path"] == "/openai/realtime"
        assert conn["query"] == {"api-version": "2024-10-01-preview", "deployment": "rt-deploy"}
        assert conn["headers"]["api-key"] == "azure-key" and "Authorization" not in conn["headers"]
        session = server.state.sessions[0]
        assert session["modalities"] == ["audio", "text"] and session["voice"] == "alloy"
        assert session["instructions"] == "Answer in one sentence."
        assert server.state.violations == []
    assert spoken.error is None and spoken.text == "The tone is high."
    info = sf.info(spoken.audio_path)
    assert info.samplerate == 24000 and info.duration == pytest.approx(0.4)
    assert text.error is None and text.text == "The tone is high." and text.audio_path is None
