"""`audioeval` entry point: the generic commands, then every benchmark's presets and tools
(`cli/preset_commands.py` builds them from the benchmarks' `Preset` values)."""

from __future__ import annotations

import gc

import typer

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.cli.leaderboard_commands import leaderboard
from audioeval.cli.options import aliased
from audioeval.cli.preset_commands import add_preset_commands
from audioeval.cli.rank_commands import rank
from audioeval.cli.report_commands import report
from audioeval.cli.run_commands import codec, list_, rescore, run, validate
from audioeval.cli.runtime_commands import runtime_app

app = typer.Typer(
    name="audioeval",
    help="Evaluate audio foundation models end to end.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.command("run", cls=aliased({"--judge-cache": "--cache"}))(run)
app.command("rescore", cls=aliased({"--bootstrap": "--resamples"}))(rescore)
app.command("codec", cls=aliased())(codec)
app.command("list", cls=aliased())(list_)
app.command("validate", cls=aliased())(validate)
app.command("report", cls=aliased())(report)
app.command("rank", cls=aliased({"--bootstrap": "--resamples"}))(rank)
app.command("leaderboard", cls=aliased({"--bootstrap": "--resamples"}))(leaderboard)
app.add_typer(runtime_app, name="runtime")
add_preset_commands(app, load_benchmarks())


def _print_version(value: bool) -> None:
    if value:
        from audioeval import __version__

        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _main(
    show_version: bool = typer.Option(
        False, "--version", help="Print the audioeval version and exit.", callback=_print_version, is_eager=True
    ),
) -> None:
    """Evaluate audio foundation models end to end."""


@app.command(cls=aliased())
def version() -> None:
    """Print the audioeval version."""
    from audioeval import __version__

    typer.echo(__version__)


def main() -> None:
    """The `audioeval` console command (the app, standalone: it exits with the command's code).

    When the command is over, every object the process holds is frozen out of the garbage
    collector: what is left of the process is its teardown, and the interpreter's last
    collections would otherwise walk every object a large run loaded (~0.1 s on 2 cores after
    an MMAE run). Files are closed and flushed by then; atexit handlers and threads still
    end as usual."""
    try:
        app()
    finally:
        gc.freeze()


if __name__ == "__main__":
    main()
