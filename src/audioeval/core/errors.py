"""Errors that say what was wrong, where (file, sample id, field), and what to do."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from audioeval.core.json_value import JsonValue
from audioeval.core.shorten import shorten, shorten_path, shorten_plain


class ErrorRecord(TypedDict, total=False):
    """Where an input error is, as a record stores it (`InputError.as_record`; a record's and a
    model output's `error_detail`): file, sample id, field, line, and the message."""

    file: str | None
    id: str | None
    field: str | None
    line: int | None
    error: str


class AudioevalError(Exception):
    """Base class for every error audioeval raises on purpose."""


class InputError(AudioevalError):
    """Bad user input: names the file, the sample id and the field where known."""

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        sample_id: str | None = None,
        field: str | None = None,
        line: int | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.sample_id = sample_id
        self.field = field
        self.line = line
        super().__init__(self.describe())

    def describe(self) -> str:
        """One line: file[:line], id, field, then the message (user values in it bounded)."""
        where = []
        if self.file:
            where.append(shorten_path(self.file) + (f":{self.line}" if self.line is not None else ""))
        if self.sample_id is not None:
            where.append(f"id {shorten(self.sample_id)}")
        if self.field:
            where.append(f"field {shorten(self.field)}")
        prefix = ", ".join(where)
        message = shorten_plain(self.message)
        return f"{prefix}: {message}" if prefix else message

    def as_record(self) -> ErrorRecord:
        return {
            "file": self.file,
            "id": self.sample_id,
            "field": self.field,
            "line": self.line,
            "error": self.message,
        }

    @classmethod
    def from_record(cls, rec: Mapping[str, JsonValue]) -> InputError:
        """The error `as_record` wrote (values that are not of their type are left out)."""

        def text(key: str) -> str | None:
            value = rec.get(key)
            return value if isinstance(value, str) else None

        line = rec.get("line")
        return cls(
            str(rec.get("error") or ""),
            file=text("file"),
            sample_id=text("id"),
            field=text("field"),
            line=line if isinstance(line, int) and not isinstance(line, bool) else None,
        )


class NotScorable(InputError):
    """One scorer cannot score this sample (a reference left empty by its text rules): the
    sample's other scorers still score it, and that scorer's metrics leave it out. Where the
    scorer feeds the pair's headline, the sample fails, as the benchmark's own code fails it."""


class AudioError(InputError):
    """An audio file that is missing, unreadable or cannot be sliced as asked."""


class RunConfigError(AudioevalError):
    """An output directory or configuration that conflicts with the requested run."""


class OptionalDependencyError(AudioevalError):
    """An optional extra is needed; the message carries the exact install hint."""


class RunLocked(AudioevalError):
    """Another audioeval process is writing to the same output folder."""


class EndpointUnusable(AudioevalError):
    """No endpoint of a model or judge answered the check made before a run (refused,
    unauthorised, not an OpenAI-compatible API, model not served); the message gives each
    endpoint's reason."""


class RunStopped(AudioevalError):
    """The run stops before its work is done, keeping what finished (a rerun resumes): never
    one sample's failure. Every client and adapter lets it through."""


class BudgetReached(RunStopped):
    """`--max-calls` or `--max-cost` reached: no new request starts (`engine/run_budget.py`)."""


class EndpointsUnreachable(EndpointUnusable, RunStopped):
    """During a run, every endpoint of a model or judge has failed by connection (refused,
    reset, unresolvable) for longer than the run allows (`unreachable_after_s`): the run stops,
    keeps what it finished, and a rerun resumes. The message names each endpoint and reason."""
