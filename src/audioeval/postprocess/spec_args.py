"""Reading registry names and keyword arguments from a spec, with errors that say where.

Shared by the post-processing, scorer and metric registries: an unknown name suggests the
closest known ones ("did you mean …?"), and arguments are checked against the factory's
keyword parameters before anything is built.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from audioeval.core.errors import InputError
from audioeval.core.suggest import close_names


def parameters(factory: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    """The keyword parameters a factory accepts."""
    return {
        p.name: p
        for p in inspect.signature(factory).parameters.values()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }


def check_args(
    kind: str,
    name: str,
    factory: Callable[..., Any],
    args: Mapping[str, Any],
    *,
    where: str,
    field: str,
) -> None:
    """Raise `InputError` for unknown or missing arguments of `factory`."""
    params = parameters(factory)
    unknown = [a for a in args if a not in params]
    if unknown:
        accepted = ", ".join(params) or "no arguments"
        hint = close_names(str(unknown[0]), params)
        raise InputError(
            f"{kind} {name!r} has no argument {unknown[0]!r}.{hint} It accepts: {accepted}.",
            file=where or None,
            field=field,
        )
    missing = [p for p, spec in params.items() if spec.default is inspect.Parameter.empty and p not in args]
    if missing:
        raise InputError(
            f"{kind} {name!r} needs argument {missing[0]!r}, e.g. {{{name}: {{{missing[0]}: ...}}}}.",
            file=where or None,
            field=field,
        )


def build(
    kind: str,
    name: str,
    factory: Callable[..., Any],
    args: Mapping[str, Any],
    *,
    where: str,
    field: str,
) -> Any:
    """`factory(**args)`, with bad arguments (missing, unknown, bad values) as `InputError`.

    Factories report a bad value by raising `ValueError` or `TypeError` with a message.
    """
    check_args(kind, name, factory, args, where=where, field=field)
    try:
        return factory(**args)
    except InputError as exc:
        if exc.file is None and where:  # say which spec (and entry) the bad value came from
            raise InputError(
                exc.message, file=where, sample_id=exc.sample_id, field=exc.field or field, line=exc.line
            ) from exc
        raise
    except (ValueError, TypeError) as exc:
        raise InputError(f"{kind} {name!r}: {exc}", file=where or None, field=field) from exc
