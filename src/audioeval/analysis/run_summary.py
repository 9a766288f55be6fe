"""The run-level `summary.json`: every pair's summary, a compact score table, the leaderboards
(one per task family the run has, then the user's boards).

A user's boards are YAML board definitions (`analysis/board_spec.py`) in `<run>/boards.yaml`
(one board, or `boards: [...]`): every `run`, `rescore` and preset that writes the run's
summary builds them too, so adding the file and rescoring gives them without a model call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from audioeval.analysis.board_spec import BoardSpec, display_name, load_board_file
from audioeval.analysis.family_boards import family_boards
from audioeval.analysis.leaderboard import build_boards
from audioeval.engine.run_layout import SUMMARY_FILE
from audioeval.store.atomic import write_json_atomic

BOARDS_FILE = "boards.yaml"
"""The user's boards of a run, beside its summary."""


def run_boards(run_dir: Path) -> list[BoardSpec]:
    """The user's boards of a run (`<run>/boards.yaml`); none without the file."""
    path = run_dir / BOARDS_FILE
    return load_board_file(path) if path.is_file() else []


def all_boards(
    results: Sequence[Mapping[str, Any]], user_boards: Iterable[BoardSpec]
) -> dict[str, dict[str, Any]]:
    """The boards of these pair summaries: every task family's, then the user's (a user board
    named like an earlier one replaces it); what a run summary and `audioeval leaderboard` hold."""
    return build_boards(results, [*family_boards(), *user_boards])


def write_run_summary(
    run_dir: Path,
    results: Sequence[Mapping[str, Any]],
    *,
    extra: Mapping[str, Any] | None = None,
    boards: Iterable[BoardSpec] = (),
) -> dict[str, Any]:
    """Write `<run>/summary.json` and return it.

    `scores[benchmark][model][metric]` is the corpus value; with one benchmark and one model
    those metrics also sit at the top level (`summary["wer"]`), which is what a quick ad-hoc
    run wants to read. `reliability[benchmark][model]` is the judge reliability of each judged
    pair (its summary's `reliability`). `boards[name]` is each leaderboard with a pair on it: the
    task families' (`analysis/family_boards.py`), then `boards`, then those of `<run>/boards.yaml`
    (a user board named like an earlier one replaces it); the shape is
    `analysis/leaderboard.build_board`'s.
    """
    user_boards = [*boards, *run_boards(run_dir)]
    scores: dict[str, dict[str, dict[str, Any]]] = {}
    for res in results:
        metrics = {
            display_name(name): block.get("value") for name, block in (res.get("metrics") or {}).items()
        }
        scores.setdefault(res["benchmark"], {})[res["model"]] = metrics
    summary: dict[str, Any] = {"run_dir": str(run_dir), "scores": scores, "results": list(results)}
    reliability: dict[str, dict[str, Any]] = {}
    for res in results:
        if res.get("reliability"):
            reliability.setdefault(res["benchmark"], {})[res["model"]] = res["reliability"]
    if reliability:
        summary["reliability"] = reliability
    summary["boards"] = all_boards(results, user_boards)
    if len(results) == 1:
        only = results[0]
        for name, block in (only.get("metrics") or {}).items():
            summary[display_name(name)] = block.get("value")
            summary[f"{display_name(name)}_ci"] = block.get("ci")
        summary.update(n=only.get("n"), scored=only.get("scored"), failed=only.get("failed"))
    summary.update(extra or {})
    write_json_atomic(run_dir / SUMMARY_FILE, summary)
    return summary
