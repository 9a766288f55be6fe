"""A fake OpenAI-compatible server for MCQ tests: an audio "model" and a text rubric judge.

It is not a model. As the audio model it decodes the audio part it is sent (vLLM
`audio_url` data URI or OpenAI `input_audio`), measures the clip's dominant frequency and
picks the choice naming the nearest "<N> Hz", answering in a configurable style. As the
judge (a request without audio whose prompt has a "## Rubric" section) it returns one JSON
score per rubric item: the n-th call with the same prompt gives `judge_pattern[n]` points.
Faults can be injected: 500s on the first requests, garbage judge answers, error answers
that echo the API key, and wrong answers to a `wrong_rate` share of clips (deterministic per
clip, drawn from a hash of its bytes).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
import time
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

HZ_RE = re.compile(r"(\d+(?:\.\d+)?)\s*Hz")
LETTERED_RE = re.compile(r"^\(([A-Z])\) (.*)$", re.M)
RUBRIC_NAME_RE = re.compile(r"^\d+\. (.*)$", re.M)


@dataclass
class FakeMcqConfig:
    model: str = "fake-audio-lm"
    judge_model: str = "fake-judge"
    answer_style: str = "text"  # text | letter | reasoning | think | wrong | empty
    fail_first: int = 0  # the first N requests answer 500
    judge_pattern: tuple[int, ...] = (5, 4, 3, 2, 1)  # points given by the n-th identical call
    judge_garbage_first: int = 0  # the first N judge requests get a non-JSON answer
    latency_s: float = 0.0  # each answer waits this long (for kill/resume tests)
    echo_credentials: int | None = None  # answer every request with this status, echoing the key
    wrong_rate: float = 0.0  # share of clips answered wrongly, drawn from a hash of the clip's bytes
    echo_query: bool = False  # answers (200) repeat the request's URL query, a key in it included


@dataclass
class FakeMcqStats:
    requests: int = 0
    audio_requests: int = 0
    judge_requests: int = 0
    part_types: dict[str, int] = field(default_factory=dict)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    systems: list[str | None] = field(default_factory=list)  # each request's system message text
    queries: list[str] = field(default_factory=list)  # each request's URL query


def dominant_hz(samples: np.ndarray, rate: int) -> float:
    spec = np.abs(np.fft.rfft(samples * np.hanning(samples.size)))
    return float(np.fft.rfftfreq(samples.size, 1.0 / rate)[int(np.argmax(spec))])


class FakeMcq:
    def __init__(self, config: FakeMcqConfig) -> None:
        self.config = config
        self.stats = FakeMcqStats()
        self.lock = threading.Lock()
        self._judge_calls: dict[str, int] = {}

    @property
    def served_models(self) -> list[str]:
        return [self.config.model, self.config.judge_model]

    def answer(self, body: dict[str, Any]) -> str:
        user = [m for m in body["messages"] if m["role"] == "user"][-1]
        parts = (
            user["content"]
            if isinstance(user["content"], list)
            else [{"type": "text", "text": user["content"]}]
        )
        texts = [p["text"] for p in parts if p["type"] == "text"]
        audio = [p for p in parts if p["type"] != "text"]
        if not audio:
            return self._judge("".join(texts))
        kind, data = decode_audio_part(audio[0])
        samples, rate = sf.read(io.BytesIO(data), dtype="float32")
        with self.lock:
            self.stats.audio_requests += 1
            self.stats.part_types[kind] = self.stats.part_types.get(kind, 0) + 1
        wrong = int.from_bytes(hashlib.sha256(data).digest()[:8], "big") / 2**64 < self.config.wrong_rate
        return self._choose("".join(texts), dominant_hz(samples, rate), wrong)

    def _choose(self, prompt: str, hz: float, wrong: bool = False) -> str:
        lettered = LETTERED_RE.findall(prompt)
        if lettered:
            choices = [text for _, text in lettered]
        else:
            block = prompt.split("Select one option from the provided choices:\n", 1)[1]
            choices = [c for c in block.split("\n") if c.strip()]
        dist = [abs(float(m.group(1)) - hz) if (m := HZ_RE.search(c)) else 1e9 for c in choices]
        best = int(np.argmin(dist))
        other = (best + 1) % len(choices)
        letter, style = "ABCDEFGH"[best], self.config.answer_style
        if style == "letter":
            return f"({letter})"
        if style == "reasoning":
            return f"The clip could be {choices[other]}, but the pitch is steady.\nAnswer: {letter}"
        if style == "think":
            return f"<think>Not {choices[other]}.</think>{choices[best]}"
        if style == "wrong" or wrong:
            return choices[other]
        if style == "empty":
            return ""
        return choices[best]

    def _judge(self, prompt: str) -> str:
        rubric = prompt.split("## Rubric", 1)[1].split("## Required output", 1)[0]
        names = RUBRIC_NAME_RE.findall(rubric)
        key = hashlib.sha256(prompt.encode()).hexdigest()
        with self.lock:
            self.stats.judge_requests += 1
            n_judge = self.stats.judge_requests
            nth = self._judge_calls.get(key, 0)
            self._judge_calls[key] = nth + 1
        if n_judge <= self.config.judge_garbage_first:
            return "I would rather not say."
        points = self.config.judge_pattern[nth % len(self.config.judge_pattern)]
        scores = [
            {"name": n, "score": int(i < points), "justification": "checked"} for i, n in enumerate(names)
        ]
        return "```json\n" + json.dumps(scores) + "\n```"


def _system_text(messages: Any) -> str | None:
    first = messages[0] if isinstance(messages, list) and messages else None
    if not isinstance(first, dict) or first.get("role") != "system":
        return None
    content = first.get("content")
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


class _Handler(JsonHandler):
    def do_POST(self) -> None:
        fake: FakeMcq = self.server.app
        path, _, query = self.path.partition("?")
        body = self.read_json()
        if body is None:
            return
        with fake.lock:
            fake.stats.requests += 1
            n = fake.stats.requests
            fake.stats.bodies.append({k: v for k, v in body.items() if k != "messages"})
            fake.stats.systems.append(_system_text(body.get("messages")))
            fake.stats.queries.append(query)
        if fake.config.echo_credentials is not None:
            self.send_json(fake.config.echo_credentials, credentials_echo(self.headers.get("Authorization")))
            return
        if not path.endswith("/chat/completions"):
            self.send_json(404, {"error": "not found"})
            return
        if body.get("model") not in (fake.config.model, fake.config.judge_model):
            self.send_json(404, {"error": {"message": f"model {body.get('model')} does not exist"}})
            return
        if n <= fake.config.fail_first:
            self.send_json(500, {"error": {"message": "injected failure"}})
            return
        if fake.config.latency_s:
            time.sleep(fake.config.latency_s)
        answer = fake.answer(body)
        if fake.config.echo_query:
            key = query.partition("key=")[2].split("&")[0]
            answer += f"\n(asked at {self.path}; my key: {key})"
        self.send_json(200, completion(n, body["model"], answer, body))


class FakeMcqServer(FakeServer):
    """`with FakeMcqServer(FakeMcqConfig()) as s: s.base_url` serves on 127.0.0.1.

    `python -m tests.fakes.mcq_server --latency 0.2` serves until killed (prints its URL).
    """

    def __init__(self, config: FakeMcqConfig | None = None, port: int = 0) -> None:
        self.fake = FakeMcq(config or FakeMcqConfig())
        super().__init__(_Handler, self.fake, port)

    @property
    def stats(self) -> FakeMcqStats:
        return self.fake.stats


def tone_wav(path: Any, hz: float, *, seconds: float = 0.5, rate: int = 16000) -> None:
    """Write a sine tone as a 16-bit WAV file."""
    t = np.arange(int(seconds * rate)) / rate
    sf.write(str(path), (0.5 * np.sin(2 * np.pi * hz * t)).astype(np.float32), rate, subtype="PCM_16")


FREQS = (220, 440, 660, 880)


def rubric(i: int) -> list[dict[str, Any]]:
    return [
        {
            "name": f"Point {k} of item {i}",
            "scoring_point": f"Award 1 point if point {k}.",
            "note": "unused",
            "choices": [0, 1],
        }
        for k in range(5)
    ]


def write_tone_set(root: Any, n: int = 8) -> list[dict[str, Any]]:
    """A small MMAR-format set of tone questions: audio/<id>.wav and MMAR-meta.jsonl."""
    from pathlib import Path

    root = Path(root)
    (root / "audio").mkdir(parents=True, exist_ok=True)
    items = []
    for i in range(n):
        hz = FREQS[i % len(FREQS)]
        sid = f"tone{i:02d}"
        tone_wav(root / "audio" / f"{sid}.wav", hz, seconds=0.5 + 0.01 * i)  # all distinct
        choices = [f"{f} Hz" for f in FREQS[i % 4 :] + FREQS[: i % 4]]
        items.append(
            {
                "id": sid,
                "audio_path": f"./audio/{sid}.wav",
                "question": "Which tone frequency is heard?",
                "choices": choices,
                "answer": f"{hz} Hz",
                "modality": ("sound", "music")[i % 2],
                "category": "Signal Layer",
                "sub-category": ("Pitch", "Counting")[i % 2],
                "thinking": f"The steady tone sits at {hz} Hz.",
                "cue": ["pitch"],
                "rubric": rubric(i),
            }
        )
    (root / "MMAR-meta.jsonl").write_text("".join(json.dumps(x) + "\n" for x in items))
    return items


if __name__ == "__main__":  # pragma: no cover - used by subprocess tests
    import argparse
    import sys

    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=0.0)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--wrong-rate", type=float, default=0.0, help="share of clips answered wrongly")
    args = ap.parse_args()
    config = FakeMcqConfig(latency_s=args.latency, wrong_rate=args.wrong_rate)
    server = FakeMcqServer(config, port=args.port).start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()
        sys.exit(0)
