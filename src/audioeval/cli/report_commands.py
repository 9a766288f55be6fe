"""`audioeval report RUN_DIR`: the run directory as a static HTML page."""

from __future__ import annotations

from pathlib import Path

import typer

from audioeval.cli.errors import friendly_errors
from audioeval.cli.options import make_console
from audioeval.report.escaping import console_text

console = make_console()


def report(
    run_dir: Path = typer.Argument(
        ..., help="A run directory (of `audioeval run`, `codec`, `mmae score`, …)."
    ),
) -> None:
    """Write RUN_DIR/report/index.html: metrics with CIs, plots, judge reliability, failures and
    every sample with its clips; a static page that opens from disk, no model or judge call."""
    from audioeval.report.run_report import write_run_report

    with friendly_errors():
        path = write_run_report(run_dir)
    console.print(f"report: {console_text(path)}")
