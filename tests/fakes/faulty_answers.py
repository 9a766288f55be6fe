"""Faulty answers, the same for every kind of model under test, and a fake OpenAI-compatible
server on 127.0.0.1 that gives them on every route a model adapter speaks: chat completions
(text, or speech with `modalities`), `/audio/transcriptions`, `/audio/translations` and
`/audio/speech`.

`FAULTS` names each answer: `huge` (2.4 M characters), `empty`, `blank` (two spaces), `html`
(a web page answered 200: with `Content-Type: text/html` on the wire, the page's text in a
file), `nan` (NaN where text is due: a JSON `NaN`; for audio, a WAV of NaN samples); `ok` is
a good text answer ("red green"). The server answers `app.fault`, counts `requests` per route, and refuses a request that is not
the API's (the endpoint probe's `{}`) with 400, as a real API does.
"""

from __future__ import annotations

import base64
import io
import json
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import soundfile as sf

from tests.fakes.openai_http import FakeServer, JsonHandler, completion

FAULTS = ("huge", "empty", "blank", "html", "nan")
HUGE = "word " * 480_000  # 2,400,000 characters
HTML_PAGE = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"


def fault_text(fault: str) -> Any:
    """The text an answer with `fault` carries (NaN: the float)."""
    return {
        "huge": HUGE,
        "empty": "",
        "blank": "  ",
        "html": HTML_PAGE,
        "nan": float("nan"),
        "ok": "red green",
    }[fault]


def fault_audio(fault: str) -> bytes:
    """The bytes of an audio answer with `fault`: none, text, a page, a WAV of NaN samples."""
    if fault == "nan":
        buf = io.BytesIO()
        sf.write(buf, np.full(1600, np.nan, dtype=np.float32), 16000, format="WAV", subtype="FLOAT")
        return buf.getvalue()
    return {"huge": HUGE.encode(), "empty": b"", "blank": b"  ", "html": HTML_PAGE.encode()}[fault]


@dataclass
class FaultyModel:
    fault: str = "empty"
    served: str = "faulty"
    requests: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def served_models(self) -> list[str]:
        return [self.served]

    def count(self, route: str) -> None:
        with self.lock:
            self.requests[route] = self.requests.get(route, 0) + 1

    @property
    def asked(self) -> int:
        return sum(self.requests.values())


class _Handler(JsonHandler):
    def _send(self, ctype: str, data: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:
        app: FaultyModel = self.server.app  # type: ignore[assignment]
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        route = self.path.split("?", 1)[0].rsplit("/v1", 1)[-1]
        multipart = self.headers.get("Content-Type", "").startswith("multipart/form-data")
        if route in ("/audio/transcriptions", "/audio/translations") and not multipart:
            self.send_json(400, {"error": {"message": "expected multipart/form-data"}})
            return
        request = {} if multipart else json.loads(body or b"{}")
        if not multipart and not (request.get("messages") or request.get("input")):
            self.send_json(400, {"error": {"message": "invalid request"}})
            return
        app.count(route)
        if app.fault == "html":
            self._send("text/html; charset=utf-8", HTML_PAGE.encode())
        elif route == "/audio/speech":
            self._send("audio/wav", fault_audio(app.fault))
        elif route == "/chat/completions" and request.get("modalities"):
            data = base64.b64encode(fault_audio(app.fault)).decode()
            message = {"role": "assistant", "content": None, "audio": {"data": data, "transcript": ""}}
            answer = {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
            self._send("application/json", json.dumps(answer).encode())
        elif route == "/chat/completions":
            answer = completion(app.asked, app.served, fault_text(app.fault))
            self._send("application/json", json.dumps(answer).encode())  # NaN: the JSON literal
        else:
            self._send("application/json", json.dumps({"text": fault_text(app.fault)}).encode())


class FaultyModelServer(FakeServer):
    def __init__(self, app: FaultyModel | None = None) -> None:
        super().__init__(_Handler, app or FaultyModel())
