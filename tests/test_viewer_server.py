"""`audioeval view`'s server over real HTTP on 127.0.0.1: it binds there unless told otherwise,
serves nothing outside the run folders (`../`, absolute, encoded and doubled paths, clip
tokens it did not hand out), writes nothing, answers GET/HEAD only; and the records follower
it reads through (`store/run_folder.RecordsFollower`) vouches for exactly what `read_pair` does."""

from __future__ import annotations

import http.client
import inspect
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli.main import app
from audioeval.cli.view_commands import view
from audioeval.report.viewer_runs import ServedRuns
from audioeval.report.viewer_server import DEFAULT_HOST, make_server
from audioeval.store.run_folder import RecordsFollower, read_pair, read_run_file, run_id_of

runner = CliRunner()


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("served") / "run"
    res = runner.invoke(
        app,
        ["run", "--benchmark", "demo-mcq", "--model", "oracle", "--model", "constant", "-o", str(out),
         "--no-progress", "--resamples", "20"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    (out.parent / "secret.txt").write_text("outside the run folder")
    return out


@pytest.fixture(scope="module")
def server(run_dir: Path) -> Iterator[tuple[str, int, ServedRuns]]:
    runs = ServedRuns([run_dir])
    srv = make_server(runs)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    host, port = srv.server_address[:2]
    yield str(host), int(port), runs
    srv.shutdown()
    srv.server_close()


def _get(server: tuple[str, int, ServedRuns], path: str, method: str = "GET") -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(server[0], server[1], timeout=10)
    conn.putrequest(method, path, skip_host=False, skip_accept_encoding=True)
    conn.endheaders()
    res = conn.getresponse()
    body = res.read()
    conn.close()
    return res.status, body


def test_it_binds_to_the_loopback_address_unless_told_otherwise(server: tuple[str, int, ServedRuns]) -> None:
    assert server[0] == DEFAULT_HOST == "127.0.0.1"
    assert inspect.signature(view).parameters["host"].default.default == "127.0.0.1"
    assert inspect.signature(make_server).parameters["host"].default == "127.0.0.1"


ESCAPES = [
    "/../secret.txt",
    "/../../etc/passwd",
    "/run/0/../../secret.txt",
    "/run/../../secret.txt",
    "/%2e%2e/secret.txt",
    "/%2E%2E%2Fsecret.txt",
    "/..%2f..%2fetc%2fpasswd",
    "//etc/passwd",
    "/etc/passwd",
    "/run.json",
    "/demo-mcq/oracle/records.jsonl",
    "/clip/../../secret.txt",
    "/clip/%2e%2e%2fsecret.txt",
    "/clip/" + "0" * 24 + ".wav",
    "/clip//etc/passwd",
    "http://127.0.0.1/../secret.txt",
    "/run/1",
    "/run/-1",
    "/api/run/99",
    "/static/../../secret.txt",
]


@pytest.mark.parametrize("path", ESCAPES)
def test_no_address_reaches_a_file_outside_the_run_folders(
    server: tuple[str, int, ServedRuns], path: str
) -> None:
    status, body = _get(server, path)
    assert status == 404, (path, status)
    assert b"outside the run folder" not in body and b"root:" not in body


def test_pairs_named_outside_the_run_are_refused(server: tuple[str, int, ServedRuns]) -> None:
    for keys in ("p=0/../../secret.txt&p=0/demo-mcq/oracle", "p=0/demo-mcq/..&p=0/demo-mcq/oracle",
                 "p=/etc/passwd&p=0/demo-mcq/oracle", "p=1/demo-mcq/oracle&p=0/demo-mcq/oracle"):  # fmt: skip
        for path in ("/compare", "/api/compare", "/api/sample"):
            status, body = _get(server, f"{path}?{keys}&id=q01")
            assert status == 404, (path, keys, status)
    status, body = _get(server, "/api/compare?p=0/demo-mcq/oracle")
    assert status == 400 and b"two or more" in body


def test_clips_are_served_only_by_the_tokens_records_name(server: tuple[str, int, ServedRuns]) -> None:
    status, body = _get(server, "/api/sample?p=0/demo-mcq/oracle&p=0/demo-mcq/constant&id=q01")
    assert status == 200
    sample = json.loads(body)
    link = sample["systems"][0]["audio"][0][1]
    assert link.startswith("/clip/") and "/" not in link.removeprefix("/clip/")
    status, clip = _get(server, link)
    assert status == 200 and clip[:4] == b"fLaC"
    assert _get(server, link[:-6] + "ffffff")[0] == 404


def test_it_writes_nothing_and_answers_get_and_head_only(
    server: tuple[str, int, ServedRuns], run_dir: Path
) -> None:
    before = sorted((p.relative_to(run_dir), p.stat().st_mtime_ns) for p in run_dir.rglob("*"))
    for path in ("/", "/run/0", "/api/run/0", "/compare?p=0/demo-mcq/oracle&p=0/demo-mcq/constant"):
        assert _get(server, path)[0] == 200, path
    assert _get(server, "/", "HEAD")[0] == 200
    for method in ("POST", "PUT", "DELETE"):
        assert _get(server, "/run/0", method)[0] == 501
    assert sorted((p.relative_to(run_dir), p.stat().st_mtime_ns) for p in run_dir.rglob("*")) == before


def test_a_folder_that_is_no_run_is_refused_at_the_start(tmp_path: Path) -> None:
    res = runner.invoke(app, ["view", str(tmp_path)])
    assert res.exit_code == 2 and "run.json" in res.output


def test_the_follower_reads_appended_lines_as_read_pair_reads_the_whole_file(
    run_dir: Path, tmp_path: Path
) -> None:
    pair = tmp_path / "run" / "demo-mcq" / "oracle"
    shutil.copytree(run_dir / "demo-mcq" / "oracle", pair)
    shutil.copy(run_dir / "run.json", tmp_path / "run" / "run.json")
    run_id = run_id_of(read_run_file(run_dir))
    lines = (pair / "records.jsonl").read_bytes().splitlines(keepends=True)
    forged = json.loads(lines[5])
    forged["stamp"] = "x:y"
    lines[5] = json.dumps(forged).encode() + b"\n"
    follower = RecordsFollower(pair, run_id)
    (pair / "records.jsonl").write_bytes(b"")
    assert follower.poll().records == [] and follower.poll().empty
    written = b""
    for cut in (1, 4, 7, len(lines)):
        written = b"".join(lines[:cut])
        (pair / "records.jsonl").write_bytes(written[:-10])  # the last line still being written
        assert len(follower.poll().records) + len(follower.poll().lines) == cut - 1
        (pair / "records.jsonl").write_bytes(written)
        got, whole = follower.poll(), read_pair(pair, run_id)
        assert [r.id for r in got.records] == [r.id for r in whole.records]
        assert [str(p) for p in got.lines] == [str(p) for p in whole.lines]
    (pair / "records.jsonl").write_bytes(b"".join(lines[:2]))  # rewritten shorter: read again
    assert [r.id for r in follower.poll().records] == [r.id for r in read_pair(pair, run_id).records]


def test_no_page_or_answer_names_a_path_of_the_machine(
    server: tuple[str, int, ServedRuns], run_dir: Path
) -> None:
    keys = "p=0/demo-mcq/oracle&p=0/demo-mcq/constant"
    paths = ["/", "/run/0", "/api/run/0", f"/compare?{keys}", f"/api/compare?{keys}"]
    paths += [f"/api/sample?{keys}&id=q{i:02d}" for i in range(1, 13)]
    for path in paths:
        status, body = _get(server, path)
        text = body.decode("utf-8")
        assert status == 200, path
        for folder in (str(run_dir.parent), str(Path.cwd()), str(Path.home())):
            assert folder + "/" not in text, (path, folder)


def test_an_error_naming_a_file_of_the_machine_is_shown_with_its_folder_hidden(
    run_dir: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(run_dir, run, ignore=shutil.ignore_patterns(".audioeval.lock"))
    records = run / "demo-mcq" / "constant" / "records.jsonl"
    lines = [json.loads(x) for x in records.read_text().splitlines()]
    missing = tmp_path / "data" / "q01.wav"
    (first,) = [x for x in lines if x["id"] == "q01"]  # lines are in the order samples finished
    first.update(error=f"cannot read {missing}: no such file", failure="input", scores=None)
    records.write_text("".join(json.dumps(x) + "\n" for x in lines))
    runs = ServedRuns([run])
    srv = make_server(runs)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        host, port = srv.server_address[:2]
        for path in ("/api/run/0", "/api/sample?p=0/demo-mcq/constant&p=0/demo-mcq/oracle&id=q01"):
            text = _get((str(host), int(port), runs), path)[1].decode("utf-8")
            assert "cannot read …/data/q01.wav" in text and str(tmp_path) not in text, path
    finally:
        srv.shutdown()
        srv.server_close()


def test_the_difference_at_the_top_is_the_summaries_difference_with_its_paired_ci(
    server: tuple[str, int, ServedRuns], run_dir: Path
) -> None:
    runs = server[2]
    found = runs.compare(["0/demo-mcq/oracle", "0/demo-mcq/constant"])["differences"][0]
    a, b = (
        json.loads((run_dir / "demo-mcq" / m / "summary.json").read_text()) for m in ("oracle", "constant")
    )
    expected = 100 * (a["metrics"]["accuracy"]["value"] - b["metrics"]["accuracy"]["value"])
    assert found["difference"] == pytest.approx(expected) and found["n"] == 12
    assert found["ci"][0] <= found["difference"] <= found["ci"][1] and found["p"] <= 0.05
    assert runs.compare(["0/demo-mcq/oracle", "0/demo-mcq/constant"])["differences"][0]["ci"] == found["ci"]


def test_the_command_serves_on_the_loopback_address_until_stopped(run_dir: Path) -> None:
    import os
    import re
    import signal
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "COLUMNS": "200"}
    cmd = [
        sys.executable,
        "-c",
        "from audioeval.cli.main import app; app()",
        "view",
        str(run_dir),
        "--port",
        "0",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line
        status, body = _get(("127.0.0.1", int(found.group(1)), None), "/")  # type: ignore[arg-type]
        assert status == 200 and b"demo-mcq" in body
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 0


def test_a_judged_run_lists_each_rubric_whose_votes_disagree(tmp_path: Path, synthetic_set: Any) -> None:
    from audioeval.benchmarks.mmae.baselines import write_baseline
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
    from tests.test_run_mmae import run_predictions, write_spec

    preds, _ = write_baseline(
        "identity", metadata=synthetic_set.metadata, audio_root=synthetic_set.root, out_dir=tmp_path / "preds"
    )
    spec = write_spec(tmp_path / "mmae.yaml", synthetic_set.metadata)
    out = tmp_path / "run"
    with FakeJudgeServer(FakeJudgeConfig(model="fake-judge", wrong_rate=0.3, seed=3)) as judge:
        assert run_predictions(spec, preds, judge.base_url, out).exit_code == 0
    state = ServedRuns([out]).run_state(0)
    expected: list[str] = []
    pair = next(p for p in (out / "mmae-syn").iterdir() if p.is_dir())  # not skipped.json beside it
    for line in (pair / "records.jsonl").read_text().splitlines():
        rec = json.loads(line)
        for block in (rec.get("judge") or {}).values():
            for rubric in block.get("rubrics") or []:
                votes = {a.get("correct") for a in rubric.get("attempts") or []}
                if len(votes) > 1:
                    expected.append(rec["id"])
    assert expected  # the noisy judge disagreed with itself somewhere
    assert sorted(row[1] for row in state["disagreements"]) == sorted(expected)  # one row per such rubric
    assert all({"right", "wrong"} <= set(row[3].split()) for row in state["disagreements"])
    assert state["reliability"] and "judge reliability" in state["reliability"][0]["caption"]


def test_a_p_no_resample_reaches_is_shown_as_the_resamples_resolution(server: tuple[str, int, ServedRuns]) -> None:
    """No resample crosses 0 (the oracle against a constant): p is below 2 / resamples, which is
    what the page says; never a bound the resamples cannot tell (`p < 0.001` of 1,000)."""
    found = server[2].compare(["0/demo-mcq/oracle", "0/demo-mcq/constant"])["differences"][0]
    assert found["p"] == 0.0
    assert f"p < {2 / found['n_resamples']:.3g};" in found["text"]
    assert "p < 0.001" not in found["text"] and "p = 0.000" not in found["text"]


def test_a_run_stopped_before_its_end_is_said_so_and_not_followed(run_dir: Path, tmp_path: Path) -> None:
    """A run folder without its summary.json is being written only while the process named in
    its lock file runs; once that process is gone the pages say it stopped and poll no more."""
    import os
    import subprocess
    import sys

    from audioeval.store.run_lock import LOCK_FILE

    stopped = tmp_path / "stopped"
    shutil.copytree(run_dir, stopped)
    (stopped / "summary.json").unlink()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    keys = [f"0/demo-mcq/{m}" for m in ("oracle", "constant")]
    for holder, live in ((str(os.getpid()), True), (gone.stdout.strip(), False), ("", False)):
        (stopped / LOCK_FILE).write_text(holder)
        runs = ServedRuns([stopped])
        (line,) = runs.listing()
        assert (line["finished"], line["stopped"]) == (False, not live), holder
        state = runs.run_state(0)
        assert (state["finished"], state["stopped"]) == (False, not live)
        assert runs.compare(keys)["live"] is live
    (stopped / LOCK_FILE).unlink()  # a copied folder without its lock file: no writer either
    assert ServedRuns([stopped]).listing()[0]["stopped"] is True
    finished = ServedRuns([run_dir])
    assert finished.listing()[0]["finished"] is True and finished.listing()[0]["stopped"] is False
    assert finished.compare(keys)["live"] is False
