"""The run-level `summary.json`, one typed value (`RunSummary`) written by the engine alone:
at the end of every `evaluate` (`audioeval run`, `codec`, every preset) and every
`rescore_run`. `summary.json` at the top of a run directory is always this; a benchmark's own
summary at the top of a preset's folder has its own name (`mcq_summary.json`,
`judge_eval_summary.json`, `decompose_summary.json`).

It holds every pair's summary (`PairSummary`, as `<run>/<benchmark>/<model>/summary.json`
has it), a compact score table, the judge reliability of each judged pair, the leaderboards
(one per task family the run has, then the user's boards) and the embedded metric models'
work. `read_run_summary` is how report, leaderboard and rank read it back.

A user's boards are YAML board definitions (`engine/board_spec.py`) in `<run>/boards.yaml`
(one board, or `boards: [...]`): every run and rescore builds them too, so adding the file
and rescoring gives them without a model call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from audioeval.engine.board_spec import BoardSpec, load_board_file, metric_key
from audioeval.engine.family_boards import family_boards
from audioeval.engine.leaderboard import Board, build_boards
from audioeval.engine.run_layout import SUMMARY_FILE
from audioeval.metrics.judge_reliability import ReliabilityBlock
from audioeval.metrics.summary_blocks import (
    MetricBlock as MetricBlock,  # where readers of run summaries found it
)
from audioeval.metrics.summary_blocks import PairSummary
from audioeval.store.atomic import write_json_atomic
from audioeval.store.bounded_json import loads
from audioeval.store.run_folder import RUN_FILE, read_run_file, run_id_of
from audioeval.store.run_summaries import read_summary, sealed

BOARDS_FILE = "boards.yaml"
"""The user's boards of a run, beside its summary."""


PerCodec = dict[str, dict[str, float | None]]
"""A codec run's view: per codec, each metric's value under its short name."""


MetricModelWork = Mapping[str, float | int]
"""An embedded metric model's work in one command: calls, audio seconds, busy seconds, × real time."""


class RunSummaryJson(TypedDict, total=False):
    """`<run>/summary.json` (`RunSummary.to_json`). With one pair, that pair's metrics also sit
    at the top level under their short names (`wer`, `wer_ci`), with its `n`, `scored`,
    `failed`; `content_sha256`: the digest it is sealed with (`store/run_summaries.py`)."""

    run_dir: str
    scores: dict[str, dict[str, dict[str, float | None]]]
    results: list[PairSummary]
    reliability: dict[str, dict[str, dict[str, ReliabilityBlock]]]
    boards: dict[str, Board]
    n: int | None
    scored: int | None
    failed: int | None
    codecs: PerCodec | dict[str, PerCodec]
    metric_models: dict[str, MetricModelWork]
    content_sha256: str


