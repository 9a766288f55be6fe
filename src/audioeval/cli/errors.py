"""Turning audioeval errors into one clear line and an exit code.

Messages name user files, ids and fields and may quote remote text: they are printed with API
keys redacted and shown literally, never as Rich markup (`report/escaping.failure_text`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import typer
from rich.console import Console

from audioeval.cli import exit_codes
from audioeval.core.errors import AudioevalError, EndpointUnusable, InputError, RunLocked
from audioeval.core.shorten import shorten_plain
from audioeval.report.escaping import failure_text

err_console = Console(stderr=True, soft_wrap=True)


@contextlib.contextmanager
def friendly_errors() -> Iterator[None]:
    try:
        yield
    except EndpointUnusable as exc:
        err_console.print(f"[red]error:[/red] {failure_text(shorten_plain(str(exc)))}", highlight=False)
        raise typer.Exit(exit_codes.ENDPOINT_UNUSABLE) from None
    except InputError as exc:
        err_console.print(f"[red]error:[/red] {failure_text(exc.describe())}", highlight=False)
        raise typer.Exit(2) from None
    except RunLocked as exc:
        err_console.print(f"[red]error:[/red] {failure_text(shorten_plain(str(exc)))}", highlight=False)
        raise typer.Exit(exit_codes.LOCKED) from None
    except AudioevalError as exc:
        err_console.print(f"[red]error:[/red] {failure_text(shorten_plain(str(exc)))}", highlight=False)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        err_console.print(
            "[yellow]interrupted: what finished is on disk; rerun the same command to resume.[/yellow]"
        )
        raise typer.Exit(exit_codes.INTERRUPTED) from None


def report_skipped(errors: list[InputError], *, limit: int = 20) -> None:
    if not errors:
        return
    err_console.print(f"[yellow]{len(errors)} item(s) skipped:[/yellow]")
    for exc in errors[:limit]:
        err_console.print(f"  - {failure_text(exc.describe())}", highlight=False)
    if len(errors) > limit:
        err_console.print(f"  … and {len(errors) - limit} more (see skipped.json)")
