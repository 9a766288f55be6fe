"""A fake OpenAI-compatible audio judge on 127.0.0.1, for tests and the labelled demo.

It is not a model. It really decodes every audio part it receives (vLLM `audio_url` data
URIs or OpenAI `input_audio`), reads the question and choices from the prompt, and answers
questions of the form "... can a steady tone near F Hz be heard ..." by measuring the
spectrum of the clip the question names last, applying the `[start:end]` slice notation
itself when it was sent the full clip. Faults can be injected: latency, 5xx answers, hangs
(for timeouts), garbage text, odd-but-valid answer formats, error answers that echo the
API key, and a position bias (`first_letter_rate`: that share of answers picks option A,
whatever the question). A noisy judge, deterministic per request content (the same request
gets the same answer, whatever the order of requests; seeded by `seed`): `wrong_rate` of
requests pick a wrong option, `invalid_rate` of requests answer text with no choice.

`latency_s` is the time from reading a request to answering it, the fake's work on the answer
(decoding, measuring the spectrum) included, as a real server's latency includes its work.
With `memoize_audio` (the throughput bench) each distinct clip is decoded once and each (clip,
slice, frequency) measured once, in bounded LRU memos, so that the fake's CPU does not queue
requests.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import random
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import soundfile as sf

from tests.fakes.openai_http import (
    FakeServer,
    JsonHandler,
    completion,
    credentials_echo,
    decode_audio_part,
)
from tests.fakes.prefix_log import PrefixLog

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
    answer_style: str = "json"  # json | fenced | lowercase | think | wrong | empty (200, content "")
    empty_when: str | None = None  # answer 200 with empty content to questions holding this text
    api_key: str | None = None  # when set, requests must carry it as a bearer token
    echo_credentials: int | None = None  # answer every chat request with this status, echoing the key
    memoize_audio: bool = False  # decode each distinct clip once (keeps the fake cheap in bench/)
    first_letter_rate: float = 0.0  # share of answers that pick the first letter (position bias)
    seed: int = 0
    # Noise drawn from a hash of (seed, the request's messages): deterministic per request content.
    wrong_rate: float = 0.0  # share of requests answered with a wrong option
    invalid_rate: float = 0.0  # share of requests answered with text that holds no choice
    log_prefixes: bool = False  # keep each request's prompt units and when it was answered (`prefix_log.py`)


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


def content_draws(seed: int, body: dict[str, Any]) -> tuple[float, float, int]:
    """Two uniform draws in [0, 1) and an integer, from a hash of the seed and the request's
    messages (audio included): the same request always draws the same."""
    blob = json.dumps(body.get("messages"), sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(f"{seed}:{blob}".encode()).digest()
    return (
        int.from_bytes(digest[:8], "big") / 2**64,
        int.from_bytes(digest[8:16], "big") / 2**64,
        int.from_bytes(digest[16:24], "big"),
    )


def _slice(samples: np.ndarray, rate: int, text: str | None) -> np.ndarray:
    if not text:
        return samples
    a, b = text.split(":")
    conv = lambda v: None if not v.strip() else int(round(float(v.strip().rstrip("s")) * rate))  # noqa: E731
    return samples[slice(conv(a), conv(b))]


@functools.lru_cache(maxsize=32)
def _window_and_freqs(size: int, rate: int) -> tuple[np.ndarray, np.ndarray]:
    return np.hanning(size), np.fft.rfftfreq(size, 1.0 / rate)


def tone_present(samples: np.ndarray, rate: int, freq: float) -> bool:
    if samples.size < rate // 20:
        return False
    window, freqs = _window_and_freqs(samples.size, rate)
    spec = np.abs(np.fft.rfft(samples * window))
    band = np.abs(freqs - freq) <= 12.0
    if not band.any():
        return False
    peak = float(spec[band].max())
    return peak > 0.05 * float(spec.max()) and peak > 30.0 * (float(np.median(spec)) + 1e-9)


MEMO_SIZE = 1024  # clips (and spectrum verdicts) the memoizing fake keeps


class FakeJudge:
    """The answering logic, independent of HTTP."""

    def __init__(self, config: FakeJudgeConfig) -> None:
        self.config = config
        self.stats = FakeJudgeStats()
        self._rng = random.Random(config.seed)
        self._lock = threading.Lock()
        self._decoded: OrderedDict[int, tuple[np.ndarray, int]] = OrderedDict()
        self._verdicts: OrderedDict[tuple[int, str, float], bool] = OrderedDict()
        self.prefix_log = PrefixLog()

    @staticmethod
    def _audio_key(part: dict[str, Any]) -> int:
        """A 64-bit hash of the encoded audio a part carries (the memo key)."""
        if part["type"] == "audio_url":
            return hash(part["audio_url"]["url"])
        return hash(part["input_audio"]["data"])

    def _memo_get(self, memo: OrderedDict[Any, Any], key: Any) -> Any:
        with self._lock:
            value = memo.get(key)
            if value is not None:
                memo.move_to_end(key)
            return value

    def _memo_put(self, memo: OrderedDict[Any, Any], key: Any, value: Any) -> None:
        with self._lock:
            memo[key] = value
            while len(memo) > MEMO_SIZE:
                memo.popitem(last=False)

    def _decode(self, part: dict[str, Any]) -> tuple[str, np.ndarray, int, int | None]:
        key = self._audio_key(part) if self.config.memoize_audio else None
        if key is not None:
            hit = self._memo_get(self._decoded, key)
            if hit is not None:
                return part["type"], *hit, key
        kind, data = decode_audio_part(part)
        samples, rate = sf.read(io.BytesIO(data), dtype="float32")
        if key is not None:
            self._memo_put(self._decoded, key, (samples, rate))
        return kind, samples, rate, key

    def answer(self, body: dict[str, Any]) -> str:
        user = [m for m in body["messages"] if m["role"] == "user"][-1]
        clips: dict[str, tuple[np.ndarray, int, int | None]] = {}
        label = None
        texts: list[str] = []
        labels, durs = [], []
        for part in user["content"]:
            if part["type"] == "text":
                texts.append(part["text"])
                m = LABEL_RE.search(part["text"])
                label = m.group(1) if m else None
                continue
            kind, samples, rate, key = self._decode(part)
            with self._lock:
                self.stats.audio_parts += 1
                self.stats.part_types[kind] = self.stats.part_types.get(kind, 0) + 1
                self.stats.sample_rates.add(int(rate))
            assert label is not None, "audio part without a preceding <audio LABEL>: text part"
            clips[label] = (samples, rate, key)
            labels.append(label)
            durs.append(len(samples) / rate)
        with self._lock:
            self.stats.labels.append(labels)
            self.stats.durations.append(durs)
        prompt = "".join(texts)
        question = prompt.split("Question: ", 1)[1].split("\n\nChoices:", 1)[0]
        choices = re.findall(r"^([A-Z])\. (.*)$", prompt.split("Choices:", 1)[1], re.M)
        letter = self._choose(question, choices, clips)
        if self.config.wrong_rate > 0:
            wrong, _, pick = content_draws(self.config.seed, body)
            others = [lt for lt, _ in choices if lt != letter]
            if wrong < self.config.wrong_rate and others:
                letter = others[pick % len(others)]
        if self.config.first_letter_rate > 0:
            with self._lock:
                biased = self._rng.random() < self.config.first_letter_rate
            if biased:
                return choices[0][0]
        return letter

    def _tone_present(self, clip: tuple[np.ndarray, int, int | None], sl: str | None, freq: float) -> bool:
        samples, rate, key = clip
        memo_key = None if key is None else (key, sl or "", freq)
        if memo_key is not None:
            hit = self._memo_get(self._verdicts, memo_key)
            if hit is not None:
                return bool(hit)
        present = tone_present(_slice(samples, rate, sl), rate, freq)
        if memo_key is not None:
            self._memo_put(self._verdicts, memo_key, present)
        return present

    def _choose(
        self,
        question: str,
        choices: list[tuple[str, str]],
        clips: dict[str, tuple[np.ndarray, int, int | None]],
    ) -> str:
        refs = REF_RE.findall(question)
        tone = TONE_RE.search(question)
        wanted = "None of the above"
        if refs and tone:
            name, sl = refs[-1]
            full = f"<audio {name}[{sl}]>" if sl else f"<audio {name}>"
            if full in clips:
                present = self._tone_present(clips[full], None, float(tone.group(1)))
            else:
                present = self._tone_present(clips[f"<audio {name}>"], sl, float(tone.group(1)))
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
        if style == "empty":
            return ""
        if self._rng.random() < self.config.garbage_rate:
            return "I am not sure what you mean."
        if style == "fenced":
            return f'Here is my answer:\n```json\n{{"reason": "measured the spectrum", "choice": "{letter}"}}\n```'
        if style == "lowercase":
            return f'{{"reason": "measured", "choice": "{letter.lower()}"}}'
        if style == "think":
            return f'<think>Maybe {{"choice": "Z"}}?</think>{{"reason": "measured", "choice": "{letter}"}}'
        return json.dumps({"reason": "measured the spectrum of the named clip", "choice": letter})

    def _asks_for_empty(self, body: dict[str, Any]) -> bool:
        marker = self.config.empty_when
        return marker is not None and marker in json.dumps(body["messages"][-1]["content"][-1])

    def get(self, path: str, authorization: str | None = None) -> tuple[int, Any]:
        if self.config.api_key and authorization != f"Bearer {self.config.api_key}":
            return 401, {"error": {"message": "bad api key"}}
        if path.endswith("/models"):
            return 200, {"object": "list", "data": [{"id": self.config.model, "object": "model"}]}
        return 404, {"error": "not found"}

    def post(self, path: str, authorization: str | None, body: dict[str, Any]) -> tuple[int, Any, float]:
        """Answer a chat request: (status, JSON payload, monotonic time to send it at).

        The answer is due `latency_s` after the request was read (plus `hang_s` for the first
        `hang_first` requests); the work of answering happens within that time.
        """
        cfg = self.config
        due = time.monotonic() + cfg.latency_s
        with self._lock:
            self.stats.requests += 1
            n = self.stats.requests
            self.stats.auth_headers.append(authorization)
            fail = n <= cfg.fail_first or self._rng.random() < cfg.fail_rate
            hang = n <= cfg.hang_first
        if cfg.echo_credentials is not None:
            return cfg.echo_credentials, credentials_echo(authorization), 0.0
        if cfg.api_key and authorization != f"Bearer {cfg.api_key}":
            return 401, {"error": {"message": "bad api key"}}, 0.0
        if not path.endswith("/chat/completions"):
            return 404, {"error": "not found"}, 0.0
        if body.get("model") != cfg.model:
            return 404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}}, 0.0
        if hang:
            due += cfg.hang_s
        if fail:
            return 500 if n <= cfg.fail_first else 503, {"error": {"message": "injected failure"}}, due
        text = "" if self._asks_for_empty(body) else self.render(self.answer(body))
        if cfg.invalid_rate > 0 and text and content_draws(cfg.seed, body)[1] < cfg.invalid_rate:
            text = "I cannot tell from these clips."
        with self._lock:
            self.stats.answered += 1
        return 200, completion(n, cfg.model, text, body), due


class _Handler(JsonHandler):
    def do_GET(self) -> None:
        self.send_json(*self.server.app.get(self.path, self.headers.get("Authorization")))

    def do_POST(self) -> None:
        judge: FakeJudge = self.server.app
        body = self.read_json()
        if body is None:
            return
        logged = judge.prefix_log.arrive(body) if judge.config.log_prefixes else None
        status, payload, due = judge.post(self.path, self.headers.get("Authorization"), body)
        wait = due - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        self.send_json(status, payload)
        if logged is not None:
            judge.prefix_log.answered(logged)


class FakeJudgeServer(FakeServer):
    """`with FakeJudgeServer(FakeJudgeConfig()) as s: s.base_url` serves on 127.0.0.1."""

    def __init__(self, config: FakeJudgeConfig | None = None, port: int = 0) -> None:
        self.judge = FakeJudge(config or FakeJudgeConfig())
        super().__init__(_Handler, self.judge, port)

    @property
    def stats(self) -> FakeJudgeStats:
        return self.judge.stats


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
    ap.add_argument("--seed", type=int, default=0, help="seed of the per-request-content noise")
    ap.add_argument("--wrong-rate", type=float, default=0.0, help="share of requests answered wrongly")
    ap.add_argument("--invalid-rate", type=float, default=0.0, help="share answered with no choice")
    args = ap.parse_args()
    cfg = FakeJudgeConfig(
        model=args.model,
        latency_s=args.latency,
        memoize_audio=args.memoize_audio,
        seed=args.seed,
        wrong_rate=args.wrong_rate,
        invalid_rate=args.invalid_rate,
    )
    server = FakeJudgeServer(cfg, port=args.port)
    print(server.base_url, flush=True)
    server.http.serve_forever()


if __name__ == "__main__":
    main()
