"""`audioeval view RUN_DIR …`: a local, read-only server over run folders (`report/viewer_server.py`)."""

from __future__ import annotations

import threading
from pathlib import Path

import typer

from audioeval.cli.errors import friendly_errors
from audioeval.cli.options import make_console
from audioeval.core.errors import InputError
from audioeval.report.escaping import console_text

console = make_console()


def view(
    run_dirs: list[Path] = typer.Argument(
        ..., metavar="RUN_DIR...", help="Run directories to serve (read-only)."
    ),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to bind; another than 127.0.0.1 serves the runs to the network."
    ),
    port: int = typer.Option(8765, "--port", min=0, help="Port (0: any free one)."),
) -> None:
    """Serve pages over run directories: the runs, one run updating while it is written (figures,
    failures, judge disagreements), and any two or more models of one benchmark compared sample by
    sample with the paired-bootstrap difference. Reads only the folders given; no model or judge call."""
    from audioeval.report.viewer_runs import ServedRuns
    from audioeval.report.viewer_server import make_server

    with friendly_errors():
        runs = ServedRuns(run_dirs)
        try:
            server = make_server(runs, host, port)
        except OSError as exc:
            raise InputError(
                f"cannot listen on {host}:{port} ({exc.strerror or exc})", field="--port"
            ) from None
    name, bound = server.server_address[:2]
    console.print(f"audioeval view: http://{console_text(str(name))}:{bound}/ (Ctrl-C stops it)")
    threading.Thread(target=runs.warm, daemon=True, name="read-runs").start()  # pages open at once after
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
