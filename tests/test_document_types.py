"""Every document of a run folder is what its declared type says: on the golden runs
(`tests/golden/runs.py`: the demo runs, MMAE with the test judge, MCQ with and without missing
keys, a judge-eval, a codec run, and their leaderboards and reports), each key of each file is a
key its `TypedDict` declares, each required key is there, and each nested block is checked
against its own type. A writer that adds a key nobody declared, or a declaration that drifts
from what is written, fails here, naming the file and the path of the block."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from audioeval.analysis.leaderboard_runs import BootstrapMethod, LeaderboardDoc
from audioeval.core.errors import ErrorRecord
from audioeval.core.model_output import OutputRecord
from audioeval.core.record import AnswerJson, RecordJson, SampleJson, ScoreJson
from audioeval.engine.board_spec import metric_key
from audioeval.engine.leaderboard import (
    AdjacentTest,
    Board,
    BoardCell,
    BoardColumn,
    BoardGroup,
    BoardRow,
    ColumnSignature,
    PairCounts,
)
from audioeval.engine.pair_signature import PairSignature
from audioeval.engine.run_summary import RunSummaryJson
from audioeval.metrics.judge_reliability import Agreement, ReliabilityBlock, ReliabilityFigure, VerifierAudit
from audioeval.metrics.output_health import IdsCount, OutputHealth
from audioeval.metrics.summary_blocks import (
    FailedOutputs,
    FirstFailure,
    MetricBlock,
    PairSummary,
    PerSampleJson,
)
from audioeval.report.html_page import PageSamples, PairSamples
from audioeval.report.sample_rows import Gold, IndexEntry, RubricRow, SampleDetails
from audioeval.report.viewer_runs import (
    ComparedCell,
    ComparedRow,
    ComparedSample,
    ComparedSystem,
    Comparison,
    PairLine,
    ReliabilityShown,
    RunLine,
    RunState,
    ServedRuns,
    ShownDifference,
)
from audioeval.store.run_folder import RunBenchmark, RunFile, RunModel
from tests.golden.figures import chunk_data, page_data
from tests.golden.runs import LEADERBOARDS, RUNS, build_runs


def _keys(kind: Any) -> tuple[frozenset[str], frozenset[str]]:
    """(required keys, every key) of a TypedDict. Its `Required[...]` / `NotRequired[...]` marks
    are read from the annotations' text: under `from __future__ import annotations` Python 3.11
    leaves them out of `__required_keys__`."""
    declared = kind.__required_keys__ | kind.__optional_keys__
    required = set(kind.__required_keys__)
    for key, annotation in kind.__annotations__.items():
        text = getattr(annotation, "__forward_arg__", annotation)
        if isinstance(text, str) and text.startswith("NotRequired["):
            required.discard(key)
        elif isinstance(text, str) and text.startswith("Required["):
            required.add(key)
    return frozenset(required), declared


def problems(doc: Any, kind: Any, where: str, *, extra: frozenset[str] = frozenset()) -> list[str]:
    """What in `doc` is not `kind`: keys it does not declare (`extra`: keys allowed besides),
    required keys missing."""
    if not isinstance(doc, dict):
        return [f"{where}: not an object ({type(doc).__name__})"]
    required, declared = _keys(kind)
    out = [f"{where}: key {k!r} is not declared by {kind.__name__}" for k in doc if k not in declared | extra]
    out += [f"{where}: required key {k!r} of {kind.__name__} is missing" for k in sorted(required - set(doc))]
    return out


def metric_block_problems(block: Any, where: str) -> list[str]:
    out = problems(block, MetricBlock, where)
    if isinstance(block, dict) and isinstance(block.get("per_sample"), dict):
        out += problems(block["per_sample"], PerSampleJson, f"{where}.per_sample")
    return out


def reliability_problems(block: Any, where: str) -> list[str]:
    out = problems(block, ReliabilityBlock, where)
    for key, figure in (block or {}).items() if isinstance(block, dict) else ():
        if key == "verifier_audit":
            by = frozenset(k for k in figure if k.startswith("by_"))  # one per group key
            out += problems(figure, VerifierAudit, f"{where}.{key}", extra=by)
            for k in by:
                out += [
                    p for g, a in figure[k].items() for p in problems(a, Agreement, f"{where}.{key}.{k}.{g}")
                ]
        elif isinstance(figure, dict):
            out += problems(figure, ReliabilityFigure, f"{where}.{key}")
    return out


def pair_summary_problems(doc: Any, where: str) -> list[str]:
    out = problems(doc, PairSummary, where)
    if not isinstance(doc, dict):
        return out
    for name, block in (doc.get("metrics") or {}).items():
        out += metric_block_problems(block, f"{where}.metrics.{name}")
    for key, groups in (doc.get("breakdowns") or {}).items():
        for group, blocks in groups.items():
            for name, block in blocks.items():
                out += metric_block_problems(block, f"{where}.breakdowns.{key}.{group}.{name}")
    out += problems(doc.get("failed_outputs"), FailedOutputs, f"{where}.failed_outputs")
    if doc.get("first_failure") is not None:
        out += problems(doc["first_failure"], FirstFailure, f"{where}.first_failure")
    for scorer, block in (doc.get("reliability") or {}).items():
        out += reliability_problems(block, f"{where}.reliability.{scorer}")
    if "output_health" in doc:
        health = doc["output_health"]
        out += problems(health, OutputHealth, f"{where}.output_health")
        out += [
            p for k, v in health["problems"].items() for p in problems(v, IdsCount, f"{where}.problems.{k}")
        ]
        out += problems(health["unreadable"], IdsCount, f"{where}.output_health.unreadable")
    return out


def board_problems(board: Any, where: str) -> list[str]:
    out = problems(board, Board, where)
    if not isinstance(board, dict):
        return out
    out += [
        p for i, c in enumerate(board["columns"]) for p in problems(c, BoardColumn, f"{where}.columns[{i}]")
    ]
    out += [p for i, g in enumerate(board["groups"]) for p in problems(g, BoardGroup, f"{where}.groups[{i}]")]
    for b, sig in (board.get("signatures") or {}).items():
        out += problems(sig, ColumnSignature, f"{where}.signatures.{b}")
    for i, row in enumerate(board["rows"]):
        at = f"{where}.rows[{i}]"
        out += problems(row, BoardRow, at)
        out += [p for k, c in row["cells"].items() for p in problems(c, BoardCell, f"{at}.cells.{k}")]
        out += [p for b, c in row["pairs"].items() for p in problems(c, PairCounts, f"{at}.pairs.{b}")]
        if row.get("adjacent") is not None:
            out += problems(row["adjacent"], AdjacentTest, f"{at}.adjacent")
    return out


def run_summary_problems(doc: Any, where: str) -> list[str]:
    results = doc.get("results") or [] if isinstance(doc, dict) else []
    quick = frozenset()  # one pair: its metrics also at the top, under their short names
    if len(results) == 1:
        names = [metric_key(n) for n in results[0].get("metrics") or {}]
        quick = frozenset([*names, *(f"{n}_ci" for n in names)])
    out = problems(doc, RunSummaryJson, where, extra=quick)
    out += [p for i, r in enumerate(results) for p in pair_summary_problems(r, f"{where}.results[{i}]")]
    out += [
        p
        for name, b in (doc.get("boards") or {}).items()
        for p in board_problems(b, f"{where}.boards.{name}")
    ]
    return out


def record_problems(line: Any, where: str) -> list[str]:
    out = problems(line, RecordJson, where)
    if not isinstance(line, dict):
        return out
    out += problems(line.get("sample"), SampleJson, f"{where}.sample")
    if line.get("output") is not None:
        out += problems(line["output"], OutputRecord, f"{where}.output")
        if "error_detail" in line["output"]:
            out += problems(line["output"]["error_detail"], ErrorRecord, f"{where}.output.error_detail")
    if "processed" in line:
        out += problems(line["processed"], AnswerJson, f"{where}.processed")
    if "error_detail" in line:
        out += problems(line["error_detail"], ErrorRecord, f"{where}.error_detail")
    for field in ("scores", "failure_scores"):
        for name, score in (line.get(field) or {}).items():
            out += problems(score, ScoreJson, f"{where}.{field}.{name}")
            bad = {
                k: v for k, v in score["values"].items() if v is not None and not isinstance(v, int | float)
            }
            out += [f"{where}.{field}.{name}.values: {bad} are not numbers"] if bad else []
    return out


def run_file_problems(doc: Any, where: str) -> list[str]:
    out = problems(doc, RunFile, where)
    out += [
        p
        for i, b in enumerate(doc["benchmarks"])
        for p in problems(b, RunBenchmark, f"{where}.benchmarks[{i}]")
    ]
    out += [p for i, m in enumerate(doc["models"]) for p in problems(m, RunModel, f"{where}.models[{i}]")]
    return out


def leaderboard_problems(doc: Any, where: str) -> list[str]:
    out = problems(doc, LeaderboardDoc, where) + problems(
        doc["bootstrap"], BootstrapMethod, f"{where}.bootstrap"
    )
    return out + [p for name, b in doc["boards"].items() for p in board_problems(b, f"{where}.boards.{name}")]


def report_problems(report: Path, where: str) -> list[str]:
    data = page_data(report / "index.html")["samples-data"]
    out = problems(data, PageSamples, where)
    for i, pair in enumerate(data.get("pairs") or []):
        out += problems(pair, PairSamples, f"{where}.pairs[{i}]")
        out += [
            p
            for j, e in enumerate(pair["samples"])
            for p in problems(e, IndexEntry, f"{where}.pairs[{i}][{j}]")
        ]
    for chunk in sorted((report / "samples").glob("*.js")):
        out += [
            p for d in chunk_data(chunk) for p in problems(d, SampleDetails, f"{chunk.name}:{d.get('id')}")
        ]
    return out


def details_problems(d: Any, where: str) -> list[str]:
    out = problems(d, SampleDetails, where)
    if isinstance(d, dict) and d.get("gold") is not None:
        out += problems(d["gold"], Gold, f"{where}.gold")
    return out + [
        p
        for i, r in enumerate((d or {}).get("rubrics") or [])
        for p in problems(r, RubricRow, f"{where}.rubrics[{i}]")
    ]


def viewer_problems(run: Path, where: str) -> list[str]:
    """The viewer's data of a finished run: its listing, its page, and a compare of the first
    benchmark's pairs with one of its samples."""
    served = ServedRuns([run])
    out = []
    for line in served.listing():
        out += problems(line, RunLine, f"{where}.listing")
        out += [
            p for pair in line["pairs"] for p in problems(pair, PairLine, f"{where}.listing.{pair['key']}")
        ]
    state = served.run_state(0)
    out += problems(state, RunState, f"{where}.run_state")
    out += [
        p
        for r in state["reliability"]
        for p in problems(r, ReliabilityShown, f"{where}.run_state.reliability")
    ]
    pairs = served.pairs(0)
    keys = [p.key for p in pairs if p.benchmark == pairs[0].benchmark]
    if len(keys) > 1:
        compared = served.compare(keys)
        out += problems(compared, Comparison, f"{where}.compare")
        out += [
            p for s in compared["systems"] for p in problems(s, ComparedSystem, f"{where}.compare.systems")
        ]
        out += [
            p
            for d in compared["differences"]
            for p in problems(d, ShownDifference, f"{where}.compare.differences")
        ]
        for row in compared["rows"]:
            out += problems(row, ComparedRow, f"{where}.compare.{row['id']}")
            out += [
                p
                for c in row["cells"]
                if c is not None
                for p in problems(c, ComparedCell, f"{where}.compare.{row['id']}")
            ]
        sample = served.sample(keys, compared["rows"][0]["id"])
        out += problems(sample, ComparedSample, f"{where}.sample")
        out += [p for d in sample["systems"] if d is not None for p in details_problems(d, f"{where}.sample")]
    return out


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def documents(root: Path, name: str) -> Iterator[tuple[str, list[str]]]:
    """(file, its problems) of every typed document of one golden run, its leaderboard and report."""
    run = root / "runs" / name
    yield "summary.json", run_summary_problems(_json(run / "summary.json"), "summary.json")
    yield "run.json", run_file_problems(_json(run / "run.json"), "run.json")
    for pair in sorted(p.parent for p in run.glob("*/*/records.jsonl")):
        rel = pair.relative_to(run).as_posix()
        if (pair / "summary.json").is_file():
            yield (
                f"{rel}/summary.json",
                pair_summary_problems(_json(pair / "summary.json"), f"{rel}/summary.json"),
            )
        yield f"{rel}/signature.json", problems(_json(pair / "signature.json"), PairSignature, rel)
        lines = (pair / "records.jsonl").read_text(encoding="utf-8").splitlines()
        found = [
            p for i, line in enumerate(lines, 1) for p in record_problems(json.loads(line), f"{rel}:{i}")
        ]
        yield f"{rel}/records.jsonl", found
    board = root / LEADERBOARDS / name / "leaderboard.json"
    yield "leaderboard.json", leaderboard_problems(_json(board), "leaderboard.json")
    yield "report", report_problems(run / "report", "report")
    yield "viewer", viewer_problems(run, "viewer")


@pytest.fixture(scope="module")
def golden_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("documents")
    build_runs(root)
    return root


@pytest.mark.parametrize("run", [r.name for r in RUNS])
def test_every_document_of_a_run_folder_is_its_declared_type(golden_root: Path, run: str) -> None:
    checked, bad = [], []
    for file, found in documents(golden_root, run):
        checked.append(file)
        bad += found
    assert any(f.endswith("records.jsonl") for f in checked), checked
    assert not bad, "\n".join(bad[:40])


def test_the_check_sees_an_undeclared_key_and_a_missing_one() -> None:
    block = {"value": 0.5, "ci": None, "n": 2, "higher_is_better": True, "unit": "fraction"}
    assert metric_block_problems(block, "m") == []
    assert metric_block_problems({**block, "mean": 0.5}, "m") == [
        "m: key 'mean' is not declared by MetricBlock"
    ]
    assert problems({"n": 1, "in_headline": "counted"}, FailedOutputs, "f") == [
        "f: required key 'ids' of FailedOutputs is missing"
    ]
    line = {"id": "a", "sample": {}, "scores": {"s": {"values": {"x": "high"}, "stats": {}}}}
    assert record_problems(line, "r") == ["r.scores.s.values: {'x': 'high'} are not numbers"]
