"""Fail fast, resume later: a model endpoint that dies mid-run stops the run (exit 3, naming
the endpoint and the reason) instead of retrying for the whole request timeout; what finished
is kept, and the rerun completes with the numbers of an uninterrupted run."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.engine.endpoint_pool import EndpointPool
from tests.fakes.mcq_server import FakeMcqConfig, FakeMcqServer
from tests.run_helpers import tone_mcq_manifest

runner = CliRunner()
REPO = Path(__file__).resolve().parents[1]


def _config(path: Path, manifest: Path, url: str) -> Path:
    path.write_text(
        f"benchmarks: [{manifest}]\ntask: mcq\n"
        "models:\n"
        f"  - {{name: fake-audio-lm, type: openai, urls: ['{url}'], concurrency: 1, unreachable_after_s: 1.5}}\n"
    )
    return path


def _records(out: Path) -> list[dict]:
    [folder] = [p.parent for p in out.rglob("records.jsonl")]
    return [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]


def test_a_dead_endpoint_stops_the_run_with_exit_3_and_the_rerun_resumes(tmp_path):
    manifest = tone_mcq_manifest(tmp_path / "set", n=12)
    with FakeMcqServer(FakeMcqConfig(latency_s=0.05)) as whole:  # the uninterrupted run
        cfg = _config(tmp_path / "whole.yaml", manifest, whole.base_url)
        res = runner.invoke(app, ["run", str(cfg), "-o", str(tmp_path / "whole"), "--no-progress"])
        assert res.exit_code == 0, res.output
    expected = json.loads((tmp_path / "whole" / "summary.json").read_text())

    out = tmp_path / "out"
    server = subprocess.Popen(  # a real server process, killed as a crashed one is
        [sys.executable, "-m", "tests.fakes.mcq_server", "--latency", "0.2"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = server.stdout.readline().strip()
        port = int(url.rsplit(":", 1)[1].split("/")[0])
        cfg = _config(tmp_path / "run.yaml", manifest, url)

        def kill_after_three() -> None:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                files = list(out.rglob("records.jsonl"))
                if files and len(files[0].read_text().splitlines()) >= 3:
                    break
                time.sleep(0.02)
            server.kill()

        killer = threading.Thread(target=kill_after_three, daemon=True)
        killer.start()
        started = time.monotonic()
        res = runner.invoke(app, ["run", str(cfg), "-o", str(out), "--no-progress"])
        took = time.monotonic() - started
        killer.join(timeout=10)
    finally:
        server.kill()
        server.wait()
    assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE, res.output
    assert took < 60
    text = " ".join(res.output.split())
    assert "unreachable" in text and f"127.0.0.1:{port}" in text and "resume" in text
    done = _records(out)
    assert 3 <= len(done) < 12 and all(r.get("error") is None for r in done), "failures were recorded"

    with FakeMcqServer(FakeMcqConfig(latency_s=0.0), port=port) as again:
        res = runner.invoke(app, ["run", str(cfg), "-o", str(out), "--no-progress"])
        assert res.exit_code == 0, res.output
        assert again.stats.audio_requests == 12 - len(done), "finished samples were asked again"
    got = json.loads((out / "summary.json").read_text())
    assert (got["scored"], got["failed"], got["accuracy"]) == (
        expected["scored"],
        expected["failed"],
        expected["accuracy"],
    ) == (12, 0, 1.0)
    assert sorted(r["id"] for r in _records(out)) == sorted(r["id"] for r in _records(tmp_path / "whole"))


def test_the_pool_measures_how_long_every_endpoint_has_been_unreachable(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr("audioeval.engine.endpoint_pool.time.monotonic", lambda: clock[0])
    pool = EndpointPool(["http://a/v1", "http://b/v1"])
    a, b = pool.endpoints
    a.outstanding += 1
    pool.release(a, failed=True, unreachable=True, error="refused")
    clock[0] = 110.0
    assert pool.unreachable_for() == 0.0, "one endpoint has not failed yet"
    b.outstanding += 1
    pool.release(b, failed=True, unreachable=True, error="reset")
    clock[0] = 125.0
    assert pool.unreachable_for() == pytest.approx(15.0)  # since the later of the two
    assert "http://a/v1: refused" in pool.unreachable_reasons()
    assert "http://b/v1: reset" in pool.unreachable_reasons()
    b.outstanding += 1
    pool.release(b, failed=True)  # an answer (a 500): b is reachable again
    assert pool.unreachable_for() == 0.0
