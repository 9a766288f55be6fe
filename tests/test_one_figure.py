"""One figure, one computation: the engine's pair summary is the only place a headline, a
breakdown or a CI is computed; every file, board and console table formats it.

- MMAR / MMAU items without the prediction key: one figure, the official script's (the item
  is in no denominator), in `mcq_summary.json`, `summary.json`, its Reasoning board, the
  leaderboard's files and on the console.
- The modules that export, print or show figures compute no statistic: no bootstrap, no
  grouped means, no corpus metric (an import scan of every module that formats them).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.mcq.definitions import MMAR, MMAU, McqBenchmark
from audioeval.cli.main import app

runner = CliRunner()
SRC = Path(__file__).resolve().parents[1] / "src" / "audioeval"


# --- items without the prediction key ---


def _items(bench: McqBenchmark, key: str) -> tuple[list[dict[str, Any]], int, int]:
    """90 items: 80 with an answer (41 right: 51.25 %), 10 without the key (45.56 % if they
    counted as wrong). Returns the items, how many are right and how many have no answer."""
    items = []
    for i in range(90):
        item: dict[str, Any] = {
            "id": f"q{i}",
            "question": "Which sound?",
            "choices": ["Dog barking", "Cat", "Rain"],
            "answer": "Rain",
            "sub-category": ("Counting", "Emotion")[i % 2],
        }
        for axis in bench.axes:
            if axis.required:
                item[axis.field] = axis.fixed[i % 2]
        if i < 80:
            item[key] = "Rain" if i < 41 else "Cat"
        items.append(item)
    return items, 41, 10


@pytest.mark.parametrize(("bench", "key"), [(MMAR, "answer_prediction"), (MMAU, "model_output")])
def test_items_without_a_prediction_key_give_one_figure_everywhere(
    tmp_path: Path, bench: McqBenchmark, key: str
) -> None:
    items, right, without = _items(bench, key)
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps(items), encoding="utf-8")
    out = tmp_path / "out"
    res = runner.invoke(
        app, ["mcq", "score", "--benchmark", bench.name, "--predictions", str(preds), "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    official = round(100 * right / (len(items) - without), 2)
    assert official == 51.25

    mcq = json.loads((out / "mcq_summary.json").read_text())
    assert mcq["overall"]["official"]["accuracy"] == official
    assert mcq["overall"]["n"] == 80 and mcq["counts"]["without_prediction"] == without

    run = json.loads((out / "summary.json").read_text())
    pair = run["results"][0]
    assert round(100 * pair["metrics"]["accuracy"]["value"], 2) == official
    assert pair["metrics"]["accuracy"]["n"] == 80 and pair["failed_outputs"]["n"] == without
    assert pair["failed_outputs"]["in_headline"] == "excluded"
    board = run["boards"]["reasoning"]
    (cell,) = [c for c in board["rows"][0]["cells"].values() if c.get("value") is not None]
    assert round(100 * cell["value"], 2) == official

    # the console: the official printout (the script's own last line), our count beside it
    assert f"Total Accuracy: {official:.2f}% over 80 samples" in res.output
    assert "No prediction count: 0" in res.output and f"without prediction {without}" in res.output

    lb = runner.invoke(app, ["leaderboard", str(out), "-o", str(tmp_path / "lb")])
    assert lb.exit_code == 0, lb.output
    assert re.search(rf"\b{official:.2f}\b", lb.output) or re.search(rf"\b{official / 100:.3f}\b", lb.output)
    assert "45.56" not in lb.output and "45.6" not in lb.output
    board_file = json.loads((tmp_path / "lb" / "leaderboard.json").read_text())
    text = json.dumps(board_file)
    assert str(pair["metrics"]["accuracy"]["value"]) in text and str(right / 90) not in text


# --- MMAE: a sample with a failed rubric ---


def test_a_sample_with_a_failed_rubric_is_scored_from_its_other_rubrics_everywhere(
    small_synthetic_set: Any, tmp_path: Path
) -> None:
    """MMAE's rule: a failed rubric (too few valid votes) is counted, never scored, and the
    sample's other rubrics score it. The pair summary (the one computation), taxonomy.json,
    the console table, the editing board and a rescore all give that one figure; the sample
    is still counted failed (a rerun judges it again). The engine once left it out of
    summary.json and the board while taxonomy.json scored it."""
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer

    out = tmp_path / "o"
    with FakeJudgeServer(FakeJudgeConfig(invalid_rate=0.3, wrong_rate=0.2, seed=3)) as judge:
        res = runner.invoke(app, [
            "mmae", "score", "--predictions", str(small_synthetic_set.oracle_predictions),
            "--metadata", str(small_synthetic_set.metadata), "--judge", judge.base_url, "-o", str(out),
            "--no-progress", "--resamples", "50", "--judge-max-attempts", "4",
        ])  # fmt: skip
    assert res.exit_code != 2, res.output
    rows = json.loads((out / "per_sample.json").read_text())
    partly = [r for r in rows if r["n_failed"] and (r["IFR"] is not None or r["CR"] is not None)]
    assert partly, "the judge left no sample with a failed rubric and a scored one"
    tax = json.loads((out / "taxonomy.json").read_text())
    run = json.loads((out / "summary.json").read_text())
    (pair,) = run["results"]
    assert pair["failed"] == len([r for r in rows if r["n_failed"]]) and pair["failed_outputs"]["n"] == 0
    for rate, metric in (("IFR", "mean:ifr"), ("CR", "mean:cr"), ("EMR", "mean:em")):
        defined = [r[rate] for r in rows if r[rate] is not None]
        block = pair["metrics"][metric]
        # the mean over every sample with the rate defined, those with a failed rubric included
        assert block["value"] == pytest.approx(100 * sum(defined) / len(defined))
        assert block["count"] == len(defined) == tax["overall"][f"{rate}_n"]
        assert tax["overall"][rate] == round(block["value"], 2)
        assert tax["overall"][f"{rate}_ci"] == [round(x, 2) for x in block["ci"]]
        assert f"{block['value']:.2f}" in res.output  # the console prints taxonomy.json's
    assert tax["overall"]["n"] == pair["metrics"]["mean:ifr"]["n"] == len(rows)
    for group, blocks in pair["breakdowns"]["modality_x_complexity_group"].items():
        value = blocks["mean:ifr"]["value"]
        assert tax["modality_x_complexity_group"][group]["IFR"] == (
            None if value is None else round(value, 2)
        )
    rubrics = [s for r in rows for s in r["rubric_scores"] if s is not None]
    assert tax["overall"]["micro"]["IFR"] is not None and tax["overall"]["micro"]["n_if_rubrics"] + tax[
        "overall"
    ]["micro"]["n_cr_rubrics"] == len(rubrics)
    cells = run["boards"]["editing"]["rows"][0]["cells"]
    for rate, metric in (("IFR", "mean:ifr"), ("CR", "mean:cr"), ("EMR", "mean:em")):
        assert cells[f"mmae · {rate}"]["value"] == pair["metrics"][metric]["value"]

    # the cross-run analysis (rank robustness, paired tests) reads the same samples' statistics
    from audioeval.analysis.score_table import PairCell, cell_stats

    folder = out / pair["folder"]
    cell = cell_stats(PairCell("predictions", "mmae", out, folder, "mmae", "mean:ifr"), {})
    assert not isinstance(cell, str), cell
    assert set(cell.ids) >= {r["id"] for r in partly if r["IFR"] is not None}
    assert len(cell.ids) == pair["metrics"]["mean:ifr"]["n"]

    again = runner.invoke(app, ["rescore", str(out)])  # no judge: the stored answers again
    assert again.exit_code != 2, again.output
    (after,) = json.loads((out / "summary.json").read_text())["results"]
    assert after["metrics"] == pair["metrics"] and after["breakdowns"] == pair["breakdowns"]
    assert json.loads((out / "taxonomy.json").read_text())["overall"] == tax["overall"]


# --- exporters, console tables, boards and pages compute no statistic ---

STATISTICS = {
    "audioeval.metrics.bootstrap",
    "audioeval.metrics.corpus",
    "audioeval.metrics.pair_summary",
    "audioeval.metrics.stat_table",
    "statistics",
}
"""What computes a mean, a CI or a corpus metric: a module that formats figures imports none."""

STATISTIC_CALLS = re.compile(
    r"^(mean|nanmean|average|median|quantile|percentile|bootstrap\w*|summarise\w*|\w*mean_ci\w*|aggregate\w*"
    r"|accuracy|balanced_accuracy|auroc|expected_calibration_error|calibration_bins|tune_threshold|predict_yes)$"
)
"""Calls that compute a statistic (numpy's or ours), whatever module they come from."""

NOT_YET: dict[str, str] = {
    "audioeval.benchmarks.anyaudio_bench.tuned": "judge-eval at a threshold its records hold no verdict at "
    "(tuned on the dev pair after judging, or a folder judged before its metrics were declared): the "
    "export has the engine's pair summary computed again over the records (one definition of each "
    "figure, called from an export)",
    "audioeval.report.viewer_runs": "a pair with no stored summary (a run still going): the engine's pair "
    "summary of its records, computed live",
}
"""Modules that still compute a figure of their own, each with what it computes."""


def _formatting_modules() -> list[str]:
    """Every module that writes, prints or shows a run's figures: each benchmark's exporters
    (`Benchmark.exporters`, the modules their functions load), console tables and report
    sections, the modules of `report/`, and the benchmark-local modules each of them imports."""
    from audioeval.benchmarks.plugins import load_benchmarks

    roots: set[str] = {f"audioeval.report.{p.stem}" for p in (SRC / "report").glob("*.py")}
    for bench in load_benchmarks().values():
        hooks = [*bench.exporters.values(), bench.console_table, bench.report_section]
        for hook in hooks:
            if hook is None:
                continue
            roots.add(hook.__module__)
            roots |= _imported(hook.__module__, inside=_package(hook.__module__))
    found, todo = set(roots), [n for n in roots if n.startswith("audioeval.benchmarks.")]
    while todo:  # every module of its benchmark a formatting module imports, at any depth
        name = todo.pop()
        for more in _imported(name, inside=_package(name)) - found:
            found.add(more)
            todo.append(more)
    return sorted(n for n in found if _path(n).is_file())


def _package(module: str) -> str:
    return module.rsplit(".", 1)[0]


def _path(module: str) -> Path:
    return SRC.joinpath(*module.split(".")[1:]).with_suffix(".py")


def _imported(module: str, *, inside: str) -> set[str]:
    """The modules of package `inside` that `module` imports (at the top or in a function)."""
    path = _path(module)
    if not path.is_file():
        return set()
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(inside + "."):
            out.add(node.module)
    return out


PER_SAMPLE_RULES: dict[str, str] = {
    "audioeval.benchmarks.mmae.aggregate._share": "one sample's IFR / CR: the share of its own rubrics "
    "scored 1 (MMAE's per-sample rule, called by the scorer and by per_sample.json's rows alike); no "
    "mean over samples",
}
"""Functions that compute one sample's own value from its parts (the scorer's rule, shared by
the scorer and an export's per-sample rows), not a figure over samples."""


def _statistics(module: str) -> list[str]:
    tree = ast.parse(_path(module).read_text(encoding="utf-8"))
    for fn in [n for n in tree.body if isinstance(n, ast.FunctionDef) and f"{module}.{n.name}" in PER_SAMPLE_RULES]:
        tree.body.remove(fn)
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        found += [f"imports {n}" for n in names if n in STATISTICS or n.split(".")[0] in STATISTICS]
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.attr if isinstance(fn, ast.Attribute) else fn.id if isinstance(fn, ast.Name) else ""
            if STATISTIC_CALLS.match(name):
                found.append(f"calls {name}() at line {node.lineno}")
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _call_of(node.left, "sum"):
            if _call_of(node.right, "len"):  # a mean written out: sum(x) / len(x)
                found.append(f"computes sum() / len() at line {node.lineno}")
    return found


def _call_of(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


def test_the_scan_finds_the_exporters_and_tables_of_mmae_and_mcq() -> None:
    modules = _formatting_modules()
    for expected in (
        "audioeval.benchmarks.mmae.exports",
        "audioeval.benchmarks.mmae.console_table",
        "audioeval.benchmarks.mcq.export",
        "audioeval.benchmarks.mcq.console_table",
        "audioeval.report.leaderboard_table",
        "audioeval.report.mcq_table",
        "audioeval.report.run_report",
        "audioeval.benchmarks.mcq.aggregate",
        "audioeval.benchmarks.mcq.rubric_summary",
        "audioeval.benchmarks.anyaudio_bench.export",
        "audioeval.benchmarks.anyaudio_bench.summary",
        "audioeval.benchmarks.anyaudio_bench.console_table",
        "audioeval.report.judge_eval_table",
    ):
        assert expected in modules
    # and a mean written out by hand
    mean = ast.parse("m = sum(items) / len(items) if items else None")
    assert any(isinstance(n, ast.BinOp) and _call_of(n.left, "sum") and _call_of(n.right, "len") for n in ast.walk(mean))
    # and it would see a statistic: the engine's summary imports the corpus metrics and calls them
    assert "imports audioeval.metrics.corpus" in _statistics("audioeval.metrics.pair_summary")
    assert any(s.startswith("calls aggregate_all") for s in _statistics("audioeval.metrics.pair_summary"))
    # and judge-eval's export at a threshold tuned after judging: the engine's summary, called
    # from an export (that module is listed in NOT_YET)
    tuned = _statistics("audioeval.benchmarks.anyaudio_bench.tuned")
    assert "imports audioeval.metrics.pair_summary" in tuned
    assert any(s.startswith("calls tune_threshold") for s in tuned)


def test_exporters_and_tables_compute_no_statistic() -> None:
    found = {m: s for m in _formatting_modules() if m not in NOT_YET and (s := _statistics(m))}
    assert found == {}
