"""Models behind `/audio/transcriptions` (asr) and `/audio/translations` (ast), through
`audioeval run` against a fake that parses the multipart form strictly
(tests/fakes/transcription_server.py): records, retries of 503, a malformed body recorded as
a failure, resume, rescore, and the English-only rule of translations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.adapters.openai_transcription import build_transcription_form, transcription_text
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.engine.model_specs import parse_model_ref
from tests.fakes.transcription_server import FakeTranscriber, FakeTranscriptionServer, parse_multipart
from tests.run_helpers import tone_asr_manifest, write_jsonl

runner = CliRunner()


def _run(args: list[str], exit_code: int = 0) -> None:
    res = runner.invoke(app, ["run", *args, "--no-progress", "--resamples", "50"], catch_exceptions=False)
    assert res.exit_code == exit_code, res.output


def _records(out: Path) -> dict[str, dict]:
    (records,) = out.glob("*/*/records.jsonl")
    latest = {}
    for line in records.read_text().splitlines():
        rec = json.loads(line)
        latest[rec["id"]] = rec
    return latest


def test_form_is_well_formed_multipart_and_answers_are_read() -> None:
    wav = b"RIFF\x00\x01--not-a-boundary\r\n\r\nWAVEdata"
    body, ctype = build_transcription_form(
        wav, model="whisper-1", fields={"language": "en", "temperature": 0.0, "prompt": None}
    )
    form = parse_multipart(body, ctype)
    assert form == {
        "model": "whisper-1",
        "language": "en",
        "temperature": "0",
        "file": ("audio.wav", "audio/wav", wav),
    }
    assert transcription_text(b'{"text": " hello "}') == "hello"
    assert transcription_text(b'{"text": "hi", "segments": []}', "verbose_json") == "hi"
    assert transcription_text(b"plain words\n", "text") == "plain words"
    for raw, fmt in [(b"{'text': 1", "json"), (b'{"no": "text"}', "json"), (b'{"text": "x"}', "text")]:
        with pytest.raises(ValueError):
            transcription_text(raw, fmt)


def test_api_prefix_picks_the_api() -> None:
    cfg = parse_model_ref("transcription:whisper@http://127.0.0.1:9/v1")
    assert (cfg.name, cfg.api, cfg.urls) == ("whisper", "transcription", ["http://127.0.0.1:9/v1"])
    assert parse_model_ref("translation:w@http://h/v1").api == "translation"
    assert parse_model_ref("realtime:gpt-4o-realtime@http://h/v1").api == "realtime"
    assert parse_model_ref("llama3:8b@http://h/v1").name == "llama3:8b"  # not an API: kept whole


def test_asr_through_transcriptions_scores_resumes_and_rescores(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "data", n=6)
    out = tmp_path / "out"
    fake = FakeTranscriber(fail_first=2, malformed={4})
    with FakeTranscriptionServer(fake) as server:
        args = [
            "-b",
            str(manifest),
            "--task",
            "asr",
            "-m",
            f"transcription:whisper@{server.base_url}",
            "-o",
            str(out),
        ]
        _run(args, exit_code=exit_codes.TOO_MANY_FAILURES)  # c4's body is malformed: 1 failed
        assert fake.wire_errors == []
        assert len(fake.requests) == 6 + 2  # the two 503s were retried
        first = fake.requests[-1]
        assert first["path"] == "/v1/audio/transcriptions"
        form = first["form"]
        assert (form["model"], form["language"], form["temperature"], form["response_format"]) == (
            "whisper",
            "en",
            "0",
            "json",
        )
        assert "prompt" not in form  # the prompt template is not sent as Whisper's style hint
        recs = _records(out)
        assert recs["c4"]["error"] and "malformed response" in recs["c4"]["error"]
        assert recs["c0"]["output"]["text"] == "the tone number 0 is steady"
        assert recs["c2"]["scores"]["wer"]["values"]["wer"] == pytest.approx(1 / 6)
        summary = json.loads((out / "summary.json").read_text())
        # the failed sample counts as 6 deletions: (1 + 6) / 36 reference words
        assert summary["results"][0]["metrics"]["wer"]["value"] == pytest.approx(7 / 36)

        fake.malformed = set()
        _run(args)  # only the failed sample is asked again
        assert len(fake.requests) == 9
        _run(args)  # nothing left to ask
        assert len(fake.requests) == 9
    summary = json.loads((out / "summary.json").read_text())
    (result,) = summary["results"]
    # 36 reference words, one substitution ("steady" heard as "ready")
    assert result["metrics"]["wer"]["value"] == pytest.approx(1 / 36)
    res = runner.invoke(app, ["rescore", str(out)], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    again = json.loads((out / "summary.json").read_text())
    assert again["results"][0]["metrics"]["wer"]["value"] == pytest.approx(1 / 36)


def test_response_format_text_is_sent_and_read(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "data", n=2)
    out = tmp_path / "out"
    with FakeTranscriptionServer() as server:
        model = f"transcription:whisper@{server.base_url}"
        _run(
            [
                "-b",
                str(manifest),
                "--task",
                "asr",
                "-m",
                model,
                "-o",
                str(out),
                "--gen-kwargs",
                "response_format=text",
            ]
        )
        assert {r["form"]["response_format"] for r in server.app.requests} == {"text"}
    assert _records(out)["c1"]["output"]["text"] == "the tone number 1 is steady"


def test_ast_through_translations_into_english_only(tmp_path: Path) -> None:
    data = tmp_path / "data"
    tone_asr_manifest(data, n=3)
    rows = [
        {"id": f"c{i}", "audio": f"c{i}.wav", "text": f"translated tone {i}", "target_language": "English"}
        for i in range(3)
    ]
    rows[2]["target_language"] = "German"
    manifest = write_jsonl(data / "ast.jsonl", rows)
    out = tmp_path / "out"
    with FakeTranscriptionServer() as server:
        model = f"translation:whisper@{server.base_url}"
        _run(["-b", str(manifest), "--task", "ast", "-m", model, "-o", str(out), "--max-failed", "1"])
        assert [r["path"] for r in server.app.requests] == [
            "/v1/audio/translations"
        ] * 2  # German never asked
        assert all("language" not in r["form"] for r in server.app.requests)
    recs = _records(out)
    assert recs["c0"]["output"]["text"] == "translated tone 0" and recs["c0"]["error"] is None
    assert "into English only" in recs["c2"]["error"]
