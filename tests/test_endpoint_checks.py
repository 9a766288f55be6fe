"""Before a run: every flag is checked (exit 2, one line naming the flag, before any file is
read), and each model or judge endpoint is checked once (exit 3 within seconds, with each
endpoint's reason, the API key never shown)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli import exit_codes
from audioeval.cli.main import app
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer, dead_url
from tests.fakes.mcq_server import FakeMcqServer, write_tone_set
from tests.fakes.openai_http import FakeServer, FixedAnswer, FixedHandler

runner = CliRunner()
SECRET = "sk-test-0123456789abcdef"


def cli(*args: Any, env: dict[str, str] | None = None) -> Any:
    return runner.invoke(app, [str(a) for a in args], env=env, catch_exceptions=False)


def one_line_error(res: Any) -> str:
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.output
    return lines[0]


MISSING = "/nonexistent/predictions.json"  # flags are checked before any file is read
MMAE = ["mmae", "score", "--predictions", MISSING, "--no-progress"]
GOOD_URL = "http://127.0.0.1:9/v1"


@pytest.mark.parametrize(
    "args, flag",
    [
        ([*MMAE, "--base_urls", "localhost:8000/v1"], "--base_urls"),
        ([*MMAE, "--base_urls", " , "], "--base_urls"),
        ([*MMAE, "--base_urls", "http://"], "--base_urls"),
        ([*MMAE, "--base_urls", GOOD_URL, "--retries", 5, "--max_attempts", 3], "--retries"),
        ([*MMAE, "--base_urls", GOOD_URL, "--temperature", "nan"], "--temperature"),
        ([*MMAE, "--base_urls", GOOD_URL, "--temperature", "-0.5"], "--temperature"),
        ([*MMAE, "--base_urls", GOOD_URL, "--judge-sample-rate", "-1"], "--judge-sample-rate"),
        ([*MMAE, "--base_urls", GOOD_URL, "--max-tokens", "0"], "--max-tokens"),
        ([*MMAE, "--base_urls", GOOD_URL, "--timeout", "inf"], "--timeout"),
        ([*MMAE, "--base_urls", GOOD_URL, "--max-failed", "lots"], "--max-failed"),
        (["mcq", "score", "--benchmark", "mmar", "--predictions", MISSING, "--rubrics",
          "--judge-base-urls", "ftp://judge/v1"], "--judge-base-urls"),
        (["mcq", "score", "--benchmark", "mmar", "--predictions", MISSING, "--rubrics",
          "--judge-base-urls", GOOD_URL, "--judge-votes", 6, "--judge-max-attempts", 5], "--judge-votes"),
        (["mcq", "score", "--benchmark", "mmar", "--predictions", MISSING, "--rubrics",
          "--judge-base-urls", GOOD_URL, "--judge-temperature", "nan"], "--judge-temperature"),
        (["mcq", "predict", "--benchmark", "mmar", "--audio_root", "/nonexistent", "--model", "m",
          "--out", "/nonexistent/p.jsonl", "--base_urls", GOOD_URL, "--temperature", "nan"], "--temperature"),
        (["mcq", "predict", "--benchmark", "mmar", "--audio_root", "/nonexistent", "--model", "m",
          "--out", "/nonexistent/p.jsonl", "--base_urls", GOOD_URL, "--sample-rate", "-8000"], "--sample-rate"),
        (["mcq", "predict", "--benchmark", "mmar", "--audio_root", "/nonexistent", "--model", "m",
          "--out", "/nonexistent/p.jsonl", "--base_urls", "127.0.0.1:8000"], "--base_urls"),
        (["run", "-m", "oracle", "-b", MISSING, "--temperature", "nan"], "--temperature"),
        (["run", "-m", "oracle", "-b", MISSING, "--max-tokens", "-3"], "--max-tokens"),
        (["codec", "--codec", "mulaw", "-b", MISSING, "--max-failed", "2.5"], "--max-failed"),
    ],
)  # fmt: skip
def test_bad_flags_are_one_line_errors_with_exit_2(args: list[Any], flag: str) -> None:
    res = cli(*args)
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    assert flag in one_line_error(res)


@pytest.mark.parametrize(
    "ref, why",
    [
        ("m@localhost:8000/v1", "no http:// or https://"),
        ("m@http://", "no host"),
        ("@http://h:1/v1", "no name"),
    ],
)
def test_bad_model_urls_are_refused(tmp_path: Path, ref: str, why: str) -> None:
    res = cli("run", "-m", ref, "--task", "asr", "-b", MISSING, "-o", tmp_path / "o")
    assert res.exit_code == exit_codes.BAD_INPUT and why in one_line_error(res)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "yaml_text, key",
    [
        ("generation: {temperature: .nan}\n", "generation.temperature"),
        ("generation: {max_tokens: 0}\n", "generation.max_tokens"),
        ("judge: {urls: ['localhost:8001/v1']}\n", "judge.urls"),
        ("judge: {urls: ['http://j:1/v1'], timeout_s: .inf}\n", "judge.timeout_s"),
        ("judge: {urls: ['http://j:1/v1'], temperature: -1}\n", "judge.temperature"),
    ],
)
def test_bad_run_config_values_are_refused(tmp_path: Path, yaml_text: str, key: str) -> None:
    cfg = tmp_path / "run.yaml"
    cfg.write_text(f"benchmarks: [{MISSING}]\nmodels: [oracle]\ntask: asr\n{yaml_text}")
    res = cli("run", cfg, "-o", tmp_path / "o")
    assert res.exit_code == exit_codes.BAD_INPUT and key in one_line_error(res)


def test_bad_model_entry_in_a_run_config_is_refused(tmp_path: Path) -> None:
    cfg = tmp_path / "run.yaml"
    cfg.write_text(
        f"benchmarks: [{MISSING}]\ntask: asr\n"
        "models:\n  - {name: m, type: openai, urls: ['http://a:1/v1'], timeout_s: .nan}\n"
        "  - {name: n, type: openai, urls: ['a:1/v1']}\n"
    )
    res = cli("run", cfg, "-o", tmp_path / "o")
    assert res.exit_code == exit_codes.BAD_INPUT and "models[0].timeout_s" in one_line_error(res)


# -- endpoint checks --------------------------------------------------------------------------


@pytest.fixture()
def not_found() -> Any:
    with FakeServer(FixedHandler, FixedAnswer(404, b'{"detail": "Not Found"}')) as server:
        yield server


@pytest.fixture()
def web_page() -> Any:
    page = b"<!doctype html><html><body>Welcome to nginx!</body></html>"
    with FakeServer(FixedHandler, FixedAnswer(200, page, "text/html")) as server:
        yield server


def mmae_score(
    synthetic_set: Any, urls: str, out: Path, *extra: Any, env: dict[str, str] | None = None
) -> Any:
    return cli(
        "mmae", "score", "--predictions", synthetic_set.oracle_predictions, "--metadata",
        synthetic_set.metadata, "--base_urls", urls, "--output_dir", out, "--no-progress",
        "--max_attempts", 3, "--bootstrap", 10, *extra, env=env,
    )  # fmt: skip


def test_unauthorised_judge_fails_fast_without_showing_the_key(small_synthetic_set, tmp_path):
    with FakeJudgeServer(FakeJudgeConfig(api_key="the-right-key")) as judge:
        res = mmae_score(small_synthetic_set, judge.base_url, tmp_path / "o", env={"OPENAI_API_KEY": SECRET})
        assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE, res.output
        assert "unauthorised (HTTP 401)" in res.output and "$OPENAI_API_KEY was refused" in res.output
        assert SECRET not in res.output
        assert judge.stats.requests == 0  # no chat request was sent
        res = mmae_score(small_synthetic_set, judge.base_url, tmp_path / "o", env={"OPENAI_API_KEY": ""})
        assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE
        assert "set OPENAI_API_KEY (or --api-key-env NAME)" in res.output
    assert not (tmp_path / "o" / "results.jsonl").exists()


def test_no_api_at_the_url_fails_fast(small_synthetic_set, tmp_path, not_found, web_page):
    res = mmae_score(small_synthetic_set, not_found.base_url, tmp_path / "o")
    assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE, res.output
    assert "GET /models answered HTTP 404, POST /chat/completions HTTP 404" in " ".join(res.output.split())
    assert not_found.app.requests == 2  # the check only
    res = mmae_score(small_synthetic_set, web_page.base_url, tmp_path / "o")
    assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE, res.output
    assert "not an OpenAI-compatible API: GET /models answered an HTML page" in " ".join(res.output.split())


def test_closed_port_and_unserved_model_fail_fast_naming_each_endpoint(small_synthetic_set, tmp_path):
    dead = dead_url()
    with FakeJudgeServer(FakeJudgeConfig()) as judge:
        res = mmae_score(
            small_synthetic_set, f"{dead},{judge.base_url}", tmp_path / "o", "--model", "qwen-omni"
        )
        assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE, res.output
        text = " ".join(res.output.split())
        assert f"{dead}: cannot connect" in text
        assert f"{judge.base_url}: model 'qwen-omni' is not served here; served: Qwen3Omni-Instruct" in text
        assert judge.stats.requests == 0
        assert not (tmp_path / "o").exists()  # nothing written: the corrected command uses the folder
        fixed = mmae_score(
            small_synthetic_set, f"{dead},{judge.base_url}", tmp_path / "o", "--model", "Qwen3Omni-Instruct"
        )
        assert fixed.exit_code == 0, fixed.output


def test_one_usable_endpoint_is_enough_and_the_others_are_left_out(small_synthetic_set, tmp_path):
    dead = dead_url()
    with FakeJudgeServer(FakeJudgeConfig()) as judge:
        res = mmae_score(small_synthetic_set, f"{dead},{judge.base_url}", tmp_path / "o")
        assert res.exit_code == 0, res.output
        assert f"{dead} left out of this run: cannot connect" in " ".join(res.output.split())


def test_no_probe_skips_the_check_and_a_finished_run_makes_none(small_synthetic_set, tmp_path):
    res = mmae_score(small_synthetic_set, dead_url(), tmp_path / "a", "--no-probe", "--timeout", "0.2")
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output  # judged, every call failed
    with FakeJudgeServer(FakeJudgeConfig()) as judge:
        assert mmae_score(small_synthetic_set, judge.base_url, tmp_path / "b").exit_code == 0
    again = mmae_score(small_synthetic_set, dead_url(), tmp_path / "b")  # nothing left to judge
    assert again.exit_code == 0, again.output
    assert "0 judge call(s)" in again.output


def test_run_checks_the_model_under_test(tmp_path: Path, not_found) -> None:
    from tests.run_helpers import tone_mcq_manifest

    manifest = tone_mcq_manifest(tmp_path / "set", n=2)
    with FakeMcqServer() as server:
        res = cli(
            "run", "-m", f"qwen@{server.base_url}", "-b", manifest, "--task", "mcq", "-o", tmp_path / "o"
        )
        assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE, res.output
        text = " ".join(res.output.split())
        assert "model qwen: no usable endpoint" in text and "served: fake-audio-lm, fake-judge" in text
        assert server.stats.requests == 0
        ok = cli("run", "-m", f"fake-audio-lm@{server.base_url}", "-b", manifest, "--task", "mcq",
                 "-o", tmp_path / "o", "--no-progress")  # fmt: skip
        assert ok.exit_code == 0, ok.output
    res = cli("run", "-m", f"fake-audio-lm@{not_found.base_url}", "-b", manifest, "--task", "mcq",
              "-o", tmp_path / "o3")  # fmt: skip
    assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE and "no OpenAI-compatible API here" in res.output


def test_mcq_predict_and_rubric_judge_check_their_endpoints(tmp_path: Path) -> None:
    root = tmp_path / "set"
    write_tone_set(root, 2)
    unauthorised = FixedAnswer(401, b'{"error": {"message": "Invalid API key"}}')
    with FakeServer(FixedHandler, unauthorised) as server:
        res = cli("mcq", "predict", "--benchmark", "mmar", "--audio_root", root, "--base_urls",
                  server.base_url, "--model", "m", "--out", tmp_path / "p.jsonl", "--no-progress")  # fmt: skip
        assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE, res.output
        assert "unauthorised (HTTP 401)" in res.output and not (tmp_path / "p.jsonl").exists()
    with FakeMcqServer() as server:
        res = cli("mcq", "predict", "--benchmark", "mmar", "--audio_root", root, "--base_urls",
                  server.base_url, "--model", "fake-audio-lm", "--out", tmp_path / "p.jsonl",
                  "--no-progress")  # fmt: skip
        assert res.exit_code == 0, res.output
    res = cli("mcq", "score", "--benchmark", "mmar", "--predictions", tmp_path / "p.jsonl", "--rubrics",
              "--judge-base-urls", dead_url(), "--judge-model", "fake-judge", "--output_dir", tmp_path / "s",
              "--no-progress")  # fmt: skip
    assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE, res.output
    assert "judge: no usable endpoint" in res.output and "cannot connect" in res.output


def test_a_judge_model_typo_stops_run_and_the_fix_reuses_the_folder(synthetic_set, tmp_path):
    from tests.test_run_mmae import JUDGE, write_spec

    spec = write_spec(tmp_path / "mmae.yaml", synthetic_set.metadata)
    args = ["run", "-b", spec, "-m", f"predictions:{synthetic_set.oracle_predictions}", "--limit", 2,
            "-o", tmp_path / "o", "--no-progress", "--resamples", 10]  # fmt: skip
    with FakeJudgeServer(FakeJudgeConfig(model=JUDGE)) as judge:
        res = cli(*args, "--judge", judge.base_url, "--judge-model", "fake-jugde")
        assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE, res.output
        assert "model 'fake-jugde' is not served here; served: fake-judge" in " ".join(res.output.split())
        fixed = cli(*args, "--judge", judge.base_url, "--judge-model", JUDGE)
        assert fixed.exit_code == 0, fixed.output  # the pair's signature was not written with the typo
