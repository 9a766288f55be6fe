"""The report page in a real browser: Selenium driving Debian's Chromium (chromedriver from the
`chromium-driver` package; `make browser-deps` installs both). Against a run of the demo's
benchmarks and a synthetic MMAE run: deep links to a sample of another pair, its reference and
gold answer, the failure filter, the clips' players, a malformed link, and the folder copied
elsewhere and served over HTTP. Set AUDIOEVAL_SCREENSHOTS=DIR to keep 1400 px screenshots."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli.main import app

runner = CliRunner()
WIDTH = 1400


def _browser_paths() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if browser is None or driver is None:
        pytest.skip("chromium or chromedriver is not installed (`make browser-deps` installs both)")
    return browser, driver


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    yield from chromium()


def chromium() -> Iterator[Any]:
    """A headless Chromium driven by Selenium (skips without chromium and chromedriver)."""
    browser, chromedriver = _browser_paths()
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in the dev extra")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={WIDTH},1000",
                "--autoplay-policy=no-user-gesture-required", "--allow-file-access-from-files"):  # fmt: skip
        opts.add_argument(arg)
    drv = webdriver.Chrome(options=opts, service=Service(chromedriver))
    drv.set_page_load_timeout(30)
    yield drv
    drv.quit()


def demo_run(root: Path) -> Path:
    """The demo's ASR and MCQ benchmarks with the oracle, an empty and a text-only baseline."""
    out = root / "run"
    res = runner.invoke(
        app,
        ["run", "--benchmark", "demo-speech-en", "--benchmark", "demo-mcq", "--model", "oracle",
         "--model", "constant", "--model", "longest-choice", "-o", str(out), "--no-progress",
         "--resamples", "50", "--max-failed", "100%"],
        catch_exceptions=False,
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    return out / "report"


def open_page(drv: Any, url: str) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    drv.get("about:blank")
    drv.get(url)
    WebDriverWait(drv, 10).until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "1")
    assert drv.find_element("id", "script-errors").text == ""


def opened_sample(drv: Any, sid: str) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    css = f'details.sample[data-id="{sid}"][data-filled="1"]'
    WebDriverWait(drv, 10).until(lambda d: d.find_elements("css selector", css))
    return drv.find_element("css selector", css)


def clips_load(drv: Any, sample: Any) -> int:
    """Every player of the opened sample loads its clip (readyState > 0, no error); how many."""
    from selenium.webdriver.support.ui import WebDriverWait

    players = sample.find_elements("tag name", "audio")
    for a in players:
        WebDriverWait(drv, 10).until(
            lambda d, a=a: d.execute_script("return arguments[0].readyState > 0 || arguments[0].error", a)
        )
        assert drv.execute_script("return arguments[0].error === null && arguments[0].readyState > 0", a), (
            a.get_attribute("src")
        )
    return len(players)


def screenshot(drv: Any, name: str, element: Any = None) -> None:
    folder = os.environ.get("AUDIOEVAL_SCREENSHOTS")
    if not folder:
        return
    height = drv.execute_script("return document.body.scrollHeight")
    drv.set_window_size(WIDTH, min(max(height, 800), 4000))
    target = str(Path(folder) / f"{name}.png")
    element.screenshot(target) if element is not None else drv.save_screenshot(target)
    drv.set_window_size(WIDTH, 1000)


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_run(tmp_path_factory.mktemp("demo"))


