"""The run-level `summary.json`: every pair's summary, a compact score table, the leaderboard."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from audioeval.analysis.generation_board import build_generation_boards, display_name
from audioeval.analysis.leaderboard import build_leaderboard
from audioeval.engine.run_layout import SUMMARY_FILE
from audioeval.store.atomic import write_json_atomic


def write_run_summary(
    run_dir: Path, results: Sequence[Mapping[str, Any]], *, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Write `<run>/summary.json` and return it.

    `scores[benchmark][model][metric]` is the corpus value; with one benchmark and one model
    those metrics also sit at the top level (`summary["wer"]`), which is what a quick ad-hoc
    run wants to read. `reliability[benchmark][model]` is the judge reliability of each judged
    pair (its summary's `reliability`).
    """
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
    summary["leaderboard"] = build_leaderboard(results)
    generation = build_generation_boards(results)
    if generation:
        summary["generation_leaderboards"] = generation
    if len(results) == 1:
        only = results[0]
        for name, block in (only.get("metrics") or {}).items():
            summary[display_name(name)] = block.get("value")
            summary[f"{display_name(name)}_ci"] = block.get("ci")
        summary.update(n=only.get("n"), scored=only.get("scored"), failed=only.get("failed"))
    summary.update(extra or {})
    write_json_atomic(run_dir / SUMMARY_FILE, summary)
    return summary
