"""The report page of a full-size MMAE run: how long it takes to open in headless Chromium and
how much it weighs. Writes its section of docs/performance.md (`--write-doc`).

The run: a synthetic MMAE set (`benchmarks/mmae/synthetic.py`) scored by the test suite's fake
judge, whose records are then repeated under new ids up to `--samples` samples, each rubric's
votes repeated up to `--rubrics` rubrics a sample (2,000 × 9 × 3 = 54,000 votes): the shape of
a full MMAE run without 54,000 judge calls. Then `audioeval report`, then Chromium (Selenium,
chromedriver) opens the page from file:// until the page says it is drawn (`data-ready`), and
once more with a sample opened by deep link (its chunk of details loaded).

    .venv/bin/python bench/report_page.py [--samples 2000] [--rubrics 9] [--write-doc]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def build_run(root: Path, samples: int, rubrics: int) -> Path:
    from audioeval.benchmarks.mmae.baselines import write_baseline
    from audioeval.benchmarks.mmae.synthetic import write_synthetic_set
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
    from tests.test_run_mmae import run_predictions, write_spec

    data = write_synthetic_set(root / "set", 42)
    preds, _ = write_baseline("identity", metadata=data.metadata, audio_root=data.root, out_dir=root / "preds")
    spec = write_spec(root / "mmae.yaml", data.metadata)
    run = root / "run"
    with FakeJudgeServer(FakeJudgeConfig(model="fake-judge")) as judge:
        assert run_predictions(spec, preds, judge.base_url, run).exit_code == 0
    (folder,) = [p for p in (run / "mmae-syn").iterdir() if p.is_dir()]
    base = [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]
    with (folder / "records.jsonl").open("w", encoding="utf-8") as out:
        for i in range(samples):
            rec = json.loads(json.dumps(base[i % len(base)]))
            rec["id"] = f"s{i:05d}"
            for block in rec.get("judge", {}).values():
                have = block.get("rubrics") or []
                block["rubrics"] = [dict(have[k % len(have)], rubric_index=k % len(have)) for k in range(rubrics)]
            out.write(json.dumps(rec) + "\n")
    return run


def open_time(url: str) -> float:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        opts.add_argument(arg)
    drv = webdriver.Chrome(options=opts, service=Service("/usr/bin/chromedriver"))
    try:
        start = time.perf_counter()
        drv.get(url)
        WebDriverWait(drv, 60).until(lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "1")
        if "sample=" in url:
            WebDriverWait(drv, 60).until(lambda d: d.find_elements("css selector", "details[data-filled='1']"))
        elapsed = time.perf_counter() - start
        assert drv.find_element("id", "script-errors").text == ""
        return elapsed
    finally:
        drv.quit()


def size_mb(folder: Path, pattern: str = "**/*") -> float:
    return sum(p.stat().st_size for p in folder.glob(pattern) if p.is_file()) / 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--rubrics", type=int, default=9)
    ap.add_argument("--write-doc", action="store_true")
    args = ap.parse_args()
    from audioeval.report.run_report import write_run_report

    with tempfile.TemporaryDirectory() as tmp:
        run = build_run(Path(tmp), args.samples, args.rubrics)
        votes = args.samples * args.rubrics * 3
        t0 = time.perf_counter()
        page = write_run_report(run)
        render_s = time.perf_counter() - t0
        report = page.parent
        html_mb, chunks_mb, audio_mb = size_mb(report, "index.html"), size_mb(report, "samples/*"), size_mb(report, "audio/*")
        opened = open_time(page.as_uri())
        deep = open_time(page.as_uri() + f"#sample=s{args.samples - 1:05d}")
    rows = [
        ("samples · judge votes", f"{args.samples} · {votes}"),
        ("`audioeval report` (write the page, chunks, clip copies)", f"{render_s:.1f} s"),
        ("index.html", f"{html_mb:.2f} MB"),
        ("sample chunks (loaded on demand)", f"{chunks_mb:.2f} MB"),
        ("page + chunks (the page's weight)", f"{html_mb + chunks_mb:.2f} MB"),
        ("clip copies (report/audio/)", f"{audio_mb:.2f} MB"),
        ("open in headless Chromium until drawn", f"{opened:.2f} s"),
        ("open by deep link to the last sample, its details drawn", f"{deep:.2f} s"),
    ]
    text = "\n".join(f"| {a} | {b} |" for a, b in rows)
    print(text)
    if args.write_doc:
        from bench.doc_section import replace_section

        replace_section(
            "## Report page of a full-size MMAE run",
            "## Report page of a full-size MMAE run\n\n"
            "`bench/report_page.py`: a synthetic MMAE run repeated to full size (fake judge; records"
            " repeated under new ids), `audioeval report`, then Selenium + Debian's Chromium"
            " (headless, file://) until the page sets `data-ready`. Targets: under 3 s, under 30 MB."
            " Sample details are in chunk scripts beside the page, loaded when a sample is opened"
            " (docs/reports.md).\n\n| measure | value |\n|---|---|\n" + text + "\n",
        )


if __name__ == "__main__":
    main()
