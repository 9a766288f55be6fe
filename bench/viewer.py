"""The compare page of `audioeval view` over a full-size MMAE run: how long it takes to open in
headless Chromium. Writes its section of docs/performance.md (`--write-doc`).

The run: a synthetic MMAE set (`benchmarks/mmae/synthetic.py`) with two systems (the identity
and the noise baselines' predictions) scored by the test suite's fake judge, whose records are
then repeated under new ids up to `--samples` samples per system, each rubric's votes repeated
up to `--rubrics` rubrics a sample (2 × 2,000 × 9 × 3 = 108,000 votes), as
`bench/report_page.py` builds its run. Then the viewer's server (in this process, on
127.0.0.1) and Chromium (Selenium, chromedriver) opening the compare page of the two systems
until it says it is drawn (`data-ready`): first with nothing read yet (the server reads both
pairs' records, computes their figures and the paired bootstrap), then again (read), then by
deep link to the last sample with its details drawn.

    .venv/bin/python bench/viewer.py [--samples 2000] [--rubrics 9] [--write-doc]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def build_run(root: Path, samples: int, rubrics: int) -> Path:
    from audioeval.benchmarks.mmae.baselines import write_baseline
    from audioeval.benchmarks.mmae.synthetic import write_synthetic_set
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
    from tests.test_run_mmae import JUDGE, run_cli, write_spec

    data = write_synthetic_set(root / "set", 42)
    models = []
    for kind in ("identity", "noise"):
        preds, _ = write_baseline(kind, metadata=data.metadata, audio_root=data.root, out_dir=root / kind)
        models += ["--model", f"predictions:{preds}"]
    spec = write_spec(root / "mmae.yaml", data.metadata)
    run = root / "run"
    with FakeJudgeServer(FakeJudgeConfig(model="fake-judge")) as judge:
        res = run_cli(
            "--benchmark",
            str(spec),
            *models,
            "--judge",
            judge.base_url,
            "--judge-model",
            JUDGE,
            "-o",
            str(run),
        )
        assert res.exit_code == 0, res.output
    for folder in sorted(p for p in (run / "mmae-syn").iterdir() if p.is_dir()):
        base = [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]
        ids = []
        with (folder / "records.jsonl").open("w", encoding="utf-8") as out:
            for i in range(samples):
                rec = json.loads(json.dumps(base[i % len(base)]))
                rec["id"] = f"s{i:05d}"
                ids.append(rec["id"])
                for block in rec.get("judge", {}).values():
                    have = block.get("rubrics") or []
                    block["rubrics"] = [
                        dict(have[k % len(have)], rubric_index=k % len(have)) for k in range(rubrics)
                    ]
                out.write(json.dumps(rec) + "\n")
        (folder / "sample_ids.json").write_text(json.dumps(ids))
    _summarise_again(run)
    return run


def _summarise_again(run: Path) -> None:
    """Each pair's summary.json computed again from its repeated records (as the run would
    have written it), so that the viewer reads it as a finished run's."""
    from audioeval.report.viewer_runs import ServedRuns
    from audioeval.store.atomic import write_text
    from audioeval.store.run_summaries import FILES_DIGEST_KEY, pair_files_digest, sealed

    runs = ServedRuns([run])
    for pair in runs.pairs(0):
        path = pair.folder / "summary.json"
        old = json.loads(path.read_text())
        new = {**old, **pair.summary, FILES_DIGEST_KEY: pair_files_digest(pair.folder)}
        new.pop("content_sha256", None)
        write_text(path, json.dumps(sealed(new), indent=2))


def open_time(url: str, css: str | None = None) -> float:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        opts.add_argument(arg)
    drv = webdriver.Chrome(options=opts, service=Service("/usr/bin/chromedriver"))
    try:
        drv.get("about:blank")
        start = time.perf_counter()
        drv.get(url)
        WebDriverWait(drv, 60).until(
            lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "1"
        )
        if css:
            WebDriverWait(drv, 60).until(lambda d: d.find_elements("css selector", css))
        elapsed = time.perf_counter() - start
        assert drv.find_element("id", "script-errors").text == ""
        return elapsed
    finally:
        drv.quit()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--rubrics", type=int, default=9)
    ap.add_argument("--write-doc", action="store_true")
    args = ap.parse_args()
    from audioeval.report.viewer_runs import ServedRuns
    from audioeval.report.viewer_server import make_server

    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        run = build_run(Path(tmp), args.samples, args.rubrics)
        server = make_server(ServedRuns([run]))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        host, port = server.server_address[:2]
        models = sorted(p.name for p in (run / "mmae-syn").iterdir() if p.is_dir())
        url = f"http://{host}:{port}/compare?" + "&".join(f"p=0/mmae-syn/{m}" for m in models)
        try:
            cold = open_time(url)
            warm = open_time(url)
            last = f"s{args.samples - 1:05d}"
            deep = open_time(url + f"#sample={last}", f'details[data-id="{last}"][data-filled="1"]')
        finally:
            server.shutdown()
            server.server_close()
    votes = 2 * args.samples * args.rubrics * 3
    rows = [
        ("load average of the machine as the bench started (1 min)", f"{load:.1f}"),
        ("systems × samples · judge votes", f"2 × {args.samples} · {votes}"),
        (
            "open the compare page, nothing read yet (records read, figures and paired bootstrap computed)",
            f"{cold:.2f} s",
        ),
        ("open it again: what a user sees, `audioeval view` reading its runs as it starts", f"{warm:.2f} s"),
        ("open by deep link to the last sample, both systems' details drawn", f"{deep:.2f} s"),
    ]
    text = "\n".join(f"| {a} | {b} |" for a, b in rows)
    print(text)
    if args.write_doc:
        from bench.doc_section import replace_section

        replace_section(
            "## Compare page of the viewer over a full-size MMAE run",
            "## Compare page of the viewer over a full-size MMAE run\n\n"
            "`bench/viewer.py`: a synthetic MMAE run with two systems (identity and noise"
            " predictions, fake judge), each repeated to full size as `bench/report_page.py` does;"
            " `audioeval view`'s server on 127.0.0.1 and Selenium + Debian's Chromium (headless)"
            " opening the compare page of the two until it sets `data-ready`. Target: under 2 s. The"
            " first open reads both pairs' records (JSON parsing of the 4,000 lines is most of it;"
            " the run folder's reader pauses the cyclic collector while it reads, whose passes over"
            " the new objects had taken longer than the parsing) and computes the paired bootstrap;"
            " `audioeval view` does that reading as it starts, so a user's first open is the second"
            " row. Measured on the shared 2 cores: compare within the table."
            "\n\n| measure | value |\n|---|---|\n" + text + "\n",
        )


if __name__ == "__main__":
    main()
