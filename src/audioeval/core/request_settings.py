"""Which settings a request to a model under test may carry, and their types: one declaration
that every way of giving generation settings passes (`--gen-kwargs`, `--temperature` and the
other flags, a run config's `generation:`, a spec's `generation:`, the Python API's
`gen_kwargs`, a preset's options, a judged scorer's `sampling`).

- A declared setting is sent as given once its value has its type: a number is a finite JSON
  number (never the text "0.5"), a switch is true or false (never the text "False"), a mapping
  keeps its values' JSON types.
- A setting that would change what is asked or what comes back is refused with why: `model`
  (the signature and the boards would name one model while another is asked), `logprobs`,
  `n`, `stream`, `response_format`, audio output, tools. A setting a model's API reads as a
  field of its own (`response_format` and `prompt` of `/audio/transcriptions`) is routed: only
  a model of that API may be given it (`routed_problem`).
- Anything else is refused as unknown, naming the settings known.

A judge's own request settings (its `logprobs` request for P(yes), its votes) are settings of
the judge and its scorers, never read from these.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from audioeval.core.bounds import MAX_PENALTY, MAX_SEED, MAX_TEMPERATURE, MAX_TOKENS
from audioeval.core.errors import InputError
from audioeval.core.json_value import JsonValue
from audioeval.core.suggest import did_you_mean

Check = Callable[[Any], str | None]
"""The problem with a value (None when it has the declared type and range)."""


def _number(lo: float | None = None, hi: float | None = None, *, above: bool = False) -> Check:
    def check(v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            return f"must be a finite number, got {v!r}"
        if lo is not None and (v <= lo if above else v < lo):
            return f"must be {'>' if above else '≥'} {lo:g}, got {v!r}"
        if hi is not None and v > hi:
            return f"must be ≤ {hi:g}, got {v!r}"
        return None

    return check


def _whole(lo: int | None = None, hi: int | None = None) -> Check:
    def check(v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or int(v) != v:
            return f"must be a whole number, got {v!r}"
        if lo is not None and v < lo:
            return f"must be ≥ {lo}, got {v!r}"
        if hi is not None and v > hi:
            return f"must be ≤ {hi:,}, got {v!r}"
        return None

    return check


def _switch(v: Any) -> str | None:
    return None if isinstance(v, bool) else f"must be true or false, got {v!r}"


def _text(v: Any) -> str | None:
    return None if isinstance(v, str) else f"must be a text, got {v!r}"


def _texts(v: Any) -> str | None:
    if isinstance(v, str) or (isinstance(v, list) and all(isinstance(x, str) for x in v)):
        return None
    return f"must be a text or a list of texts, got {v!r}"


def _wholes(v: Any) -> str | None:
    if isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        return None
    return f"must be a list of whole numbers, got {v!r}"


def _mapping(v: Any) -> str | None:
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return None
    return f"must be a mapping of names to values, got {v!r}"


@dataclass(frozen=True, slots=True)
class RequestSetting:
    """One setting a model request may carry: its type, and the model APIs that read it as a
    field of their own (empty: every model that sends settings sends it)."""

    kind: str
    check: Check
    routed_by: tuple[str, ...] = ()


TRANSCRIPTION_APIS = ("transcription", "translation")

SETTINGS: dict[str, RequestSetting] = {
    "temperature": RequestSetting("number ≥ 0", _number(0, MAX_TEMPERATURE)),
    "top_p": RequestSetting("number in [0, 1]", _number(0, 1)),
    "top_k": RequestSetting("whole number ≥ -1", _whole(-1, MAX_TOKENS)),
    "min_p": RequestSetting("number in [0, 1]", _number(0, 1)),
    "max_tokens": RequestSetting("whole number ≥ 1", _whole(1, MAX_TOKENS)),
    "max_completion_tokens": RequestSetting("whole number ≥ 1", _whole(1, MAX_TOKENS)),
    "min_tokens": RequestSetting("whole number ≥ 0", _whole(0, MAX_TOKENS)),
    "seed": RequestSetting("whole number", _whole(-MAX_SEED, MAX_SEED)),
    "presence_penalty": RequestSetting("number in [-2, 2]", _number(-2, 2)),
    "frequency_penalty": RequestSetting("number in [-2, 2]", _number(-2, 2)),
    "repetition_penalty": RequestSetting("number > 0", _number(0, MAX_PENALTY, above=True)),
    "length_penalty": RequestSetting("number", _number(-MAX_PENALTY, MAX_PENALTY)),
    "stop": RequestSetting("text or list of texts", _texts),
    "stop_token_ids": RequestSetting("list of whole numbers", _wholes),
    "ignore_eos": RequestSetting("true or false", _switch),
    "skip_special_tokens": RequestSetting("true or false", _switch),
    "spaces_between_special_tokens": RequestSetting("true or false", _switch),
    "logit_bias": RequestSetting("mapping", _mapping),
    "chat_template_kwargs": RequestSetting("mapping", _mapping),
    "reasoning_effort": RequestSetting("text", _text),
    "system_prompt": RequestSetting("text", _text),  # a system message sent first, not a field
    "prompt": RequestSetting("text", _text, TRANSCRIPTION_APIS),
    "response_format": RequestSetting("text", _text, TRANSCRIPTION_APIS),
}
"""Every setting a model request may carry, by name."""

_ASKS_ANOTHER_MODEL = (
    "names the model asked; it is the model's own setting (NAME@URL, `served_model:`), which the "
    "signature and the boards name: a request field would ask another model under this one's name"
)
_LOGPROBS = (
    "changes what comes back (token log probabilities beside the answer's text); a judge's logprobs "
    "request is a setting of its scorer, never of the model under test"
)
_SEVERAL = (
    "asks for several answers where one is stored and scored (a judge's votes are its scorer's `votes`)"
)
_AUDIO = "asks for audio output, which the task routes (tasks with audio output ask for it, in the model's `voice`)"
_TOOLS = "changes what comes back (tool calls instead of an answer)"
_FORMAT = "constrains what comes back to a format the benchmark does not read"
REFUSED: dict[str, str] = {
    "model": _ASKS_ANOTHER_MODEL,
    "logprobs": _LOGPROBS,
    "top_logprobs": _LOGPROBS,
    "prompt_logprobs": _LOGPROBS,
    "n": _SEVERAL,
    "best_of": _SEVERAL,
    "stream": "changes what comes back (a stream of chunks, which is not read as an answer)",
    "stream_options": "changes what comes back (a stream of chunks, which is not read as an answer)",
    "response_format": "changes what comes back (a JSON object or schema in place of the answer's text)",
    "modalities": _AUDIO,
    "audio": _AUDIO,
    "messages": "replaces what is asked (the messages are the benchmark's rendered prompt)",
    "echo": "changes what comes back (the prompt repeated before the answer)",
    "tools": _TOOLS,
    "tool_choice": _TOOLS,
    "functions": _TOOLS,
    "function_call": _TOOLS,
    "parallel_tool_calls": _TOOLS,
    "guided_json": _FORMAT,
    "guided_regex": _FORMAT,
    "guided_choice": _FORMAT,
    "guided_grammar": _FORMAT,
    "structured_outputs": _FORMAT,
}
"""Settings refused, each with why (`response_format` is routed for the transcription APIs)."""


def setting_problem(key: Any, value: Any) -> str | None:
    """Why `key: value` may not be a model request's setting (None when it may)."""
    if not isinstance(key, str):
        return f"a setting's name must be a text, got {key!r}"
    declared = SETTINGS.get(key)
    if declared is None:
        if key in REFUSED:
            return f"{key!r} is refused: it {REFUSED[key]}"
        return f"unknown generation setting {key!r}{did_you_mean(key, SETTINGS)}; known: {', '.join(sorted(SETTINGS))}"
    problem = declared.check(value)
    return None if problem is None else f"{key} {problem}"


