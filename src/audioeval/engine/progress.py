"""A progress bar with rubrics done, votes, failures and rate."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class JudgeProgress:
    def __init__(self, total: int, *, console: Console | None = None, enabled: bool = True) -> None:
        self.votes = 0
        self.failures = 0
        self.errors = 0
        self._progress = Progress(
            TextColumn("[bold]judging rubrics"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(
                "votes {task.fields[votes]} · failed rubrics {task.fields[failures]} · "
                "call errors {task.fields[errors]} · {task.fields[rate]}"
            ),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=console,
            disable=not enabled,
            transient=False,
        )
        self._task = self._progress.add_task("judge", total=total, votes=0, failures=0, errors=0, rate="")

    def __enter__(self) -> JudgeProgress:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def vote(self, *, valid: bool, error: bool) -> None:
        self.votes += int(valid)
        self.errors += int(error)

    def rubric_done(self, *, failed: bool) -> None:
        self.failures += int(failed)
        task = self._progress.tasks[0]
        elapsed = task.elapsed or 0.0
        rate = f"{(task.completed + 1) / elapsed:.1f} rubrics/s" if elapsed > 0 else ""
        self._progress.update(
            self._task, advance=1, votes=self.votes, failures=self.failures, errors=self.errors, rate=rate
        )
