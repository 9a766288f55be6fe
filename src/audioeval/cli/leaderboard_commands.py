"""`audioeval leaderboard RUN_DIR… --output_dir OUT`: every board over the pairs of stored run
directories, with board score CIs and a paired-bootstrap p-value between adjacent ranks."""

from __future__ import annotations

from pathlib import Path

import typer

from audioeval.cli import setting_options as S
from audioeval.cli.errors import friendly_errors
from audioeval.cli.options import Prefer, make_console
from audioeval.core.errors import InputError
from audioeval.report.escaping import console_text

console = make_console()


def leaderboard(
    run_dirs: list[Path] = typer.Argument(
        ..., metavar="RUN_DIR", help="Run directories (of `audioeval run`)."
    ),
    output_dir: Path = S.option("output_dir", default=..., help="Where to write."),
    board: list[Path] = typer.Option(
        [],
        "--board",
        help="A board definition (YAML: one board or `boards: [...]`); repeat for more. Each run's "
        "boards.yaml is read too.",
    ),
    resamples: int = S.option("resamples", help="Bootstrap resamples of the CIs and p-values (0: none)."),
    seed: int = S.option("seed", help="Seed of the bootstrap."),
    mean_of_available: bool = typer.Option(
        False,
        "--mean-of-available",
        help="Rank a row missing a column by the mean of its available ones (UltraEval-Audio's "
        "published convention). Default: such a row is listed below the complete ones, unranked.",
    ),
    prefer: Prefer = [],  # noqa: B006 (typer reads the default; never mutated)
) -> None:
    """Build every board (task families', each run's boards.yaml, --board files) from the pair
    summaries of the run directories, with each board score's CI and the paired-bootstrap
    p-value between adjacent ranks. Pairs of one benchmark are merged only when run alike (same
    data, --limit, --profile, scorers); a model's benchmark found in several runs (a shared
    baseline) is taken once when the results are the same, from the --prefer run when they
    differ; a row missing a column is listed below, unranked. Writes OUT/leaderboard.json,
    OUT/leaderboard.md and OUT/index.html; no model or judge call."""
    from audioeval.analysis.leaderboard_runs import leaderboard_from_runs
    from audioeval.report.leaderboard_page import adjacent_table, write_leaderboard_outputs
    from audioeval.report.leaderboard_table import board_table

    with friendly_errors():
        if output_dir.exists() and not output_dir.is_dir():
            raise InputError("not a folder", file=str(output_dir), field="--output_dir")
        doc = leaderboard_from_runs(
            run_dirs,
            board,
            resamples=resamples,
            seed=seed,
            mean_of_available=mean_of_available,
            prefer=prefer,
        )
        written = write_leaderboard_outputs(output_dir, doc)
    for built in doc["boards"].values():
        console.print(board_table(built))
        console.print(adjacent_table(built))
    if not doc["boards"]:
        console.print("[yellow]no board: no pair of the runs is on one[/yellow]")
    console.print(f"p between adjacent ranks: {console_text(doc['bootstrap']['method'])}")
    console.print("written: " + ", ".join(console_text(p) for p in written))
