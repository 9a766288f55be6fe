"""A fake OpenAI-compatible audio judge on 127.0.0.1, for tests and the labelled demo.

It is not a model. It really decodes every audio part it receives (vLLM `audio_url` data
URIs or OpenAI `input_audio`), reads the question and choices from the prompt, and answers
questions of the form "... can a steady tone near F Hz be heard ..." by measuring the
spectrum of the clip the question names last, applying the `[start:end]` slice notation
itself when it was sent the full clip. Faults can be injected: latency, 5xx answers, hangs
(for timeouts), garbage text and odd-but-valid answer formats.
"""

from __future__ import annotations

import base64
import io
import json
import random
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import soundfile as sf

REF_RE = re.compile(r"<audio\s+([A-Za-z_]+\d*)\s*(?:\[([^\]]*)\])?\s*>")
TONE_RE = re.compile(r"tone near (\d+(?:\.\d+)?) Hz")
LABEL_RE = re.compile(r"(<audio [^>]+>):\s*$")


@dataclass
class FakeJudgeConfig:
    model: str = "Qwen3Omni-Instruct"
    latency_s: float = 0.0
    fail_first: int = 0  # the first N requests answer 500
    fail_rate: float = 0.0  # then this share of requests answer 503
    hang_first: int = 0  # the first N requests sleep hang_s before answering
    hang_s: float = 0.0
    garbage_rate: float = 0.0  # share of answers that are not JSON at all
    answer_style: str = "json"  # json | fenced | lowercase | think | wrong
    api_key: str | None = None  # when set, requests must carry it as a bearer token
    memoize_audio: bool = False  # decode each distinct clip once (keeps the fake cheap in bench/)
    seed: int = 0


@dataclass
class FakeJudgeStats:
    requests: int = 0
    answered: int = 0
    audio_parts: int = 0
    part_types: dict[str, int] = field(default_factory=dict)
    labels: list[list[str]] = field(default_factory=list)
    durations: list[list[float]] = field(default_factory=list)
    sample_rates: set[int] = field(default_factory=set)
    auth_headers: list[str | None] = field(default_factory=list)


def _slice(samples: np.ndarray, rate: int, text: str | None) -> np.ndarray:
    if not text:
        return samples
    a, b = text.split(":")
    conv = lambda v: None if not v.strip() else int(round(float(v.strip().rstrip("s")) * rate))  # noqa: E731
    return samples[slice(conv(a), conv(b))]


def tone_present(samples: np.ndarray, rate: int, freq: float) -> bool:
    if samples.size < rate // 20:
        return False
    spec = np.abs(np.fft.rfft(samples * np.hanning(samples.size)))
    freqs = np.fft.rfftfreq(samples.size, 1.0 / rate)
    band = np.abs(freqs - freq) <= 12.0
    if not band.any():
        return False
    peak = float(spec[band].max())
    return peak > 0.05 * float(spec.max()) and peak > 30.0 * (float(np.median(spec)) + 1e-9)


def _decode_part(part: dict[str, Any]) -> tuple[str, bytes]:
    if part["type"] == "audio_url":
        url = part["audio_url"]["url"]
        assert url.startswith("data:audio/wav;base64,"), url[:40]
        return "audio_url", base64.b64decode(url.split(",", 1)[1])
    return "input_audio", base64.b64decode(part["input_audio"]["data"])


