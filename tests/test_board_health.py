"""A health column on the boards: each model's unhealthy audio outputs (silent, clipped, the
input returned unchanged, …) of those checked, summed from its pairs' `output_health` blocks
(measured once, when each pair was summarised), on every board whose pairs' outputs are audio:
the run's summary.json and leaderboard.md, `audioeval leaderboard`'s files and console table,
and the pages, where the cell links to the list of those samples."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from audioeval.adapters.runtimes.spec import load_runtime_spec_file
from audioeval.cli.main import app
from audioeval.engine.board_spec import BoardSpec, ColumnSpec
from audioeval.engine.leaderboard import build_board
from audioeval.report.leaderboard_page import leaderboard_page
from audioeval.report.leaderboard_table import HEALTH_HEADER, board_markdown, health_text
from tests.run_helpers import demo_speech_as_wavs, write_jsonl
from tests.test_ray_executor import write_spec

runner = CliRunner()
RATE = 16000


def _pair(bench: str, model: str, value: float, health: dict[str, Any] | None) -> dict[str, Any]:
    res: dict[str, Any] = {
        "benchmark": bench, "model": model, "task": "tts", "family": "tts", "headline": "mean:x",
        "scored": 4, "failed": 0,
        "metrics": {"mean:x": {"value": value, "ci": None, "n": 4, "unit": "fraction", "higher_is_better": True}},
    }  # fmt: skip
    if health is not None:
        res["output_health"] = health
    return res


def _health(n: int, **problems: list[str]) -> dict[str, Any]:
    with_problem = {sid for ids in problems.values() for sid in ids}
    return {
        "n_checked": n, "n_with_problems": len(with_problem), "against_input": False,
        "problems": {k: {"n": len(v), "ids": v} for k, v in problems.items()}, "unreadable": {"n": 0, "ids": []},
    }  # fmt: skip


SPEC = BoardSpec(name="t", title="TTS", columns=[ColumnSpec(metric="headline")], average=True)


def test_a_row_sums_its_pairs_health_and_text_boards_have_no_column():
    pairs = [
        _pair("a", "m1", 0.9, _health(4, silent=["s1"], clipped=["s1", "s2"])),
        _pair("b", "m1", 0.8, {**_health(3, silent=["t9"]), "unreadable": {"n": 1, "ids": ["t4"]}}),
        _pair("a", "m2", 0.7, _health(4)),
        _pair("b", "m2", 0.6, None),
    ]
    board = build_board(SPEC, pairs)
    assert board["health"] is True
    rows = {r["model"]: r for r in board["rows"]}
    assert rows["m1"]["output_health"] == {
        "n_checked": 7, "n_unhealthy": 4, "problems": {"silent": 2, "clipped": 2, "unreadable": 1}
    }  # fmt: skip
    assert rows["m1"]["pairs"]["a"]["output_health"]["problems"]["clipped"]["ids"] == ["s1", "s2"]
    assert health_text(rows["m1"]) == "4 / 8 (clipped 2, silent 2, unreadable 1)"
    assert health_text(rows["m2"]) == "0 / 4"
    assert HEALTH_HEADER in board_markdown(board)
    text_only = build_board(SPEC, [_pair("a", "m1", 0.9, None), _pair("a", "m2", 0.5, None)])
    assert text_only["health"] is False and all(r["output_health"] is None for r in text_only["rows"])
    assert HEALTH_HEADER not in board_markdown(text_only)


def test_the_page_links_each_unhealthy_cell_to_its_samples():
    pairs = [_pair("a", "m1", 0.9, _health(4, silent=["s1"])), _pair("a", "m2", 0.7, _health(4))]
    board = build_board(SPEC, pairs)
    doc = {
        "boards": {"t": board},
        "run_dirs": [],
        "bootstrap": {"confidence": 0.95, "method": "x", "resamples": 0, "seed": 0},
    }
    page = leaderboard_page(doc)
    assert '<a href="#board-0-health">1 / 4 (silent 1)</a>' in page  # m1's cell: a link
    assert "<td>0 / 4</td>" in page  # nothing to list: no link
    section = page[page.index('<section id="board-0-health">') :].split("</section>")[0]
    assert "<td>m1</td><td>a</td><td>silent</td>" in section and "s1" in section


def codec_run(root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """A codec run of two codecs over a speech clip, a silent clip and a clipped one: the
    16-bit codec returns each input unchanged."""
    demo_speech_as_wavs(root, n=1, name="speech.jsonl")
    [speech] = [json.loads(x) for x in (root / "speech.jsonl").read_text().splitlines()]
    t = np.arange(RATE) / RATE
    sf.write(root / "quiet.wav", np.zeros(RATE), RATE, subtype="PCM_16")
    sf.write(root / "loud.wav", np.clip(3 * np.sin(2 * np.pi * 440 * t), -32767 / 32768, 32767 / 32768), RATE,
             subtype="PCM_16")  # fmt: skip
    rows = [
        speech,
        {"id": "quiet", "audio": "quiet.wav", "text": "x"},
        {"id": "loud", "audio": "loud.wav", "text": "x"},
    ]
    manifest = write_jsonl(root / "clips.jsonl", rows)
    codecs = [
        write_spec(root, f"codec-{b}", "worker_codec.py", "[codec]", "audio", {"bits": b}) for b in (16, 6)
    ]
    mos = write_spec(root, "mos-fake", "worker_metric.py", "[mos]", "text", {})
    for spec in (*codecs, mos):
        monkeypatch.setenv(load_runtime_spec_file(spec).env_var_name, sys.executable)
    bench = root / "clips.yaml"
    bench.write_text(
        f"name: clips\ntask: codec\nsource: {{type: jsonl, path: {manifest}}}\nscorers: [{{utmos: {{runtime: {mos}}}}}]\n",
        encoding="utf-8",
    )
    out = root / "run"
    args = ["run", *(x for c in codecs for x in ("-m", str(c))), "-b", str(bench), "-o", str(out), "--no-progress",
            "--resamples", "0"]  # fmt: skip
    res = runner.invoke(app, args, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert HEALTH_HEADER in res.output  # the run's console board
    return out, speech["id"]


@pytest.fixture(scope="module")
def codec_boards(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("board_health")
    with pytest.MonkeyPatch.context() as mp:
        out, speech_id = codec_run(root, mp)
    lb = root / "lb"
    res = runner.invoke(
        app, ["leaderboard", str(out), "-o", str(lb), "--resamples", "0"], catch_exceptions=False
    )
    assert res.exit_code == 0, res.output
    assert HEALTH_HEADER in res.output  # `audioeval leaderboard`'s console board
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    return out, lb, speech_id


def test_every_board_file_shows_the_pairs_health(codec_boards: tuple[Path, Path, str]) -> None:
    out, lb, speech_id = codec_boards
    summaries = {
        p.parent.name: json.loads(p.read_text())["output_health"] for p in out.glob("clips/*/summary.json")
    }
    identity = summaries["codec-16"]
    assert identity["problems"]["silent"]["ids"] == ["quiet"] and identity["problems"]["clipped"]["ids"] == [
        "loud"
    ]
    assert speech_id in identity["problems"]["identical_to_input"]["ids"]
    for boards in (
        json.loads((out / "summary.json").read_text())["boards"],
        json.loads((lb / "leaderboard.json").read_text())["boards"],
    ):
        [board] = [b for b in boards.values() if b["health"]]
        for row in board["rows"]:
            health = summaries[row["model"]]  # one computation: the pair's block, summed, not measured again
            assert row["output_health"]["n_checked"] == health["n_checked"]
            assert row["output_health"]["n_unhealthy"] == health["n_with_problems"]
            assert row["output_health"]["problems"] == {k: v["n"] for k, v in health["problems"].items()}
    for md in (out / "leaderboard.md", lb / "leaderboard.md"):
        text = md.read_text()
        assert HEALTH_HEADER in text
        n = identity["n_with_problems"]
        assert re.search(
            rf"\| codec-16 \|.*\| {n} / 3 \(clipped 1, identical_to_input \d, silent 1\)", text
        ), text
    report = (out / "report" / "index.html").read_text()
    assert re.search(r'<a href="#output-health">\d+ / 3 \(', report)  # the run page: to its Output health


def test_a_browser_opens_the_samples_of_an_unhealthy_cell(codec_boards: tuple[Path, Path, str]) -> None:
    from tests.test_report_browser import chromium

    _, lb, speech_id = codec_boards
    drivers = chromium()
    driver = next(drivers)
    try:
        from selenium.webdriver.common.by import By

        driver.get((lb / "index.html").as_uri())
        [link] = [
            a
            for a in driver.find_elements(By.CSS_SELECTOR, "td a")
            if "codec-16" in a.find_element(By.XPATH, "../..").text
        ]
        assert "clipped 1" in link.text and "silent 1" in link.text
        shots = Path(os.environ.get("AUDIOEVAL_SCREENSHOTS") or lb)
        shots.mkdir(parents=True, exist_ok=True)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", link)
        driver.save_screenshot(str(shots / "board-health-cell.png"))
        link.click()
        assert driver.current_url.endswith("#board-0-health")
        section = driver.find_element(By.ID, "board-0-health")
        rows = [r.text for r in section.find_elements(By.TAG_NAME, "tr")]
        assert any("codec-16" in r and "silent" in r and "quiet" in r for r in rows)
        assert any("codec-16" in r and "clipped" in r and "loud" in r for r in rows)
        assert any("codec-16" in r and "identical_to_input" in r and speech_id in r for r in rows)
        driver.save_screenshot(str(shots / "board-health.png"))
        # the run's report: its board cell leads to the Output health list, whose ids open the sample
        out = codec_boards[0]
        driver.get((out / "report" / "index.html").as_uri())
        driver.find_element(By.CSS_SELECTOR, 'a[href="#output-health"]').click()
        section = driver.find_element(By.ID, "output-health")
        quiet = [a for a in section.find_elements(By.TAG_NAME, "a") if a.text == "quiet" and "codec-16" in a.get_attribute("href")]
        quiet[0].click()
        from selenium.webdriver.support.ui import WebDriverWait

        WebDriverWait(driver, 10).until(
            lambda d: d.find_elements(By.CSS_SELECTOR, 'details.sample[data-id="quiet"][data-filled="1"]')
        )
        opened = driver.find_element(By.CSS_SELECTOR, 'details.sample[data-id="quiet"]')
        assert opened.get_attribute("open") is not None and "codec-16" in driver.current_url
        assert driver.find_element(By.ID, "script-errors").text == ""
        driver.save_screenshot(str(shots / "report-health-sample.png"))
    finally:
        next(drivers, None)
