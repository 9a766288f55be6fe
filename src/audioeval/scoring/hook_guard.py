"""The one guard every scorer hook is called through (`scoring/scorer_hooks.py` lists them).

A scorer may come from an installed package; what its hooks do is not ours. Every hook is
checked here, the same way for a built-in scorer and a plugin's:

- a declared hook (`name`, `metrics`, `extra_metrics`, `metric_renames`,
  `needs_judge`, `light`, `requires`, `early_stop`, `reports_reliability`, `signature()`) is checked when
  the scorer is built (`check_declarations`; `signature()` where it is taken): a value of the wrong kind, or a `signature()`
  that raises or is not a mapping of JSON values, is a `ScorerHookError` naming the scorer,
  the package it comes from and the hook (exit 2);
- a hook called per sample (`score`, `rescore`, `score_async`, `failed_output_score`,
  `planned_calls`, `reliability_items`, `prompt_examples`, `use_prompt`) is called through
  `call_hook` and its result checked by kind: an exception that is not one of audioeval's
  own errors, or a result of the wrong kind, is a `ScorerHookError` naming the scorer, its
  package and the hook; a score is checked by `score_problem` (a `Score` of mappings, every
  number finite, every statistic a `mean:<key>` metric averages a number), so a NaN or a
  string never enters a record or a mean.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from importlib.metadata import packages_distributions, version
from typing import Any

from audioeval.core.checks import non_finite_field
from audioeval.core.errors import AudioevalError, InputError
from audioeval.core.record import Score
from audioeval.scoring.scorer_hooks import Scorer, ScorerSignature

MEAN_PREFIX = "mean:"


class ScorerHookError(InputError):
    """A scorer hook that raised or returned a value of the wrong kind (names the scorer, its
    package and the hook)."""


@functools.lru_cache(maxsize=256)
def _package_of(module: str) -> str:
    top = module.split(".", 1)[0]
    if top == "audioeval":
        return "audioeval"
    dists = packages_distributions().get(top) or []
    if not dists:
        return f"module {top!r}"
    try:
        return f"package {dists[0]!r} {version(dists[0])}"
    except Exception:  # a distribution without metadata
        return f"package {dists[0]!r}"


def scorer_origin(scorer: object) -> str:
    """Where a scorer's code comes from: "audioeval", or "package 'NAME' VERSION"."""
    return _package_of(type(scorer).__module__)


def hook_error(scorer: object, hook: str, why: str) -> ScorerHookError:
    try:
        name = scorer.name if isinstance(scorer, Scorer) else None
    except Exception:  # a plugin's `name` that raises: the error names the class
        name = None
    shown = repr(name) if isinstance(name, str) else type(scorer).__name__
    return ScorerHookError(
        f"scorer {shown} of {scorer_origin(scorer)}, hook {hook}: {why}", field=f"scorers.{hook}"
    )


def _is_number(value: object) -> bool:
    """None, a bool or an int or float (finite or not: finiteness is checked apart)."""
    return value is None or isinstance(value, (int, float))


def _mean_keys(scorer: Scorer) -> tuple[str, ...]:
    declared, extra = scorer.metrics, scorer.extra_metrics
    names = [
        *(declared if isinstance(declared, (tuple, list)) else ()),
        *(extra if isinstance(extra, (tuple, list)) else ()),
    ]
    return tuple(m[len(MEAN_PREFIX) :] for m in names if isinstance(m, str) and m.startswith(MEAN_PREFIX))


_cached_mean_keys = functools.lru_cache(maxsize=256)(_mean_keys)


def mean_keys(scorer: Scorer) -> tuple[str, ...]:
    """The statistics a scorer's declared `mean:<key>` metrics average (worked out once per
    scorer object)."""
    try:
        return _cached_mean_keys(scorer)
    except TypeError:  # an unhashable scorer
        return _mean_keys(scorer)


def means_are_numbers(scorer: Scorer, stats: Mapping[str, Any]) -> bool:
    """Whether every statistic a `mean:<key>` metric of the scorer averages is a number."""
    return all(_is_number(stats.get(key)) for key in mean_keys(scorer))


def score_problem(scorer: Scorer, result: object) -> str | None:
    """Why `result` cannot be kept as a score of `scorer` (the field named), or None."""
    if (
        not isinstance(result, Score)
        or not isinstance(result.values, dict)
        or not isinstance(result.stats, dict)
    ):
        return f"its result is not a Score (got {type(result).__name__})"
    for key in mean_keys(scorer):
        if key in result.stats and not _is_number(result.stats[key]):
            return f"stats.{key} is a {type(result.stats[key]).__name__}, not a number"
    field_name = non_finite_field({"values": result.values, "stats": result.stats})
    return None if field_name is None else f"{field_name} is not a finite number"


def _score(scorer: Scorer, hook: str, result: object) -> Score:
    problem = score_problem(scorer, result)
    if problem is not None:
        raise hook_error(scorer, hook, problem)
    assert isinstance(result, Score)
    return result


