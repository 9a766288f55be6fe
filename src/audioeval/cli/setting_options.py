"""The typer options of the shared settings (`core/settings.py`), generated from their one
declaration: flags, default and help as declared. Their bounds are checked, as every numeric
flag's, by `cli/number_flags.py`, which reads them from the same declaration (one line naming
the flag, exit 2).

`option(name)` is the default of a hand-written command's parameter (`run`, `codec`,
`rescore`); `parameter(name)` is an (annotation, default) pair for a generated signature (every
preset command). A command may state its own default (a preset's `defaults`, a rescore's
None: as the run did) and its own help wording, never its own bounds or flags.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import typer

from audioeval.core.settings import SETTING, Setting

SAME: Any = object()
"""The declared default (or help)."""


def _choices(setting: Setting) -> type[StrEnum]:
    return StrEnum(f"{setting.name.title().replace('_', '')}Choice", {c: c for c in setting.choices})  # type: ignore[return-value]


def _settings(setting: Setting, help: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"help": setting.help if help in (None, SAME) else help}
    if setting.hidden:
        out["hidden"] = True
    return out


def _default(setting: Setting, default: Any) -> Any:
    value = setting.default if default is SAME else default
    return _choices(setting)(value) if setting.choices and value is not None and value is not ... else value


def option(name: str, *, default: Any = SAME, help: str | None = None) -> Any:
    """The typer option of setting `name`, as a parameter's default."""
    setting = SETTING[name]
    return typer.Option(_default(setting, default), *setting.flags, **_settings(setting, help))


def annotation(name: str, *, optional: bool = False) -> Any:
    """The value type of setting `name` (`… | None` when it or the command's default may be None)."""
    setting = SETTING[name]
    kind: Any = _choices(setting) if setting.choices else setting.type
    return kind | None if (setting.optional or optional) and setting.type is not bool else kind


def parameter(name: str, *, default: Any = SAME, help: str | None = None) -> tuple[Any, Any]:
    """(annotation, default) of setting `name` for a generated command signature."""
    setting = SETTING[name]
    value = setting.default if default is SAME else default
    kind = annotation(name, optional=value is None)
    return Annotated[kind, typer.Option(*setting.flags, **_settings(setting, help))], _default(setting, default)