@dataclass(frozen=True)
class RunSummary:
    """What `<run>/summary.json` holds (see the module doc)."""

    run_dir: str
    results: tuple[PairSummary, ...]
    boards: Mapping[str, Board]
    metric_models: Mapping[str, MetricModelWork] = field(default_factory=dict)

    @property
    def scores(self) -> dict[str, dict[str, dict[str, float | None]]]:
        """`scores[benchmark][model][metric]`: each pair's corpus values."""
        out: dict[str, dict[str, dict[str, float | None]]] = {}
        for res in self.results:
            metrics = {metric_key(n): b.get("value") for n, b in (res.get("metrics") or {}).items()}
            out.setdefault(res["benchmark"], {})[res["model"]] = metrics
        return out

    @property
    def reliability(self) -> dict[str, dict[str, dict[str, ReliabilityBlock]]]:
        """`reliability[benchmark][model]`: the judge reliability of each judged pair."""
        out: dict[str, dict[str, dict[str, ReliabilityBlock]]] = {}
        for res in self.results:
            if res.get("reliability"):
                out.setdefault(res["benchmark"], {})[res["model"]] = res["reliability"]
        return out

    @property
    def codecs(self) -> PerCodec | dict[str, PerCodec] | None:
        """A codec run's view: per codec (per benchmark, with several), each metric's value
        under its short name (`wer`, `sim`, `pesq`, …); None unless every pair is a codec's."""
        if not self.results or any(r.get("task") != "codec" for r in self.results):
            return None
        per: dict[str, PerCodec] = {}
        for res in self.results:
            values = {k.split(":", 1)[-1]: b.get("value") for k, b in (res.get("metrics") or {}).items()}
            per.setdefault(res["benchmark"], {})[res["model"]] = values
        return next(iter(per.values())) if len(per) == 1 else per

    def to_json(self) -> RunSummaryJson:
        """The file's layout. With one pair its metrics also sit at the top level
        (`summary["wer"]`, `summary["wer_ci"]`, `n`, `scored`, `failed`): what a quick ad-hoc
        run wants to read."""
        data: RunSummaryJson = {"run_dir": self.run_dir, "scores": self.scores, "results": list(self.results)}
        if self.reliability:
            data["reliability"] = self.reliability
        data["boards"] = dict(self.boards)
        if len(self.results) == 1:
            only = self.results[0]
            for name, block in (only.get("metrics") or {}).items():
                data[metric_key(name)] = block.get("value")  # type: ignore[literal-required]
                data[f"{metric_key(name)}_ci"] = block.get("ci")  # type: ignore[literal-required]
            data.update(n=only.get("n"), scored=only.get("scored"), failed=only.get("failed"))
        if self.codecs is not None:
            data["codecs"] = self.codecs
        if self.metric_models:
            data["metric_models"] = dict(self.metric_models)
        return data

    @classmethod
    def from_json(cls, data: RunSummaryJson) -> RunSummary:
        results = data.get("results")
        if not isinstance(results, list):
            raise ValueError("not a run summary: no `results` list")
        return cls(
            run_dir=str(data.get("run_dir", "")),
            results=tuple(r for r in results if isinstance(r, dict)),  # type: ignore[misc]
            boards=dict(data.get("boards") or {}),
            metric_models=dict(data.get("metric_models") or {}),
        )


def run_boards(run_dir: Path) -> list[BoardSpec]:
    """The user's boards of a run (`<run>/boards.yaml`); none without the file."""
    path = run_dir / BOARDS_FILE
    return load_board_file(path) if path.is_file() else []


def all_boards(
    results: Sequence[PairSummary], user_boards: Iterable[BoardSpec], *, mean_of_available: bool = False
) -> dict[str, Board]:
    """The boards of these pair summaries: every task family's, then the user's (a user board
    named like an earlier one replaces it); what a run summary and `audioeval leaderboard` hold.
    `mean_of_available`: rank incomplete rows too (`leaderboard.build_board`)."""
    return build_boards(results, [*family_boards(), *user_boards], mean_of_available=mean_of_available)


def write_run_summary(
    run_dir: Path,
    results: Sequence[PairSummary],
    *,
    metric_models: Mapping[str, MetricModelWork] | None = None,
    boards: Iterable[BoardSpec] = (),
) -> RunSummary:
    """Write `<run>/summary.json` and return it: the engine calls it at the end of every run
    and rescore. `boards` come before those of `<run>/boards.yaml`."""
    user_boards = [*boards, *run_boards(run_dir)]
    summary = RunSummary(
        run_dir=str(run_dir),
        results=tuple(results),
        boards=all_boards(results, user_boards),
        metric_models=dict(metric_models or {}),
    )
    write_json_atomic(run_dir / SUMMARY_FILE, sealed(summary.to_json()))
    return summary


def read_run_summary(run_dir: Path) -> RunSummary | None:
    """A run directory's `summary.json` as a `RunSummary`, read through the run folder's checked
    reader (`store/run_folder.py`: RunFolderError when it was changed after it was written);
    None when it has none, or when it is not one (a folder of an earlier audioeval whose
    `summary.json` was a preset's export)."""
    path = run_dir / SUMMARY_FILE
    if not path.is_file():
        return None
    run_id = run_id_of(read_run_file(run_dir)) if (run_dir / RUN_FILE).exists() else None
    try:
        data = loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        return None
    return RunSummary.from_json(read_summary(path, run_id) or {})
