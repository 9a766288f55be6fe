"""`audioeval view` in a real browser (Selenium driving Debian's Chromium, as
tests/test_report_browser.py does): the list of two runs, a run being written gaining rows
while its page is open, the compare page of two models (a sample where they differ, the
"A right, B wrong" filter, a clip that plays) and a deep link to one sample of it. Set
AUDIOEVAL_SCREENSHOTS=DIR to keep screenshots (docs/img/viewer-*.png were made so)."""

from __future__ import annotations

import json
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli.main import app
from audioeval.report.viewer_runs import ServedRuns
from audioeval.report.viewer_server import make_server
from audioeval.store.run_lock import LOCK_FILE
from tests.test_report_browser import chromium, clips_load, open_page, opened_sample, screenshot

runner = CliRunner()
A, B = "0/demo-mcq/oracle", "0/demo-mcq/longest-choice"


def _run(out: Path, *args: str) -> Path:
    res = runner.invoke(
        app, ["run", *args, "-o", str(out), "--no-progress", "--resamples", "50", "--max-failed", "100%"]
    )
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("view")
    first = _run(root / "first", "--benchmark", "demo-mcq", "--benchmark", "demo-speech-en",
                 "--model", "oracle", "--model", "longest-choice", "--model", "constant")  # fmt: skip
    second = _run(root / "second", "--benchmark", "demo-mcq", "--model", "first-choice")
    return [first, second]


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    yield from chromium()


class Served:
    def __init__(self, run_dirs: list[Path]) -> None:
        self.server = make_server(ServedRuns(run_dirs))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        host, port = self.server.server_address[:2]
        self.url = f"http://{host}:{port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def served(runs: list[Path]) -> Iterator[Served]:
    s = Served(runs)
    yield s
    s.close()


def _compare(*keys: str) -> str:
    return "/compare?" + "&".join(f"p={k}" for k in keys)


def test_the_viewer_lists_two_runs_with_their_pairs(driver: Any, served: Served) -> None:
    open_page(driver, served.url + "/")
    titles = [h.text for h in driver.find_elements("css selector", "section h2")]
    assert titles[0].startswith("first") and titles[1].startswith("second") and "finished" in titles[0]
    rows = driver.find_elements("css selector", "#run-0 table.pairs tr")
    assert len(rows) == 1 + 5  # a header and the five pairs of the first run
    assert "oracle" in driver.find_element("id", "run-0").text
    assert "first-choice" in driver.find_element("id", "run-1").text
    forms = driver.find_elements("css selector", "#compare form")
    assert [f.text.split(":")[0] for f in forms] == ["demo-mcq", "demo-speech-en"]
    screenshot(driver, "viewer-runs")


def test_a_run_being_written_gains_rows_while_its_page_is_open(
    driver: Any, runs: list[Path], tmp_path: Path
) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    live = tmp_path / "live"
    pair = live / "demo-mcq" / "oracle"
    pair.mkdir(parents=True)
    shutil.copy(runs[0] / "run.json", live / "run.json")
    (live / LOCK_FILE).write_text(str(os.getpid()))  # its writer: a running process (this one)
    done = runs[0] / "demo-mcq" / "oracle"
    for name in ("signature.json", "sample_ids.json"):
        shutil.copy(done / name, pair / name)
    lines = (done / "records.jsonl").read_bytes().splitlines(keepends=True)
    (pair / "records.jsonl").write_bytes(b"".join(lines[:3]))
    s = Served([live])
    try:
        open_page(driver, s.url + "/run/0?poll=150")

        def text(d: Any, css: str) -> str:  # read in one script: the page redraws as it polls
            return d.execute_script(f"var e = document.querySelector('{css}'); return e ? e.textContent : ''")

        def cell(d: Any) -> str:
            return text(d, "#pair-table tr:nth-child(2) td:nth-child(3)")

        assert cell(driver) == "3 / 12" and "being written" in text(driver, "#pairs")
        with (pair / "records.jsonl").open("ab") as fh:
            fh.write(b"".join(lines[3:8]))
            fh.write(lines[8][:40])  # a line still being written: not read until it ends
        WebDriverWait(driver, 10).until(lambda d: cell(d) == "8 / 12")
        broken = json.loads(lines[9])
        broken["stamp"] = "another-run:0"
        with (pair / "records.jsonl").open("ab") as fh:
            fh.write(lines[8][40:] + json.dumps(broken).encode() + b"\n" + b"".join(lines[10:]))
        WebDriverWait(driver, 10).until(lambda d: cell(d) == "11 / 12")
        assert "another run folder" in text(driver, "#problems")  # the forged line, named
        assert driver.find_element("id", "script-errors").text == ""
        screenshot(driver, "viewer-run-live")

        # the run finishes: its page stops asking
        (live / "summary.json").write_text("{}")
        WebDriverWait(driver, 10).until(lambda d: "being written" not in text(d, "#pairs"))
        stopped = int(driver.find_element("tag name", "body").get_attribute("data-polls") or 0)
        import time

        time.sleep(0.6)
        assert int(driver.find_element("tag name", "body").get_attribute("data-polls") or 0) == stopped
    finally:
        s.close()


