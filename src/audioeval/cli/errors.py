"""Turning audioeval errors into one clear line and an exit code.

Messages name user files, ids and fields and may quote remote text: they are printed with API
keys redacted and shown literally, never as Rich markup (`report/escaping.failure_text`)."""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator

import typer
from rich.console import Console

from audioeval.cli import exit_codes
from audioeval.cli.redacted_output import STDERR
from audioeval.cli.typed_flags import as_typed
from audioeval.core.errors import AudioevalError, BudgetReached, EndpointUnusable, InputError, RunLocked
from audioeval.report.escaping import failure_text

err_console = Console(file=STDERR, soft_wrap=True)  # type: ignore[arg-type]  # the credentials gate


EXIT_CODES: tuple[tuple[type[AudioevalError], int], ...] = (
    (EndpointUnusable, exit_codes.ENDPOINT_UNUSABLE),
    (RunLocked, exit_codes.LOCKED),
    (BudgetReached, exit_codes.BUDGET_REACHED),
)
"""Errors with an exit code of their own; every other audioeval error is bad input (2)."""


@contextlib.contextmanager
def friendly_errors() -> Iterator[None]:
    try:
        yield
    except AudioevalError as exc:
        text = as_typed(exc.describe() if isinstance(exc, InputError) else str(exc))
        err_console.print(f"[red]error:[/red] {failure_text(text)}", highlight=False)
        code = next((c for kind, c in EXIT_CODES if isinstance(exc, kind)), exit_codes.BAD_INPUT)
        raise typer.Exit(code) from None
    except KeyboardInterrupt:
        err_console.print(
            "[yellow]interrupted: what finished is on disk; rerun the same command to resume.[/yellow]"
        )
        raise typer.Exit(exit_codes.INTERRUPTED) from None
    except OSError as exc:
        if exc.errno not in NO_SPACE_ERRNOS:
            raise
        where = exc.filename if exc.filename is not None else "a file"
        err_console.print(
            f"[red]error:[/red] no space left on device writing {failure_text(str(where))}; what "
            "finished is kept, free space and rerun",
            highlight=False,
        )
        raise typer.Exit(exit_codes.NO_SPACE) from None


NO_SPACE_ERRNOS = (errno.ENOSPC, errno.EDQUOT)


def report_skipped(errors: list[InputError], *, limit: int = 20) -> None:
    if not errors:
        return
    err_console.print(f"[yellow]{len(errors)} item(s) skipped:[/yellow]")
    for exc in errors[:limit]:
        err_console.print(f"  - {failure_text(exc.describe())}", highlight=False)
    if len(errors) > limit:
        err_console.print(f"  … and {len(errors) - limit} more (see skipped.json)")
