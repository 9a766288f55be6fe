"""Errors that say what was wrong, where (file, sample id, field), and what to do."""

from __future__ import annotations


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
        where = []
        if self.file:
            where.append(f"{self.file}" + (f":{self.line}" if self.line is not None else ""))
        if self.sample_id is not None:
            where.append(f"id {self.sample_id!r}")
        if self.field:
            where.append(f"field {self.field!r}")
        prefix = ", ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message

    def as_record(self) -> dict[str, object]:
        return {
            "file": self.file,
            "id": self.sample_id,
            "field": self.field,
            "line": self.line,
            "error": self.message,
        }


class AudioError(InputError):
    """An audio file that is missing, unreadable or cannot be sliced as asked."""


class RunConfigError(AudioevalError):
    """An output directory or configuration that conflicts with the requested run."""


class OptionalDependencyError(AudioevalError):
    """An optional extra is needed; the message carries the exact install hint."""


class EndpointUnusable(AudioevalError):
    """No endpoint of a model or judge answered the check made before a run (refused,
    unauthorised, not an OpenAI-compatible API, model not served); the message gives each
    endpoint's reason."""
