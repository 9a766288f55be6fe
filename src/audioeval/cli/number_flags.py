"""One validator for every numeric option of every command (issue 27).

Each option typed `int` or `float` (or `… | None`) is checked as it is parsed, after its own
conversion and range: a value that is not a finite number (`nan`, `inf`), or that is below the
option's `min` (a shared setting's declared minimum, `core/settings.py`; 0 where none is
declared: no numeric flag of audioeval means anything below 0: counts, seconds, seeds,
temperatures, thresholds), or above its bound (a shared setting's, declared with it in
`core/settings.py`; another flag's in `core/bounds.py`: `--resamples` 100,000, timeouts a
day, …), is refused with exit code 2 and a
one-line message naming the flag as typed (`error: field '--judge-timeout': must be a finite
number, got nan`, as every flag check of `cli/options.py`). What the option's own converter
refuses (`nan` for an integer, a value below a declared `min`) keeps the option parser's
message, which names the flag too (`Invalid value for '--limit': …`). `AliasedCommand`
(`cli/options.py`) installs it on every command, so a new flag gets it without a line of its
own; tests/test_bad_inputs_second_pass.py walks every command's options to keep it so.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterable
from typing import Any

from typer._click.exceptions import BadParameter, UsageError

from audioeval.cli.errors import friendly_errors
from audioeval.core.bounds import option_maximum
from audioeval.core.checks import number_problem
from audioeval.core.errors import InputError
from audioeval.core.settings import flag_bounds

NUMBER_TYPES = (int, float)


def number_type(param: Any) -> type | None:
    """`int` or `float` when the option holds one number (or none), else None."""
    descriptor = getattr(param, "type_descriptor", None)
    annotation = getattr(descriptor, "annotation", None)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = args[0] if len(args) == 1 else None
    return annotation if annotation in NUMBER_TYPES else None


def _values(value: Any) -> Iterable[Any]:
    return value if isinstance(value, list | tuple) else (value,)


def _checked(param: Any, process: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    least, most = flag_bounds(param.opts[0])  # a shared setting's declared bounds (core/settings.py)
    lowest = float(param.min) if getattr(param, "min", None) is not None else float(least or 0.0)
    declared = getattr(param, "max", None)
    highest = option_maximum(param.opts[0], float(declared) if declared is not None else most)

    def process_value(ctx: Any, value: Any) -> Any:
        try:
            value = process(ctx, value)
        except BadParameter:
            raise
        except UsageError as exc:  # the converter's message, with the flag named
            raise BadParameter(exc.message, ctx=ctx, param=param) from exc
        for v in _values(value):
            problem = number_problem(v, minimum=lowest, maximum=highest)
            if problem:
                with friendly_errors():  # one line, `error: field '--flag': …`, exit 2
                    raise InputError(problem, field=param.opts[0])
        return value

    return process_value


def check_number_flags(params: Iterable[Any]) -> None:
    """Install the check on each numeric option of a command (once)."""
    for param in params:
        if getattr(param, "param_type_name", "") != "option" or number_type(param) is None:
            continue
        if getattr(param, "_number_checked", False):
            continue
        param.process_value = _checked(param, param.process_value)
        param._number_checked = True