def test_deep_link_opens_a_sample_of_the_second_pair_with_its_gold_answer(driver: Any, demo_report: Path) -> None:
    page = demo_report / "index.html"
    open_page(driver, page.as_uri() + "#pair=demo-mcq/longest-choice&sample=q02")
    assert driver.find_element("id", "pair").get_attribute("value") == "1"  # the second pair
    sample = opened_sample(driver, "q02")
    text = sample.text
    assert "gold answer" in text and "answer (raw)" in text and "✓ right" in text
    # the options are lettered as the gold answer is (no 1–4 beside A–D), the model's pick marked
    options = sample.find_element("css selector", "ol.options.letters")
    style = driver.execute_script("return getComputedStyle(arguments[0]).listStyleType", options)
    assert style == "upper-alpha"
    processed = sample.find_element(
        "xpath", ".//div[@class='k' and text()='answer (processed)']/following-sibling::div[1]"
    ).text
    (picked,) = options.find_elements("css selector", "li.pick")
    assert picked.text.startswith(processed) and "the model's pick" in picked.text
    assert clips_load(driver, sample) == 1
    screenshot(driver, "report-sample-mcq", driver.find_element("id", "samples"))


def test_an_asr_sample_shows_its_reference_and_word_diff(driver: Any, demo_report: Path) -> None:
    open_page(driver, demo_report.joinpath("index.html").as_uri() + "#pair=demo-speech-en/constant&sample=h03")
    sample = opened_sample(driver, "h03")
    assert "reference" in sample.text and "word diff" in sample.text
    assert sample.find_elements("css selector", ".diff .d")  # every reference word missing
    open_page(driver, demo_report.joinpath("index.html").as_uri() + "#pair=demo-speech-en/oracle&sample=h03")
    assert "word diff" in opened_sample(driver, "h03").text


def test_the_failure_filter_shows_only_failed_samples(driver: Any, demo_report: Path) -> None:
    from selenium.webdriver.support.ui import Select

    open_page(driver, demo_report.joinpath("index.html").as_uri() + "#pair=demo-mcq/constant")
    data = driver.execute_script("return JSON.parse(document.getElementById('samples-data').textContent)")
    statuses = [s["st"] for s in data["pairs"][0]["samples"]]

    def badges() -> list[str]:
        return [b.get_attribute("textContent") for b in driver.find_elements("css selector", "#sample-list .badge")]

    Select(driver.find_element("id", "filter")).select_by_value("failed")
    assert badges() == ["failed"] * statuses.count("failed")
    Select(driver.find_element("id", "filter")).select_by_value("not-ok")
    assert badges() and set(badges()) <= {"failed", "wrong"}  # the empty answer: failed or wrong
    assert len(badges()) == len(statuses) - statuses.count("ok")
    Select(driver.find_element("id", "pair")).select_by_index(2)  # the oracle: nothing wrong
    assert driver.find_elements("css selector", "#sample-list details") == []
    assert driver.find_element("id", "shown").text.startswith("0 of")


def test_a_malformed_link_opens_the_first_pair_and_says_so(driver: Any, demo_report: Path) -> None:
    for bad in ("#pair=no-such/pair&sample=x", "#pair=%E0%A4%A&sample=1", "#sample=nope", "#??"):
        open_page(driver, demo_report.joinpath("index.html").as_uri() + bad)
        assert "was not understood" in driver.find_element("id", "link-note").text, bad
        assert driver.find_element("id", "pair").get_attribute("value") == "0"
    open_page(driver, demo_report.joinpath("index.html").as_uri() + "#metrics")  # a section: fine
    assert driver.find_element("id", "link-note").text == ""


def test_a_copied_report_folder_plays_its_clips_from_disk_and_over_http(
    driver: Any, demo_report: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "elsewhere" / "report"
    shutil.copytree(demo_report, copy)
    open_page(driver, copy.joinpath("index.html").as_uri() + "#pair=demo-speech-en/oracle&sample=h01")
    assert clips_load(driver, opened_sample(driver, "h01")) == 1
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(copy))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
            open_page(driver, url + "#pair=demo-mcq/oracle&sample=q03")
            assert clips_load(driver, opened_sample(driver, "q03")) == 1
        finally:
            server.shutdown()


