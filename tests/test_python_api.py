"""The Python API (`audioeval.evaluate`, `rescore`, `leaderboard`): the same numbers and files
as the commands, typed results back, no heavy import at `import audioeval`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import audioeval
from audioeval.core.errors import InputError
from tests.run_helpers import tone_asr_manifest, write_jsonl


def test_import_audioeval_is_light() -> None:
    code = "import sys, audioeval; print(sorted(m for m in ('numpy', 'aiohttp', 'jiwer') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_evaluate_rescore_and_leaderboard(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "set")
    rows = [json.loads(x) for x in manifest.read_text().splitlines()]
    hyps = tmp_path / "hyps.jsonl"
    write_jsonl(hyps, [{"id": r["id"], "text": r["text"] if i else "wrong words"} for i, r in enumerate(rows)])
    out = tmp_path / "run"
    result = audioeval.evaluate(
        ["mine=predictions:" + str(hyps), "oracle"], [manifest], task="asr", output_dir=out, resamples=50
    )
    assert result.run_dir == out
    written = json.loads((out / "summary.json").read_text())
    scores = written["scores"][manifest.stem]
    assert scores["oracle"]["wer"] == 0.0 and scores["mine"]["wer"] > 0
    assert result.summary is not None and result.summary.scores == written["scores"]
    assert result.summary.to_json()["scores"] == written["scores"]
    assert result.asked == 2 * len(rows) and result.reused == 0

    again = audioeval.evaluate(
        ["mine=predictions:" + str(hyps), "oracle"], [manifest], task="asr", output_dir=out, resamples=50
    )
    assert again.asked == 0 and again.reused == 2 * len(rows)

    rescored = audioeval.rescore(out, resamples=50)
    assert rescored.summary is not None and rescored.summary.scores == written["scores"]

    board = audioeval.leaderboard([out], resamples=0)
    [understanding] = [b for b in board["boards"].values() if b["rows"]]
    assert [r["model"] for r in understanding["rows"]][:2] == ["oracle", "mine"]


def test_errors_are_the_commands_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no-such-benchmark"):
        audioeval.evaluate(["oracle"], ["no-such-benchmark"], output_dir=tmp_path / "x")


README = Path(__file__).resolve().parents[1] / "README.md"


def _readme_python() -> str:
    """The Python block of the README's "Python API" section, as written."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Python API") :]
    start = section.index("```python\n") + len("```python\n")
    return section[start : section.index("\n```", start)]


def test_the_readme_example_runs_twice_and_the_second_time_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's example, run from a folder holding its predictions file: the second run
    asks nothing, and its rescore under a profile is the same folder, unwritten (it rescored
    the run in place, so the second call was refused with the signature's difference)."""
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "demo_hyps.jsonl").write_bytes((README.parent / "examples" / "demo_hyps.jsonl").read_bytes())
    monkeypatch.chdir(tmp_path)
    code = _readme_python()
    assert "audioeval.rescore(result.run_dir, profile=" in code
    first: dict[str, object] = {}
    exec(compile(code, str(README), "exec"), first)  # noqa: S102 - the README's own example
    run_dir, theirs = Path(str(first["result"].run_dir)), first["theirs"]  # type: ignore[attr-defined]
    assert theirs.run_dir == (tmp_path / run_dir).resolve().with_name(f"{run_dir.name}-ultraeval")  # type: ignore[attr-defined]
    files = {p: p.read_bytes() for p in sorted(run_dir.rglob("*")) if p.is_file() and p.name != ".audioeval.lock"}
    new = {p: p.read_bytes() for p in sorted(theirs.run_dir.rglob("*")) if p.is_file() and p.name != ".audioeval.lock"}  # type: ignore[attr-defined]
    again: dict[str, object] = {}
    exec(compile(code, str(README), "exec"), again)  # noqa: S102
    assert again["result"].asked == 0 and again["theirs"].unchanged  # type: ignore[attr-defined]
    assert again["theirs"].summary.scores == theirs.summary.scores  # type: ignore[attr-defined]
    after = {p: p.read_bytes() for p in sorted(theirs.run_dir.rglob("*")) if p.is_file() and p.name != ".audioeval.lock"}  # type: ignore[attr-defined]
    assert after == new
    assert json.loads(files[run_dir / "summary.json"])["scores"] == json.loads((run_dir / "summary.json").read_bytes())["scores"]
