"""Messages that say what is wrong and what helps (issue 24): what each model serves against
what the benchmark needs, an empty predictions file named as such, and a fixed predictions
file without some answers (a rerun cannot help)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from audioeval.cli import exit_codes
from audioeval.cli.main import app
from tests.run_helpers import tone_mcq_manifest

runner = CliRunner()


def run_cli(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["run", *args, "--no-progress"], env={"COLUMNS": "400"})


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_model_serving_another_task_says_what_it_serves_and_what_is_needed(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=2)
    res = run_cli("-m", "espeak-ng", "--task", "mcq", "-b", str(manifest), "-o", str(tmp_path / "out"))
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    out = _flat(res.output)
    assert "model espeak-ng serves no benchmark given: it serves tts" in out and "needs task mcq" in out


def test_an_empty_predictions_file_is_named_empty(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=2)
    for i, content in enumerate(("", "[]\n", "\n\n")):
        empty = tmp_path / f"empty{i}.jsonl"
        empty.write_text(content)
        res = run_cli("-m", f"predictions:{empty}", "--task", "mcq", "-b", str(manifest),
                      "-o", str(tmp_path / f"out{i}"))  # fmt: skip
        assert res.exit_code == exit_codes.BAD_INPUT, res.output
        out = _flat(res.output)
        assert "predictions file is empty" in out and empty.name in out
        assert "no model serves" not in out


def test_a_fixed_predictions_file_without_some_answers_says_a_rerun_will_not_help(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=4)
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({"id": r["id"], "text": r["answer"]}) + "\n" for r in rows[:2]))
    res = run_cli("-m", f"predictions:{preds}", "--task", "mcq", "-b", str(manifest), "-o", str(tmp_path / "out"))
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    out = _flat(res.output)
    assert "has no answer for 2 id(s) ('t2', 't3')" in out and "preds.jsonl" in out
    assert "rerunning will not help" in out
    assert "rerun the same command" not in out and "rerunning the same command retries" not in out
    ok = run_cli("-m", f"predictions:{preds}", "--task", "mcq", "-b", str(manifest), "-o", str(tmp_path / "out"),
                 "--max-failed", "2")  # fmt: skip
    assert ok.exit_code == 0, ok.output
