"""Least-outstanding-requests balancing over several endpoints, with failover.

An endpoint that fails (transport error, 5xx, timeout) is taken out for a cool-down that
doubles with each consecutive failure, then tried again; one success puts it back. When
every endpoint is cooling down, the one due first is tried, so a run never stalls.
"""

from __future__ import annotations

import time
from dataclasses import dataclass


@dataclass
class Endpoint:
    url: str
    outstanding: int = 0
    consecutive_failures: int = 0
    down_until: float = 0.0
    requests: int = 0
    failures: int = 0

    def stats(self) -> dict[str, object]:
        return {
            "url": self.url,
            "requests": self.requests,
            "failures": self.failures,
            "down": self.down_until > time.monotonic(),
        }


class EndpointPool:
    def __init__(self, urls: list[str], *, cooldown_s: float = 2.0, max_cooldown_s: float = 60.0) -> None:
        if not urls:
            raise ValueError("at least one endpoint URL is needed")
        self.endpoints = [Endpoint(u.rstrip("/")) for u in urls]
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

    def release(self, ep: Endpoint, *, failed: bool) -> None:
        ep.outstanding -= 1
        if not failed:
            ep.consecutive_failures = 0
            ep.down_until = 0.0
            return
        ep.failures += 1
        ep.consecutive_failures += 1
        delay = min(self.max_cooldown_s, self.cooldown_s * 2 ** (ep.consecutive_failures - 1))
        ep.down_until = time.monotonic() + delay
