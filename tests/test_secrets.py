"""API keys never reach a run's files or the console, even when a server echoes them back.

The fake servers answer every chat request 401 or 500 with a body that repeats the
`Authorization` header, the bare key in a JSON field and the bare key in prose. `mmae score`
and `audioeval run` then run as a user runs them (subprocesses); every file they wrote and
everything they printed is searched for the keys.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from audioeval.benchmarks.mmae.synthetic import write_synthetic_set
from audioeval.cli import exit_codes
from audioeval.core.redact import REDACTED, excerpt, redact, register_secret
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
from tests.fakes.mcq_server import FakeMcqConfig, FakeMcqServer
from tests.run_helpers import tone_mcq_manifest

AUDIOEVAL = [sys.executable, "-m", "audioeval.cli.main"]
SK_KEY = "sk-test-SECRET123"
PLAIN_KEY = "hunter2-very-secret"
KEY_PIECES = ("SECRET123", "test-SECRET", "hunter2", "very-secret")
"""Parts of the keys: a cut excerpt must not leave a piece of a key behind either."""
# Exit codes a run against a server refusing every request may end with, depending on
# whether failures are tolerated, counted as too many, or found before the run.
ENDED = {exit_codes.OK, exit_codes.ENDPOINT_UNUSABLE, exit_codes.TOO_MANY_FAILURES}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env.update(OPENAI_API_KEY=SK_KEY, **extra)
    return env


def _cli(*args: object, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*AUDIOEVAL, *map(str, args)], capture_output=True, text=True, env=env, timeout=300)


def _leaks(folder: Path, console: str) -> list[str]:
    """Where a key or a piece of one appears: file paths, or 'console'."""
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if any(piece.encode() in data for piece in KEY_PIECES):
            found.append(str(path.relative_to(folder)))
    if any(piece in console for piece in KEY_PIECES):
        found.append("console")
    return found


@pytest.mark.parametrize("status", [401, 500])
def test_mmae_score_never_stores_or_prints_the_key(tmp_path: Path, status: int) -> None:
    s = write_synthetic_set(tmp_path / "set", 3)
    out = tmp_path / "scores"
    with FakeJudgeServer(FakeJudgeConfig(echo_credentials=status)) as server:
        p = _cli(
            "mmae", "score", "--predictions", s.oracle_predictions, "--metadata", s.metadata,
            "--base-urls", server.base_url, "--output-dir", out, "--retries", 1,
            "--max-attempts", 1, "--timeout", 0.5, "--bootstrap", 10, "--no-progress",
            env=_env(),
        )  # fmt: skip
        assert server.stats.auth_headers and server.stats.auth_headers[0] == f"Bearer {SK_KEY}"
    assert p.returncode in ENDED, p.stderr
    assert _leaks(out, p.stdout + p.stderr) == []
    if p.returncode != exit_codes.ENDPOINT_UNUSABLE:  # the run went ahead: failures recorded
        results = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
        assert results and all(r["failed"] for r in results)
        assert REDACTED in (out / "results.jsonl").read_text()
        signature = out / "mmae" / "predictions" / "signature.json"
        assert REDACTED not in signature.read_text()  # never held a key to redact


@pytest.mark.parametrize("status", [401, 500])
def test_run_never_stores_or_prints_either_key(tmp_path: Path, status: int) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=3)
    out = tmp_path / "run"
    with FakeMcqServer(FakeMcqConfig(echo_credentials=status)) as server:
        model = {
            "type": "openai",
            "urls": [server.base_url],
            "served_model": "fake-audio-lm",
            "timeout_s": 0.5,
        }
        config = {
            "benchmarks": [str(manifest)],
            "task": "mcq",
            "output_dir": str(out),
            "resamples": 10,
            "models": [
                {"name": "default-key", **model},
                {"name": "own-key", "api_key_env": "AUDIOEVAL_TEST_KEY", **model},
            ],
        }
        cfg = tmp_path / "run.yaml"
        cfg.write_text(yaml.safe_dump(config))
        p = _cli("run", cfg, "--no-progress", env=_env(AUDIOEVAL_TEST_KEY=PLAIN_KEY))
    assert p.returncode in ENDED, p.stderr
    assert _leaks(out, p.stdout + p.stderr) == []
    if p.returncode == exit_codes.ENDPOINT_UNUSABLE:
        return  # refused before the run: nothing recorded
    summary = json.loads((out / "summary.json").read_text())
    assert {r["model"]: r["failed"] for r in summary["results"]} == {"default-key": 3, "own-key": 3}
    assert REDACTED in json.dumps(summary)
    assert "failed" in p.stderr and REDACTED in p.stderr  # the first failure, redacted
    run = json.loads((out / "run.json").read_text())
    assert [m["config"]["api_key_env"] for m in run["models"]] == ["OPENAI_API_KEY", "AUDIOEVAL_TEST_KEY"]
    settings = [out / "run.json", *out.rglob("signature.json")]
    assert len(settings) == 3 and not any(REDACTED in f.read_text() for f in settings)  # no key held


def test_redact_removes_registered_keys_and_key_shaped_tokens() -> None:
    register_secret("pa55-w0rd-of-mine")
    text = (
        'HTTP 401: {"headers": {"authorization": "Bearer abc.def-123"}, "api_key": "xyz789", '
        "'x-api-key': 'k-42', token sk-proj-AbCdEf0123456789 and pa55-w0rd-of-mine}; "
        "Authorization: Token zzz\r\nHost: h; ?api_key=qqq&v=1"
    )
    clean = redact(text)
    for secret in ("abc.def-123", "xyz789", "k-42", "sk-proj-AbCdEf0123456789", "pa55-w0rd", "zzz", "qqq"):
        assert secret not in clean, (secret, clean)
    assert "HTTP 401" in clean and "Host: h" in clean and "&v=1" in clean
    assert redact("the task-level cache of ask-me-anything") == "the task-level cache of ask-me-anything"


def test_excerpt_redacts_before_it_cuts() -> None:
    register_secret(PLAIN_KEY)
    body = ("x" * 290 + f" {PLAIN_KEY} tail").encode()
    cut = excerpt(body, 300)
    assert len(cut) <= 300 and "hunter2" not in cut and cut.endswith(REDACTED[:9])


def test_a_successful_run_with_a_required_key_stores_and_prints_none_of_it(tmp_path: Path) -> None:
    """The judge requires the key and answers: every file of the run (the SQLite response cache
    and its WAL included) and the console are searched for it."""
    s = write_synthetic_set(tmp_path / "set", 3)
    out = tmp_path / "scores"
    with FakeJudgeServer(FakeJudgeConfig(api_key=SK_KEY)) as server:
        p = _cli(
            "mmae", "score", "--predictions", s.oracle_predictions, "--metadata", s.metadata,
            "--base-urls", server.base_url, "--output-dir", out, "--bootstrap", 10, "--no-progress",
            env=_env(),
        )  # fmt: skip
        assert server.stats.answered > 0
    assert p.returncode == exit_codes.OK, p.stdout + p.stderr
    written = {f.name for f in out.rglob("*") if f.is_file()}
    assert "judge_cache.sqlite" in written and "records.jsonl" in written, written
    assert _leaks(out, p.stdout + p.stderr) == []


def test_a_password_inside_a_url_is_used_but_never_stored_or_printed(tmp_path: Path) -> None:
    """`http://user:PASS@host/v1`: the request carries it (basic auth), and run.json, every
    record and the console show `user:[REDACTED]@host` instead."""
    manifest = tone_mcq_manifest(tmp_path / "set", n=3)
    out = tmp_path / "out"
    with FakeMcqServer(FakeMcqConfig()) as server:
        url = server.base_url.replace("http://", f"http://labuser:{PLAIN_KEY}@")
        cfg = tmp_path / "run.yaml"
        cfg.write_text(
            f"benchmarks: [{manifest}]\ntask: mcq\n"
            f"models:\n  - {{name: fake-audio-lm, type: openai, urls: ['{url}']}}\n"
        )
        p = _cli("run", cfg, "-o", out, "--no-progress", env=_env())
        assert p.returncode == exit_codes.OK, p.stdout + p.stderr
        assert server.stats.audio_requests == 3
    assert _leaks(out, p.stdout + p.stderr) == []
    assert "labuser:[REDACTED]@127.0.0.1" in (out / "run.json").read_text()
    assert redact(f"failed: {url}") == f"failed: {url.replace(PLAIN_KEY, REDACTED)}"
