"""Keeping credentials out of everything stored or printed, detected by kind.

The kinds of credential:
- **configured secrets**: the API keys in use, registered once per process where they are read
  from the environment (`secret_from_env`) or given in code;
- **URL credentials**: the password of a URL's user-info (`http://user:PASS@host/v1`) and the
  value of a query parameter that names a credential (`?key=…`, `api_key`, `api-key`, `token`,
  `access_token`, `sig`, `signature`, `secret`, `password`, `X-Amz-Signature`, …:
  `CREDENTIAL_PARAM`); `register_url_secrets` registers them when an endpoint URL is read, so
  they are configured secrets from then on (an answer that echoes one loses it too);
- **headers and tokens**: any `Bearer <token>`, `sk-…` / `sk-proj-…` shaped token,
  `Authorization: …` header value and `api_key=…` / `"api_key": "…"` value, whoever's key it is.

`redact(text)` replaces each with `[REDACTED]`: it runs on remote text where it enters our
records (HTTP error bodies, adapter errors) and on every text printed (console errors, report
pages). `redact_known` / `redact_known_bytes` are the gate of every file a run writes (run.json,
signatures, records, summaries and exports: `store/atomic.py`, `store/jsonl.py`; the response
cache: `store/response_cache.py`; report files): the configured secrets of 8 characters or more
by one substring test each, URL user-info passwords and credential query values by pattern,
only in lines that hold a URL-like `://…@` or `?…=`/`&…=`, so successful records pay a few
substring tests.
"""

from __future__ import annotations

import json
import os
import re

REDACTED = "[REDACTED]"
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
MIN_SECRET_CHARS = 4
"""Shorter values are not treated as secrets (they would blank ordinary words of errors)."""
MIN_LINE_SECRET_CHARS = 8
"""Secrets at least this long are also cut from whole records, model answers included."""
EXCERPT_SCAN_CHARS = 65536
"""How much of a remote body is read before redacting and cutting it to an excerpt."""

_secrets: set[str] = set()
_ordered: tuple[str, ...] = ()
_line_secrets: tuple[tuple[bytes, bytes], ...] = ()
_line_texts: tuple[str, ...] = ()

_HEADER_RE = re.compile(
    r"""(?i)((?<![\w-])(?:(?:proxy-)?authorization|cookie|set-cookie|x-[\w-]*?(?:token|signature|secret)"""
    r"""|[\w-]*subscription-key)['"]?\s*[:=]\s*['"]?)[^'"\r\n,}]+"""
)
"""Header values that are credentials: Authorization, cookies, `X-…-Token` / `-Signature` /
`-Secret`, `Ocp-Apim-Subscription-Key`; `api-key` / `x-api-key` are `_API_KEY_RE`'s."""
_API_KEY_RE = re.compile(r"""(?i)(api[_\- ]?key['"]?\s*[:=]\s*['"]?)[^'"\s&,;}]+""")
_BEARER_RE = re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=\-]+")
_SK_RE = re.compile(r"(?<![A-Za-z0-9])sk-(?:proj-)?[A-Za-z0-9_\-]{8,}")
_URL_PASSWORD_RE = re.compile(r"(://[^/\s:@'\"]*:)[^/\s@'\"]+(?=@)")
_URL_PASSWORD_BYTES_RE = re.compile(_URL_PASSWORD_RE.pattern.encode("ascii"))
CREDENTIAL_PARAM = (
    r"(?:[A-Za-z0-9]+[_.\-])*"
    r"(?:key|apikey|token|sig|signature|secret|password|passwd|pwd|credential|credentials|auth)"
)
"""A query parameter's name that says it holds a credential: one of the words, alone or as the
last part of a name (`api_key`, `x-api-key`, `access_token`, `client_secret`, `X-Amz-Signature`);
`monkey` or `keyword` are not."""
_QUERY_SECRET_RE = re.compile(rf"(?i)([?&]{CREDENTIAL_PARAM}=)[^&#\s'\"<>\\]+")
_QUERY_SECRET_BYTES_RE = re.compile(_QUERY_SECRET_RE.pattern.encode("ascii"))


def _json_escaped(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)[1:-1]


