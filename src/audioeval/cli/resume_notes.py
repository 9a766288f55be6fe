"""What a command says about resumed work it did not trust and outputs that were missing."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from audioeval.cli.errors import err_console
from audioeval.core.errors import InputError

if TYPE_CHECKING:
    from audioeval.engine.model_specs import ModelConfig
    from audioeval.metrics.summary_blocks import PairSummary


def report_ignored_lines(ignored: list[str]) -> None:
    """Stored result lines a rerun did not trust (their work was done again), and the first why."""
    if ignored:
        err_console.print(
            f"ignored {len(ignored)} stored result line(s) that are not valid (their work is done "
            f"again); first: {ignored[0]}",
            markup=False,
            highlight=False,
        )


def report_unusable_lines(ignored: list[str], *, limit: int = 20) -> None:
    """Every stored line a rescore could not use (`file:line: why`); their samples count as
    missing work."""
    if not ignored:
        return
    err_console.print(
        f"{len(ignored)} stored result line(s) could not be used; their samples count as missing "
        "(a rerun of `audioeval run` does them again):",
        markup=False,
        highlight=False,
    )
    for line in ignored[:limit]:
        err_console.print(f"  - {line}", markup=False, highlight=False)
    if len(ignored) > limit:
        err_console.print(f"  … and {len(ignored) - limit} more", markup=False, highlight=False)


def report_failed_outputs(failed: list[InputError], *, excluded: bool) -> None:
    """The samples without a usable output, and how the headline treats them."""
    if not failed:
        return
    how = (
        "left out of the means (--exclude-missing)"
        if excluded
        else "counted in the headline with every rubric at 0 (--exclude-missing leaves them out)"
    )
    err_console.print(
        f"{len(failed)} sample(s) without a usable output, {how}; listed in failed_outputs.json. "
        f"First: {failed[0].describe()}",
        markup=False,
        highlight=False,
    )


NO_PREDICTION = "sample has no prediction"


def missing_predictions(run_dir: Path, results: list[PairSummary], models: list[ModelConfig]) -> list[str]:
    """For each predictions-file model (a fixed file: a rerun asks nothing new), the ids the
    file has no answer for, as one line each naming the file and a few ids; [] when none."""
    from audioeval.core.record import latest_records
    from audioeval.engine.run_layout import pair_dir
    from audioeval.store.run_folder import pair_run_id, read_pair

    files = {m.name: (m.slug, m.predictions) for m in models if m.type == "predictions"}
    lines = []
    for res in results:
        if res.get("model") not in files or not res.get("failed"):
            continue
        slug, file = files[res["model"]]
        folder = pair_dir(run_dir, res["benchmark"], slug)
        stored = read_pair(folder, pair_run_id(folder))
        ids = sorted(  # records are in the order samples finished, which varies from run to run
            rec.id
            for rec in latest_records(stored.records).values()
            if rec.error_detail and rec.error_detail.get("error") == NO_PREDICTION
        )
        if ids:
            few = ", ".join(repr(i) for i in ids[:3]) + (", …" if len(ids) > 3 else "")
            lines.append(
                f"{res['benchmark']} · {res['model']}: the predictions file {file} has no answer for "
                f"{len(ids)} id(s) ({few}); rerunning will not help: add them to the file, or accept "
                "them as failed with --max-failed."
            )
    return lines
