"""`audioeval report RUN_DIR`: a static page from the run directory, escaped, drawn in a
headless browser with no script error."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
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
    tmp_path: Path, small_synthetic_set: Any
) -> None:
    from audioeval.benchmarks.mmae.baselines import write_baseline
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
    from tests.test_run_mmae import run_predictions, write_spec

    preds, errors = write_baseline(
        "identity",
        metadata=small_synthetic_set.metadata,
        audio_root=small_synthetic_set.root,
        out_dir=tmp_path / "preds",
    )
    assert not errors
    spec = write_spec(tmp_path / "mmae.yaml", small_synthetic_set.metadata)
    out = tmp_path / "run"
    with FakeJudgeServer(FakeJudgeConfig(model="fake-judge")) as judge:
        assert run_predictions(spec, preds, judge.base_url, out).exit_code == 0
    res = runner.invoke(app, ["report", str(out)])
    assert res.exit_code == 0, res.output
    html = (out / "report" / "index.html").read_text(encoding="utf-8")
    assert "Cross breakdowns" in html and "by modality × complexity" in html and html.count("<svg") >= 3
    assert 'id="breakdowns"' in html and "mmae-syn: IFR (95 % CI) by operation" in html  # taxonomy, by display name
    # the metrics are defined on the page, as MMAE defines them
    assert 'id="definitions"' in html and "IFR, instruction-following rate" in html
    assert "CR, consistency rate" in html and "EMR, exact-match rate" in html
    # each bar carries its value and CI (drawn as paths; matplotlib keeps the text as a comment)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    ifr = summary["results"][0]["metrics"]["mean:ifr"]
    assert f"<!-- {ifr['value']:.2f} [{ifr['ci'][0]:.1f}–{ifr['ci'][1]:.1f}] -->" in html
    assert "Judge reliability" in html and "judge reliability: mmae_rubrics · mmae-syn" in html
    assert "Fleiss&#39; κ" in html and "position bias" in html  # the console's labels
    dom = dump_dom(out / "report" / "index.html")
    assert 'data-ready="1"' in dom and '<div id="script-errors"></div>' in dom
    chunk = (out / "report" / "samples" / "p0-c0.js").read_text(encoding="utf-8")
    assert '"audio/' in chunk and '"output"' in chunk  # players for the input and edited clips (copied)
    assert '"votes"' in chunk and '"question"' in chunk  # every judge vote, with its rubric's question
    # the page itself draws them when a sample is opened: tests/test_report_browser.py


def test_report_charts_show_one_unit_and_no_machine_path(
    tmp_path: Path, small_synthetic_set: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28: MMAE's rates are percentages in the table, the bar chart (0–100 axis) and the
    modality × complexity heatmap (0–100 colours) alike, the heatmap's cells the pair summary's
    cross groups (their n-weighted mean is the table's value); a model named by its spec
    (`predictions:/tmp/…/predictions.json`) is drawn with its folder hidden; the heatmap is
    drawn at the page's width, sized to its rows."""
    from audioeval.benchmarks.mmae.baselines import write_baseline
    from audioeval.benchmarks.mmae.preset import CROSSES
    from audioeval.report import run_report
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
    from tests.test_run_mmae import run_predictions, write_spec

    preds, _ = write_baseline(
        "noise",
        metadata=small_synthetic_set.metadata,
        audio_root=small_synthetic_set.root,
        out_dir=tmp_path / "preds",
    )
    spec = write_spec(tmp_path / "mmae.yaml", small_synthetic_set.metadata)
    out = tmp_path / "run"
    with FakeJudgeServer(FakeJudgeConfig(model="fake-judge")) as judge:
        assert run_predictions(spec, preds, judge.base_url, out).exit_code == 0
    drawn: dict[str, list[Any]] = {"bars": [], "heatmap": []}

    def bars(title: str, labels: Any, values: Any, cis: Any, **kw: Any) -> str:
        drawn["bars"].append((title, list(labels), list(values), kw))
        return "<svg></svg>"

    def heat(title: str, rows: Any, cols: Any, grid: Any, *a: Any, **kw: Any) -> str:
        drawn["heatmap"].append((title, list(rows), list(cols), grid, kw))
        return "<svg></svg>"

    monkeypatch.setattr(run_report, "bars_with_ci", bars)
    monkeypatch.setattr(run_report, "heatmap", heat)
    run_report.write_run_report(out)
    (folder,) = [p for p in (out / "mmae-syn").iterdir() if p.is_dir()]
    ifr = json.loads((folder / "summary.json").read_text(encoding="utf-8"))["metrics"]["mean:ifr"]
    assert ifr["unit"] == "percent" and 10 < ifr["value"] <= 100
    ((title, labels, values, kw),) = drawn["bars"]
    assert title == "mmae-syn: IFR (%), 95 % CI" and kw["limits"] == (0.0, 100.0)
    assert values == [pytest.approx(ifr["value"])]
    # one heatmap per declared cross of two keys, each cell the pair summary's group `a|b`
    assert [t.rsplit(" by ", 1)[1] for t, *_ in drawn["heatmap"]] == [" × ".join(k) for k in CROSSES.values()]
    (title, rows, cols, grid, kw) = drawn["heatmap"][list(CROSSES).index("modality_x_complexity")]
    cells = json.loads((folder / "summary.json").read_text(encoding="utf-8"))["breakdowns"][
        "modality_x_complexity"
    ]
    for r, row in zip(rows, grid, strict=True):
        for c, value in zip(cols, row, strict=True):
            assert value == (cells[f"{r}|{c}"]["mean:ifr"]["value"] if f"{r}|{c}" in cells else None)
    assert "IFR (%)" in title and "mean:ifr" not in title and "0–1" not in title and kw["limits"] == (0.0, 100.0) and kw["wide"]
    counts = [[int(n[2:]) if n else 0 for n in row] for row in kw["notes"]]
    pairs = [(v, n) for vs, ns in zip(grid, counts, strict=True) for v, n in zip(vs, ns, strict=True)]
    total = sum(v * n for v, n in pairs if v is not None)
    assert total / sum(map(sum, counts)) == pytest.approx(ifr["value"])  # cells on the table's scale
    for text in [title, *labels, *rows, *cols, *(t for t, *_ in drawn["bars"])]:
        assert str(tmp_path) not in text and "/tmp" not in text, text
    assert labels == ["predictions:…/predictions.json"]
    html = (out / "report" / "index.html").read_text(encoding="utf-8")
    assert f"{ifr['value']:.2f} %" in html and str(tmp_path) not in html


