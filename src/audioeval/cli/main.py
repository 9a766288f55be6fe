"""`audioeval` entry point: sub-command groups per benchmark family."""

from __future__ import annotations

import typer

from audioeval.cli.judge_eval_commands import judge_eval
from audioeval.cli.leaderboard_commands import leaderboard
from audioeval.cli.mcq_commands import mcq_app
from audioeval.cli.mmae_commands import mmae_app
from audioeval.cli.rank_commands import rank
from audioeval.cli.report_commands import report
from audioeval.cli.rubric_commands import rubric_app
from audioeval.cli.run_commands import codec, list_, rescore, run, validate
from audioeval.cli.runtime_commands import runtime_app

app = typer.Typer(
    name="audioeval",
    help="Evaluate audio foundation models end to end.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)
app.command("run")(run)
app.command("rescore")(rescore)
app.command("codec")(codec)
app.command("list")(list_)
app.command("validate")(validate)
app.command("judge-eval")(judge_eval)
app.command("report")(report)
app.command("rank")(rank)
app.command("leaderboard")(leaderboard)
app.add_typer(mmae_app, name="mmae")
app.add_typer(mcq_app, name="mcq")
app.add_typer(rubric_app, name="rubric")
app.add_typer(runtime_app, name="runtime")


@app.command()
def version() -> None:
    """Print the audioeval version."""
    from audioeval import __version__

    typer.echo(__version__)


if __name__ == "__main__":
    app()
