"""HTTP plumbing shared by the fake OpenAI-compatible servers of the test suite.

A `FakeServer` serves one handler class on 127.0.0.1 in a background thread; handlers reach
their answering logic as `self.server.app`.
"""

from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def decode_audio_part(part: dict[str, Any]) -> tuple[str, bytes]:
    """(part type, audio bytes) of a vLLM `audio_url` data URI or an OpenAI `input_audio` part."""
    if part["type"] == "audio_url":
        url = part["audio_url"]["url"]
        assert url.startswith("data:audio/wav;base64,"), url[:40]
        return "audio_url", base64.b64decode(url.split(",", 1)[1])
    return "input_audio", base64.b64decode(part["input_audio"]["data"])


AUDIO_TOKENS_PER_S = 10
"""Audio tokens the fakes bill per second of audio received (as OpenAI's audio models, roughly)."""


def wav_seconds(data: bytes) -> float:
    """The duration of a WAV clip (its header)."""
    import io

    import soundfile as sf

    info = sf.info(io.BytesIO(data))
    return info.frames / info.samplerate


def request_usage(body: dict[str, Any] | None, text: Any) -> dict[str, Any]:
    """A chat completion's `usage` as OpenAI sends it, counted from the request: a text token
    per word of the messages' text, `AUDIO_TOKENS_PER_S` per second of each audio part, a
    token per word of the answer (at least one)."""
    words, audio = 0, 0
    for message in (body or {}).get("messages") or []:
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for part in parts:
            if part.get("type") == "text":
                words += len(str(part.get("text", "")).split())
            elif part.get("type") in ("audio_url", "input_audio"):
                audio += round(wav_seconds(decode_audio_part(part)[1]) * AUDIO_TOKENS_PER_S)
    prompt = words + audio
    answer = max(1, len(text.split())) if isinstance(text, str) else 1  # a fault's answer may be no text
    return {
        "prompt_tokens": prompt,
        "completion_tokens": answer,
        "total_tokens": prompt + answer,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": audio},
        "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
    }


def completion(n: int, model: str, text: Any, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """A chat completion response body carrying `text`, with the `usage` of `body` (the
    request) as `request_usage` counts it."""
    return {
        "id": f"chatcmpl-{n}",
        "object": "chat.completion",
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": request_usage(body, text),
    }


def credentials_echo(authorization: str | None) -> dict[str, Any]:
    """An error body that repeats the request's credentials, as careless servers and proxies
    do: the header as sent, the bare key in a JSON field, and the bare key inside prose."""
    key = (authorization or "").removeprefix("Bearer ")
    return {
        "error": {
            "message": f"rejected Authorization: {authorization}",
            "request_headers": {"Authorization": authorization},
            "api_key": key,
            "detail": f"the key {key} is not valid for this deployment",
        }
    }


class JsonHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 keep-alive, no Nagle delay, silent logs, JSON in and out."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: LocalServer

    def log_message(self, *args: object) -> None:
        pass

    def send_json(self, code: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        """`GET /models`: the app's `served_models` when it has them (else an empty list)."""
        if not self.path.split("?")[0].endswith("/models"):
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        served = getattr(self.server.app, "served_models", [])
        self.send_json(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in served]})

    def read_json(self) -> Any | None:
        """The request body, or None when the client gave up mid-request (e.g. its timeout)."""
        length = int(self.headers.get("Content-Length", "0"))
        try:
            return json.loads(self.rfile.read(length))
        except (ValueError, OSError):
            self.close_connection = True
            return None


class LocalServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    app: Any

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # clients that time out and hang up are expected in fault-injection tests


class FakeServer:
    """`with FakeServer(Handler, app) as s: s.base_url` serves on 127.0.0.1."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], app: Any, port: int = 0) -> None:
        self.app = app
        self.http = LocalServer(("127.0.0.1", port), handler)
        self.http.app = app
        self._thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/v1"

    def start(self) -> FakeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.http.shutdown()
        self.http.server_close()

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class FixedAnswer:
    """What a `FixedHandler` answers to every request: a status, a body and its type."""

    def __init__(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.status = status
        self.body = body
        self.content_type = content_type
        self.requests = 0


class FixedHandler(BaseHTTPRequestHandler):
    """Answers every GET and POST alike (a misconfigured or foreign server)."""

    protocol_version = "HTTP/1.1"
    server: LocalServer

    def log_message(self, *args: object) -> None:
        pass

    def _answer(self) -> None:
        fixed: FixedAnswer = self.server.app
        fixed.requests += 1
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(fixed.status)
        self.send_header("Content-Type", fixed.content_type)
        self.send_header("Content-Length", str(len(fixed.body)))
        self.end_headers()
        self.wfile.write(fixed.body)

    do_GET = do_POST = _answer
