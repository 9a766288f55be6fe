"""Every wait bounded and counted: a request that stalls past its timeout is a counted
failure (never an answer, never a crash), an endpoint that takes the connection and says
nothing fails fast, and a rescore stopped half way leaves nothing that blocks a later run."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.errors import EndpointsUnreachable
from audioeval.engine.api_providers import provider_wire
from audioeval.engine.realtime_model import RealtimeModel
from tests.fakes.mcq_server import tone_wav
from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer
from tests.run_helpers import tone_asr_manifest, write_jsonl
from tests.test_judge_eval import JUDGE, judge_bench
from tests.test_realtime_api import _request

runner = CliRunner()


# --- judge-eval: a row whose requests stall past --judge-timeout ---------------------------


def _judge_eval(bench: Path, url: str, out: Path) -> Any:
    return runner.invoke(
        app,
        ["judge-eval", "--bench", str(bench), "--judge", url, "--judge-model", JUDGE, "-o", str(out),
         "--no-progress", "--resamples", "20", "--judge-timeout", "0.3", "--judge-max-attempts", "1"],
    )  # fmt: skip


@pytest.mark.parametrize(
    ("stall", "failed"),
    [(".", 4), ("near 660 Hz", 2)],
    ids=["every request stalls", "one item of two rows stalls"],
)
def test_judge_eval_counts_a_row_whose_request_stalls_as_failed(
    tmp_path: Path, stall: str, failed: int
) -> None:
    bench = judge_bench(tmp_path / "data", n=4)
    out = tmp_path / "out"
    config = YesNoJudgeConfig(model=JUDGE, stall_when=stall, stall_seconds=1.5)
    with YesNoJudgeServer(config) as server:
        res = _judge_eval(bench, server.base_url, out)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    assert "timed out after 0.3s" in " ".join(res.output.split())
    summary = json.loads((out / "judge_eval_summary.json").read_text())
    assert summary["failed"]["n"] == failed
    rows = [json.loads(x) for x in (out / "per_row.jsonl").read_text().splitlines()]
    stalled = [r for r in rows if r["failed"]]
    assert len(stalled) == failed
    # a stalled item never leaves its row scored from the other items
    assert all(r.get("score") is None for r in stalled)
    assert all("timed out" in (r["error"] or "") for r in stalled)


# --- a Realtime endpoint that takes the connection and never answers ------------------------


@pytest.fixture
def silent_endpoint() -> Iterator[str]:
    """A TCP port that completes the connection (the kernel's backlog) and never answers."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    finally:
        sock.close()


def test_a_silent_realtime_endpoint_is_refused_before_the_run(
    tmp_path: Path, silent_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from audioeval.engine import realtime_model

    monkeypatch.setattr(realtime_model, "PROBE_TIMEOUT_S", 0.3)
    tone_wav(tmp_path / "q.wav", 440, seconds=0.3)
    manifest = write_jsonl(
        tmp_path / "qa.jsonl", [{"id": "q", "audio": "q.wav", "question": "?", "answer": "a"}]
    )
    res = runner.invoke(app, ["run", "--task", "spoken_qa", "-b", str(manifest), "-m",
                              f"realtime:gpt-4o-realtime@{silent_endpoint}", "-o", str(tmp_path / "o"),
                              "--no-progress"])  # fmt: skip
    assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE, res.output
    said = " ".join(res.output.split())
    assert silent_endpoint in said and "no WebSocket handshake within 0.3s" in said, said


def test_a_silent_realtime_endpoint_fails_fast_inside_the_run(tmp_path: Path, silent_endpoint: str) -> None:
    """Without the check (--no-probe), each try's handshake is bounded: the endpoint counts as
    unreachable and the run stops once it has been so for `unreachable_after_s`, instead of
    waiting the whole per-sample timeout for every sample."""
    wav = tmp_path / "q.wav"
    tone_wav(wav, 880, seconds=0.3)

    async def go() -> Any:
        wire = provider_wire("openai", [silent_endpoint], "gpt-4o-realtime", None)
        model = RealtimeModel(
            "rt", wire, "gpt-4o-realtime", timeout_s=60.0, unreachable_after_s=0.6,
            handshake_timeout_s=0.2, backoff_base_s=0.05,
        )  # fmt: skip
        await model.start()
        try:
            return await model.generate(_request(wav, None))
        finally:
            await model.aclose()

    with pytest.raises(EndpointsUnreachable) as err:
        asyncio.run(go())
    assert "no WebSocket handshake within 0.2s" in str(err.value)


# --- rescore --profile stopped after its first pair ----------------------------------------


def test_a_rescore_stopped_after_its_first_pair_leaves_the_folder_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from audioeval.engine import rescore

    manifest = tone_asr_manifest(tmp_path / "set", n=3)
    hyps = write_jsonl(
        tmp_path / "hyps.jsonl", [{"id": f"c{i}", "text": f"the tone number {i}"} for i in range(3)]
    )
    out = tmp_path / "out"
    args = ["run", "-b", str(manifest), "--task", "asr", "-m", "oracle", "-m", f"mine=predictions:{hyps}",
            "-o", str(out), "--no-progress", "--resamples", "20"]  # fmt: skip
    assert runner.invoke(app, args).exit_code == 0
    before = {
        p: p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.name in ("signature.json", "records.jsonl", "run.json")
    }
    assert len([p for p in before if p.name == "signature.json"]) == 2

    original, calls = rescore._rescore_pair, []

    def stopped_after_one(*a: Any, **k: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # as a kill after the first pair
        return original(*a, **k)

    monkeypatch.setattr(rescore, "_rescore_pair", stopped_after_one)
    res = runner.invoke(app, ["rescore", str(out), "--profile", "ultraeval"])
    assert len(calls) == 2 and res.exit_code != 0
    monkeypatch.undo()
    assert {p: p.read_bytes() for p in before} == before  # nothing half-written
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output  # the original run resumes
    done = runner.invoke(app, ["rescore", str(out), "--profile", "ultraeval", "--resamples", "20"])
    assert done.exit_code == 0, done.output
    signatures = list((tmp_path / "out-ultraeval").glob("*/*/signature.json"))  # the rescore's own folder
    assert len(signatures) == 2
    for sig in signatures:
        assert {s.get("profile") for s in json.loads(sig.read_text())["benchmark"]["scorers"]} == {
            "ultraeval"
        }
    assert {p: p.read_bytes() for p in before if p.name == "signature.json"} == {
        p: v for p, v in before.items() if p.name == "signature.json"
    }  # the run as it was


# --- every judged scorer: a judge call that timed out is a counted failure, never a score ---


def _judged_scorers() -> list[str]:
    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.core.errors import OptionalDependencyError
    from audioeval.scoring.judged import is_judged
    from audioeval.scoring.scorer_registry import SCORERS, build_scorer

    load_benchmarks()
    names = []
    for name in SCORERS.names():
        try:
            scorer = build_scorer(name, where="test")
        except OptionalDependencyError:  # a metric model that is not installed: not judged
            continue
        if is_judged(scorer):
            names.append(name)
    return sorted(names)


def test_the_judged_scorers_are_found() -> None:
    assert {"qa_judge", "mmae_rubrics", "mmar_rubrics", "anyaudio_items", "rubric_items"} <= set(
        _judged_scorers()
    )


FIELDS: dict[str, dict[str, Any]] = {
    "mmar_rubrics": {"rubric": [{"name": "steps", "scoring_point": "reasons", "choices": [0, 1]}]},
}
"""Sample fields a scorer reads under a name another scorer reads differently."""


def _sample_for(name: str, tmp_path: Path) -> tuple[Any, Any]:
    from audioeval.core.messages import AudioRef
    from audioeval.core.sample import Sample
    from audioeval.scoring.base import Prediction

    wav = tmp_path / "a.wav"
    tone_wav(wav, 440, seconds=0.3)
    prediction = Prediction("yes", "yes", audio_path=str(wav))
    if name == "mmae_rubrics":
        from audioeval.benchmarks.mmae.source import load_mmae_samples
        from audioeval.benchmarks.mmae.synthetic import write_synthetic_set

        synthetic = write_synthetic_set(tmp_path / "mmae", 2)
        return load_mmae_samples(synthetic.metadata)[0][0], prediction
    fields = {
        "question": "Is the tone high?", "answer": "yes", "reference": "yes", "instruction": "Describe it.",
        "audio_description": "a tone", "caption": "a steady tone", "domain": "sound",
        "rubric": [{"dimension": "pitch", "question": "Is there a tone?", "basis": "a tone"}],
        **FIELDS.get(name, {}),
    }  # fmt: skip
    return Sample("s1", {"audio": AudioRef(str(wav))}, fields), prediction


@pytest.mark.parametrize("name", _judged_scorers())
def test_every_judged_scorer_counts_a_timed_out_judge_as_a_failure(tmp_path: Path, name: str) -> None:
    from audioeval.core.generation import Generation
    from audioeval.scoring.judged import BareJudge, JudgeFailed
    from audioeval.scoring.scorer_registry import build_scorer

    scorer = build_scorer(name, where="test")
    sample, prediction = _sample_for(name, tmp_path)
    calls: list[int] = []

    async def stalled(messages: Any, attempt: int, *args: Any, **kwargs: Any) -> Generation:
        calls.append(attempt)
        return Generation(None, error="timed out after 0.3s (last: http://127.0.0.1:9/v1: request timed out)")

    with pytest.raises(JudgeFailed) as err:
        asyncio.run(scorer.score_async(prediction, sample, BareJudge(stalled)))
    assert calls, "the judge was asked"
    assert "timed out" in str(err.value) or "no usable answer" in str(err.value), str(err.value)
