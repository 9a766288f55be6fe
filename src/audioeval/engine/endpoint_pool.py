"""Least-outstanding-requests balancing over several endpoints, with failover.

An endpoint that fails (transport error, 5xx, timeout) is taken out for a cool-down that
doubles with each consecutive failure, then tried again; one success puts it back. When
every endpoint is cooling down, the one due first is tried, so a run never stalls.

The pool also remembers since when each endpoint has failed *by connection* only (refused,
reset, unresolvable) with no answer in between: `unreachable_for()` is how long every endpoint
has been in that state, which the client turns into a stop (`EndpointsUnreachable`) instead of
retrying a dead server for the whole request timeout.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TypedDict

from audioeval.engine.endpoint_auth import endpoint_auth


class EndpointStats(TypedDict):
    """One endpoint's requests and failures, as a run's summary lists them."""

    url: str
    requests: int
    failures: int
    down: bool


@dataclass
class Endpoint:
    url: str  # without user-info: what records and messages name
    headers: dict[str, str] = field(default_factory=dict)  # its Authorization (endpoint_auth.py)
    outstanding: int = 0
    consecutive_failures: int = 0
    down_until: float = 0.0
    requests: int = 0
    failures: int = 0
    unreachable_since: float | None = None  # first connection failure with no answer since
    last_error: str = ""

    def stats(self) -> EndpointStats:
        return {
            "url": self.url,
            "requests": self.requests,
            "failures": self.failures,
            "down": self.down_until > time.monotonic(),
        }


class EndpointPool:
    def __init__(
        self,
        urls: list[str],
        *,
        cooldown_s: float = 2.0,
        max_cooldown_s: float = 60.0,
        api_key: str | None = None,
        key_header: str = "Authorization",
    ) -> None:
        if not urls:
            raise ValueError("at least one endpoint URL is needed")
        self.endpoints = [Endpoint(*endpoint_auth(u.rstrip("/"), api_key, key_header)) for u in urls]
        self.cooldown_s = cooldown_s
        self.max_cooldown_s = max_cooldown_s
        self._turn = 0

    def acquire(self) -> Endpoint:
        now = time.monotonic()
        healthy = [e for e in self.endpoints if e.down_until <= now]
        if healthy:
            least = min(e.outstanding for e in healthy)
            tied = [e for e in healthy if e.outstanding == least]
            self._turn = (self._turn + 1) % len(tied)
            ep = tied[self._turn]
        else:
            ep = min(self.endpoints, key=lambda e: e.down_until)
        ep.outstanding += 1
        ep.requests += 1
        return ep

    def release(self, ep: Endpoint, *, failed: bool, unreachable: bool = False, error: str = "") -> None:
        """Return an endpoint after a try: `failed` cools it down; `unreachable` says the try
        failed by connection (no answer at all), any answer clears that state."""
        ep.outstanding -= 1
        if unreachable:
            if ep.unreachable_since is None:
                ep.unreachable_since = time.monotonic()
            ep.last_error = error
        else:
            ep.unreachable_since = None
        if not failed:
            ep.consecutive_failures = 0
            ep.down_until = 0.0
            return
        ep.failures += 1
        ep.consecutive_failures += 1
        delay = min(self.max_cooldown_s, self.cooldown_s * 2 ** (ep.consecutive_failures - 1))
        ep.down_until = time.monotonic() + delay

    def unreachable_for(self) -> float:
        """Seconds for which every endpoint has failed by connection only (0: one answers)."""
        now = time.monotonic()
        since = [e.unreachable_since for e in self.endpoints]
        if any(s is None for s in since):
            return 0.0
        return now - max(s for s in since if s is not None)

    def unreachable_reasons(self) -> str:
        return "; ".join(f"{e.url}: {e.last_error or 'no answer'}" for e in self.endpoints)
