"""User-supplied names (models, benchmarks, files, taxonomy labels) are shown literally: no
row injected into leaderboard.md, no raw HTML, no Rich markup read from them."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from typer.testing import CliRunner

from audioeval.benchmarks.mmae.synthetic import write_synthetic_set
from audioeval.cli.main import app
from audioeval.report.escaping import escape_markdown_cell
from tests.fakes.judge_server import FakeJudgeServer
from tests.fakes.mcq_server import write_tone_set
from tests.run_helpers import tone_asr_manifest

runner = CliRunner()
ROW_INJECTION = "evil | 1 | fake | 0.00 |"  # a name with a line break is refused (core/names.py)
HTML = "<img src=x onerror=alert(1)>"
MARKUP = "a[/]b[red]c"


def _table_rows(markdown: str) -> list[str]:
    """The body rows of the first Markdown table."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|---"))
    rows = []
    for line in lines[start + 1 :]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_run_shows_odd_model_and_file_names_literally(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "set")
    odd_file = manifest.with_name("my|set.jsonl")
    manifest.rename(odd_file)
    out = tmp_path / "out"
    config = {
        "benchmarks": [str(odd_file)],
        "task": "asr",
        "output_dir": str(out),
        "resamples": 10,
        "models": [
            {"name": ROW_INJECTION, "type": "baseline", "baseline": "oracle"},
            {"name": HTML, "type": "baseline", "baseline": "constant:the tone"},
            {"name": MARKUP, "type": "baseline", "baseline": "constant"},
        ],
    }
    cfg = tmp_path / "run.yaml"
    cfg.write_text(yaml.safe_dump(config))
    res = runner.invoke(app, ["run", str(cfg), "--no-progress"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert MARKUP in res.output and "my|set" in res.output
    md = (out / "leaderboard.md").read_text()
    rows = _table_rows(md)
    assert len(rows) == 3, md
    assert [r.split(" | ")[1] for r in rows] == [
        "evil \\| 1 \\| fake \\| 0.00 \\|",
        "&lt;img src=x onerror=alert(1)&gt;",
        "a\\[/\\]b\\[red\\]c",
    ]
    header = next(line for line in md.splitlines() if line.startswith("| # |"))
    assert "my\\|set" in header and header.count(" | ") == 3  # #, model, the benchmark, average
    assert "<img" not in md
    summary = json.loads((out / "summary.json").read_text())
    assert [r["model"] for r in summary["boards"]["understanding"]["rows"]] == [ROW_INJECTION, HTML, MARKUP]


def test_markdown_cell_escapes_rows_columns_html_and_links() -> None:
    assert escape_markdown_cell("a|b\\c`d") == "a\\|b\\\\c\\`d"
    assert escape_markdown_cell("x\r\ny\u2028z\x1b") == "x y z "
    assert escape_markdown_cell("<b>&") == "&lt;b&gt;&amp;"
    assert escape_markdown_cell("![i](http://e/x.png)") == "!\\[i\\](http://e/x.png)"


def test_mmae_score_keeps_markup_like_modality_labels(tmp_path: Path) -> None:
    s = write_synthetic_set(tmp_path / "set", 4)
    meta = json.loads(Path(s.metadata).read_text())
    for i, sample in enumerate(meta):
        sample["modality"] = ("[/]", "[red]x")[i % 2]
    Path(s.metadata).write_text(json.dumps(meta))
    out = tmp_path / "scores"
    with FakeJudgeServer() as server:
        res = runner.invoke(
            app,
            [
                "mmae", "score", "--predictions", str(s.oracle_predictions), "--metadata",
                str(s.metadata), "--base-urls", server.base_url, "--output-dir", str(out),
                "--bootstrap", "10", "--no-progress",
            ],
            catch_exceptions=False,
        )  # fmt: skip
    assert res.exit_code == 0, res.output
    tax = json.loads((out / "taxonomy.json").read_text())
    assert set(tax["modality"]) == {"[/]", "[red]x"}
    by_modality = res.output.split("by modality", 1)[1]
    assert "[/]" in by_modality and "[red]x" in by_modality


def test_mcq_score_keeps_markup_like_sub_categories(tmp_path: Path) -> None:
    items = write_tone_set(tmp_path / "set", 4)
    for i, item in enumerate(items):
        item["sub-category"] = ("[/]", "[bold]y")[i % 2]
        item["answer_prediction"] = item["answer"]
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(x) + "\n" for x in items))
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["mcq", "score", "--benchmark", "mmar", "--predictions", str(preds), "--output_dir", str(out)],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "mcq_summary.json").read_text())
    assert set(summary["breakdowns"]["sub-category"]) == {"[/]", "[bold]y"}
    table = res.output.split("by sub-category", 1)[1]
    assert "[/]" in table and "[bold]y" in table
