"""`audioeval report RUN_DIR`: a static page from the run directory, escaped, drawn in a
headless browser with no script error."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli.main import app
from audioeval.report.html_page import script_json
from tests.run_helpers import tone_mcq_manifest

runner = CliRunner()
PAYLOAD = "<img src=x onerror=alert(1)></script><script>alert(2)</script>"


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def dump_dom(page: Path) -> str:
    """The page's DOM after its scripts ran, as headless Chromium builds it."""
    browser = chromium()
    if browser is None:
        pytest.skip("chromium is not installed (`make test` installs it)")
    out = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return out.stdout


def mcq_run(tmp_path: Path) -> Path:
    """A run whose model answers every question with an HTML/script payload."""
    manifest = tone_mcq_manifest(tmp_path / "data", n=4)
    out = tmp_path / "run"
    res = runner.invoke(
        app,
        ["run", "--benchmark", str(manifest), "--task", "mcq", "--model", f"constant:{PAYLOAD}",
         "--model", "oracle", "-o", str(out), "--no-progress", "--resamples", "50"],
        catch_exceptions=False,
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    return out


def test_script_json_cannot_end_its_script_block() -> None:
    text = str(script_json({"a": "</script><b>&"}))
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"a": "</script><b>&"}


def test_report_page_escapes_model_text_and_draws_without_script_errors(tmp_path: Path) -> None:
    out = mcq_run(tmp_path)
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 0, res.output
    page = out / "report" / "index.html"
    html = page.read_text(encoding="utf-8")
    assert PAYLOAD not in html and "<img" not in html and "alert(2)</script>" not in html
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in html  # the answer is there, as data
    assert "<svg" in html  # the metric chart
    assert 'id="boards"' in html and "Reasoning" in html  # the run's boards by task family
    assert 'id="signatures"' in html and "mcq-choices-v1" in html  # what moves the numbers
    dom = dump_dom(page)
    assert 'data-ready="1"' in dom
    assert '<div id="script-errors"></div>' in dom
    assert "<img" not in dom  # the payload was put in as text, never as an element
    assert "&lt;img src=x onerror=alert(1)&gt;" in dom
    assert "t0" in dom and "accuracy" in dom


def test_report_of_an_mmae_run_has_the_heatmap_votes_and_reliability(
    tmp_path: Path, synthetic_set: Any
) -> None:
    from audioeval.benchmarks.mmae.baselines import write_baseline
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
    from tests.test_run_mmae import run_predictions, write_spec

    preds, errors = write_baseline(
        "identity", metadata=synthetic_set.metadata, audio_root=synthetic_set.root, out_dir=tmp_path / "preds"
    )
    assert not errors
    spec = write_spec(tmp_path / "mmae.yaml", synthetic_set.metadata)
    out = tmp_path / "run"
    with FakeJudgeServer(FakeJudgeConfig(model="fake-judge")) as judge:
        assert run_predictions(spec, preds, judge.base_url, out).exit_code == 0
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 0, res.output
    html = (out / "report" / "index.html").read_text(encoding="utf-8")
    assert "Modality × complexity" in html and html.count("<svg") >= 2
    assert 'id="breakdowns"' in html and "mean:ifr by operation" in html  # the taxonomy tables
    assert "Judge reliability" in html and "fleiss_kappa" in html
    dom = dump_dom(out / "report" / "index.html")
    assert 'data-ready="1"' in dom and '<div id="script-errors"></div>' in dom
    assert "<audio" in dom  # players for the input and edited clips
    assert "attempts" in dom or "votes" in dom  # every judge answer of the sample


def test_report_refuses_a_folder_that_is_not_a_run(tmp_path: Path) -> None:
    res = runner.invoke(app, ["report", str(tmp_path)])
    assert res.exit_code == 2 and "not a run directory" in res.output


def test_plots_draw_names_with_dollar_signs_as_written() -> None:
    from audioeval.report.plots import bars_with_ci, heatmap

    name = r"m$\foo$x"  # matplotlib would read $…$ as math, and fail on \foo
    assert "<svg" in bars_with_ci(f"{name} board", [name, "other"], [1.0, 2.0], [None, (1.5, 2.5)])
    assert "<svg" in heatmap(f"{name} map", [name], ["c$1$"], [[0.5]])
