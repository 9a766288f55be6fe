"""Keeping API keys out of everything stored or printed.

`redact(text)` replaces, with `[REDACTED]`:
- every registered secret: the API keys in use, registered once per process where they are
  read from the environment (`secret_from_env`);
- any `Bearer <token>`, `sk-…` / `sk-proj-…` shaped token, `Authorization: …` header value and
  `api_key=…` / `"api_key": "…"` value, whoever's key it is;
- the password of a URL's user-info (`http://user:PASS@host/v1` → `http://user:[REDACTED]@host/v1`),
  in every text and, through `redact_known`, in every line a run writes (run.json, records).

It runs on remote text where it enters our records (HTTP error bodies, adapter errors) and on
failure texts before they are printed. The writers of run files apply `redact_known_bytes`
/ `redact_known` to whole lines: a substring test per registered secret, cheap enough for
every record, with no pattern matching on successful records.
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

_HEADER_RE = re.compile(r"""(?i)((?:proxy-)?authorization['"]?\s*[:=]\s*['"]?)[^'"\r\n,}]+""")
_API_KEY_RE = re.compile(r"""(?i)(api[_\- ]?key['"]?\s*[:=]\s*['"]?)[^'"\s&,;}]+""")
_BEARER_RE = re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=\-]+")
_SK_RE = re.compile(r"(?<![A-Za-z0-9])sk-(?:proj-)?[A-Za-z0-9_\-]{8,}")
_URL_PASSWORD_RE = re.compile(r"(://[^/\s:@'\"]*:)[^/\s@'\"]+(?=@)")
_URL_PASSWORD_BYTES_RE = re.compile(_URL_PASSWORD_RE.pattern.encode("ascii"))


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
    text = _url_passwords(text)
    return _SK_RE.sub(REDACTED, text)


def _url_passwords(text: str) -> str:
    if "://" in text and "@" in text:
        return _URL_PASSWORD_RE.sub(lambda m: m.group(1) + REDACTED, text)
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
    """`text` without the registered secrets (long enough to never be ordinary text)."""
    for secret in _line_texts:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return _url_passwords(text)


def redact_known_bytes(line: bytes) -> bytes:
    """`redact_known` on UTF-8 bytes: one substring test per registered secret."""
    for secret, mark in _line_secrets:
        if secret in line:
            line = line.replace(secret, mark)
    if b"://" in line and b"@" in line:
        line = _URL_PASSWORD_BYTES_RE.sub(lambda m: m.group(1) + REDACTED.encode("ascii"), line)
    return line
