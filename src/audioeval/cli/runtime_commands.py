"""`audioeval runtime list | setup | check`: isolated model runtimes (own venv, worker process)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from audioeval.cli.errors import friendly_errors
from audioeval.cli.options import aliased, make_console
from audioeval.report.escaping import console_cell, console_text, failure_text

if TYPE_CHECKING:
    from audioeval.adapters.runtimes.spec import RuntimeSpec

runtime_app = typer.Typer(
    help="Isolated model runtimes: each in its own virtual environment, served by a worker process.",
    no_args_is_help=True,
)
console = make_console()

RUNTIMES_DIR = typer.Option(
    None,
    "--runtimes-dir",
    help="Where runtime environments live (default: $AUDIOEVAL_RUNTIMES, else beside the active "
    "virtualenv, e.g. .venv-runtimes/ for a project's .venv; runtimes installed in any of these or in "
    "~/.cache/audioeval/runtimes are found).",
)
NAME = typer.Argument(
    ..., help="A built-in runtime name (see `audioeval runtime list`) or a spec .yaml file."
)


@runtime_app.command("list", cls=aliased())
def list_runtimes(runtimes_dir: Path | None = RUNTIMES_DIR) -> None:
    """Show the built-in runtimes and whether each one's environment is installed."""
    from audioeval.adapters.runtimes.environment import is_installed, runtime_roots
    from audioeval.adapters.runtimes.spec import builtin_spec_files, load_runtime_spec

    with friendly_errors():
        table = Table(
            title=console_cell(f"runtimes ({', '.join(str(p) for p in runtime_roots(runtimes_dir))})")
        )
        for col in ("name", "installed", "tasks", "output", "requirements", "description"):
            table.add_column(col, overflow="fold")
        for name in builtin_spec_files():
            spec = load_runtime_spec(name)
            installed = is_installed(spec, runtimes_dir)
            table.add_row(
                console_cell(spec.name),
                "[green]yes[/green]" if installed else "[yellow]no[/yellow]",
                console_cell(", ".join(spec.tasks)),
                console_cell(spec.output),
                "\n".join(console_text(r) for r in spec.requirements),
                console_cell(spec.description),
            )
        console.print(table)


@runtime_app.command("setup", cls=aliased())
def setup(
    name: str = NAME,
    runtimes_dir: Path | None = RUNTIMES_DIR,
    force: bool = typer.Option(False, "--force", help="Delete and recreate the environment."),
) -> None:
    """Create the runtime's virtual environment and pip-install its pinned requirements."""
    from audioeval.adapters.runtimes.environment import setup_environment
    from audioeval.adapters.runtimes.spec import load_runtime_spec

    with friendly_errors():
        spec = load_runtime_spec(name)
        result = setup_environment(
            spec, runtimes_dir, force=force, log=lambda m: console.print(f"  {console_text(m)}")
        )
        if result.already_installed:
            console.print(
                f"runtime {console_text(repr(spec.name))} already installed at {console_text(result.env_dir)}"
            )
        else:
            console.print(
                f"runtime {console_text(repr(spec.name))} installed at {console_text(result.env_dir)} "
                f"in {result.seconds:.1f} s"
            )


@runtime_app.command("check", cls=aliased())
def check(
    name: str = NAME,
    runtimes_dir: Path | None = RUNTIMES_DIR,
    audio: Path | None = typer.Option(None, "--audio", help="A clip to run through the worker once."),
    task: str | None = typer.Option(None, "--task", help="Task for --audio (default: the runtime's first)."),
) -> None:
    """Start the runtime's worker, ping it, optionally run one clip, and stop it."""
    from audioeval.adapters.runtimes.spec import load_runtime_spec

    with friendly_errors():
        spec = load_runtime_spec(name)
        asyncio.run(_check(spec, runtimes_dir, audio, task or spec.tasks[0]))


async def _check(spec: RuntimeSpec, runtimes_dir: Path | None, audio: Path | None, task: str) -> None:
    from audioeval.adapters.base import ModelRequest
    from audioeval.adapters.local_runtime import LocalRuntimeAdapter
    from audioeval.core.messages import AudioPart, AudioRef, Message
    from audioeval.core.sample import Sample
    from audioeval.engine.output_gate import gate_output

    adapter = LocalRuntimeAdapter(spec, runtimes_dir=runtimes_dir)
    t0 = time.perf_counter()
    await adapter.start()
    try:
        info = console_text(adapter.worker_info()[0])
        console.print(f"worker ready in {time.perf_counter() - t0:.2f} s: {info}")
        console.print(f"ping: {'ok' if all(await adapter.health()) else 'FAILED'}")
        if audio is not None:
            ref = AudioRef(str(audio))
            request = ModelRequest(
                Sample(id="check", audio={"audio": ref}), (Message("user", (AudioPart(ref),)),), task
            )
            out = gate_output(
                await adapter.generate(request), spec.output, source=spec.name, sample_id="check"
            )
            if out.ok:
                console.print(f"{task} ({out.latency_s:.2f} s): {console_text(out.text or out.audio_path)}")
            else:
                console.print(f"[red]error:[/red] {failure_text(out.error)}", highlight=False)
                raise typer.Exit(1)
    finally:
        await adapter.aclose()