def test_the_runs_list_and_the_compare_page_follow_a_run_being_written(
    driver: Any, runs: list[Path], tmp_path: Path
) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    live = tmp_path / "live"
    live.mkdir()
    shutil.copy(runs[0] / "run.json", live / "run.json")
    (live / LOCK_FILE).write_text(str(os.getpid()))  # its writer: a running process (this one)
    lines = {}
    for model in ("oracle", "longest-choice"):
        done, pair = runs[0] / "demo-mcq" / model, live / "demo-mcq" / model
        pair.mkdir(parents=True)
        for name in ("signature.json", "sample_ids.json"):
            shutil.copy(done / name, pair / name)
        have = (done / "records.jsonl").read_bytes().splitlines(keepends=True)  # in finishing order
        order = json.loads((done / "sample_ids.json").read_text())
        lines[model] = sorted(have, key=lambda line: order.index(json.loads(line)["id"]))
        (pair / "records.jsonl").write_bytes(b"".join(lines[model][:2]))

    def append(upto: int) -> None:
        for model, have in lines.items():
            (live / "demo-mcq" / model / "records.jsonl").write_bytes(b"".join(have[:upto]))

    def text(d: Any, css: str) -> str:
        return d.execute_script(f"var e = document.querySelector('{css}'); return e ? e.textContent : ''")

    s = Served([live])
    try:
        open_page(driver, s.url + "/?poll=150")
        assert text(driver, "#run-0 table.pairs tr:nth-child(2) td:nth-child(3)") == "2 / 12"
        assert "being written" in text(driver, "#run-0 h2")
        driver.find_elements("css selector", "#compare form input")[1].click()  # untick B
        append(7)
        WebDriverWait(driver, 10).until(
            lambda d: text(d, "#run-0 table.pairs tr:nth-child(2) td:nth-child(3)") == "7 / 12"
        )
        boxes = driver.find_elements("css selector", "#compare form input")
        assert [b.is_selected() for b in boxes] == [True, False]  # the person's choice kept

        open_page(driver, s.url + _compare("0/demo-mcq/oracle", "0/demo-mcq/longest-choice") + "&poll=150")
        assert text(driver, "#shown").startswith("7 of 7 samples")
        assert "being written" in text(driver, "#summary h2")
        append(10)
        WebDriverWait(driver, 10).until(lambda d: text(d, "#shown").startswith("10 of 10 samples"))
        # an open sample stays open: the new samples wait for a click
        driver.find_element("css selector", "#sample-list details summary").click()
        append(12)
        WebDriverWait(driver, 10).until(lambda d: d.find_element("id", "new-samples").is_displayed())
        assert text(driver, "#shown").startswith("10 of 10 samples")
        assert driver.find_elements("css selector", "#sample-list details[open]")
        driver.find_element("id", "new-samples").click()
        assert text(driver, "#shown").startswith("12 of 12 samples")
        assert text(driver, "#summary table tr:nth-child(2) td:nth-child(5)") == "12"
        assert driver.find_element("id", "script-errors").text == ""
        screenshot(driver, "viewer-compare-live")

        # the run finishes: the page stops asking
        (live / "summary.json").write_text("{}")
        polls = int(driver.find_element("tag name", "body").get_attribute("data-polls") or 0)
        WebDriverWait(driver, 10).until(
            lambda d: "being written" not in text(d, "#summary h2")
        )
        stopped = int(driver.find_element("tag name", "body").get_attribute("data-polls") or 0)
        import time

        time.sleep(0.6)
        assert int(driver.find_element("tag name", "body").get_attribute("data-polls") or 0) == stopped >= polls
    finally:
        s.close()


