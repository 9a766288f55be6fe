"""AudioBench's score logs read as it writes them: `run -m NAME=predictions:LOG -b BENCHMARK`,
rows without ids matched by reference text then order, what matches nothing listed, the rule
printed and in the signature; the published logs reproduce their published figures."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from typer.testing import CliRunner

from audioeval.cli.main import app
from tests.conftest import shared_path

runner = CliRunner()


def _wer_log(path: Path, pairs: list[tuple[str, str]]) -> Path:
    """As AudioBench's `compute_score` + `evaluate.py` write it: normalised texts, json indent 4."""
    rows = [{"reference": r, "prediction": p, "wer": 0.0} for r, p in pairs]
    path.write_text(
        json.dumps({"wer": 0.0, "sample_wer": rows}, indent=4, ensure_ascii=False), encoding="utf-8"
    )
    return path


def _manifest(path: Path, refs: dict[str, str]) -> Path:
    path.write_text(
        "".join(json.dumps({"id": i, "audio": f"{i}.wav", "text": t}) + "\n" for i, t in refs.items())
    )
    return path


def test_wer_log_is_matched_to_raw_references_and_unmatched_rows_are_listed(tmp_path: Path) -> None:
    manifest = _manifest(
        tmp_path / "set.jsonl",
        {"a": "HELLO, WORLD.", "b": "I have 5 cats", "c": "hello world", "d": "nobody answers me"},
    )
    log = _wer_log(
        tmp_path / "librispeech_test_clean_wer_score.json",
        [
            ("hello world", "hello world"),  # a (first of two equal texts)
            ("i have five cats", "i have five cat"),  # b, via AudioBench's normaliser
            ("hello world", "hello word"),  # c (second of the equal texts, in order)
            ("a row of no sample", "x"),
        ],
    )
    out = tmp_path / "out"
    res = runner.invoke(
        app, ["run", "-m", f"x=predictions:{log}", "-b", str(manifest), "--task", "asr",
              "--language", "en", "-o", str(out), "--no-progress", "--no-probe"],
        env={"COLUMNS": "400"},
    )  # fmt: skip
    said = " ".join(res.output.split())
    assert "read as audiobench_wer_log" in said
    assert "matched by reference text" in said
    assert "AudioBench's normalised texts" in said
    records = [json.loads(line) for line in (out / "set" / "x" / "records.jsonl").read_text().splitlines()]
    answers = {r["id"]: r for r in records}
    text = json.dumps(answers)
    assert "hello word" in text and "i have five cat" in text
    assert "no prediction" in json.dumps(answers["d"])  # a sample no row answers: a failure
    skipped = json.loads((out / "set" / "x" / "model_skipped.json").read_text())
    assert any(
        "a row of no sample" in json.dumps(e) and e["field"] == "sample_wer[3].reference" for e in skipped
    )
    signature = json.dumps(json.loads((out / "run.json").read_text()))
    assert "by reference text" in signature and "rows_matched" in signature


def test_a_log_with_a_bad_row_names_it(tmp_path: Path) -> None:
    manifest = _manifest(tmp_path / "set.jsonl", {"a": "hello"})
    log = tmp_path / "log.json"
    log.write_text(json.dumps({"wer": 0, "sample_wer": [{"reference": "hello", "prediction": 3}]}))
    out = tmp_path / "out"
    runner.invoke(app, ["run", "-m", f"x=predictions:{log}", "-b", str(manifest), "--task", "asr",
                        "--language", "en", "-o", str(out), "--no-progress", "--no-probe"])  # fmt: skip
    skipped = json.loads((out / "set" / "x" / "model_skipped.json").read_text())
    assert skipped[0]["field"] == "sample_wer[0].prediction"


def _replication():  # type: ignore[no-untyped-def]
    """scripts/replication.py as a module (scripts/ is not a package)."""
    path = Path(__file__).resolve().parents[1] / "scripts" / "replication.py"
    spec = importlib.util.spec_from_file_location("replication", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["replication"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_published_logs_reproduce_their_figures_and_the_page_is_what_the_script_writes() -> None:
    """Every published AudioBench WER log, read as a log, gives the published float; the
    committed docs/replication.md is the script's page."""
    shared_path("data", "published", "audiobench", "leaderboard_organize_model_results.json")
    rep = _replication()
    page = rep.page()
    wer_rows = [line for line in page.splitlines() if "| WER |" in line]
    assert len(wer_rows) == 4 and all(line.endswith("| equal |") for line in wer_rows)
    assert rep.PAGE.read_text(encoding="utf-8") == page