def register_secret(value: str | None) -> None:
    """Make `value` (an API key in use) one of the texts `redact` always removes."""
    global _ordered, _line_secrets, _line_texts
    if not value or len(value) < MIN_SECRET_CHARS or value in _secrets:
        return
    _secrets.add(value)
    forms = {v for s in _secrets for v in (s, _json_escaped(s))}
    _ordered = tuple(sorted(forms, key=len, reverse=True))
    long_forms = [f for f in _ordered if len(f) >= MIN_LINE_SECRET_CHARS]
    _line_texts = tuple(long_forms)
    _line_secrets = tuple((f.encode("utf-8"), REDACTED.encode("ascii")) for f in long_forms)


def url_secrets(url: str) -> list[str]:
    """The credentials written in a URL: its user-info password and every credential query value
    (percent-decoded, and as written)."""
    from urllib.parse import parse_qsl, unquote, urlsplit

    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:  # not a URL (url_problem names why elsewhere)
        return []
    found = [password, unquote(password)] if password else []
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if re.fullmatch(CREDENTIAL_PARAM, name, re.IGNORECASE):
            found.append(value)
    for match in _QUERY_SECRET_RE.finditer("?" + parts.query):
        found.append(match.group(0)[len(match.group(1)) :])
    return found


def register_url_secrets(url: str) -> None:
    """Register the credentials written in an endpoint URL (`url_secrets`) as secrets."""
    for secret in url_secrets(url):
        register_secret(secret)


def secret_from_env(name: str) -> str | None:
    """The API key in environment variable `name` (None when unset or empty), registered as a
    secret; the default key variable (`OPENAI_API_KEY`) is registered alongside."""
    register_secret(os.environ.get(DEFAULT_KEY_ENV))
    value = os.environ.get(name) or None
    register_secret(value)
    return value


def redact(text: str) -> str:
    """`text` with every registered secret and every key-shaped token replaced."""
    for secret in _ordered:
        if secret in text:
            text = text.replace(secret, REDACTED)
    text = _HEADER_RE.sub(lambda m: m.group(1) + REDACTED, text)
    text = _API_KEY_RE.sub(lambda m: m.group(1) + REDACTED, text)
    text = _BEARER_RE.sub(lambda m: m.group(1) + REDACTED, text)
    text = _url_credentials(text)
    return _SK_RE.sub(REDACTED, text)


def _url_credentials(text: str) -> str:
    """URL user-info passwords and credential query values, by pattern (in texts that can hold one)."""
    if "://" in text and "@" in text:
        text = _URL_PASSWORD_RE.sub(lambda m: m.group(1) + REDACTED, text)
    if "=" in text and ("?" in text or "&" in text):
        text = _QUERY_SECRET_RE.sub(lambda m: m.group(1) + REDACTED, text)
    return text


def redact_optional(text: str | None) -> str | None:
    return None if text is None else redact(text)


def excerpt(raw: bytes | str, limit: int) -> str:
    """The first `limit` characters of a remote text, redacted before it is cut (so a cut
    never leaves part of a secret behind)."""
    if isinstance(raw, bytes):
        raw = raw[: EXCERPT_SCAN_CHARS * 4].decode("utf-8", "replace")
    return redact(raw[:EXCERPT_SCAN_CHARS])[:limit]


def redact_known(text: str) -> str:
    """`text` without the registered secrets (long enough to never be ordinary text) and without
    URL credentials: the gate of every file written."""
    for secret in _line_texts:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return _url_credentials(text)


_MARK = REDACTED.encode("ascii")


def redact_known_bytes(line: bytes) -> bytes:
    """`redact_known` on UTF-8 bytes: one substring test per registered secret."""
    for secret, mark in _line_secrets:
        if secret in line:
            line = line.replace(secret, mark)
    if b"://" in line and b"@" in line:
        line = _URL_PASSWORD_BYTES_RE.sub(lambda m: m.group(1) + _MARK, line)
    if b"=" in line and (b"?" in line or b"&" in line):
        line = _QUERY_SECRET_BYTES_RE.sub(lambda m: m.group(1) + _MARK, line)
    return line
