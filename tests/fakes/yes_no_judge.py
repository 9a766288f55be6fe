"""A fake OpenAI-compatible yes/no audio judge with logprobs, on 127.0.0.1 (tests only).

It is not a model. It decodes the audio part of every request and answers rubric items of
the form "... a steady tone near F Hz ..." by measuring the clip's spectrum (a negated item,
"... no steady tone near F Hz ...", is answered the other way). Its answers follow vLLM's
chat completions: with `logprobs: true` and `top_logprobs: k` the first token's top
logprobs come in `choices[0].logprobs.content[0].top_logprobs`, as `[{token, logprob,
bytes}]`; with `max_tokens: 1` the content is that one token. Modes for the faults a client
must survive: no logprobs at all (a server started without them), only one side listed,
neither side listed, a noisy judge (a share of items answered wrongly, deterministically
per item), and JSON array answers for all-at-once requests (optionally broken first, or
missing their last item).

It counts the distinct audio payloads it was sent and, like vLLM's automatic prefix cache,
keeps the last `prefix_cache` request prefixes (system prompt and audio part, the part every
item of a clip shares) in an LRU: a request whose prefix is there is a prefix hit, one whose
audio a real server would not encode again.
"""

from __future__ import annotations

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

from tests.fakes.judge_server import tone_present
from tests.fakes.openai_http import FakeServer, JsonHandler, completion, decode_audio_part
from tests.fakes.prefix_log import PrefixLog

TONE_RE = re.compile(r"(no )?steady tone near (\d+(?:\.\d+)?) Hz")
NUMBERED_RE = re.compile(r"^(\d+)\. (.*)$", re.M)


@dataclass
class YesNoJudgeConfig:
    model: str = "AnyAudio-Judge-7B"
    logprobs: str = "both"  # both | none (never sends logprobs) | one_side | neither
    noise: float = 0.0  # share of items answered wrongly (deterministic per audio and item)
    confidence: float = 3.0  # logprob gap between the answer and the other side
    broken_all_at_once_first: int = 0  # the first N all-at-once answers are not valid JSON
    drop_last_all_at_once: bool = False  # all-at-once answers leave out the last item
    all_at_once_text: str | None = None  # every all-at-once answer is this text (e.g. no JSON)
    prefix_cache: int = 0  # request prefixes (system + audio) kept, LRU; 0: none
    seed: int = 0
    bad_logprobs_every: int = 0  # every Nth request (1-based count) sends `bad_logprob` logprobs
    bad_logprob: float = float("nan")  # NaN, inf or an impossible positive logprob (+5)
    stall_when: str = ""  # requests whose text matches this (a regex) are answered after `stall_seconds`
    stall_seconds: float = 0.0
    latency_s: float = 0.0  # every answer this long after the request was read
    log_prefixes: bool = False  # keep each request's prompt units and when it was answered (`prefix_log.py`)


@dataclass
class YesNoJudgeStats:
    requests: int = 0
    logprob_requests: int = 0
    sampled_requests: int = 0
    all_at_once_requests: int = 0
    audio_sha256: list[str] = field(default_factory=list)  # of each request, in arrival order
    prefix_hits: int = 0  # requests whose prefix (system + audio) was in the LRU

    @property
    def distinct_audio(self) -> int:
        return len(set(self.audio_sha256))