def _optional_score(scorer: Scorer, hook: str, result: object) -> Score | None:
    return None if result is None else _score(scorer, hook, result)


def _count(scorer: Scorer, hook: str, result: object) -> int:
    if isinstance(result, bool) or not isinstance(result, int) or result < 0:
        raise hook_error(scorer, hook, f"expected a count (an int ≥ 0), got {result!r}")
    return result


def _list(scorer: Scorer, hook: str, result: object) -> list[Any]:
    if not isinstance(result, list):
        raise hook_error(scorer, hook, f"expected a list, got {type(result).__name__}")
    return result


def _none(scorer: Scorer, hook: str, result: object) -> None:
    return None


CALLED: dict[str, Callable[[Scorer, str, object], Any]] = {
    "score": _score,
    "rescore": _score,
    "score_async": _score,
    "failed_output_score": _optional_score,
    "planned_calls": _count,
    "reliability_items": _list,
    "prompt_examples": _list,
    "use_prompt": _none,
}
"""Every hook called with arguments, and the check of what it returns."""


def _names(value: object) -> bool:
    return isinstance(value, (tuple, list)) and all(isinstance(v, str) and v for v in value)


def _text_map(value: object) -> bool:
    return isinstance(value, Mapping) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


DECLARED: dict[str, tuple[Callable[[object], bool], str]] = {
    "name": (lambda v: isinstance(v, str) and bool(v), "a non-empty string"),
    "metrics": (lambda v: v is None or _names(v), "None or a tuple of metric names"),
    "extra_metrics": (_names, "a tuple of metric names"),
    "metric_renames": (_text_map, "a mapping of metric name to metric name"),
    "needs_judge": (lambda v: isinstance(v, bool), "True or False"),
    "light": (lambda v: isinstance(v, bool), "True or False"),
    "requires": (_names, "a tuple of what it needs (`metric model`, `Java`)"),
    "early_stop": (lambda v: isinstance(v, bool), "True or False"),
    "reports_reliability": (lambda v: isinstance(v, bool), "True or False"),
}
"""Every hook a scorer declares as a value, and the kind it must be."""

HOOKS = frozenset({*CALLED, *DECLARED, "signature"})
"""Every hook of `Scorer` and `JudgedScorer`, each checked here."""


def call_hook(scorer: Scorer, hook: str, *args: Any) -> Any:
    """`scorer.<hook>(*args)`, its result checked by kind. audioeval's own errors (an
    `InputError` for a sample that cannot be scored, a judge that failed) pass as they are;
    any other exception, or a result of the wrong kind, is a `ScorerHookError`."""
    try:
        result = getattr(scorer, hook)(*args)
    except AudioevalError:
        raise
    except Exception as exc:
        raise hook_error(scorer, hook, f"raised {type(exc).__name__}: {exc}") from exc
    return CALLED[hook](scorer, hook, result)


async def call_hook_async(scorer: Scorer, hook: str, *args: Any) -> Any:
    """`call_hook` of a coroutine hook (`score_async`)."""
    try:
        result = await getattr(scorer, hook)(*args)
    except AudioevalError:
        raise
    except Exception as exc:
        raise hook_error(scorer, hook, f"raised {type(exc).__name__}: {exc}") from exc
    return CALLED[hook](scorer, hook, result)


def checked_signature(scorer: Scorer) -> ScorerSignature:
    """`scorer.signature()`: a mapping of JSON values (finite numbers), or a ScorerHookError.
    An error of audioeval's own (a metric model that cannot be loaded here, a missing optional
    package) is said as it is: a set-up problem, not a broken hook."""
    try:
        sig = scorer.signature()
    except AudioevalError:
        raise
    except Exception as exc:
        raise hook_error(scorer, "signature", f"raised {type(exc).__name__}: {exc}") from exc
    if not isinstance(sig, dict):
        raise hook_error(scorer, "signature", f"expected a mapping, got {type(sig).__name__}")
    try:
        json.dumps(sig, allow_nan=False, default=_refuse)
    except (TypeError, ValueError) as exc:
        raise hook_error(scorer, "signature", f"not JSON of finite values ({exc})") from exc
    return sig


def _refuse(value: object) -> Any:
    raise TypeError(f"a {type(value).__name__}")


def check_declarations(scorer: Scorer) -> Scorer:
    """`scorer` when every hook it declares as a value is of its kind; a ScorerHookError naming
    the first that is not. `signature()` is checked where it is taken (`checked_signature`, by
    the pair's signature and rescore), not here: a scorer's signature may load its metric model,
    which building the scorer (`validate`, `list`) must not."""
    for hook, (ok, kind) in DECLARED.items():
        if not hasattr(scorer, hook) and hook in ("early_stop", "reports_reliability"):
            continue  # a judged scorer's hooks
        try:
            value = getattr(scorer, hook)
        except AudioevalError:
            raise
        except Exception as exc:
            raise hook_error(scorer, hook, f"raised {type(exc).__name__}: {exc}") from exc
        if not ok(value):
            raise hook_error(scorer, hook, f"expected {kind}, got {value!r}")
    return scorer
