"""`audioeval` entry point: sub-command groups per benchmark family."""

from __future__ import annotations

import typer

from audioeval.cli.mcq_commands import mcq_app
from audioeval.cli.mmae_commands import mmae_app

app = typer.Typer(
    name="audioeval",
    help="Evaluate audio foundation models end to end.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.add_typer(mmae_app, name="mmae")
app.add_typer(mcq_app, name="mcq")


@app.command()
def version() -> None:
    """Print the audioeval version."""
    from audioeval import __version__

    typer.echo(__version__)


if __name__ == "__main__":
    app()
