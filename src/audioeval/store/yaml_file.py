"""Reading a YAML file whose errors name the file: not found, malformed, not a mapping."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.core.errors import InputError


def read_yaml_mapping(path: Path, what: str) -> dict[str, Any]:
    """The file's top-level mapping; `what` names it in errors ("benchmark spec", …)."""
    if not path.is_file():
        raise InputError(f"{what} file not found", file=str(path))
    return parse_yaml_mapping(path.read_text(encoding="utf-8"), str(path), what)


def parse_yaml_mapping(text: str, where: str, what: str) -> dict[str, Any]:
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML ({exc})", file=where) from None
    if not isinstance(data, dict):
        raise InputError(f"a {what} must be a YAML mapping", file=where)
    return data
