"""`--max-failed`: how much failed work a command accepts before it exits with code 4.

Every command that evaluates counts its headline work (samples or items) and how much of it
failed: a call or judgement that failed, an output or input that could not be read. After
writing every output, more failures than `--max-failed` allows, or nothing scored at all,
print the count and the first failure's reason and exit with `TOO_MANY_FAILURES` (4).
"""

from __future__ import annotations

from dataclasses import dataclass

import typer

from audioeval.cli import exit_codes
from audioeval.cli.errors import err_console
from audioeval.core.errors import InputError


@dataclass(frozen=True, slots=True)
class MaxFailed:
    """A whole count of failures, or a share (0..1) of the work."""

    count: int | None = None
    share: float | None = None

    def allows(self, failed: int, total: int) -> bool:
        if self.share is not None:
            return failed <= self.share * total
        return failed <= (self.count or 0)

    def describe(self) -> str:
        return f"{self.share:.4g} of the work" if self.share is not None else f"{self.count or 0}"


def parse_max_failed(text: str) -> MaxFailed:
    """`0.05`, `5%` or `1.0`: a share; `3`: a count. InputError naming the flag otherwise."""
    value = text.strip()
    try:
        if value.endswith("%"):
            share = float(value[:-1]) / 100
        elif "." in value or "e" in value.lower():
            share = float(value)
        else:
            count = int(value)
            if count < 0:
                raise ValueError
            return MaxFailed(count=count)
    except ValueError:
        raise InputError(
            f"expected a share (0.05, 5%) or a count (3), got {text!r}", field="--max-failed"
        ) from None
    if not 0.0 <= share <= 1.0:  # also refuses nan
        raise InputError(
            f"a share must lie between 0 and 1 (0% and 100%), got {text!r}", field="--max-failed"
        )
    return MaxFailed(share=share)


@dataclass(frozen=True, slots=True)
class FailedWork:
    """What a command did with its headline work."""

    unit: str  # what is counted: "sample", "item", "rubric item"
    total: int
    failed: int
    scored: int
    first_failure: str | None = None
    # Why a rerun cannot help (a fixed predictions file lacks answers); None: a rerun retries.
    no_retry: list[str] | None = None


def enforce_max_failed(work: FailedWork, limit: MaxFailed) -> None:
    """Exit with code 4 when nothing was scored or more work failed than `limit` allows."""
    if work.scored > 0 and limit.allows(work.failed, work.total):
        return
    if work.scored == 0:
        head = f"nothing was scored ({work.total} {work.unit}(s), {work.failed} failed)"
    else:
        head = (
            f"{work.failed} of {work.total} {work.unit}(s) failed, more than --max-failed "
            f"{limit.describe()} allows"
        )
    err_console.print(
        f"error: {head} (exit code {exit_codes.TOO_MANY_FAILURES})", highlight=False, markup=False
    )
    if work.first_failure:
        err_console.print(f"  first failure: {work.first_failure}", highlight=False, markup=False)
    if work.no_retry:
        for line in work.no_retry:
            err_console.print(f"  {line}", highlight=False, markup=False)
    else:
        err_console.print(
            "  every output was written; rerunning the same command retries the failed work.",
            highlight=False,
            markup=False,
        )
    raise typer.Exit(exit_codes.TOO_MANY_FAILURES)