def test_a_model_named_by_a_file_is_drawn_without_its_folder() -> None:
    from audioeval.report.portable import model_label

    assert model_label("predictions:/tmp/x/run/predictions.json") == "predictions:…/predictions.json"
    assert model_label("/data/hyps.jsonl") == "…/hyps.jsonl"
    for name in ("oracle", "constant:hello", "mine", "qwen2-audio@http://127.0.0.1:8000/v1"):
        assert model_label(name) == name


def test_report_refuses_a_folder_that_is_not_a_run(tmp_path: Path) -> None:
    res = runner.invoke(app, ["report", str(tmp_path)])
    assert res.exit_code == 2 and "not a run directory" in res.output


def test_plots_draw_names_with_dollar_signs_as_written() -> None:
    from audioeval.report.plots import bars_with_ci, heatmap

    name = r"m$\foo$x"  # matplotlib would read $…$ as math, and fail on \foo
    assert "<svg" in bars_with_ci(f"{name} board", [name, "other"], [1.0, 2.0], [None, (1.5, 2.5)])
    assert "<svg" in heatmap(f"{name} map", [name], ["c$1$"], [[0.5]])


class _ReliabilityCells(HTMLParser):
    """The captions and cell texts of the page's `#reliability` section, as the page shows them."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.depth = 0  # sections open inside #reliability (none expected)
        self.tables: list[tuple[str, list[list[str]]]] = []
        self.right_aligned: list[str] = []
        self._text: list[str] | None = None
        self._td_class = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if tag == "section":
            self.inside = self.inside or attr.get("id") == "reliability"
            self.depth += self.inside
        elif self.inside and tag == "table":
            self.tables.append(("", []))
        elif self.inside and tag == "tr" and self.tables:
            self.tables[-1][1].append([])
        elif self.inside and tag in ("caption", "td"):
            self._text, self._td_class = [], attr.get("class") or ""

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self.inside and tag == "tr" and not self.tables[-1][1][-1]:
            self.tables[-1][1].pop()  # the header row (no td)
        elif tag == "section" and self.inside:
            self.depth -= 1
            self.inside = self.depth > 0
        elif self._text is not None and tag in ("caption", "td"):
            text, self._text = "".join(self._text), None
            if tag == "caption":
                self.tables[-1] = (text, self.tables[-1][1])
            else:
                self.tables[-1][1][-1].append(text)
                if self._td_class == "num":
                    self.right_aligned.append(text)


def console_cells(table: Any) -> tuple[str, list[list[str]]]:
    """The title and the body cells of a rich table as the console prints them."""
    console = Console(record=True, width=400, file=io.StringIO(), color_system=None)
    console.print(table)
    lines = console.export_text().splitlines()
    rows = [[c.strip() for c in line.split("│")[1:-1]] for line in lines if line.startswith("│")]
    return lines[0].strip(), rows


def mixed_reliability_block() -> dict[str, Any]:
    """A real block with every kind of figure: option votes in two orders, an invalid vote,
    P(yes) votes with labels, few votes (the χ² warning), and a figure of a later version."""
    from audioeval.metrics.judge_reliability import JudgedItem, JudgeVote, reliability

    ab, ba = ("right", "wrong"), ("wrong", "right")
    items = [
        JudgedItem(
            [
                JudgeVote(True, "right", 0, 2, ab, 0.9),
                JudgeVote(True, "right", 1, 2, ba, 0.8),
                JudgeVote(False),
            ],
            label=True,
        ),
        JudgedItem(
            [JudgeVote(True, "wrong", 1, 2, ab, 0.3), JudgeVote(True, "right", 1, 2, ba, 0.6)], label=False
        ),
        JudgedItem([JudgeVote(True, "wrong", 1, 2, ab), JudgeVote(True, "wrong", 1, 2, ab)]),
    ]
    return {**reliability(items), "later_figure": {"value": 0.25, "n": 4}}


def test_report_page_and_console_show_the_same_reliability_cells(tmp_path: Path) -> None:
    from audioeval.metrics.judge_reliability import reliability
    from audioeval.report.reliability_table import reliability_table

    blocks = {"mixed_judge": mixed_reliability_block(), "silent_judge": reliability([])}
    model = "m[bold]x[/bold]<b>&"  # shown literally by both
    folder = tmp_path / "run" / "bench" / "model"
    folder.mkdir(parents=True)
    (tmp_path / "run" / "run.json").write_text('{"benchmarks": [], "models": []}', encoding="utf-8")
    summary = {"benchmark": "bench", "model": model, "metrics": {}, "reliability": blocks}
    (folder / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    res = runner.invoke(app, ["report", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    page = _ReliabilityCells()
    page.feed((tmp_path / "run" / "report" / "index.html").read_text(encoding="utf-8"))

    shown = [
        console_cells(reliability_table(name, block, where=f"bench · {model}"))
        for name, block in blocks.items()
    ]
    assert page.tables == shown
    title, mixed = shown[0]
    assert title == f"judge reliability: mixed_judge · bench · {model} (3 items, 7 requests)"
    assert [row[0] for row in mixed] == [
        "valid answers", "Fleiss' κ", "unanimous", "position bias", "order-swap", "repeat stability",
        "calibration (ECE)", "later_figure",
    ]  # fmt: skip
    assert mixed[0] == ["valid answers", "85.7 %", "7 requests", "6 valid of 7"]
    assert mixed[3][1].startswith("p = ") and "A 1 · B 5 (uniform 3.0)" in mixed[3][3]
    assert "the χ² p-value is approximate" in mixed[3][3]
    assert mixed[6][2:] == ["4 votes", "P(yes) against labels, 10 bins"]
    assert mixed[7] == ["later_figure", "0.250", "4", ""]
    assert all(row[1] == "–" and row[3] for row in shown[1][1])  # not computed: the reason, never 0
    assert {"85.7 %", "7 requests", "–"} <= set(page.right_aligned)


def test_breakdowns_are_one_table_per_key_with_a_column_per_model() -> None:
    """Not one narrow table per pair and key: a row per group, a column per model."""
    from audioeval.report.run_report import Pair, breakdowns_section

    def pair(model: str, values: list[float], n: list[int]) -> Pair:
        groups = {
            f"g{i}": {"accuracy": {"value": v, "ci": [v - 0.1, v + 0.1], "n": k, "unit": "fraction"}}
            for i, (v, k) in enumerate(zip(values, n, strict=True))
        }
        summary = {"headline": "accuracy", "metrics": {"accuracy": {"unit": "fraction"}},
                   "breakdowns": {"task": groups, "difficulty": {"easy": groups["g0"]}}}  # fmt: skip
        return Pair("bench", model, Path("."), summary, [])

    section = breakdowns_section([pair("a", [0.5, 0.25], [4, 4]), pair("b", [0.75, 1.0], [4, 3])])
    assert section is not None and len(section.tables) == 2  # one per key, not one per pair and key
    task = section.tables[0]
    assert task.headers == ["task", "n", "a", "b"] and task.caption == "bench: accuracy (95 % CI) by task"
    assert task.rows[0] == ["g0", 4, "50.00 % (40.0–60.0)", "75.00 % (65.0–85.0)"]
    assert task.rows[1] == ["g1", "varies", "25.00 % (15.0–35.0), n=4", "100.00 % (90.0–110.0), n=3"]
