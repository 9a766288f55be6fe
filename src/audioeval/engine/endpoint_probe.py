"""One check of each endpoint before a run, so a wrong URL, key or model name fails in
seconds instead of after every retry of every sample.

The rule (docs/reliability.md, "Endpoint checks before a run"):
1. `GET {base}/models` with the API key, within `PROBE_TIMEOUT_S`.
   - refused, unknown host, no answer in time: unusable;
   - 401/403: unusable (unauthorised);
   - 200 with a JSON list of models: usable, unless the requested model is not among them
     (then unusable, naming the served ones); 200 with anything but JSON (an HTML page):
     unusable, not an OpenAI-compatible API;
   - any other status (servers without `/models`): step 2.
2. `POST {base}{api_path}` with the body `{}`, which a real API refuses as invalid (400/422)
   without generating anything: 404 or 405 says there is no such API at this base URL
   (unusable); 401/403 unauthorised; an HTML answer is not an API; anything else: usable.

The run proceeds with the usable endpoints (a warning names the others, left out of the run);
when none is usable, `EndpointUnusable` gives each endpoint's reason. The API key is sent as
a bearer token and never appears in a message.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import aiohttp

from audioeval.core.errors import EndpointUnusable
from audioeval.core.redact import excerpt, register_secret
from audioeval.engine.endpoint_auth import endpoint_auth, request_url
from audioeval.store.bounded_json import loads

PROBE_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class EndpointCheck:
    url: str
    problem: str | None  # None: usable

    @property
    def usable(self) -> bool:
        return self.problem is None


@dataclass(frozen=True, slots=True)
class _Answer:
    status: int
    body: bytes
    html: bool


def _warn_stderr(message: str) -> None:
    print(f"warning: {message}", file=sys.stderr, flush=True)


def _served_models(body: bytes) -> list[str] | None:
    """The model ids of a `/models` answer; None when the body is not such a JSON object."""
    try:
        data = loads(body, nesting=None)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    entries = data.get("data")
    if not isinstance(entries, list):
        return []
    return [str(e["id"]) for e in entries if isinstance(e, dict) and "id" in e]


class _Prober:
    def __init__(
        self,
        session: aiohttp.ClientSession,
        api_key: str | None,
        key_env: str,
        key_header: str = "Authorization",
        query: str = "",
    ) -> None:
        self.session = session
        self.api_key = api_key
        self.key_header = key_header
        self.query = query
        register_secret(api_key)  # an answer echoing it is redacted (core/redact.excerpt)
        self.key_env = key_env

    async def _send(self, method: str, url: str, path: str) -> _Answer:
        body = b"{}" if method == "POST" else None
        url, auth = endpoint_auth(request_url(url, path, self.query), self.api_key, self.key_header)
        headers = {**auth, "Content-Type": "application/json"} if body else auth
        async with self.session.request(method, url, data=body, headers=headers) as resp:
            raw = await resp.read()
            html = "html" in resp.headers.get("Content-Type", "").lower() or raw.lstrip()[:1] == b"<"
            return _Answer(resp.status, raw, html)

    def _unauthorised(self, answer: _Answer) -> str:
        if self.api_key:
            return f"unauthorised (HTTP {answer.status}): the API key in ${self.key_env} was refused"
        return f"unauthorised (HTTP {answer.status}): set {self.key_env} (or --api-key-env NAME)"

    async def check(self, url: str, model: str | None, api_path: str) -> EndpointCheck:
        try:
            problem = await self._check(url.rstrip("/"), model, api_path)
        except TimeoutError:
            problem = f"no answer within {PROBE_TIMEOUT_S:g}s"
        except aiohttp.ClientError as exc:
            problem = f"cannot connect ({type(exc).__name__}: {exc})"
        if problem and self.api_key:
            problem = problem.replace(self.api_key, "[redacted]")
        return EndpointCheck(url, problem)

    async def _check(self, url: str, model: str | None, api_path: str) -> str | None:
        listing = await self._send("GET", url, "/models")
        if listing.status in (401, 403):
            return self._unauthorised(listing)
        if listing.status == 200:
            served = _served_models(listing.body)
            if served is None:
                kind = "an HTML page" if listing.html else f"{excerpt(listing.body, 200).strip()!r}"
                return f"not an OpenAI-compatible API: GET /models answered {kind} (a base URL ends in /v1)"
            # Gemini's OpenAI-compatible API lists its models as `models/NAME`.
            if model and served and model not in served and f"models/{model}" not in served:
                return f"model {model!r} is not served here; served: {', '.join(served[:20])}"
            return None
        route = await self._send("POST", url, api_path)
        if route.status in (401, 403):
            return self._unauthorised(route)
        if route.status in (404, 405) or route.html:
            return (
                f"no OpenAI-compatible API here: GET /models answered HTTP {listing.status}, "
                f"POST {api_path} HTTP {route.status} (a base URL usually ends in /v1)"
            )
        return None


async def check_endpoints(
    urls: list[str],
    *,
    role: str,
    model: str | None,
    api_key: str | None,
    api_key_env: str = "OPENAI_API_KEY",
    api_path: str = "/chat/completions",
    warn: Callable[[str], None] = _warn_stderr,
    key_header: str = "Authorization",
    query: str = "",
) -> list[str]:
    """The endpoints of `urls` that answer the check; warns about the others. Raises
    `EndpointUnusable`, naming each endpoint's reason, when none does."""
    timeout = aiohttp.ClientTimeout(total=PROBE_TIMEOUT_S)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        prober = _Prober(session, api_key, api_key_env, key_header, query)
        checks = await asyncio.gather(*(prober.check(u, model, api_path) for u in urls))
    return keep_usable(checks, role, warn)


def keep_usable(
    checks: Sequence[EndpointCheck], role: str, warn: Callable[[str], None] = _warn_stderr
) -> list[str]:
    """The usable endpoints of `checks`, warning about the others; `EndpointUnusable`, naming
    each endpoint's reason, when none is usable (every check of an endpoint ends here)."""
    bad = [c for c in checks if not c.usable]
    if len(bad) == len(checks):
        reasons = "; ".join(f"{c.url}: {c.problem}" for c in bad)
        raise EndpointUnusable(f"{role}: no usable endpoint ({reasons}); nothing was evaluated")
    for c in bad:
        warn(f"{role}: {c.url} left out of this run: {c.problem}")
    return [c.url for c in checks if c.usable]