def test_no_page_names_a_path_of_the_machine_that_made_it(demo_report: Path) -> None:
    root = str(demo_report.parent.parent)
    written = [demo_report / "index.html", *sorted((demo_report / "samples").glob("*.js"))]
    for path in written:
        text = path.read_text(encoding="utf-8")
        assert root not in text and str(Path.cwd()) not in text, path
    assert len(list((demo_report / "audio").iterdir())) >= 10  # each distinct clip once


def test_an_mmae_sample_shows_rubric_questions_and_one_row_per_vote(
    driver: Any, tmp_path: Path, synthetic_set: Any
) -> None:
    from audioeval.benchmarks.mmae.baselines import write_baseline
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
    from tests.test_run_mmae import run_predictions, write_spec

    preds, _ = write_baseline(
        "identity", metadata=synthetic_set.metadata, audio_root=synthetic_set.root, out_dir=tmp_path / "preds"
    )
    spec = write_spec(tmp_path / "mmae.yaml", synthetic_set.metadata)
    out = tmp_path / "run"
    with FakeJudgeServer(FakeJudgeConfig(model="fake-judge")) as judge:
        assert run_predictions(spec, preds, judge.base_url, out).exit_code == 0
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    page = out / "report" / "index.html"
    assert str(tmp_path) not in page.read_text(encoding="utf-8")
    open_page(driver, page.as_uri())
    first = driver.find_element("css selector", "#sample-list details.sample").get_attribute("data-id")
    driver.find_element("css selector", "#sample-list details.sample > summary").click()
    sample = opened_sample(driver, first)
    rubrics = sample.find_elements("css selector", ".rubric")
    assert rubrics and "can a steady tone" in rubrics[0].find_element("css selector", ".q").text
    votes = rubrics[0].find_elements("css selector", "table.votes tr")
    assert len(votes) == 1 + 3  # a header and one row per vote
    assert sample.find_elements("css selector", "table table") == []  # never nested tables
    assert clips_load(driver, sample) >= 2  # the input and the edited output
    assert "#pair=mmae-syn/" in driver.current_url and f"&sample={first}" in driver.current_url
    screenshot(driver, "report-sample-mmae", driver.find_element("id", "samples"))
    driver.execute_script("window.scrollTo(0, 0)")
    screenshot(driver, "report-mmae")


def test_per_sample_scores_are_shown_in_their_metrics_unit(driver: Any, demo_report: Path) -> None:
    """Issue 28: the list line and the details show WER/CER as on the boards (`wer 100.00 %`),
    never as raw fractions (`wer 1`); the score filter works in the same unit."""
    from audioeval.report.units import show_value

    open_page(driver, demo_report.joinpath("index.html").as_uri() + "#pair=demo-speech-en/constant&sample=h03")
    data = driver.execute_script("return JSON.parse(document.getElementById('samples-data').textContent)")
    pair = next(p for p in data["pairs"] if p["key"] == "demo-speech-en/constant")
    assert pair["unit"] == "fraction" and pair["scale"] == 100
    entry = next(s for s in pair["samples"] if s["id"] == "h03")
    sample = opened_sample(driver, "h03")
    summary = sample.find_element("tag name", "summary").text
    assert f"{pair['score_key']} {show_value(entry['sc'], 'fraction')}" in summary and "%" in summary
    scores = sample.find_element("xpath", ".//div[@class='k' and text()='scores']/following-sibling::div[1]").text
    assert "wer " + show_value(entry["sc"], "fraction") in scores and "cer " in scores
    assert all(part.strip().endswith("%") for part in scores.split("·")), scores
    driver.find_element("id", "score-min").send_keys("50")  # in %, as shown
    drawn = [d.get_attribute("data-id") for d in driver.find_elements("css selector", "#sample-list details")]
    expected = [s["id"] for s in pair["samples"] if s["sc"] is not None and 100 * s["sc"] >= 50]
    assert drawn == expected and driver.find_element("id", "score-min").get_attribute("placeholder") == "%"