class FakeJudge:
    """The answering logic, independent of HTTP."""

    def __init__(self, config: FakeJudgeConfig) -> None:
        self.config = config
        self.stats = FakeJudgeStats()
        self._rng = random.Random(config.seed)
        self._lock = threading.Lock()
        self._decoded: dict[int, tuple[np.ndarray, int]] = {}

    def _decode(self, part: dict[str, Any]) -> tuple[str, np.ndarray, int]:
        key = hash(json.dumps(part)) if self.config.memoize_audio else None
        if key is not None and key in self._decoded:
            return part["type"], *self._decoded[key]
        kind, data = _decode_part(part)
        samples, rate = sf.read(io.BytesIO(data), dtype="float32")
        if key is not None:
            self._decoded[key] = (samples, rate)
        return kind, samples, rate

    def answer(self, body: dict[str, Any]) -> str:
        user = [m for m in body["messages"] if m["role"] == "user"][-1]
        clips: dict[str, tuple[np.ndarray, int]] = {}
        label = None
        texts: list[str] = []
        labels, durs = [], []
        for part in user["content"]:
            if part["type"] == "text":
                texts.append(part["text"])
                m = LABEL_RE.search(part["text"])
                label = m.group(1) if m else None
                continue
            kind, samples, rate = self._decode(part)
            with self._lock:
                self.stats.audio_parts += 1
                self.stats.part_types[kind] = self.stats.part_types.get(kind, 0) + 1
                self.stats.sample_rates.add(int(rate))
            assert label is not None, "audio part without a preceding <audio LABEL>: text part"
            clips[label] = (samples, rate)
            labels.append(label)
            durs.append(len(samples) / rate)
        with self._lock:
            self.stats.labels.append(labels)
            self.stats.durations.append(durs)
        prompt = "".join(texts)
        question = prompt.split("Question: ", 1)[1].split("\n\nChoices:", 1)[0]
        choices = re.findall(r"^([A-Z])\. (.*)$", prompt.split("Choices:", 1)[1], re.M)
        return self._choose(question, choices, clips)

    def _choose(
        self, question: str, choices: list[tuple[str, str]], clips: dict[str, tuple[np.ndarray, int]]
    ) -> str:
        refs = REF_RE.findall(question)
        tone = TONE_RE.search(question)
        wanted = "None of the above"
        if refs and tone:
            name, sl = refs[-1]
            full = f"<audio {name}[{sl}]>" if sl else f"<audio {name}>"
            if full in clips:
                samples, rate = clips[full]
            else:
                samples, rate = clips[f"<audio {name}>"]
                samples = _slice(samples, rate, sl)
            present = tone_present(samples, rate, float(tone.group(1)))
            wanted = "Yes" if present else "No"
        for letter, text in choices:
            if text.split(",")[0] == wanted or text == wanted:
                if self.config.answer_style == "wrong":
                    others = [lt for lt, tx in choices if lt != letter]
                    return others[0]
                return letter
        return choices[-1][0]

    def render(self, letter: str) -> str:
        style = self.config.answer_style
        if self._rng.random() < self.config.garbage_rate:
            return "I am not sure what you mean."
        if style == "fenced":
            return f'Here is my answer:\n```json\n{{"reason": "measured the spectrum", "choice": "{letter}"}}\n```'
        if style == "lowercase":
            return f'{{"reason": "measured", "choice": "{letter.lower()}"}}'
        if style == "think":
            return f'<think>Maybe {{"choice": "Z"}}?</think>{{"reason": "measured", "choice": "{letter}"}}'
        return json.dumps({"reason": "measured the spectrum of the named clip", "choice": letter})


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, *args: object) -> None:  # silence
        pass

    def _send(self, code: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path.endswith("/models"):
            self._send(
                200, {"object": "list", "data": [{"id": self.server.judge.config.model, "object": "model"}]}
            )
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self) -> None:
        judge = self.server.judge
        cfg = judge.config
        length = int(self.headers.get("Content-Length", "0"))
        try:
            body = json.loads(self.rfile.read(length))
        except (ValueError, OSError):  # the client gave up mid-request (e.g. its timeout)
            self.close_connection = True
            return
        with judge._lock:
            judge.stats.requests += 1
            n = judge.stats.requests
            judge.stats.auth_headers.append(self.headers.get("Authorization"))
            fail = n <= cfg.fail_first or judge._rng.random() < cfg.fail_rate
            hang = n <= cfg.hang_first
        if cfg.api_key and self.headers.get("Authorization") != f"Bearer {cfg.api_key}":
            self._send(401, {"error": {"message": "bad api key"}})
            return
        if not self.path.endswith("/chat/completions"):
            self._send(404, {"error": "not found"})
            return
        if body.get("model") != cfg.model:
            self._send(404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}})
            return
        if hang:
            time.sleep(cfg.hang_s)
        if cfg.latency_s:
            time.sleep(cfg.latency_s)
        if fail:
            self._send(500 if n <= cfg.fail_first else 503, {"error": {"message": "injected failure"}})
            return
        text = judge.render(judge.answer(body))
        with judge._lock:
            judge.stats.answered += 1
        self._send(
            200,
            {
                "id": f"chatcmpl-{n}",
                "object": "chat.completion",
                "model": cfg.model,
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
            },
        )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    judge: FakeJudge

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # clients that time out and hang up are expected in fault-injection tests


class FakeJudgeServer:
    """`with FakeJudgeServer(FakeJudgeConfig()) as s: s.base_url` serves on 127.0.0.1."""

    def __init__(self, config: FakeJudgeConfig | None = None, port: int = 0) -> None:
        self.judge = FakeJudge(config or FakeJudgeConfig())
        self._server = _Server(("127.0.0.1", port), _Handler)
        self._server.judge = self.judge
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    @property
    def stats(self) -> FakeJudgeStats:
        return self.judge.stats

    def start(self) -> FakeJudgeServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeJudgeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def dead_url() -> str:
    """A URL on 127.0.0.1 where nothing listens."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/v1"


def main() -> None:
    import argparse

    ap = argparse.ArgumentParser(description="Fake OpenAI-compatible audio judge (tests and demo only).")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--model", default="Qwen3Omni-Instruct")
    ap.add_argument("--memoize-audio", action="store_true", help="decode each distinct clip once")
    args = ap.parse_args()
    cfg = FakeJudgeConfig(model=args.model, latency_s=args.latency, memoize_audio=args.memoize_audio)
    server = FakeJudgeServer(cfg, port=args.port)
    print(server.base_url, flush=True)
    server._server.serve_forever()


if __name__ == "__main__":
    main()
