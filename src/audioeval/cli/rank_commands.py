"""`audioeval rank`: ranking robustness (LOBO, LOTGO, alternative normalisations) and Spearman
correlations between benchmarks, from a score table of published numbers or from run
directories (then also each model's bootstrap rank interval)."""

from __future__ import annotations

from pathlib import Path

import typer

from audioeval.cli import setting_options as S
from audioeval.cli.errors import friendly_errors
from audioeval.cli.options import Prefer, make_console
from audioeval.core.errors import InputError
from audioeval.report.escaping import console_text

console = make_console()


def rank(
    run_dirs: list[Path] | None = typer.Argument(
        None,
        metavar="RUN_DIR",
        help="Run directories (of `audioeval run`); or give --table.",
        show_default=False,
    ),
    table: Path | None = typer.Option(
        None,
        "--table",
        help="A scores CSV: a `model` column, then one column per `benchmark:metric` (values as "
        "published, WER in %); `#` lines are comments, empty cells missing.",
    ),
    groups: Path | None = typer.Option(
        None,
        "--groups",
        help="YAML mapping each task group to its benchmarks (default: each benchmark's task).",
    ),
    output_dir: Path = S.option("output_dir", default=..., help="Where to write."),
    resamples: int = S.option("resamples", help="Bootstrap resamples of the rank intervals (run directories; 0: none)."),
    seed: int = S.option("seed", help="Seed of the bootstrap."),
    family: str | None = typer.Option(
        None,
        "--family",
        help="Run directories: the task family to rank (needed when the runs hold several; "
        "families are never averaged together).",
    ),
    mean_of_available: bool = typer.Option(
        False,
        "--mean-of-available",
        help="Rank a model missing a column by the mean of its available ones (UltraEval-Audio's "
        "published convention, its Table 8). Default: such a model is listed below, unranked.",
    ),
    prefer: Prefer = [],  # noqa: B006 (typer reads the default; never mutated)
) -> None:
    """Rank models by the mean of their flipped scores (100 − WER/CER), and how the ranks move
    when one benchmark (LOBO) or task group (LOTGO) is left out, or the columns are z-scored or
    min-max scaled; Spearman's ρ between benchmarks. A model missing a column is listed below,
    unranked (--mean-of-available: ranked by its available columns); run directories are ranked
    one task family at a time. Writes OUT/robustness.json,
    OUT/spearman.json, OUT/spearman.svg and OUT/index.html (a page of all of them)."""
    from audioeval.analysis import score_table
    from audioeval.analysis.ranking import rank_intervals, resampled_ranks, robustness, spearman_json
    from audioeval.report.ranking_table import robustness_table, write_rank_outputs

    with friendly_errors():
        if (table is None) == (not run_dirs):
            raise InputError("give either --table FILE or run directories (not both)", field="--table")
        if output_dir.exists() and not output_dir.is_dir():
            raise InputError("not a folder", file=str(output_dir), field="--output_dir")
        runs = None
        if table is not None:
            if family is not None:
                raise InputError(
                    "--family picks the pairs of run directories, not --table columns", field="--family"
                )
            scores = score_table.read_score_csv(table)
        else:
            runs = score_table.table_from_runs(run_dirs or [], family, prefer)
            scores = runs.table
        if groups is not None:
            scores = score_table.read_groups(groups, scores)
            if runs is not None:
                runs = score_table.RunTable(scores, runs.cells)
        result = robustness(scores, mean_of_available=mean_of_available)
        intervals = info = None
        if runs is not None and resamples > 0:
            resampled = score_table.bootstrap_tables(runs, resamples=resamples, seed=seed)
            if resampled is not None:
                intervals = rank_intervals(resampled_ranks(resampled.values, scores.columns, result.ranked))
                info = {
                    "resamples": resamples,
                    "seed": seed,
                    "confidence": 0.95,
                    "held": list(resampled.held),
                }
        report = result.to_json(intervals, info)
        written = write_rank_outputs(
            output_dir, report, spearman_json(scores), scores=scores if runs is not None else None
        )
    console.print(robustness_table(report))
    if info and info["held"]:
        console.print(
            f"[yellow]held at their value in every resample:[/yellow] {console_text('; '.join(info['held']))}"
        )
    if runs is not None and intervals is None and resamples > 0:
        console.print("[yellow]no bootstrap rank interval: no pair has usable records[/yellow]")
    console.print("written: " + ", ".join(console_text(p) for p in written))
