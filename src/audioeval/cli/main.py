"""`audioeval` entry point: the generic commands, then every benchmark's presets and tools
(`cli/preset_commands.py` builds them from the benchmarks' `Preset` values).

Benchmarks load when a command is first looked up (`_Commands`), inside the error handler,
never when this module is imported: a plugin that cannot be loaded is a note on the console
(one line naming its distribution, entry point and error, `benchmarks/plugins.broken_plugins`)
and every command that needs none of its names runs, `--help` and `list` included."""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

import click
import typer
from typer.core import TyperGroup

from audioeval.benchmarks.plugins import broken_plugins, load_benchmarks
from audioeval.cli.errors import err_console, friendly_errors
from audioeval.cli.help_layout import install as install_help_layout
from audioeval.cli.leaderboard_commands import leaderboard
from audioeval.cli.options import aliased
from audioeval.cli.preset_commands import add_preset_commands
from audioeval.cli.rank_commands import rank
from audioeval.cli.report_commands import report
from audioeval.cli.run_commands import codec, list_, rescore, run, validate
from audioeval.cli.runtime_commands import runtime_app
from audioeval.cli.view_commands import view
from audioeval.report.escaping import failure_text

install_help_layout()  # literal help text; option names never cut (cli/help_layout.py)

_benchmark_commands: dict[str, click.Command] = {}  # built once per process from the loaded benchmarks


def _built_benchmark_commands() -> dict[str, click.Command]:
    """Every benchmark's presets and tools as click commands, by top-level name (built once)."""
    if not _benchmark_commands:
        presets = typer.Typer()
        presets.callback()(lambda: None)  # a group, even with one command
        add_preset_commands(presets, load_benchmarks())
        group = typer.main.get_command(presets)
        _benchmark_commands.update(getattr(group, "commands", {}))
    return _benchmark_commands


class _LazyCommands(dict[str, click.Command]):
    """The top-level group's commands: the generic ones, and every benchmark's presets and
    tools, added on the first look at them (`load`, once)."""

    def __init__(self, generic: dict[str, click.Command], load: Callable[[], dict[str, click.Command]]) -> None:
        super().__init__(generic)
        self._load: Callable[[], dict[str, click.Command]] | None = load

    def _loaded(self) -> None:
        load, self._load = self._load, None
        if load is not None:
            for name, command in load().items():
                super().setdefault(name, command)

    def __getitem__(self, key: str) -> Any:
        self._loaded()
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self._loaded()
        return super().__contains__(key)

    def __iter__(self) -> Any:
        self._loaded()
        return super().__iter__()

    def __len__(self) -> int:
        self._loaded()
        return super().__len__()

    def get(self, key: str, default: Any = None) -> Any:
        self._loaded()
        return super().get(key, default)

    def keys(self) -> Any:
        self._loaded()
        return super().keys()

    def values(self) -> Any:
        self._loaded()
        return super().values()

    def items(self) -> Any:
        self._loaded()
        return super().items()


def _benchmark_commands_with_notes() -> dict[str, click.Command]:
    """The benchmarks' commands, loaded inside the error handler; a note for each plugin
    that could not be loaded."""
    with friendly_errors():
        commands = _built_benchmark_commands()
        for broken in broken_plugins():
            err_console.print(
                f"[yellow]note:[/yellow] {failure_text(broken.line())}; commands that need it stop (exit 2)",
                highlight=False,
            )
    return commands


class _Commands(TyperGroup):
    """The top-level group: its commands are a `_LazyCommands`, so benchmarks load when a
    command is first looked up (inside the error handler), never on import."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands = _LazyCommands(dict(self.commands), _benchmark_commands_with_notes)


app = typer.Typer(
    name="audioeval",
    cls=_Commands,
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
app.command("view", cls=aliased())(view)
app.add_typer(runtime_app, name="runtime")


def _print_version(value: bool) -> None:
    if value:
        from audioeval.core.version import __version__

        typer.echo(__version__)
        raise typer.Exit()


@app.callback()
def _main(
    show_version: bool = typer.Option(
        False,
        "--version",
        help="Print the audioeval version and exit.",
        callback=_print_version,
        is_eager=True,
    ),
) -> None:
    """Evaluate audio foundation models end to end."""


@app.command(cls=aliased())
def version() -> None:
    """Print the audioeval version."""
    from audioeval.core.version import __version__

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
