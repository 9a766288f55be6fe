"""A fake OpenAI-compatible judge on 127.0.0.1 that keeps every request it is sent (tests only).

It is not a model: each chat request body is stored in `app.requests`, and the answer is what
`app.answer(body)` returns (a fixed text by default). Tests read the stored bodies to see the
exact messages a scorer sent.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.openai_http import FakeServer, JsonHandler, completion


@dataclass
class CaptureApp:
    answer: Callable[[dict[str, Any]], str] = lambda body: "yes"
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class CaptureHandler(JsonHandler):
    def do_POST(self) -> None:
        body = self.read_json()
        if body is None:
            return
        app: CaptureApp = self.server.app
        with app.lock:
            app.requests.append(body)
        self.send_json(200, completion(len(app.requests), body.get("model", ""), app.answer(body)))


def capture_judge(app: CaptureApp) -> FakeServer:
    """`with capture_judge(app) as server: server.base_url`."""
    return FakeServer(CaptureHandler, app)
