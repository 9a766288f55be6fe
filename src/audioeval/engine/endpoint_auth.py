"""How one endpoint is authenticated: an API key as a bearer token, or the user and password
written in its URL (`http://user:PASS@host/v1`, a proxy's basic auth), or a key in its URL's
query (`http://host/v1?key=KEY`, kept after every request's path: `request_url`).

Both travel in the one `Authorization` header, so they cannot be sent together: credentials
written into an endpoint's URL are that endpoint's own and win over the run-wide API key. The
URL is then used without them, so the password is never part of a URL that is logged or stored
(and `core.redact` cuts it from any text that still carries it, as it cuts a query's key).
"""

from __future__ import annotations

import base64
from urllib.parse import unquote, urlsplit, urlunsplit


def endpoint_auth(url: str, api_key: str | None, key_header: str = "Authorization") -> tuple[str, dict[str, str]]:
    """(the URL without user-info, the Authorization header to send to it). With another
    `key_header` (Azure OpenAI's `api-key`), the bare key goes in that header instead."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        if key_header != "Authorization":
            return url, ({key_header: api_key} if api_key else {})
        return url, ({"Authorization": f"Bearer {api_key}"} if api_key else {})
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port is not None else host
    clean = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    pair = f"{unquote(parts.username or '')}:{unquote(parts.password or '')}".encode()
    return clean, {"Authorization": "Basic " + base64.b64encode(pair).decode("ascii")}


def request_url(base_url: str, path: str, query: str = "") -> str:
    """The URL of a request to `path` under `base_url`: the base's own query (a key written in
    the URL) after the path, then `query` (`?api-version=…`)."""
    base, _, own = base_url.partition("?")
    extra = query[1:] if query.startswith("?") else query
    joined = "&".join(q for q in (own, extra) if q)
    return f"{base}{path}?{joined}" if joined else base + path
