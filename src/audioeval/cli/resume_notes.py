"""What a command says about resumed work it did not trust and outputs that were missing."""

from __future__ import annotations

from audioeval.cli.errors import err_console
from audioeval.core.errors import InputError


def report_ignored_lines(ignored: list[str]) -> None:
    """Stored result lines a rerun did not trust (their work was done again), and the first why."""
    if ignored:
        err_console.print(
            f"ignored {len(ignored)} stored result line(s) that are not valid (their work is done "
            f"again); first: {ignored[0]}",
            markup=False,
            highlight=False,
        )


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
