"""What a serving engine's prefix cache could reuse of the chat requests a fake judge was sent
(tests and bench/ only).

A fake judge with a `PrefixLog` records each request body when it reads it and when it has
answered it. A request's prompt is a list of units, in order: each system or user text part
(tokens: characters / 4) and each audio part (tokens: the characters of its encoded payload,
as sent). A request *repeats* the longest run of leading units it shares, byte for byte, with a
request answered before it arrived (a server caches a prompt's blocks once it has computed
them), counted up to the end of its audio: the audio prefix, the part a sample's requests
should share. The *ideal*: every request of a sample but its first repeats its whole audio
prefix, and a sample's first repeats the text before its clips (the system prompt, the same
for every sample) unless it is the very first request. Samples are told apart by their clips (requests sending a common clip belong to one
sample), so a bench gives each sample clips of its own.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Unit:
    kind: str  # "text" | "audio"
    digest: str  # of the unit's role, kind and content
    tokens: int


@dataclass
class LoggedRequest:
    arrived: int  # tick of the log's clock when the server read the request
    units: tuple[Unit, ...]
    answered: int | None = None  # tick when it had answered

    @property
    def audio_prefix(self) -> int:
        """Units up to and including the last audio part (0: the request sends no audio)."""
        last = [i for i, u in enumerate(self.units) if u.kind == "audio"]
        return last[-1] + 1 if last else 0

    def tokens(self, n: int | None = None) -> int:
        return sum(u.tokens for u in self.units[:n])


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()


def _audio_payload(part: dict[str, Any]) -> str:
    if part.get("type") == "input_audio":
        return str(part["input_audio"]["data"])
    return str(part["audio_url"]["url"])


def prompt_units(body: dict[str, Any]) -> tuple[Unit, ...]:
    """The units of a chat request body's messages, in order."""
    out: list[Unit] = []
    for m in body.get("messages") or []:
        role = str(m.get("role"))
        content = m.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for p in parts:
            if p.get("type") == "text":
                text = str(p.get("text"))
                out.append(Unit("text", _digest(role, "text", text), max(1, len(text) // 4)))
            else:
                payload = _audio_payload(p)
                out.append(Unit("audio", _digest(role, "audio", payload), len(payload)))
    return tuple(out)


@dataclass
class PrefixLog:
    """Requests in the order a fake judge read them, with when each was answered."""

    requests: list[LoggedRequest] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    _clock: itertools.count = field(default_factory=itertools.count)  # type: ignore[type-arg]

    def arrive(self, body: dict[str, Any]) -> int:
        """Log a request as read; its index, for `answered`."""
        units = prompt_units(body)
        with self.lock:
            self.requests.append(LoggedRequest(next(self._clock), units))
            return len(self.requests) - 1

    def answered(self, index: int) -> None:
        with self.lock:
            self.requests[index].answered = next(self._clock)


def samples_of(requests: list[LoggedRequest]) -> list[int]:
    """Each request's sample (requests sending a common clip are one sample): union-find."""
    parent = list(range(len(requests)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for i, r in enumerate(requests):
        for u in r.units:
            if u.kind == "audio":
                j = owner.setdefault(u.digest, i)
                parent[root(i)] = root(j)
    return [root(i) for i in range(len(requests))]


def _prefix_keys(units: tuple[Unit, ...]) -> list[str]:
    """A key for each leading run of units (1, 2, … units)."""
    keys, h = [], ""
    for u in units:
        h = _digest(h, u.digest)
        keys.append(h)
    return keys


def prefix_share(requests: list[LoggedRequest]) -> dict[str, float]:
    """Prompt tokens, those repeating a prefix already answered, and the ideal (see above)."""
    total = sum(r.tokens() for r in requests)
    events = sorted(
        [(r.arrived, 1, i) for i, r in enumerate(requests)]
        + [(r.answered, 0, i) for i, r in enumerate(requests) if r.answered is not None]
    )  # at the same tick an answer comes first (ticks are distinct: a log's clock)
    cached: set[str] = set()
    repeated = 0
    for _, is_arrival, i in events:
        r = requests[i]
        keys = _prefix_keys(r.units[: r.audio_prefix])
        if is_arrival:
            n = max((k + 1 for k, key in enumerate(keys) if key in cached), default=0)
            repeated += r.tokens(n)
        else:
            cached.update(keys)
    sample = samples_of(requests)
    seen: set[int] = set()
    ideal = 0
    for k, i in enumerate(sorted(range(len(requests)), key=lambda i: requests[i].arrived)):
        r = requests[i]
        if sample[i] in seen:
            ideal += r.tokens(r.audio_prefix)
        elif k:  # a sample's first request: the text before its clips (the system prompt) is every sample's
            ideal += r.tokens(
                next(j for j, u in enumerate(r.units) if u.kind == "audio") if r.audio_prefix else 0
            )
        seen.add(sample[i])
    return {
        "requests": len(requests),
        "samples": len(seen),
        "prompt_tokens": total,
        "repeated": repeated / total if total else 0.0,
        "ideal": ideal / total if total else 0.0,
        "of_ideal": repeated / ideal if ideal else 0.0,
    }
