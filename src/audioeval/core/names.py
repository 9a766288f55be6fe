"""The one naming rule for model, system and benchmark names, and the folder names derived
from them.

A name is a label a user sees (a board row, a report heading) and the root of a folder of the
run directory, so it is checked where it enters (a `-m` reference, `NAME=SPEC`, a preset's
`--name`, a run config, the Python API, a benchmark spec or plugin) against one rule, and the
message states the rule:

- every name: 1 to `MAX_NAME_CHARS` characters, no control character, no white space at
  either end, and not a reserved name (`.`, `..`: they are folders already);
- a benchmark name is a folder name as it is, so it also holds no `/` or `\\` (nor white
  space, `,` or `@`, which separate benchmarks on the command line).

A model's folder (`folder_name`) keeps letters, digits, `.`, `_` and `-` of its name and
turns any other run of characters into `_`; a result that would be reserved, empty or longer
than `MAX_FOLDER_CHARS` gets a hash of the exact name instead, so it is always one folder
below its benchmark. Two names of one run that would share a folder are refused, naming both
(`folder_collisions`).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from audioeval.core.errors import InputError

MAX_NAME_CHARS = 200
"""The longest name (a `predictions:FILE` model is named after its path, which may be long)."""

MAX_FOLDER_CHARS = 100
"""The longest folder derived from a model name (a folder name is at most 255 bytes)."""

RESERVED = (".", "..")
"""Names that are folders already: the folder itself and its parent."""

NAME_RULE = (
    f"a name is 1 to {MAX_NAME_CHARS} characters, none a control character, with no white space "
    "at either end, and is not '.' or '..'"
)
BENCHMARK_NAME_RULE = f"{NAME_RULE}; a benchmark name also holds no white space, '/', '\\', ',' or '@'"
FOLDER_RULE = "a folder name keeps letters, digits, '.', '_' and '-' of the name"

_BENCHMARK_FORBIDDEN = set("/\\,@")
_KEEP = re.compile(r"[^A-Za-z0-9._-]+")


def name_problem(name: object, *, benchmark: bool = False) -> str | None:
    """Why `name` breaks the naming rule (the rule itself in the text), or None when it keeps it."""
    rule = BENCHMARK_NAME_RULE if benchmark else NAME_RULE
    if not isinstance(name, str):
        return f"expected a name, got {type(name).__name__}: {rule}"
    if not name:
        return f"empty name: {rule}"
    if len(name) > MAX_NAME_CHARS:
        return f"a name of {len(name)} characters: {rule}"
    if name in RESERVED:
        return f"{name!r} is reserved: {rule}"
    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in name):
        return f"{name!r} holds a control character: {rule}"
    if name != name.strip():
        return f"{name!r} has white space at an end: {rule}"
    if benchmark and any(c.isspace() or c in _BENCHMARK_FORBIDDEN for c in name):
        return f"{name!r} is not a folder name: {rule}"
    return None


def check_name(
    name: object, *, kind: str = "model", field: str | None = None, file: str | None = None
) -> str:
    """`name` when it keeps the naming rule; InputError naming the kind, field and file otherwise."""
    problem = name_problem(name, benchmark=kind == "benchmark")
    if problem is not None:
        raise InputError(f"{kind} name: {problem}", file=file, field=field)
    assert isinstance(name, str)
    return name


def _digest(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def folder_name(name: str, *, empty: str = "model") -> str:
    """The folder of a model (or system) named `name`: its letters, digits, `.`, `_` and `-`,
    any other run of characters `_`, outer `_` stripped (`Qwen/Qwen2-Audio` ->
    `Qwen_Qwen2-Audio`); `empty` when nothing is left. A result that is reserved, or longer
    than `MAX_FOLDER_CHARS`, is cut and given a hash of the exact name (`.._1a2b3c4d`)."""
    out = _KEEP.sub("_", name).strip("_") or empty
    if out in RESERVED:
        return f"{out}_{_digest(name)}"
    if len(out) > MAX_FOLDER_CHARS:
        return f"{out[: MAX_FOLDER_CHARS - 9]}_{_digest(name)}"
    return out


def folder_collisions(names: list[str]) -> list[str]:
    """One line for each folder that two distinct names would share ("'a+b' and 'a_b' would
    share the folder 'a_b'"); a name given twice is one line too."""
    by_folder: dict[str, list[str]] = {}
    for name in names:
        by_folder.setdefault(folder_name(name), []).append(name)
    out = []
    for folder, given in by_folder.items():
        distinct = list(dict.fromkeys(given))
        if len(distinct) > 1:
            named = " and ".join(repr(n) for n in distinct)
            out.append(f"{named} would share the folder {folder!r} ({FOLDER_RULE})")
        elif len(given) > 1:
            out.append(f"{given[0]!r} is named twice")
    return out
