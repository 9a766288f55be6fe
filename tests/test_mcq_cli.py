"""`audioeval mcq score` end to end: files written, summary as data, printed output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.cli.main import app

SHARED = Path(__file__).resolve().parents[2] / "shared"
runner = CliRunner()


def mmau_items() -> list[dict]:
    p = SHARED / "data/mmau/mmau-test-mini.json"
    if not p.exists():
        pytest.skip(f"{p}: ../shared not present (a user's clone has no shared data)")
    return json.loads(p.read_text(encoding="utf-8"))


def test_score_mmau_writes_summary_per_item_and_disagreements(tmp_path: Path) -> None:
    items = mmau_items()
    for i, it in enumerate(items):
        letter = "ABCDEFGH"[it["choices"].index(it["answer"])]
        if i % 4 == 0:
            it["model_output"] = it["answer"]
        elif i % 4 == 1:
            it["model_output"] = f"Answer: {letter}"
        elif i % 4 == 2:
            it["model_output"] = "I am not sure."
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps(items))
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        [
            "mcq",
            "score",
            "--benchmark",
            "mmau",
            "--predictions",
            str(preds),
            "--output_dir",
            str(out),
            "--bootstrap",
            "100",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "Task-wise Accuracy:" in res.output and "Difficulty-wise Accuracy:" in res.output
    assert "Total Accuracy: 33.33% over 750 samples" in res.output
    assert "No prediction count: 0" in res.output and "without prediction 250" in res.output
    s = json.loads((out / "mcq_summary.json").read_text())
    assert s["benchmark"] == "mmau" and s["prediction_key"] == "model_output"
    assert s["counts"]["without_prediction"] == 250 and s["counts"]["scored"] == 750
    assert s["overall"]["official"]["correct"] == 250
    # One "Answer: <letter>" item has note names as options ("C" is letter C and option D):
    # the robust mode calls it unparseable rather than guess.
    assert s["overall"]["robust"]["correct"] == 499
    assert s["overall"]["robust"]["unparseable"] == 251
    assert list(s["breakdowns"]) == ["task", "difficulty", "sub-category"]
    assert list(s["breakdowns"]["difficulty"]) == ["easy", "hard", "medium"]
    for axis in s["breakdowns"].values():
        for g in axis.values():
            assert set(g) >= {"n", "official", "robust"}
            lo, hi = g["official"]["ci"]
            assert lo <= g["official"]["accuracy"] <= hi
    assert sum(g["n"] for g in s["breakdowns"]["task"].values()) == 750
    per_item = [json.loads(x) for x in (out / "per_item.jsonl").read_text().splitlines()]
    assert len(per_item) == 1000 and {"official", "robust", "robust_method"} <= set(per_item[0])
    dis = [json.loads(x) for x in (out / "disagreements.jsonl").read_text().splitlines()]
    assert len(dis) == s["disagreements"]["n"] == 249
    assert all(d["robust"] == 1 and d["official"] == 0 for d in dis)


def test_default_output_dir_is_outputs_benchmark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    preds = tmp_path / "p.jsonl"
    preds.write_text(
        json.dumps(
            {
                "id": "a",
                "choices": ["Dog", "Cat"],
                "answer": "Dog",
                "modality": "sound",
                "category": "Signal Layer",
                "answer_prediction": "(A) Dog",
            }
        )
        + "\n"
    )
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(
        app, ["mcq", "score", "--benchmark", "mmar", "--predictions", str(preds), "--no-official-print"]
    )
    assert res.exit_code == 0, res.output
    assert "Modality-wise" not in res.output
    s = json.loads((tmp_path / "outputs" / "mmar" / "mcq_summary.json").read_text())
    assert s["overall"]["n"] == 1 and s["breakdowns"]["modality"]["music"]["n"] == 0
    assert s["breakdowns"]["modality"]["music"]["official"]["ci"] is None
    assert s["rubrics"] is None


def test_mcq_score_is_a_preset_and_mcq_rescore_rewrites_the_same_files(tmp_path: Path) -> None:
    from audioeval.benchmarks.mcq.benchmark import BENCHMARK

    assert [p.command for p in BENCHMARK.presets] == [
        ("mcq", "score"),
        ("mcq", "predict"),
    ]  # data, not CLI modules
    preds = tmp_path / "p.jsonl"
    rows = [
        {"id": "a", "choices": ["Dog", "Cat"], "answer": "Dog", "modality": "sound",
         "category": "Signal Layer", "answer_prediction": "(A) Dog"},
        {"id": "b", "choices": ["Dog", "Cat"], "answer": "Cat", "modality": "sound",
         "category": "Signal Layer", "answer_prediction": "Dog"},
    ]  # fmt: skip
    preds.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "out"
    args = [
        "mcq",
        "score",
        "--benchmark",
        "mmar",
        "--predictions",
        str(preds),
        "-o",
        str(out),
        "--bootstrap",
        "50",
    ]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "Total Accuracy: 50.00% over 2 samples" in res.output
    first = json.loads((out / "mcq_summary.json").read_text())
    again = runner.invoke(app, ["mcq", "rescore", str(out)])
    assert again.exit_code == 0, again.output
    assert "no model or judge call" in again.output and "Total Accuracy: 50.00%" in again.output
    assert json.loads((out / "mcq_summary.json").read_text()) == first
    bad = runner.invoke(app, [*args, "--judge-prompt", str(preds)])
    assert bad.exit_code == 2 and "--judge-prompt needs --rubrics" in bad.output


def test_an_empty_group_shows_a_dash_not_zero() -> None:
    """`mcq score`'s tables: a group without items has no accuracy ("–"); the official
    printout keeps the scripts' `0.00%` for it."""
    from rich.console import Console

    from audioeval.benchmarks.mcq.aggregate import group_figures
    from audioeval.benchmarks.mcq.console_table import mcq_tables
    from audioeval.benchmarks.mcq.definitions import get_benchmark
    from audioeval.benchmarks.pair_figures import Figure

    def blocks(n: int, right: int) -> dict:
        value = right / n if n else None
        ci = (0.1, 0.9) if n else None
        return {
            "accuracy": Figure(value, ci, n, right),
            "mean:robust_correct": Figure(value, ci, n, right),
            "mean:unparseable": Figure(0.0 if n else None, None, n, 0),
        }

    bench = get_benchmark("mmau")
    full, empty = group_figures(blocks(4, 2)), group_figures(blocks(0, 0))
    summary = {
        "overall": full,
        "breakdowns": {axis.name: {"seen": full, "unseen": empty} for axis in bench.axes},
        "counts": {"items": 4, "scored": 4, "without_prediction": 0, "answer_not_in_choices": 0},
        "disagreements": {"n": 0, "official_only": 0, "robust_only": 0},
    }
    console = Console(record=True, width=160)
    for item in mcq_tables(summary, bench):
        console.print(item)
    text = console.export_text()
    unseen = [line for line in text.splitlines() if "unseen" in line]
    assert unseen and all("0.00%" in line for line in unseen if " : " in line)  # the official lines
    rows = [line for line in unseen if "│" in line]
    assert rows and all("0.00" not in row and row.count("–") >= 3 for row in rows)
    assert any("50.00" in line and "seen" in line for line in text.splitlines())