class YesNoJudge:
    served_models: list[str]

    def __init__(self, config: YesNoJudgeConfig) -> None:
        self.config = config
        self.served_models = [config.model]
        self.stats = YesNoJudgeStats()
        self._lock = threading.Lock()
        self._rng = random.Random(config.seed)
        self._broken = 0
        self._prefixes: OrderedDict[str, None] = OrderedDict()
        self.prefix_log = PrefixLog()

    def _prefix_seen(self, system: str, audio_sha: str) -> bool:
        """Whether the request's prefix is in the LRU of `prefix_cache` prefixes (then kept)."""
        if self.config.prefix_cache <= 0:
            return False
        key = hashlib.sha256(f"{system}|{audio_sha}".encode()).hexdigest()
        hit = key in self._prefixes
        self._prefixes[key] = None
        self._prefixes.move_to_end(key)
        while len(self._prefixes) > self.config.prefix_cache:
            self._prefixes.popitem(last=False)
        return hit

    def _truth(self, samples: np.ndarray, rate: int, item: str, audio_sha: str) -> bool:
        m = TONE_RE.search(item)
        if m is None:
            truth = False  # an item it cannot hear: "no", as the prompt asks
        else:
            present = tone_present(samples, rate, float(m.group(2)))
            truth = (not present) if m.group(1) else present
        if self.config.noise:
            h = hashlib.sha256(f"{self.config.seed}|{audio_sha}|{item}".encode()).digest()
            if h[0] / 256 < self.config.noise:
                truth = not truth
        return truth

    def _top(self, yes: bool) -> list[dict[str, Any]]:
        gap = self.config.confidence
        lp_yes, lp_no = (-0.05, -0.05 - gap) if yes else (-0.05 - gap, -0.05)
        entries = [("Yes", lp_yes), ("No", lp_no), (" yes", lp_yes - 2.5), ("The", -6.0), ("I", -7.5)]
        mode = self.config.logprobs
        if mode == "one_side":
            entries = [e for e in entries if e[0].strip().lower() != ("no" if yes else "yes")]
        elif mode == "neither":
            entries = [("The", -0.3), ("I", -1.5), ("Sure", -2.0)]
        entries.sort(key=lambda e: -e[1])
        return [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in entries]

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        user = [m for m in body["messages"] if m["role"] == "user"][-1]
        audio = [p for p in user["content"] if p["type"] != "text"]
        text = "".join(p["text"] for p in user["content"] if p["type"] == "text")
        assert len(audio) == 1 and user["content"][0]["type"] != "text", "the audio part comes first"
        _, data = decode_audio_part(audio[0])
        sha = hashlib.sha256(data).hexdigest()
        samples, rate = sf.read(io.BytesIO(data), dtype="float32")
        system = "".join(str(m["content"]) for m in body["messages"] if m["role"] == "system")
        if self.config.stall_when and re.search(self.config.stall_when, text):
            time.sleep(self.config.stall_seconds)
        with self._lock:
            self.stats.requests += 1
            n = self.stats.requests
            self.stats.audio_sha256.append(sha)
            self.stats.prefix_hits += self._prefix_seen(system, sha)
        if text.startswith("Questions:"):  # all at once
            with self._lock:
                self.stats.all_at_once_requests += 1
                broken = self._broken < self.config.broken_all_at_once_first
                self._broken += broken
            if broken:
                return completion(n, self.config.model, '[{"id": 1, "answer": "yes", "evidence": "cut off')
            if self.config.all_at_once_text is not None:
                return completion(n, self.config.model, self.config.all_at_once_text)
            items = NUMBERED_RE.findall(text)
            verdicts = [
                {
                    "id": int(i),
                    "answer": "yes" if self._truth(samples, rate, q, sha) else "no",
                    "evidence": "heard",
                }
                for i, q in items
            ]
            if self.config.drop_last_all_at_once:
                verdicts = verdicts[:-1]
            return completion(n, self.config.model, "```json\n" + json.dumps(verdicts) + "\n```")
        yes = self._truth(samples, rate, text, sha)
        if body.get("logprobs"):
            with self._lock:
                self.stats.logprob_requests += 1
            top = self._top(yes)
            reply = completion(
                n, self.config.model, top[0]["token"] if body.get("max_tokens") == 1 else "Yes"
            )
            every = self.config.bad_logprobs_every
            if every and n % every == 0:
                top = [{**e, "logprob": self.config.bad_logprob} for e in top]
            if self.config.logprobs != "none":
                first = {**top[0], "top_logprobs": top[: int(body.get("top_logprobs") or 0)]}
                reply["choices"][0]["logprobs"] = {"content": [first]}
            return reply
        with self._lock:
            self.stats.sampled_requests += 1
            flip = self._rng.random() < 0.2
        return completion(n, self.config.model, "yes" if yes != flip else "no")


class _Handler(JsonHandler):
    def do_POST(self) -> None:
        judge: YesNoJudge = self.server.app
        body = self.read_json()
        if body is None:
            return
        if not self.path.endswith("/chat/completions"):
            self.send_json(404, {"error": {"message": "not found"}})
        elif body.get("model") != judge.config.model:
            self.send_json(404, {"error": {"message": f"The model `{body.get('model')}` does not exist."}})
        else:
            logged = judge.prefix_log.arrive(body) if judge.config.log_prefixes else None
            due = time.monotonic() + judge.config.latency_s
            reply = judge.answer(body)
            if due > time.monotonic():
                time.sleep(due - time.monotonic())
            self.send_json(200, reply)
            if logged is not None:
                judge.prefix_log.answered(logged)


class YesNoJudgeServer(FakeServer):
    """`with YesNoJudgeServer(YesNoJudgeConfig()) as s: s.base_url` serves on 127.0.0.1."""

    def __init__(self, config: YesNoJudgeConfig | None = None) -> None:
        self.judge = YesNoJudge(config or YesNoJudgeConfig())
        super().__init__(_Handler, self.judge)

    @property
    def stats(self) -> YesNoJudgeStats:
        return self.judge.stats