def test_compare_shows_a_difference_filters_a_right_b_wrong_and_plays_a_clip(
    driver: Any, served: Served
) -> None:
    from selenium.webdriver.support.ui import Select, WebDriverWait

    open_page(driver, served.url + _compare(A, B))
    data = driver.execute_script("return JSON.parse(document.getElementById('view-data').textContent)")
    assert "95 % CI" in driver.find_element("id", "difference").text
    differ = [r["id"] for r in data["rows"] if r["cells"][0]["st"] != r["cells"][1]["st"]]
    assert differ  # the oracle is right where longest-choice is wrong
    Select(driver.find_element("id", "filter")).select_by_value("a-right-b-wrong")
    drawn = [d.get_attribute("data-id") for d in driver.find_elements("css selector", "#sample-list details")]
    expected = [r["id"] for r in data["rows"] if r["cells"][0]["st"] == "ok" and r["cells"][1]["st"] != "ok"]
    assert drawn == expected and set(drawn) <= set(differ)
    Select(driver.find_element("id", "filter")).select_by_value("b-right-a-wrong")
    assert driver.find_elements("css selector", "#sample-list details") == []  # never better than the oracle
    Select(driver.find_element("id", "filter")).select_by_value("a-right-b-wrong")
    driver.find_element("css selector", f'#sample-list details[data-id="{expected[0]}"] > summary').click()
    sample = opened_sample(driver, expected[0])
    columns = sample.find_elements("css selector", ".cols > div")
    assert len(columns) == 2 and "✓ right" in columns[0].text and "diff with A" in columns[1].text
    assert clips_load(driver, sample) == 2  # the input clip, in both columns
    player = sample.find_element("tag name", "audio")
    driver.execute_script("arguments[0].muted = true; arguments[0].play();", player)
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return arguments[0].currentTime > 0", player))
    assert driver.current_url.endswith(f"#sample={expected[0]}")
    screenshot(driver, "viewer-compare")


def test_a_deep_link_opens_one_sample_of_the_comparison(driver: Any, served: Served) -> None:
    open_page(driver, served.url + _compare(A, B, "0/demo-mcq/constant") + "#sample=q05")
    sample = opened_sample(driver, "q05")
    assert len(sample.find_elements("css selector", ".cols > div")) == 3
    assert sample.get_attribute("open") is not None
    assert driver.find_element("id", "link-note").text == ""
    open_page(driver, served.url + _compare(A, B) + "#sample=no-such")
    assert "was not understood" in driver.find_element("id", "link-note").text


def test_compare_across_runs_pairs_the_same_samples(served: Served) -> None:
    runs = served.server.RequestHandlerClass.runs  # type: ignore[attr-defined]
    data = runs.compare([A, "1/demo-mcq/first-choice"])
    assert data["differences"][0]["n"] == 12 and data["differences"][0]["ci"] is not None
    with pytest.raises(ValueError, match="different benchmarks"):
        runs.compare([A, "0/demo-speech-en/oracle"])
