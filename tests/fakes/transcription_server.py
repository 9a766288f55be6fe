"""A fake of OpenAI's `/audio/transcriptions` and `/audio/translations` (as vLLM serves them
for Whisper), on 127.0.0.1, that parses the multipart/form-data body strictly: the
`Content-Type` boundary, every part's `Content-Disposition`, a `file` part holding a WAV, a
`model` it serves, and `response_format` (json, text, verbose_json; 400 otherwise).

It "hears" tone clips: a tone of 220 + 110·i Hz is transcribed "the tone number i is steady"
(number 2 is misheard: "the tone number 2 is ready") and translated "translated tone i".
Faults: `fail_first` answers the first N requests 503; `malformed` lists tone numbers answered
200 with a body that is not the format asked for. Every request's path, query, headers and
form fields are kept in `requests`.
"""

from __future__ import annotations

import io
import json
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

import soundfile as sf

from tests.fakes.mcq_server import dominant_hz
from tests.fakes.openai_http import AUDIO_TOKENS_PER_S, FakeServer, JsonHandler


def parse_multipart(body: bytes, content_type: str) -> dict[str, Any]:
    """The form's fields (file parts as (filename, content type, bytes)); AssertionError when
    the body is not well-formed multipart/form-data."""
    kind, _, params = content_type.partition(";")
    assert kind.strip() == "multipart/form-data", content_type
    boundary = params.strip().removeprefix("boundary=").strip('"')
    assert boundary, content_type
    marker = b"--" + boundary.encode()
    closing = b"\r\n" + marker + b"--\r\n"
    assert body.startswith(marker) and body.endswith(closing), body[:80]
    fields: dict[str, Any] = {}
    for chunk in body[len(marker) : -len(closing)].split(b"\r\n" + marker):
        assert chunk.startswith(b"\r\n"), chunk[:40]
        head, sep, content = chunk[2:].partition(b"\r\n\r\n")
        assert sep, "a part without a blank line after its headers"
        headers = dict(line.split(": ", 1) for line in head.decode().split("\r\n"))
        disposition = headers["Content-Disposition"]
        assert disposition.startswith("form-data; name="), disposition
        name = disposition.split('name="', 1)[1].split('"', 1)[0]
        if 'filename="' in disposition:
            filename = disposition.split('filename="', 1)[1].split('"', 1)[0]
            fields[name] = (filename, headers.get("Content-Type"), content)
        else:
            fields[name] = content.decode("utf-8")
    return fields


@dataclass
class FakeTranscriber:
    served: str = "whisper"
    fail_first: int = 0
    malformed: set[int] = field(default_factory=set)
    billed_by_duration: bool = False  # usage of type duration (whisper-1) instead of tokens
    requests: list[dict[str, Any]] = field(default_factory=list)
    wire_errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def served_models(self) -> list[str]:
        return [self.served]

    def answer(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, str, bytes]:
        url = urlsplit(path)
        with self.lock:
            n = len(self.requests)
            try:
                form = parse_multipart(body, headers.get("Content-Type", ""))
            except (AssertionError, KeyError, ValueError) as exc:
                self.wire_errors.append(repr(exc))
                return 400, "application/json", b'{"error": {"message": "malformed multipart body"}}'
            self.requests.append(
                {"path": url.path, "query": parse_qs(url.query), "headers": headers, "form": form}
            )
        if n < self.fail_first:
            return 503, "application/json", b'{"error": {"message": "overloaded"}}'
        if form.get("model") != self.served:
            return (
                404,
                "application/json",
                json.dumps({"error": {"message": f"no model {form.get('model')}"}}).encode(),
            )
        fmt = form.get("response_format", "json")
        if fmt not in ("json", "text", "verbose_json"):
            return 400, "application/json", b'{"error": {"message": "bad response_format"}}'
        filename, ctype, wav = form["file"]
        assert filename.endswith(".wav") and ctype == "audio/wav", (filename, ctype)
        samples, rate = sf.read(io.BytesIO(wav), dtype="float32")
        i = round((dominant_hz(samples, rate) - 220) / 110)
        if url.path.endswith("/audio/translations"):
            text = f"translated tone {i}"
        else:
            text = "the tone number 2 is ready" if i == 2 else f"the tone number {i} is steady"
        if i in self.malformed:
            return 200, "application/json", b"{'text': not json" if fmt != "text" else b'{"text": "json"}'
        if fmt == "text":
            return 200, "text/plain", (text + "\n").encode()
        audio = round(len(samples) / rate * AUDIO_TOKENS_PER_S)
        words = len(text.split())
        out: dict[str, Any] = {"text": text}
        if self.billed_by_duration:  # whisper-1 bills the seconds heard
            out["usage"] = {"type": "duration", "seconds": round(len(samples) / rate, 3)}
        else:  # gpt-4o-transcribe bills tokens
            out["usage"] = {
                "type": "tokens",
                "input_tokens": audio,
                "input_token_details": {"text_tokens": 0, "audio_tokens": audio},
                "output_tokens": words,
                "total_tokens": audio + words,
            }
        if fmt == "verbose_json":
            out.update(
                task="transcribe", language="english", duration=0.3, segments=[{"id": 0, "text": text}]
            )
        return 200, "application/json", json.dumps(out).encode()


class _Handler(JsonHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        route = urlsplit(self.path).path
        if not route.endswith(("/audio/transcriptions", "/audio/translations")):
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        if not self.headers.get("Content-Type", "").startswith("multipart/form-data"):
            self.send_json(400, {"error": {"message": "expected multipart/form-data"}})  # the probe's `{}`
            return
        status, ctype, data = self.server.app.answer(self.path, dict(self.headers.items()), body)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class FakeTranscriptionServer(FakeServer):
    def __init__(self, app: FakeTranscriber | None = None) -> None:
        super().__init__(_Handler, app or FakeTranscriber())
