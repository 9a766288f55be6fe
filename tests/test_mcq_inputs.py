"""Bad input: every error names the file, line, id and field; the CLI exits with 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.mcq.definitions import MMAR, get_benchmark
from audioeval.benchmarks.mcq.loading import load_mcq_file
from audioeval.cli.main import app
from audioeval.core.errors import InputError

runner = CliRunner()


def item(i: int, **over: Any) -> dict[str, Any]:
    base = {
        "id": f"id{i}",
        "question": "Which?",
        "choices": ["Dog", "Cat"],
        "answer": "Dog",
        "modality": "sound",
        "category": "Signal Layer",
        "sub-category": "Counting",
        "answer_prediction": "Dog",
    }
    base.update(over)
    return {k: v for k, v in base.items() if v is not ...}


def jsonl(tmp_path: Path, items: list[Any], name: str = "p.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("".join(json.dumps(x) + "\n" for x in items))
    return p


def error_of(path: Path, **kw: Any) -> InputError:
    with pytest.raises(InputError) as info:
        load_mcq_file(path, MMAR, **kw)
    return info.value


def test_malformed_jsonl_line_reports_its_number(tmp_path: Path) -> None:
    p = tmp_path / "p.jsonl"
    p.write_text(json.dumps(item(0)) + "\n" + json.dumps(item(1)) + "\n{not json\n")
    err = error_of(p)
    assert err.line == 3 and err.file == str(p) and "malformed JSON line" in err.message
    assert f"{p}:3" in err.describe()


def test_malformed_json_list_reports_its_line(tmp_path: Path) -> None:
    p = tmp_path / "p.json"
    p.write_text('[\n {"id": "a"},\n {"id": "b",,}\n]')
    err = error_of(p)
    assert err.line == 3 and "malformed JSON" in err.message


def test_json_that_is_not_a_list(tmp_path: Path) -> None:
    p = tmp_path / "p.json"
    p.write_text('"hello"')
    assert "JSON list" in error_of(p).message


@pytest.mark.parametrize(
    ("field", "over", "message"),
    [
        ("answer", {"answer": ...}, "missing field"),
        ("answer", {"answer": 3}, "expected a string, got int"),
        ("choices", {"choices": ...}, "missing field"),
        ("choices", {"choices": []}, "expected a non-empty list of strings"),
        ("choices", {"choices": ["a", 2]}, "expected a non-empty list of strings"),
        ("answer_prediction", {"answer_prediction": 7}, "expected a string, got int"),
        ("answer_prediction", {"answer_prediction": ["B"]}, "expected a string, got list"),
        ("modality", {"modality": ...}, "missing field"),
        ("id", {"id": ...}, "missing or non-string id"),
    ],
)
def test_bad_items_name_line_id_and_field(tmp_path: Path, field: str, over: dict, message: str) -> None:
    p = jsonl(tmp_path, [item(0), item(1, **over)])
    err = error_of(p)
    assert (err.field, err.line, err.message) == (field, 2, message)
    if field != "id":
        assert err.sample_id == "id1"


def test_item_that_is_not_an_object(tmp_path: Path) -> None:
    p = tmp_path / "p.json"
    p.write_text(json.dumps([item(0), ["not", "an", "object"]], indent=1))
    err = error_of(p)
    expected = p.read_text().splitlines().index(" [") + 1
    assert err.line == expected and "item is a list, not an object" in err.message


def test_duplicate_ids_are_both_scored_as_the_official_script_does(tmp_path: Path) -> None:
    """MMAR/MMAU evaluation.py scores every item of the file: a repeated id is kept under
    `ID#2`, named with both lines, and counts in the official accuracy."""
    p = jsonl(tmp_path, [item(0), item(1), item(0, answer_prediction="Cat")])
    f = load_mcq_file(p, MMAR)
    assert [i.id for i in f.items] == ["id0", "id1", "id0#2"]
    assert "p.jsonl:3:" in f.renamed[0] and "first at line 1" in f.renamed[0]
    out = tmp_path / "out"
    res = runner.invoke(app, ["mcq", "score", "--benchmark", "mmar", "--predictions", str(p),
                              "-o", str(out), "--no-progress"], env={"COLUMNS": "400"})  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "mcq_summary.json").read_text())
    assert summary["counts"]["items"] == 3
    assert "scored as 'id0#2'" in " ".join(res.output.split())


def test_null_prediction_counts_as_no_prediction(tmp_path: Path) -> None:
    f = load_mcq_file(jsonl(tmp_path, [item(0), item(1, answer_prediction=None)]), MMAR)
    assert [i.prediction for i in f.items] == ["Dog", None]


def test_no_prediction_key_anywhere_is_an_error_that_names_the_keys(tmp_path: Path) -> None:
    p = jsonl(tmp_path, [item(0, answer_prediction=...)])
    err = error_of(p)
    assert "'answer_prediction' or 'model_prediction'" in err.message
    assert "--prediction-key" in err.message


def test_prediction_key_resolution_and_override(tmp_path: Path) -> None:
    old = jsonl(tmp_path, [item(0, answer_prediction=..., model_prediction="Cat")], "old.jsonl")
    assert load_mcq_file(old, MMAR).prediction_key == "model_prediction"
    both = jsonl(tmp_path, [item(0, mine="Cat")], "both.jsonl")
    f = load_mcq_file(both, MMAR, prediction_key="mine")
    assert f.prediction_key == "mine" and f.items[0].prediction == "Cat"
    assert "no item has the prediction key 'nope'" in error_of(both, prediction_key="nope").message


def test_unknown_benchmark_name() -> None:
    with pytest.raises(
        InputError, match=r"unknown benchmark 'mmlu' \(did you mean 'mmau'\?\); known: mmar, mmau"
    ):
        get_benchmark("mmlu")
    assert get_benchmark(" MMAR ").name == "mmar"


def test_cli_exit_codes_for_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(item(0)) + "\n{oops\n")
    res = runner.invoke(
        app,
        [
            "mcq",
            "score",
            "--benchmark",
            "mmar",
            "--predictions",
            str(bad),
            "--output_dir",
            str(tmp_path / "out"),
        ],
    )
    assert res.exit_code == 2
    assert f"{bad}:2" in res.output and "malformed JSON line" in res.output
    assert not (tmp_path / "out" / "summary.json").exists()
    res = runner.invoke(app, ["mcq", "score", "--benchmark", "mmlu", "--predictions", str(bad)])
    assert res.exit_code == 2 and "mmlu" in res.output
    res = runner.invoke(
        app, ["mcq", "score", "--benchmark", "mmar", "--predictions", str(tmp_path / "absent.jsonl")]
    )
    assert res.exit_code == 2 and "predictions file not found" in res.output
    good = jsonl(tmp_path, [item(0)], "good.jsonl")
    res = runner.invoke(
        app,
        [
            "mcq",
            "score",
            "--benchmark",
            "mmau",
            "--predictions",
            str(good),
            "--rubrics",
            "--output_dir",
            str(tmp_path / "o2"),
        ],
    )
    assert res.exit_code == 2


def test_cli_rubrics_only_for_mmar(tmp_path: Path) -> None:
    p = tmp_path / "mmau.json"
    p.write_text(
        json.dumps(
            [
                {
                    "id": "a",
                    "choices": ["x", "y"],
                    "answer": "x",
                    "task": "sound",
                    "difficulty": "easy",
                    "model_output": "x",
                }
            ]
        )
    )
    res = runner.invoke(
        app,
        [
            "mcq",
            "score",
            "--benchmark",
            "mmau",
            "--predictions",
            str(p),
            "--rubrics",
            "--judge-base-urls",
            "http://127.0.0.1:9/v1",
            "--output_dir",
            str(tmp_path / "o"),
        ],
    )
    assert res.exit_code == 2 and "MMAR only" in res.output


def test_jsonl_lines_split_on_newlines_only_and_bad_bytes_are_named(tmp_path: Path) -> None:
    p = tmp_path / "p.jsonl"
    p.write_text(
        json.dumps(item(0, answer_prediction="Dog\u2028really"), ensure_ascii=False) + "\n", encoding="utf-8"
    )
    assert load_mcq_file(p, MMAR).items[0].prediction == "Dog\u2028really"
    p.write_bytes(json.dumps(item(0)).encode() + b"\n" + b'{"id": "\xff"}\n')
    err = error_of(p)
    assert err.line == 2 and "not UTF-8" in err.message
