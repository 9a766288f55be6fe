"""Usage and cost: the APIs' `usage` read into each record (every kind of API request the
engine makes: chat, transcription, Realtime, and the judge), summed into summaries; a price
file turns it into money (unknown stays unknown, never 0); `--dry-run` plans without a
request or a file; `--max-calls` stops cleanly (exit 7) and a rerun resumes to the figures of
an uninterrupted run, no sample asked twice (requests counted at the fakes)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from audioeval.adapters.api_usage import chat_usage, realtime_usage, transcription_usage
from audioeval.benchmarks.mmae.baselines import write_baseline
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.core.model_output import ModelOutput
from audioeval.core.prices import PriceTable
from audioeval.core.record import SampleRecord
from audioeval.core.settings import SETTING, USAGE_AND_COST
from audioeval.core.usage import Usage
from audioeval.engine.openai_model import API_PATHS
from audioeval.metrics.usage_totals import usage_totals
from audioeval.report.viewer_runs import ServedRuns
from audioeval.store.price_file import read_price_file
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
from tests.fakes.mcq_server import FakeMcqConfig, FakeMcqServer, tone_wav, write_tone_set
from tests.fakes.openai_http import request_usage
from tests.fakes.realtime_server import FakeRealtimeServer
from tests.fakes.transcription_server import FakeTranscriber, FakeTranscriptionServer
from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer
from tests.run_helpers import tone_asr_manifest, write_jsonl

runner = CliRunner()

# -- the APIs' usage objects, as OpenAI documents them --------------------------------------


def test_chat_transcription_and_realtime_usage_are_read_unknown_when_absent() -> None:
    chat = {
        "usage": {
            "prompt_tokens": 120,
            "completion_tokens": 30,
            "total_tokens": 150,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 100},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 20},
        }
    }
    u = chat_usage(chat)
    assert (u.input_tokens, u.input_audio_tokens, u.output_tokens, u.output_audio_tokens) == (120, 100, 30, 20)
    vllm = chat_usage({"usage": {"prompt_tokens": 120, "completion_tokens": 30}})  # no details
    assert (vllm.input_tokens, vllm.input_audio_tokens) == (120, None)
    none = chat_usage({"choices": []})
    assert (none.input_tokens, none.output_tokens) == (None, None)
    bad = chat_usage({"usage": {"prompt_tokens": -1, "completion_tokens": True}})
    assert (bad.input_tokens, bad.output_tokens) == (None, None)
    tokens = transcription_usage(
        {"usage": {"type": "tokens", "input_tokens": 14, "input_token_details": {"audio_tokens": 14}, "output_tokens": 45}}
    )
    assert (tokens.input_tokens, tokens.input_audio_tokens, tokens.output_tokens) == (14, 14, 45)
    duration = transcription_usage({"usage": {"type": "duration", "seconds": 9}})
    assert (duration.audio_sent_s, duration.input_tokens) == (9.0, None)
    rt = realtime_usage(
        {
            "usage": {
                "input_tokens": 50,
                "output_tokens": 70,
                "input_token_details": {"text_tokens": 10, "audio_tokens": 40},
                "output_token_details": {"text_tokens": 20, "audio_tokens": 50},
            }
        }
    )
    assert (rt.input_tokens, rt.input_audio_tokens, rt.output_tokens, rt.output_audio_tokens) == (50, 40, 70, 50)


def test_records_keep_usage_and_old_records_read_as_unknown_not_zero() -> None:
    used = Usage(1, 2, 100, 80, 5, 0, 8.0, 0.0, 0.5)
    out = ModelOutput(text="A", usage=used)
    assert ModelOutput.from_record(out.to_record()).usage == used
    old = ModelOutput.from_record({"text": "A"})  # written before usage was recorded
    assert old.usage is None
    assert ModelOutput.from_record({"text": "A", "usage": {"calls": "x"}}).usage.calls is None  # type: ignore[union-attr]

    def record(sid: str, output: dict[str, Any], **extra: Any) -> SampleRecord:
        line = {"id": sid, "sample": {"fields": {}}, "output": output, "error": None, **extra}
        return SampleRecord.from_json(json.loads(json.dumps(line)))

    new = record("a", out.to_record(), judge={"r": {}}, judge_usage=used.to_record())
    assert SampleRecord.from_json(new.to_json()).judge_usage == used
    totals = usage_totals([new, new], judged=True)
    assert totals["model"]["calls"] == 2 and totals["model"]["input_audio_tokens"] == 160
    assert totals["without_usage"] == {"model": 0, "judge": 0}
    mixed = usage_totals([new, record("b", {"text": "B"}, judge={"r": {}})], judged=True)
    assert mixed["model"]["calls"] is None and mixed["model"]["input_tokens"] is None  # unknown, not 2
    assert mixed["judge"]["calls"] is None
    assert mixed["without_usage"] == {"model": 1, "judge": 1}


# -- prices ---------------------------------------------------------------------------------


def test_prices_turn_usage_into_dollars_and_unknown_stays_unknown(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text(
        "gpt-4o-audio*: {input_text: 2.5, input_audio: 40, output_text: 10, output_audio: 80}\n"
        "gpt-4o-audio-mini: {input_text: 1, input_audio: 1, output_text: 1, output_audio: 1}\n"
        "whisper-1: {audio_minute: 0.006}\n"
        "text-only: {input_text: 1, output_text: 2}\n"
    )
    table = read_price_file(path)
    u = Usage(1, 0, 1_000_000, 400_000, 100_000, 0, 60.0, 0.0, 1.0)
    assert table.cost("gpt-4o-audio-preview", u) == pytest.approx(0.6 * 2.5 + 0.4 * 40 + 0.1 * 10)
    assert table.cost("gpt-4o-audio-mini", u) == pytest.approx(1.1)  # an exact key wins over a glob
    assert table.cost("whisper-1", u) == pytest.approx(0.006)
    speech = Usage(1, 0, None, None, None, None, 0.0, 3.0, 1.0)  # text to speech: no audio sent
    assert table.cost("whisper-1", speech) is None
    assert table.cost("no-such-model", u) is None
    unsplit = Usage(1, 0, 1_000_000, None, 10, 0, 60.0, 0.0, 1.0)  # audio sent, split unknown
    assert table.cost("gpt-4o-audio-preview", unsplit) is None
    assert table.cost("text-only", Usage(1, 0, 1_000_000, None, 0, None, 0.0, 0.0, 1.0)) == pytest.approx(1.0)
    assert table.cost("text-only", u) is None  # audio tokens it has no price for
    assert table.cost("gpt-4o-audio-preview", Usage.nothing_asked()) == 0.0  # from the cache
    assert table.cost("gpt-4o-audio-preview", Usage.unknown()) is None
    for text, field in (("m: {input_text: -1}", "m.input_text"), ("m: {per_token: 1}", "m.per_token"), ("m: 3", "m")):
        path.write_text(text)
        with pytest.raises(InputError) as exc:
            read_price_file(path)
        assert exc.value.file == str(path) and exc.value.field == field
    assert PriceTable.from_mapping(table.to_record(), "again").to_record() == table.to_record()


# -- a model at an API endpoint: dry run, --max-calls, resume -------------------------------

PRICES = "fake-audio-*: {input_text: 2.5, input_audio: 40, output_text: 10, output_audio: 80}\n"


def _mcq_run(server: FakeMcqServer, out: Path, prices: Path, *extra: str) -> Any:
    args = ["run", "-b", "demo-mcq", "-m", f"lm=fake-audio-lm@{server.base_url}", "-o", str(out)]
    return runner.invoke(
        app, [*args, "--no-progress", "--resamples", "20", "--prices", str(prices), *extra], catch_exceptions=False
    )


def _pair(out: Path) -> dict[str, Any]:
    (pair,) = json.loads((out / "summary.json").read_text())["results"]
    return pair


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for f in sorted(out.glob("*/*/records.jsonl")) for x in f.read_text().splitlines()]


def test_dry_run_then_max_calls_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES)
    out, whole = tmp_path / "out", tmp_path / "whole"
    with FakeMcqServer(FakeMcqConfig()) as server:
        plan = _mcq_run(server, out, prices, "--dry-run")
        assert plan.exit_code == 0, plan.output
        assert server.stats.requests == 0 and not out.exists()  # nothing asked, nothing written
        assert "12 request(s), roughly $" in plan.output

        stopped = _mcq_run(server, out, prices, "--max-calls", "5")
        assert stopped.exit_code == exit_codes.BUDGET_REACHED, stopped.output
        assert "--max-calls 5 reached" in stopped.output and "rerun the same command" in stopped.output
        assert server.stats.requests == 5  # no request started past the limit
        (pair_summary,) = out.glob("*/*/summary.json")  # the pair's summary is written
        assert len(_records(out)) == 5 and json.loads(pair_summary.read_text())["missing"] == 7

        again = _mcq_run(server, out, prices)
        assert again.exit_code == 0, again.output
        assert server.stats.requests == 12  # the 7 left, none asked twice
        assert "usage and cost" in again.output

        uninterrupted = _mcq_run(server, whole, prices)
        assert uninterrupted.exit_code == 0
    resumed, whole_pair = _pair(out), _pair(whole)
    assert resumed["metrics"] == whole_pair["metrics"]
    model = resumed["usage"]["model"]
    for key in ("calls", "retries", "input_tokens", "input_audio_tokens", "output_tokens", "audio_sent_s"):
        assert model[key] == whole_pair["usage"]["model"][key], key
    assert model["calls"] == 12 and model["retries"] == 0 and resumed["usage"]["without_usage"] == {"model": 0}
    # the tokens are those the fake billed, request by request
    billed = [r["output"]["usage"] for r in _records(out)]
    assert model["input_tokens"] == sum(b["input_tokens"] for b in billed) > model["input_audio_tokens"] > 0
    assert model["audio_sent_s"] == pytest.approx(sum(b["audio_sent_s"] for b in billed), abs=0.01)
    text_in = model["input_tokens"] - model["input_audio_tokens"]
    expected = (text_in * 2.5 + model["input_audio_tokens"] * 40 + model["output_tokens"] * 10) / 1e6
    assert resumed["cost"]["model"] == pytest.approx(expected, abs=1e-6)
    assert resumed["cost"]["total"] == resumed["cost"]["model"]
    # the board, leaderboard.md and the report page show the same figures
    board = json.loads((out / "summary.json").read_text())["boards"]
    (row,) = next(iter(board.values()))["rows"]
    assert row["usage"] == {"calls": 12, "cost": resumed["cost"]["total"]}
    assert "| usage |" in (out / "leaderboard.md").read_text()
    assert f"12 calls, ${resumed['cost']['total']:.4f}" in (out / "leaderboard.md").read_text()
    (viewed,) = ServedRuns([out]).listing()[0]["pairs"]  # the viewer's list of the run's pairs
    assert viewed["usage"] == f"12 calls, ${resumed['cost']['total']:.4f}"
    rescored = runner.invoke(app, ["rescore", str(out)], catch_exceptions=False)
    assert rescored.exit_code == 0, rescored.output
    after = _pair(out)  # the usage stays with the records, the cost at the run's prices (run.json)
    assert after["usage"] == resumed["usage"] and after["cost"] == resumed["cost"]
    page = runner.invoke(app, ["report", str(out)], catch_exceptions=False)
    assert page.exit_code == 0, page.output
    html = (out / "report" / "index.html").read_text()
    assert "Usage and cost" in html
    assert f"{model['input_tokens']:,} (audio {model['input_audio_tokens']:,})" in html
    # a folder written before usage was recorded: its records read as unknown, never as zero
    (records,) = out.glob("*/*/records.jsonl")
    lines = [json.loads(x) for x in records.read_text().splitlines()]
    for line in lines:
        line["output"].pop("usage")
    records.write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert runner.invoke(app, ["rescore", str(out)], catch_exceptions=False).exit_code == 0
    old = _pair(out)
    assert old["usage"]["model"]["calls"] is None and old["usage"]["without_usage"] == {"model": 12}
    assert old["cost"]["model"] is None and old["metrics"] == resumed["metrics"]


def test_max_cost_needs_a_price_for_every_model_asked(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text("someone-else: {input_text: 1, output_text: 1}\n")
    with FakeMcqServer(FakeMcqConfig()) as server:
        res = _mcq_run(server, tmp_path / "out", prices, "--max-cost", "1")
        assert res.exit_code == exit_codes.BAD_INPUT
        assert "no price for 'fake-audio-lm'" in res.output
        assert server.stats.requests == 0


def test_max_cost_stops_once_spent(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES)
    with FakeMcqServer(FakeMcqConfig()) as server:
        res = _mcq_run(server, tmp_path / "out", prices, "--max-cost", "0.000001", "--concurrency", "1")
        assert res.exit_code == exit_codes.BUDGET_REACHED, res.output
        assert "--max-cost" in res.output and server.stats.requests == 1


# -- a judged benchmark: the plan counts the judge's requests, the run records its usage -----


def test_judged_dry_run_asks_nothing_and_the_run_records_the_judges_usage(small_synthetic_set, tmp_path: Path) -> None:
    preds, errors = write_baseline(
        "identity", metadata=small_synthetic_set.metadata, audio_root=small_synthetic_set.root, out_dir=tmp_path / "p"
    )
    assert not errors
    spec = tmp_path / "mmae.yaml"
    spec.write_text(f"name: mmae-syn\ntask: audio_edit\nsource: {{type: mmae, path: {json.dumps(str(small_synthetic_set.metadata))}}}\n")
    prices = tmp_path / "prices.yaml"
    prices.write_text("fake-judge: {input_text: 1, input_audio: 10, output_text: 4}\n")
    out = tmp_path / "out"
    with FakeJudgeServer(FakeJudgeConfig(model="fake-judge")) as judge:
        args = ["run", "-b", str(spec), "-m", f"predictions:{preds}", "--judge", judge.base_url,
                "--judge-model", "fake-judge", "-o", str(out), "--no-progress", "--resamples", "20",
                "--prices", str(prices)]  # fmt: skip
        plan = runner.invoke(app, [*args, "--dry-run"], catch_exceptions=False)
        assert plan.exit_code == 0, plan.output
        assert judge.stats.requests == 0 and not out.exists()
        assert "judge" in plan.output
        res = runner.invoke(app, args, catch_exceptions=False)
        assert res.exit_code == 0, res.output
        asked = judge.stats.requests
    pair = _pair(out)
    used = pair["usage"]["judge"]
    assert used["calls"] == asked and used["retries"] == 0
    planned = int(re.search(r"dry run: ([0-9,]+) request", plan.output).group(1).replace(",", ""))  # type: ignore[union-attr]
    # the plan counts every rubric × vote of the first round; a sample that fails before its
    # judge is asked (an output that cannot be judged) asks less
    assert asked <= planned <= asked * 1.2
    assert used["input_audio_tokens"] > 0 and used["audio_sent_s"] > 0
    assert pair["usage"]["model"]["calls"] is None  # a predictions file: its usage is not known
    assert pair["cost"]["judge"] is not None and pair["cost"]["model"] is None and pair["cost"]["total"] is None
    assert sum(r["judge_usage"]["calls"] for r in _records(out)) == asked


# -- every kind of request the engine makes records its usage and passes the budget ---------

KINDS = ("chat", "transcription", "realtime")

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "audioeval"
PROBES = {"engine/endpoint_probe.py"}
"""Modules that send requests which are no model's or judge's work: the endpoint check before
a run (GET /models, a handshake): neither counted nor limited."""


def test_every_module_that_sends_a_request_counts_it_and_passes_the_budget() -> None:
    senders = set()
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if any(f"import {lib}" in text for lib in ("aiohttp", "httpx", "requests", "urllib.request", "http.client")):
            senders.add(str(path.relative_to(PACKAGE)))
    assert senders - PROBES == {"engine/chat_client.py", "engine/realtime_model.py"}
    for module in senders - PROBES:
        text = (PACKAGE / module).read_text(encoding="utf-8")
        assert "budget.admit(" in text and "budget.spent(" in text and "usage" in text, module


def test_every_api_the_engine_asks_is_one_of_the_kinds_tested() -> None:
    # speech and translation share the transcription and chat clients' request path
    assert set(API_PATHS) - {"speech", "translation"} | {"realtime"} == set(KINDS)


@pytest.mark.parametrize("kind", KINDS)
def test_each_api_records_its_usage_and_stops_at_max_calls(kind: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    if kind == "chat":
        server: Any = FakeMcqServer(FakeMcqConfig())
        target = ["-b", "demo-mcq"]
        ref = "fake-audio-lm@{url}"
        count = lambda: server.stats.requests  # noqa: E731
    elif kind == "transcription":
        fake = FakeTranscriber()
        server = FakeTranscriptionServer(fake)
        target = ["-b", str(tone_asr_manifest(tmp_path / "data", n=4)), "--task", "asr"]
        ref = "transcription:whisper@{url}"
        count = lambda: len(fake.requests)  # noqa: E731
    else:
        rows = []
        (tmp_path / "data").mkdir()
        for i, hz in enumerate((220, 330, 660, 880)):  # distinct clips: no answer from the cache
            tone_wav(tmp_path / "data" / f"q{i}.wav", hz, seconds=0.3)
            rows.append({"id": f"q{i}", "audio": f"q{i}.wav", "question": "High or low?", "answer": "low"})
        target = ["-b", str(write_jsonl(tmp_path / "data" / "qa.jsonl", rows)), "--task", "spoken_qa"]
        server = FakeRealtimeServer()
        ref = "realtime:gpt-4o-realtime@{url}"
        count = lambda: len(server.state.sessions)  # noqa: E731  (one session per turn; checks open none)
    with server:
        args = ["run", *target, "-m", ref.format(url=server.base_url), "-o", str(out), "--no-progress",
                "--resamples", "10", "--max-failed", "1.0", "--concurrency", "1"]  # fmt: skip
        stopped = runner.invoke(app, [*args, "--max-calls", "2"], catch_exceptions=False)
        assert stopped.exit_code == exit_codes.BUDGET_REACHED, stopped.output
        assert count() == 2
        res = runner.invoke(app, args, catch_exceptions=False)
        assert res.exit_code == 0, res.output
        asked = count()
    usage = _pair(out)["usage"]["model"]
    assert usage["calls"] == asked and usage["input_tokens"] and usage["output_tokens"]
    assert usage["audio_sent_s"] > 0 and usage["wall_s"] > 0
    if kind != "transcription":
        assert usage["input_audio_tokens"] > 0


def test_request_usage_of_the_fakes_counts_audio_seconds(tmp_path: Path) -> None:
    import base64

    tone_wav(tmp_path / "a.wav", 440, seconds=1.0)
    b64 = base64.b64encode((tmp_path / "a.wav").read_bytes()).decode()
    body = {"messages": [{"role": "user", "content": [{"type": "text", "text": "two words"},
            {"type": "input_audio", "input_audio": {"data": b64, "format": "wav"}}]}]}  # fmt: skip
    usage = request_usage(body, "an answer")
    assert (usage["prompt_tokens"], usage["prompt_tokens_details"]["audio_tokens"], usage["completion_tokens"]) == (12, 10, 2)


# -- a preset (one run of the engine): the same options, the same behaviour ------------------


def test_mmae_score_dry_run_and_max_calls_resume_to_the_uninterrupted_figures(small_synthetic_set, tmp_path: Path) -> None:
    def score(out: Path, url: str, *extra: str) -> Any:
        args = ["mmae", "score", "--predictions", str(small_synthetic_set.oracle_predictions), "--metadata",
                str(small_synthetic_set.metadata), "--base-urls", url, "--output-dir", str(out),
                "--no-progress", "--bootstrap", "20", "--judge-concurrency", "2", *extra]  # fmt: skip
        return runner.invoke(app, args, catch_exceptions=False)

    out, whole = tmp_path / "out", tmp_path / "whole"
    with FakeJudgeServer(FakeJudgeConfig()) as judge:
        plan = score(out, judge.base_url, "--dry-run")
        assert plan.exit_code == 0, plan.output
        assert judge.stats.requests == 0 and not out.exists() and "dry run:" in plan.output
        stopped = score(out, judge.base_url, "--max-calls", "7")
        assert stopped.exit_code == exit_codes.BUDGET_REACHED, stopped.output
        assert judge.stats.requests == 7
        again = score(out, judge.base_url)
        assert again.exit_code == 0, again.output
        resumed_requests = judge.stats.requests
        assert score(whole, judge.base_url).exit_code == 0
        uninterrupted = judge.stats.requests - resumed_requests
    assert resumed_requests == uninterrupted  # no vote asked twice
    a, b = _pair(out), _pair(whole)
    assert a["metrics"] == b["metrics"]
    assert a["usage"]["judge"]["calls"] == b["usage"]["judge"]["calls"] == uninterrupted
    assert a["usage"]["judge"]["input_tokens"] == b["usage"]["judge"]["input_tokens"]


def test_mcq_rubrics_dry_run_plans_every_vote_and_the_run_asks_them(tmp_path: Path) -> None:
    items = write_tone_set(tmp_path / "set", 4)
    for it in items:
        it["answer_prediction"], it["thinking_prediction"] = it["answer"], "I hear a steady tone."
    preds = write_jsonl(tmp_path / "preds.jsonl", items)
    with FakeMcqServer(FakeMcqConfig()) as server:
        args = ["mcq", "score", "--benchmark", "mmar", "--predictions", str(preds), "--output_dir",
                str(tmp_path / "out"), "--rubrics", "--judge-base-urls", server.base_url, "--judge-model",
                "fake-judge", "--no-progress", "--bootstrap", "20"]  # fmt: skip
        plan = runner.invoke(app, [*args, "--dry-run"], catch_exceptions=False)
        assert plan.exit_code == 0 and server.stats.requests == 0
        assert runner.invoke(app, args, catch_exceptions=False).exit_code == 0
    assert server.stats.requests == 4 * 5  # five votes per item
    assert "dry run: 20 request(s)" in plan.output


def test_the_python_api_takes_the_same_limits(tmp_path: Path) -> None:
    import audioeval
    from audioeval.core.errors import BudgetReached

    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES)
    with FakeMcqServer(FakeMcqConfig()) as server:
        kwargs: dict[str, Any] = {"output_dir": tmp_path / "out", "resamples": 10, "prices": prices}
        with pytest.raises(BudgetReached, match="--max-calls 3 reached"):
            audioeval.evaluate([f"lm=fake-audio-lm@{server.base_url}"], ["demo-mcq"], max_calls=3, **kwargs)
        assert server.stats.requests == 3
        result = audioeval.evaluate([f"lm=fake-audio-lm@{server.base_url}"], ["demo-mcq"], **kwargs)
        assert server.stats.requests == 12
    (pair,) = result.results
    assert pair["usage"]["model"]["calls"] == 12 and pair["cost"]["total"] > 0
    with pytest.raises(InputError, match="max_calls"):
        audioeval.evaluate(["oracle"], ["demo-mcq"], max_calls=0)


def test_retries_are_counted_apart_from_calls(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES)
    with FakeMcqServer(FakeMcqConfig(fail_first=2)) as server:  # two 500s, retried
        res = _mcq_run(server, tmp_path / "out", prices, "--concurrency", "1", "--max-calls", "12")
        assert res.exit_code == 0, res.output  # retries do not count against --max-calls
        assert server.stats.requests == 12 + 2
    used = _pair(tmp_path / "out")["usage"]["model"]
    assert (used["calls"], used["retries"]) == (12, 2)


# -- every preset command offers the usage and cost options, as `run` does --------------------

PRESET_COMMANDS = sorted(" ".join(p.command) for b in load_benchmarks().values() for p in b.presets)


def _click(command: str) -> Any:
    cmd = typer.main.get_command(app)
    for part in command.split():
        cmd = cmd.commands[part]  # type: ignore[attr-defined]
    return cmd


def _params(command: str) -> dict[str, Any]:
    return {p.name: p for p in _click(command).params}


def _error_line(res: Any) -> str:
    return next((x.strip() for x in res.output.splitlines() if "error" in x.lower()), res.output)


def test_every_preset_command_offers_the_usage_and_cost_options_of_run() -> None:
    """Each preset command (enumerated from the loaded benchmarks) takes `--prices`,
    `--dry-run`, `--max-calls` and `--max-cost` from their one declaration: `run`'s flags,
    defaults and help, and the same values refused past the same bounds."""
    assert {"mmae score", "mcq score", "mcq predict", "judge-eval", "rubric decompose"} <= set(PRESET_COMMANDS)
    run = _params("run")
    for command in PRESET_COMMANDS:
        params = _params(command)
        for name in USAGE_AND_COST:
            setting = SETTING[name]
            assert name in params, f"{command} does not offer {setting.flag}"
            got, want = params[name], run[name]
            assert (got.opts, got.default, got.help, got.hidden) == (want.opts, want.default, want.help, want.hidden)
            assert got.default == setting.default, (command, name)
    for name in (n for n in USAGE_AND_COST if SETTING[n].numeric):
        setting = SETTING[name]
        assert setting.maximum is not None
        past = setting.maximum * 10 if setting.type is float else int(setting.maximum) + 1
        below = setting.lowest - (1 if setting.type is int else 0.0005)
        for value in (past, below):
            arg = f"{setting.flag}={value}"
            expected = runner.invoke(app, ["run", arg])
            assert expected.exit_code == exit_codes.BAD_INPUT, expected.output
            for command in PRESET_COMMANDS:
                res = runner.invoke(app, [*command.split(), arg])
                assert res.exit_code == exit_codes.BAD_INPUT, (command, res.output)
                assert _error_line(res) == _error_line(expected), (command, res.output)


def test_judge_eval_dry_run_asks_nothing_and_max_calls_resumes_to_the_uninterrupted_figures(tmp_path: Path) -> None:
    from tests.test_judge_eval import JUDGE, judge_bench, judge_eval, summary

    bench = judge_bench(tmp_path / "data")
    out, whole = tmp_path / "out", tmp_path / "whole"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE)) as server:
        plan = judge_eval(bench, server.base_url, out, "--dry-run")
        assert plan.exit_code == 0, plan.output
        assert server.stats.requests == 0 and not out.exists()
        assert "dry run: 48 request(s)" in plan.output  # 16 judged rows × 3 rubric items
        stopped = judge_eval(bench, server.base_url, out, "--max-calls", "10", "--judge-concurrency", "2")
        assert stopped.exit_code == exit_codes.BUDGET_REACHED, stopped.output
        assert server.stats.requests == 10
        again = judge_eval(bench, server.base_url, out)
        assert again.exit_code == 0, again.output
        assert server.stats.requests == 48  # no item asked twice
        assert judge_eval(bench, server.base_url, whole).exit_code == 0
        assert server.stats.requests == 96
    assert summary(out) == summary(whole)
    assert _pair(out)["usage"]["judge"]["calls"] == _pair(whole)["usage"]["judge"]["calls"] == 48


def test_rubric_decompose_dry_run_asks_the_llm_nothing_and_writes_nothing(tmp_path: Path) -> None:
    from tests.fakes.text_llm_server import FakeTextLlmConfig, FakeTextLlmServer
    from tests.test_rubric_decompose import ROWS, decompose_cli, write_captions

    captions = write_captions(tmp_path, ROWS[:3])
    out = tmp_path / "rubrics.jsonl"
    with FakeTextLlmServer(FakeTextLlmConfig()) as server:
        plan = decompose_cli(captions, out, server.base_url, "--dry-run")
        assert plan.exit_code == 0, plan.output
        assert server.stats.requests == 0 and not out.exists() and not (tmp_path / "rubrics.jsonl.run").exists()
        assert "dry run: 6 request(s)" in plan.output  # decomposition and cleaning per caption
        res = decompose_cli(captions, out, server.base_url)
        assert res.exit_code == 0, res.output
        assert server.stats.requests == 6


def test_mcq_predict_dry_run_asks_the_model_nothing_and_writes_nothing(tmp_path: Path) -> None:
    write_tone_set(tmp_path / "set", 4)
    out = tmp_path / "preds.jsonl"
    with FakeMcqServer(FakeMcqConfig()) as server:
        args = ["mcq", "predict", "--benchmark", "mmar", "--audio-root", str(tmp_path / "set"), "--output",
                str(out), "--model", f"fake-audio-lm@{server.base_url}", "--no-progress"]  # fmt: skip
        plan = runner.invoke(app, [*args, "--dry-run"], catch_exceptions=False)
        assert plan.exit_code == 0, plan.output
        assert server.stats.requests == 0 and not out.exists() and not (tmp_path / "preds.jsonl.run").exists()
        assert "dry run: 4 request(s)" in plan.output
        res = runner.invoke(app, args, catch_exceptions=False)
        assert res.exit_code == 0, res.output
        assert server.stats.requests == 4


# -- rubrics decomposed before a run: their requests pass the run's budget ------------------


def _on_the_fly_set(root: Path, llm_url: str) -> Path:
    """Three captioned clips without a rubric, decomposed by a text LLM before the run."""
    root.mkdir(parents=True)
    rows = []
    for i, hz in enumerate((440, 660, 880)):
        tone_wav(root / f"c{i}.wav", hz, seconds=0.4)
        caption = f"there is a steady tone near {hz} Hz, there is no steady tone near 1320 Hz"
        rows.append({"id": f"c{i}", "audio": f"c{i}.wav", "caption": caption})
    write_jsonl(root / "captions.jsonl", rows)
    spec = root / "otf.yaml"
    spec.write_text(
        "name: otf\ntask: audio_instruct\n"
        f"source: {{type: jsonl, path: {json.dumps(str(root / 'captions.jsonl'))}, "
        f"decompose: {{llm: {json.dumps(llm_url)}, llm_model: text-llm}}}}\n",
        encoding="utf-8",
    )
    return spec


def test_rubrics_decomposed_before_a_run_count_against_its_max_calls(tmp_path: Path) -> None:
    """`source.decompose`: the text LLM's requests before the run and the run's own share one
    `--max-calls` budget; the rerun resumes, to the figures of an uninterrupted run."""
    from tests.fakes.text_llm_server import FakeTextLlmConfig, FakeTextLlmServer

    judge_model = "AnyAudio-Judge-7B"
    out, whole = tmp_path / "out", tmp_path / "whole"
    with FakeTextLlmServer(FakeTextLlmConfig(model="text-llm")) as llm, YesNoJudgeServer(
        YesNoJudgeConfig(model=judge_model)
    ) as judge:
        spec = _on_the_fly_set(tmp_path / "data", llm.base_url)

        def run(folder: Path, *extra: str) -> Any:
            args = ["run", "-b", str(spec), "-m", "echo", "--judge", judge.base_url, "--judge-model", judge_model,
                    "-o", str(folder), "--no-progress", "--resamples", "20", "--judge-concurrency", "1", *extra]  # fmt: skip
            return runner.invoke(app, args, catch_exceptions=False)

        def asked() -> int:
            return llm.stats.requests + judge.stats.requests

        stopped = run(out, "--max-calls", "4")  # three captions: six LLM requests
        assert stopped.exit_code == exit_codes.BUDGET_REACHED, stopped.output
        assert "--max-calls 4 reached" in stopped.output
        assert (llm.stats.requests, judge.stats.requests) == (4, 0)
        again = run(out, "--max-calls", "4")  # the last two LLM requests, then two of the judge's
        assert again.exit_code == exit_codes.BUDGET_REACHED, again.output
        assert (llm.stats.requests, judge.stats.requests) == (6, 2)
        done = run(out)
        assert done.exit_code == 0, done.output
        resumed = asked()
        assert run(whole).exit_code == 0
        assert asked() - resumed == resumed  # no request made twice
    assert _pair(out)["metrics"] == _pair(whole)["metrics"]
    # the LLM's requests are recorded, as the judge's, in the decomposition's own run folder
    assert _pair(out / "otf" / "rubrics.run")["usage"]["judge"]["calls"] == 6
    made = (out / "otf" / "rubrics.jsonl").read_text()
    assert made == (whole / "otf" / "rubrics.jsonl").read_text() and made.count("\n") == 3
