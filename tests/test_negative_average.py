"""A normalised value below 0 (an error rate above 100 %) is not clipped but flagged: in
summary.json (`negative_columns`), in the tables and in a footnote of leaderboard.md."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.cli.main import app
from audioeval.engine.board_spec import parse_board
from audioeval.engine.family_boards import FAMILY_BOARDS
from audioeval.engine.leaderboard import build_board
from audioeval.report.leaderboard_table import NEGATIVE_MARK, board_markdown
from tests.run_helpers import tone_asr_manifest

runner = CliRunner()
NONSENSE = "constant:" + " ".join(["blah"] * 18)
"""Against 6-word references: 6 substitutions and 12 insertions per sample, WER 300 %."""


def test_wer_above_100_percent_gives_a_flagged_unclipped_average(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "set")
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["run", "-m", f"oracle,{NONSENSE}", "--task", "asr", "-b", str(manifest), "-o", str(out)]
        + ["--resamples", "10", "--no-progress"],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    board = json.loads((out / "summary.json").read_text())["boards"]["understanding"]
    rows = {r["model"]: r for r in board["rows"]}
    bad, good = rows[NONSENSE], rows["oracle"]
    assert bad["cells"]["asr · wer"]["value"] == pytest.approx(3.0)
    assert bad["average"] == pytest.approx(-200.0)  # 100 − 300: not clipped to 0
    assert bad["negative_columns"] == ["asr · wer"] and good["negative_columns"] == []
    md = (out / "leaderboard.md").read_text()
    bad_line = next(line for line in md.splitlines() if "blah" in line)
    assert bad_line.endswith(f"300.00 % [300.0, 300.0] {NEGATIVE_MARK} | -200.00 {NEGATIVE_MARK} |")
    assert NEGATIVE_MARK not in next(line for line in md.splitlines() if "| oracle |" in line)
    assert f"{NEGATIVE_MARK} marks a value whose normalised value is below 0" in md
    assert f"-200.00 {NEGATIVE_MARK}" in res.output


def test_generation_board_flags_a_negative_metric_and_its_average() -> None:
    result = {
        "benchmark": "tts-set",
        "model": "speaker",
        "task": "tts",
        "headline": "wer",
        "metrics": {
            "wer": {"value": 1.5, "higher_is_better": False, "unit": "fraction"},
            "mean:utmos": {"value": 4.0, "higher_is_better": True, "unit": "mos"},
        },
        "scored": 3,
    }
    board = build_board(parse_board(FAMILY_BOARDS["generation"], "generation"), [result])
    assert board is not None
    row = board["rows"][0]
    assert row["average"] == pytest.approx(15.0)  # (−50 + 80) / 2, the −50 not clipped
    assert row["negative_columns"] == ["tts-set · wer"]
    md = board_markdown(board)
    assert f"| 1 | speaker | 150.00 % {NEGATIVE_MARK} | 4.00 | 15.00 {NEGATIVE_MARK} |" in md
    assert "is below 0" in md