def test_an_mmae_report_shows_each_samples_rates_in_percent_and_filters_in_percent(
    driver: Any, tmp_path: Path
) -> None:
    """MMAE's per-sample IFR is a 0–1 rate of the percentage IFR (`mean:ifr`, declared × 100):
    the list shows `IFR 50.00 %` for a sample at 0.5 (never `0.50 %`), the opened sample its
    IFR, CR and EMR in percent, and a threshold typed in the score filter is in percent: 50
    keeps the samples at 50 % or more (read as 0–1, it would keep none)."""
    from selenium.webdriver.common.keys import Keys

    from tests.golden.runs import mmae_clean

    out = tmp_path / "mmae"
    mmae_clean(out)
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    open_page(driver, (out / "report" / "index.html").as_uri())
    data = driver.execute_script("return JSON.parse(document.getElementById('samples-data').textContent)")
    (pair,) = data["pairs"]
    assert (pair["score_name"], pair["unit"], pair["scale"]) == ("IFR", "percent", 100)
    rates = {s["id"]: s["sc"] for s in pair["samples"] if s["sc"] is not None}
    half = sorted(i for i, v in rates.items() if v == 0.5)
    assert half and any(v < 0.5 for v in rates.values()) and any(v == 1.0 for v in rates.values())

    def drawn() -> list[str]:
        return [d.get_attribute("data-id") for d in driver.find_elements("css selector", "#sample-list details")]

    line = driver.find_element("css selector", f'#sample-list details[data-id="{half[0]}"] > summary').text
    assert "IFR 50.00 %" in line and "0.50 %" not in line, line
    low = driver.find_element("id", "score-min")
    assert low.get_attribute("placeholder") == "%"
    low.send_keys("50", Keys.TAB)
    kept = [s["id"] for s in pair["samples"] if s["sc"] is not None and s["sc"] >= 0.5]
    assert drawn() == kept and set(half) <= set(kept) and len(kept) < len(rates)
    high = driver.find_element("id", "score-max")
    high.send_keys("60", Keys.TAB)  # 50 % to 60 %: the samples at one half only
    assert drawn() == half
    screenshot(driver, "report-mmae-filter-percent")
    driver.find_element("css selector", f'#sample-list details[data-id="{half[0]}"] > summary').click()
    sample = opened_sample(driver, half[0])
    scores = sample.find_element("xpath", ".//div[@class='k' and text()='scores']/following-sibling::div[1]").text
    assert "IFR 50.00 %" in scores and "EMR " in scores, scores
    assert all(part.strip().endswith("%") for part in scores.split("·")), scores
    screenshot(driver, "report-mmae-sample-percent", driver.find_element("id", "samples"))


def test_a_sample_without_the_headline_value_shows_none_in_its_place() -> None:
    """MMAE's IFR of a sample whose instruction rubric failed is undefined: the browser shows
    no IFR for it, never its CR (the first number scored) under IFR's name."""
    from audioeval.core.record import SampleRecord, Score
    from audioeval.core.sample import Sample
    from audioeval.report.sample_rows import primary_score

    rec = SampleRecord(
        "s1", Sample("s1"), scores={"mmae_rubrics": Score({"IFR": None, "CR": 1.0, "EMR": None}, {}, {})}
    )
    assert primary_score(rec, "IFR") is None
    assert primary_score(rec, "CR") == 1.0
    assert primary_score(rec, "wer") == 1.0  # no score has the key: the first number scored