def checked_settings(
    values: Mapping[str, JsonValue], *, field: str, file: str | None = None, allowed: Iterable[str] | None = None
) -> dict[str, JsonValue]:
    """`values` without unset (None) ones, each checked against the declaration (InputError naming
    `file` and `field.KEY` otherwise); whole numbers given as `512.0` become `512`. `allowed`
    narrows the declared names (a judged scorer's sampling)."""
    allowed_set = None if allowed is None else set(allowed)
    out: dict[str, JsonValue] = {}
    for key, value in values.items():
        if value is None:
            continue
        problem = setting_problem(key, value)
        if problem is None and allowed_set is not None and key not in allowed_set:
            known = ", ".join(sorted(allowed_set))
            problem = f"{key!r} is not one of the settings here{did_you_mean(key, allowed_set)}: {known}"
        if problem is not None:
            raise InputError(problem, file=file, field=f"{field}.{key}" if isinstance(key, str) else field)
        kind = SETTINGS[key].kind
        out[key] = int(value) if kind.startswith("whole number") else value
    return out


def routed_problem(keys: Iterable[str], api: str | None, model: str) -> str | None:
    """Why a model of `api` (None: one that reads no API fields) may not be given the routed
    settings among `keys` (None when it may)."""
    for key in keys:
        routes = SETTINGS[key].routed_by if key in SETTINGS else ()
        if routes and api not in routes:
            why = REFUSED.get(key, "is no field of its requests (what is asked is the benchmark's prompt)")
            apis = " or ".join(f"api: {r}" for r in routes)
            return f"{key!r} is read only by models with {apis}; for model {model!r} it {why}"
    return None
