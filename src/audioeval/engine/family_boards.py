"""The leaderboards by task family (`benchmarks/tasks.py` FAMILIES), as UltraEval-Audio's
published tables compute them. They are board definitions like any user's (`board_spec.py`),
written as the data a YAML file would hold; a number of one family is never averaged with one
of another.

- understanding (asr, ast, classification, captioning, spoken_qa): each benchmark's headline,
  100 − WER/CER, BLEU as it is, accuracy × 100; the unweighted mean, nothing clipped.
- reasoning (mcq: MMAR, MMAU): each benchmark's accuracy × 100 and their mean.
- generation (tts, vc, spoken_qa_audio, audio_instruct): each benchmark's task score (100 − WER,
  accuracy × 100, rubric score × 100), SIM × 100 where a voice is cloned, and ONE acoustic
  score: the mean of the available 20 × UTMOS, 20 × DNSMOS OVRL, 20 × P.808 (each the mean over
  the model's generation benchmarks), which weighs as one column.
- codec: per dataset 100 − WER/CER, SIM × 100 and its acoustic score (the mean of the available
  20 × UTMOS, 20 × OVRL, 20 × P.808); the mean of all. PESQ and STOI are shown, not averaged.
- editing (audio_edit): each benchmark's headline, no average, unless a benchmark of the family
  gives the family's board (`Benchmark.boards`, naming the metrics it declares): MMAE's shows
  IFR, CR, EMR, ranked by EMR, then IFR, then CR (the MMAE challenge's rule).

A board a benchmark gives under a family board's name replaces the generic one; the labels of
every column are the declared display names of its metrics (`metrics/corpus.display_of`).

A row lacking a column of its board is listed below the complete rows, unranked, unless the
board is built with `mean_of_available` (`leaderboard.build_board`).
"""

from __future__ import annotations

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.engine.board_spec import (
    BoardDefinition,
    BoardSpec,
    ColumnDefinition,
    GroupDefinition,
    parse_board,
)


def _acoustic(per: str) -> list[ColumnDefinition]:
    """UTMOS, DNSMOS P.835 OVRL and P.808, × 20, averaged into the one `acoustic` group
    (labelled, as every column, by the metric's declared display name)."""
    return [
        {"metric": metric, "transform": "mos", "group": "acoustic", "per": per}
        for metric in ("mean:utmos", "mean:dnsmos_ovrl", "mean:dnsmos_p808")
    ]


ACOUSTIC_GROUP: dict[str, GroupDefinition] = {"acoustic": {"label": "acoustic (0–5)"}}

FAMILY_BOARDS: dict[str, BoardDefinition] = {
    "understanding": {
        "name": "understanding",
        "title": "Understanding",
        "family": "understanding",
        "description": "each benchmark's headline: 100 − WER/CER, BLEU as it is, accuracy × 100; "
        "the unweighted mean of the available columns, nothing clipped (UltraEval-Audio)",
        "columns": [{"metric": "headline"}],
    },
    "reasoning": {
        "name": "reasoning",
        "title": "Reasoning (MMAR, MMAU)",
        "family": "reasoning",
        "description": "each benchmark's accuracy × 100; the unweighted mean of the available columns",
        "columns": [{"metric": "headline"}],
    },
    "generation": {
        "name": "generation",
        "title": "Generation",
        "family": "generation",
        "description": "task scores (100 − WER, accuracy × 100, rubric score × 100), SIM × 100, and one "
        "acoustic score, the mean of the available 20 × UTMOS, 20 × OVRL, 20 × P.808, weighing "
        "as one column (UltraEval-Audio); the mean of the available columns, nothing clipped",
        "columns": [
            {"metric": "headline", "tasks": ["tts", "vc", "spoken_qa_audio"]},
            {"metric": "headline", "tasks": ["audio_instruct"], "transform": "percent"},
            {"metric": "mean:sim", "tasks": ["tts", "vc"], "transform": "percent"},
            *_acoustic("board"),
        ],
        "groups": ACOUSTIC_GROUP,
    },
    "codec": {
        "name": "codec",
        "title": "Codec",
        "family": "codec",
        "description": "per dataset 100 − WER/CER, SIM × 100 and one acoustic score (the mean of the "
        "available 20 × UTMOS, 20 × OVRL, 20 × P.808); the mean of all (UltraEval-Audio)",
        "columns": [
            {"metric": "headline"},
            {"metric": "mean:sim", "transform": "percent"},
            *_acoustic("benchmark"),
            {"metric": "mean:pesq", "transform": "as_is", "weight": 0},
            {"metric": "mean:stoi", "transform": "percent", "weight": 0},
        ],
        "groups": ACOUSTIC_GROUP,
    },
    "editing": {
        "name": "editing",
        "title": "Editing",
        "family": "editing",
        "description": "each benchmark's headline; no average",
        "columns": [{"metric": "headline"}],
        "average": False,
    },
}


def family_boards() -> list[BoardSpec]:
    """The board of every task family, in FAMILIES order (a benchmark's board of a family's
    name in its place), then the other boards the benchmarks give."""
    found: dict[str, tuple[str, BoardDefinition]] = {
        name: (f"built-in board {name}", data) for name, data in FAMILY_BOARDS.items()
    }
    for bench in load_benchmarks().values():
        for data in bench.boards:
            found[str(data["name"])] = (f"board {data['name']!r} of benchmark {bench.name!r}", data)
    return [parse_board(dict(data), where) for where, data in found.values()]
