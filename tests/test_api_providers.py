"""Azure OpenAI's and Gemini's variants of the OpenAI API (engine/api_providers.py), through
`audioeval run` against a fake that checks the path, query string and headers it receives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from typer.testing import CliRunner

from audioeval.cli.main import app
from audioeval.engine.api_providers import GEMINI_BASE_URL, detect_provider, provider_wire
from audioeval.engine.model_specs import parse_model_ref
from tests.fakes.openai_http import FakeServer, JsonHandler, completion
from tests.fakes.transcription_server import FakeTranscriber
from tests.fakes.transcription_server import _Handler as TranscriptionHandler
from tests.run_helpers import tone_asr_manifest

runner = CliRunner()


class Capture:
    def __init__(self, listing: list[str] | None) -> None:
        self.listing = listing  # None: GET …/models answers 404 (an Azure deployment URL)
        self.requests: list[dict[str, Any]] = []

    @property
    def served_models(self) -> list[str]:
        return self.listing or []


class _Handler(JsonHandler):
    def _note(self, method: str, body: Any) -> dict[str, Any]:
        url = urlsplit(self.path)
        entry = {
            "method": method,
            "path": url.path,
            "query": parse_qs(url.query),
            "headers": dict(self.headers.items()),
            "body": body,
        }
        self.server.app.requests.append(entry)
        return entry

    def do_GET(self) -> None:
        self._note("GET", None)
        if self.server.app.listing is None:
            self.send_json(404, {"error": {"code": "404", "message": "Resource not found"}})
            return
        super().do_GET()

    def do_POST(self) -> None:
        body = self.read_json()
        self._note("POST", body)
        if not isinstance(body, dict) or "messages" not in body:
            self.send_json(400, {"error": {"message": "messages is required"}})
            return
        self.send_json(200, completion(1, body["model"], "the tone number 0 is steady"))


def _run(config: Path) -> None:
    res = runner.invoke(
        app, ["run", str(config), "--no-progress", "--resamples", "20"], catch_exceptions=False
    )
    assert res.exit_code == 0, res.output


def test_provider_is_read_from_the_url() -> None:
    assert detect_provider("https://myres.openai.azure.com") == "azure"
    assert detect_provider(GEMINI_BASE_URL) == "gemini"
    assert detect_provider("http://127.0.0.1:8000/v1") == "openai"
    wire = provider_wire(None, ["https://myres.openai.azure.com/"], "gpt-4o", None)
    assert wire.urls == ["https://myres.openai.azure.com/openai/deployments/gpt-4o"]
    assert (wire.key_header, wire.query) == ("api-key", "?api-version=2024-10-21")
    assert wire.realtime_url(wire.urls[0], "rt") == (
        "https://myres.openai.azure.com/openai/realtime?api-version=2024-10-01-preview&deployment=rt"
    )
    cfg = parse_model_ref("gemini:gemini-2.0-flash")
    assert (cfg.name, cfg.provider, cfg.urls) == ("gemini-2.0-flash", "gemini", [GEMINI_BASE_URL])


def _config(tmp_path: Path, model: str) -> Path:
    manifest = tone_asr_manifest(tmp_path / "data", n=2)
    config = tmp_path / "run.yaml"
    config.write_text(
        f"benchmarks: [{manifest}]\ntask: asr\noutput_dir: {tmp_path / 'out'}\nmodels:\n  - {model}\n"
    )
    return config


def test_azure_deployment_url_api_version_and_key_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-secret")
    monkeypatch.setenv("OPENAI_API_KEY", "never-sent")
    capture = Capture(listing=None)
    with FakeServer(_Handler, capture) as server:
        root = server.base_url.removesuffix("/v1")
        _run(
            _config(
                tmp_path,
                f"{{name: gpt4o, served_model: my-deploy, type: openai, provider: azure, urls: [{root}]}}",
            )
        )
    posts = [r for r in capture.requests if r["method"] == "POST" and r["body"].get("messages")]
    assert len(posts) == 2
    for r in capture.requests:  # the probe too: every request names the deployment and version
        assert r["path"].startswith("/openai/deployments/my-deploy/"), r["path"]
        assert r["query"] == {"api-version": ["2024-10-21"]}
        assert r["headers"]["api-key"] == "azure-secret" and "Authorization" not in r["headers"]
    assert posts[0]["path"] == "/openai/deployments/my-deploy/chat/completions"


def test_gemini_bearer_key_input_audio_and_models_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "gem-secret")
    capture = Capture(listing=["models/gemini-2.0-flash", "models/gemini-2.5-pro"])
    with FakeServer(_Handler, capture) as server:
        _run(
            _config(
                tmp_path,
                f"{{name: gemini-2.0-flash, type: openai, provider: gemini, urls: [{server.base_url}]}}",
            )
        )
    posts = [r for r in capture.requests if r["method"] == "POST"]
    assert len(posts) == 2
    for r in capture.requests:
        assert r["headers"]["Authorization"] == "Bearer gem-secret" and r["query"] == {}
    audio = [p for p in posts[0]["body"]["messages"][-1]["content"] if p["type"] != "text"]
    assert audio[0]["type"] == "input_audio" and audio[0]["input_audio"]["format"] == "wav"


def test_azure_transcription_route(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", "azure-secret")
    fake = FakeTranscriber(served="whisper")
    with FakeServer(TranscriptionHandler, fake) as server:
        root = server.base_url.removesuffix("/v1")
        model = f"{{name: whisper, type: openai, api: transcription, provider: azure, api_version: 2024-06-01, urls: [{root}]}}"
        _run(_config(tmp_path, model))
    assert fake.wire_errors == [] and len(fake.requests) == 2
    for r in fake.requests:
        assert r["path"] == "/openai/deployments/whisper/audio/transcriptions"
        assert r["query"] == {"api-version": ["2024-06-01"]}
        assert r["headers"]["api-key"] == "azure-secret"
    rec = json.loads(next((tmp_path / "out").glob("*/*/records.jsonl")).read_text().splitlines()[0])
    assert rec["error"] is None