def test_an_audited_mmae_run_opens_a_vote_where_judge_and_measurement_disagree(
    driver: Any, tmp_path: Path, small_synthetic_set: Any
) -> None:
    """`--verify audit`: the reliability section shows the agreement of the judge with the
    measurement, and each disagreeing vote's id opens its sample with every vote."""
    import json
    import subprocess
    import sys

    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer

    data, out = small_synthetic_set, tmp_path / "audit"
    with FakeJudgeServer(FakeJudgeConfig(wrong_rate=0.3, seed=3)) as judge:
        p = subprocess.run(
            [sys.executable, "-m", "audioeval.cli.main", "mmae", "score", "--predictions",
             str(data.oracle_predictions), "--metadata", str(data.metadata), "--audio_root", str(data.root),
             "--judge", judge.base_url, "--output_dir", str(out), "--verify", "audit", "--judge-votes", "1"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    [summary] = list(out.glob("mmae/*/summary.json"))
    fig = json.loads(summary.read_text())["reliability"]["mmae_rubrics"]["verifier_audit"]
    assert fig["disagreeing"]
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    open_page(driver, (out / "report" / "index.html").as_uri())
    section = driver.find_element("id", "reliability")
    row = section.find_element("xpath", ".//tr[td[1][text()='judge vs measurement']]")
    assert row.find_elements("tag name", "td")[1].text == f"{100 * fig['value']:.1f} %"
    assert "axis: CR" in row.text and "operation:" in row.text
    links = section.find_elements("css selector", "td a[href^='#pair=']")
    assert [a.text for a in links] == [d["id"] for d in fig["disagreeing"]]
    screenshot(driver, "report-mmae-verifier-audit", section)
    first = fig["disagreeing"][0]
    links[0].click()
    sample = opened_sample(driver, first["id"])
    rubric = sample.find_elements("css selector", ".rubric")[first["rubric_index"]]
    assert rubric.find_elements("css selector", "table.votes tr")  # the judge's vote, one click away
    assert f"&sample={first['id']}" in driver.current_url


def test_a_judged_run_with_prices_shows_its_usage_and_cost(driver: Any, small_synthetic_set: Any, tmp_path: Path) -> None:
    """Calls, tokens (audio tokens with them), audio seconds and dollars, read from the fake
    judge's usage fields, on the report page; a predictions model's usage shows as unknown."""
    import json

    from audioeval.benchmarks.mmae.baselines import write_baseline
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer

    preds, _ = write_baseline(
        "identity", metadata=small_synthetic_set.metadata, audio_root=small_synthetic_set.root, out_dir=tmp_path / "p"
    )
    spec = tmp_path / "mmae.yaml"
    spec.write_text(f"name: mmae-syn\ntask: audio_edit\nsource: {{type: mmae, path: {json.dumps(str(small_synthetic_set.metadata))}}}\n")
    prices = tmp_path / "prices.yaml"
    prices.write_text("fake-judge: {input_text: 1, input_audio: 10, output_text: 4}\n")
    out = tmp_path / "run"
    with FakeJudgeServer(FakeJudgeConfig(model="fake-judge")) as judge:
        res = runner.invoke(
            app,
            ["run", "-b", str(spec), "-m", f"predictions:{preds}", "--judge", judge.base_url, "--judge-model",
             "fake-judge", "-o", str(out), "--no-progress", "--resamples", "20", "--prices", str(prices)],
            catch_exceptions=False,
        )  # fmt: skip
        assert res.exit_code == 0, res.output
        asked = judge.stats.requests
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    open_page(driver, (out / "report" / "index.html").as_uri())
    section = driver.find_element("id", "usage")
    rows = [[c.text for c in tr.find_elements("css selector", "td")] for tr in section.find_elements("css selector", "tr")]
    heads = [th.text for th in section.find_elements("css selector", "th")]
    judge_row = dict(zip(heads, next(r for r in rows if "judge" in r), strict=True))
    model_row = dict(zip(heads, next(r for r in rows if "model" in r), strict=True))
    assert judge_row["calls"].replace(",", "") == str(asked)
    assert judge_row["cost"].startswith("$") and model_row["cost"] == "–" and model_row["calls"] == "–"
    driver.execute_script("arguments[0].scrollIntoView()", section)
    screenshot(driver, "report-usage", section)
