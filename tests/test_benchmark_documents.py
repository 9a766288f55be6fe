"""The files a benchmark's exporter writes are what their declared types say, on the golden
runs (`tests/golden/runs.py`): `mcq_summary.json`, `per_item.jsonl` and `disagreements.jsonl`
of the MCQ runs (`benchmarks/mcq/export.py`, `item_rows.py`, `aggregate.py`), and
`judge_eval_summary.json`, `per_row.jsonl` and `unscored.jsonl` of the judge-eval runs
(`benchmarks/anyaudio_bench/judge_eval_doc.py`): each key declared, each required key there,
each nested block checked against its own type."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from audioeval.benchmarks.anyaudio_bench.judge_eval_doc import (
    BootstrapSettings as JudgeBootstrap,
)
from audioeval.benchmarks.anyaudio_bench.judge_eval_doc import (
    ItemLine,
    JudgeEvalSettings,
    JudgeEvalSummary,
    Listed,
    OfficialFigures,
    OverallFigures,
    RowFields,
    RowLine,
    Skipped,
    SubsetFigures,
    ThresholdBlock,
    TypeFigures,
)
from audioeval.benchmarks.mcq.aggregate import McqGroup, ModeFigures, RobustFigures
from audioeval.benchmarks.mcq.definitions import get_benchmark
from audioeval.benchmarks.mcq.export import (
    BootstrapSettings,
    DisagreementCounts,
    McqCounts,
    McqSummary,
    OfficialMode,
    RobustMode,
)
from audioeval.benchmarks.mcq.item_rows import DisagreementRow, ItemRow
from audioeval.benchmarks.mcq.rubric_summary import RubricGroup
from tests.golden.runs import build_runs
from tests.test_document_types import problems

MCQ_RUNS = ("mcq_mmar_missing", "mcq_mmar_full", "mcq_mmau_missing")
JUDGE_EVAL_RUNS = ("judge_eval", "judge_eval_fixed")


@pytest.fixture(scope="module")
def golden_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("benchmark-documents")
    build_runs(root)
    return root


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _lines(path: Path) -> list[Any]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def mcq_group_problems(group: Any, where: str) -> list[str]:
    out = problems(group, McqGroup, where)
    out += problems(group["official"], ModeFigures, f"{where}.official")
    out += problems(group["robust"], RobustFigures, f"{where}.robust")
    if "rubric" in group:
        out += problems(group["rubric"], RubricGroup, f"{where}.rubric")
    return out


def mcq_problems(run: Path) -> list[str]:
    doc = _json(run / "mcq_summary.json")
    out = problems(doc, McqSummary, "mcq_summary.json")
    for key, kind in (
        ("counts", McqCounts),
        ("official", OfficialMode),
        ("robust", RobustMode),
        ("disagreements", DisagreementCounts),
        ("bootstrap", BootstrapSettings),
    ):
        out += problems(doc[key], kind, f"mcq_summary.json.{key}")
    out += mcq_group_problems(doc["overall"], "mcq_summary.json.overall")
    for axis, groups in doc["breakdowns"].items():
        out += [p for g, b in groups.items() for p in mcq_group_problems(b, f"mcq_summary.json.{axis}.{g}")]
    axes = frozenset(a.name for a in get_benchmark(doc["benchmark"]).axes)  # an item's groups
    out += [
        p
        for i, row in enumerate(_lines(run / "per_item.jsonl"))
        for p in problems(row, ItemRow, f"per_item.jsonl:{i + 1}", extra=axes)
    ]
    out += [
        p
        for i, row in enumerate(_lines(run / "disagreements.jsonl"))
        for p in problems(row, DisagreementRow, f"disagreements.jsonl:{i + 1}")
    ]
    return out


def judge_eval_problems(run: Path) -> list[str]:
    doc = _json(run / "judge_eval_summary.json")
    at = "judge_eval_summary.json"
    out = problems(doc, JudgeEvalSummary, at)
    out += [
        p for name, g in doc["subsets"].items() for p in problems(g, SubsetFigures, f"{at}.subsets.{name}")
    ]
    out += problems(doc["overall"], OverallFigures, f"{at}.overall")
    out += [p for name, g in doc["types"].items() for p in problems(g, TypeFigures, f"{at}.types.{name}")]
    for key, kind in (
        ("unscored", Listed),
        ("failed", Listed),
        ("official", OfficialFigures),
        ("threshold", ThresholdBlock),
        ("bootstrap", JudgeBootstrap),
        ("settings", JudgeEvalSettings),
        ("skipped", Skipped),
    ):
        out += problems(doc[key], kind, f"{at}.{key}")
    for i, line in enumerate(_lines(run / "per_row.jsonl")):
        out += problems(line, RowLine, f"per_row.jsonl:{i + 1}")
        out += [p for item in line["items"] for p in problems(item, ItemLine, f"per_row.jsonl:{i + 1}.items")]
    out += [
        p
        for i, line in enumerate(_lines(run / "unscored.jsonl"))
        for p in problems(line, RowFields, f"unscored:{i}")
    ]
    return out


@pytest.mark.parametrize("run", [*MCQ_RUNS, *JUDGE_EVAL_RUNS])
def test_a_benchmark_s_exported_files_are_their_declared_types(golden_root: Path, run: str) -> None:
    folder = golden_root / "runs" / run
    bad = mcq_problems(folder) if run in MCQ_RUNS else judge_eval_problems(folder)
    assert not bad, "\n".join(bad[:40])
