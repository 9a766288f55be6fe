"""Checks of settings given on the command line or in a config, before anything runs.

Each returns why a value is unusable, or None; callers turn the reason into a one-line
error that names the flag or config key (exit code 2).
"""

from __future__ import annotations

import math
from urllib.parse import urlsplit

from audioeval.core.redact import register_url_secrets


def url_problem(url: str) -> str | None:
    """Why `url` is not an http(s) endpoint base URL such as http://host:8000/v1, or None.

    Every endpoint URL (a model's, the judge's, a flag's) is read through this check; one that
    passes has the credentials written in it (user-info password, `?key=…`) registered as
    secrets (`core/redact.register_url_secrets`), so no file or console line holds them."""
    text = url.strip()
    if not text:
        return "empty URL"
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https"):
        return f"expected http://host:port/v1 or https://…, got {url!r} (no http:// or https://)"
    if not parts.hostname:
        return f"no host in {url!r}"
    try:
        parts.port  # noqa: B018 - raises ValueError on a malformed port
    except ValueError:
        return f"malformed port in {url!r}"
    register_url_secrets(text)
    return None


def number_problem(
    value: float | None, *, minimum: float = 0.0, inclusive: bool = True, maximum: float | None = None
) -> str | None:
    """Why `value` is not a finite number ≥ `minimum` (> with `inclusive=False`) and ≤
    `maximum` (when given), or None. None (not given) is fine."""
    if value is None:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return f"must be a finite number, got {value}"
    if value < minimum or (not inclusive and value == minimum):
        return f"must be {'≥' if inclusive else '>'} {minimum:g}, got {value:g}"
    if maximum is not None and value > maximum:
        shown = f"{value}" if isinstance(value, int) else f"{value:g}"
        bound = f"{int(maximum):,}" if float(maximum).is_integer() else f"{maximum:g}"
        return f"must be ≤ {bound}, got {shown}"
    return None


def attempts_problem(votes: int, max_attempts: int) -> str | None:
    """Why `votes` valid answers could never be collected in `max_attempts` attempts, or None."""
    if votes > max_attempts:
        return f"{votes} valid votes can never be collected in {max_attempts} attempt(s)"
    return None


def non_finite_field(data: object, where: str = "") -> str | None:
    """The dotted path of the first number in `data` (nested mappings and lists) that is NaN
    or ±inf, or None: such a value never enters a record or a mean."""
    if isinstance(data, float):
        return None if math.isfinite(data) else (where or "value")
    if isinstance(data, dict):
        for key, value in data.items():
            found = non_finite_field(value, f"{where}.{key}" if where else str(key))
            if found is not None:
                return found
    elif isinstance(data, (list, tuple)):
        for i, value in enumerate(data):
            found = non_finite_field(value, f"{where}[{i}]")
            if found is not None:
                return found
    return None
