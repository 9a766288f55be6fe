"""Chaos: runs killed with SIGKILL and resumed give the uninterrupted run's files
(`scripts/chaos.py`, small sets), and a judge endpoint that flaps, hangs past the timeout,
answers 200 with a body that is not a chat completion, or answers 401 never gives a score:
every rubric is scored from valid votes or counted as failed, its record naming the
endpoint and the reason of each failed attempt."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from audioeval.cli import exit_codes
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
from tests.fakes.openai_http import FakeServer, FixedAnswer, FixedHandler
from tests.mmae_helpers import records_file, results
from tests.test_mmae_resume_integrity import score, small_set

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "chaos.py"


def chaos_script() -> ModuleType:
    """`scripts/chaos.py` as a module (it is a script, not part of the package)."""
    if "audioeval_chaos_script" not in sys.modules:
        spec = importlib.util.spec_from_file_location("audioeval_chaos_script", SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["audioeval_chaos_script"]


# ---------------------------------------------------------------- kill, resume, compare


def test_mmae_score_killed_3_times_equals_an_uninterrupted_run(tmp_path):
    chaos = chaos_script()
    report = chaos.mmae_case(tmp_path, samples=6, kills=3, flap=False, rng=random.Random(1), latency=0.3)
    assert report.kills == 3 and report.resumes >= 3, report.line()
    assert report.equal, report.differences
    # each rubric exactly once in results.jsonl: nothing failed, so nothing was superseded
    assert report.counts["lines"] == report.counts["rubrics"] == 17
    assert report.counts["superseded_failures"] == report.counts["failed"] == 0


def test_run_killed_3_times_equals_an_uninterrupted_run(tmp_path):
    chaos = chaos_script()
    report = chaos.run_case(tmp_path, items=24, kills=3, flap=False, rng=random.Random(2), latency=0.3)
    assert report.kills == 3 and report.resumes >= 3, report.line()
    assert report.equal, report.differences
    assert report.counts == {"samples": 24, "lines": 24}


def test_mmae_score_with_a_flapping_endpoint_equals_an_uninterrupted_run(tmp_path):
    chaos = chaos_script()
    report = chaos.mmae_case(tmp_path, samples=6, kills=2, flap=True, rng=random.Random(3), latency=0.3)
    assert report.flaps >= 1 and report.kills == 2, report.line()
    assert report.equal, report.differences


def test_the_comparison_finds_a_changed_verdict_and_a_repeated_rubric(tmp_path):
    """The script's checks would fail if the files differed."""
    chaos = chaos_script()
    line = {"id": "s", "rubric_index": 0, "score": 1.0, "failed": False, "votes": [True] * 3,
            "attempts": [{"attempt": 0, "raw": "A", "letter": "A", "valid": True}]}  # fmt: skip
    for name, lines in {"a": [line], "b": [line, {**line, "score": 0.0}]}.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
        (tmp_path / name / "taxonomy.json").write_text(
            json.dumps({"overall": {"n": 1}, "run": {"pid": name}})
        )
    diffs, counts = chaos.compare_mmae(tmp_path / "a", tmp_path / "b")
    assert any("verdict(s) differ" in d for d in diffs) and any("more than once" in d for d in diffs)
    assert counts["lines"] == 2 and counts["rubrics"] == 1


# ---------------------------------------------------------------- faulty judges

FIXED = {
    "200 with an empty body": (FixedAnswer(200, b""), "malformed response"),
    "200 with HTML": (
        FixedAnswer(200, b"<html><body>Gateway login</body></html>", "text/html"),
        "answered with a web page (text/html)",
    ),
    "200 with invalid JSON": (FixedAnswer(200, b'{"choices": [{"message": '), "malformed response"),
    "200 with JSON without choices": (
        FixedAnswer(200, b'{"id": "x", "object": "chat.completion"}'),
        "response has no choices[0].message",
    ),
    "401": (FixedAnswer(401, b'{"error": {"message": "invalid api key"}}'), "HTTP 401"),
}
HANG = "hangs past --timeout"
FAULTS = [*FIXED, HANG]


def faulty_judge(fault: str) -> FakeServer:
    if fault == HANG:
        return FakeJudgeServer(FakeJudgeConfig(hang_first=10**6, hang_s=3.0))
    return FakeServer(FixedHandler, FIXED[fault][0])


def reason_of(fault: str) -> str:
    return "request timed out" if fault == HANG else FIXED[fault][1]


def latest_rubrics(out: Path) -> list[dict[str, Any]]:
    """The latest line of each rubric in results.jsonl."""
    latest = {(x["id"], x["rubric_index"]): x for x in results(out)}
    return list(latest.values())


def stored_rubrics(out: Path) -> list[dict[str, Any]]:
    """Every rubric outcome of the record stream (the stored judge attempts)."""
    outs = []
    for line in records_file(out).read_text().splitlines():
        outs += json.loads(line)["judge"]["mmae_rubrics"]["rubrics"]
    return outs


def check_failed_attempts_name_endpoint_and_reason(rubric: dict[str, Any], url: str, reason: str) -> None:
    for attempt in rubric["attempts"]:
        if attempt["valid"]:
            continue
        assert attempt["error"], attempt
        if attempt["endpoint"] == url:  # the faulty judge: its URL and the reason
            assert url in attempt["error"] and reason in attempt["error"], attempt["error"]
        else:
            assert attempt["endpoint"], attempt  # any other failed attempt names its endpoint too


@pytest.mark.parametrize("fault", FAULTS)
def test_a_faulty_judge_alone_fails_every_rubric_naming_endpoint_and_reason(fault, synthetic_set, tmp_path):
    meta, oracle, _ = small_set(synthetic_set, tmp_path, 2)
    out = tmp_path / "o"
    with faulty_judge(fault) as bad:
        attempts = "3" if fault == HANG else "10"
        res = score(oracle, meta, out, bad.base_url, "--no-probe", "--timeout", "0.5",
                    "--max_attempts", attempts)  # fmt: skip
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    assert reason_of(fault) in " ".join(res.output.split())  # the first failure's reason
    lines = latest_rubrics(out)
    assert lines and all(x["failed"] and x["score"] is None and not x["votes"] for x in lines)
    for rubric in [*lines, *stored_rubrics(out)]:
        assert reason_of(fault) in rubric["failure"], rubric["failure"]
        assert len(rubric["attempts"]) == int(attempts)
        assert all(a["endpoint"] == bad.base_url for a in rubric["attempts"])
        check_failed_attempts_name_endpoint_and_reason(rubric, bad.base_url, reason_of(fault))
    overall = json.loads((out / "taxonomy.json").read_text())["overall"]
    assert overall["n_rubrics_failed"] == overall["n_rubrics"] == len(lines)
    # never a score: no sample enters IFR / CR / EMR, both are counted as unscored
    assert overall["n"] == 0 and overall["n_unscored"] == overall["n_samples_judged"] == 2


@pytest.mark.parametrize("fault", FAULTS)
def test_a_faulty_judge_beside_a_good_one_gives_valid_votes_or_a_named_failure(
    fault, synthetic_set, tmp_path
):
    meta, oracle, _ = small_set(synthetic_set, tmp_path, 3)
    out = tmp_path / "o"
    with faulty_judge(fault) as bad, FakeJudgeServer(FakeJudgeConfig()) as good:
        res = score(oracle, meta, out, f"{bad.base_url},{good.base_url}", "--no-probe",
                    "--timeout", "0.5", "--max-failed", "1.0")  # fmt: skip
        assert res.exit_code == 0, res.output
        assert good.stats.answered > 0
    lines = latest_rubrics(out)
    assert len(lines) == sum(len(m["rubrics"]) for m in json.loads(meta.read_text()))
    for rubric in [*lines, *stored_rubrics(out)]:
        valid = [a for a in rubric["attempts"] if a["valid"]]
        if rubric["failed"]:
            assert rubric["score"] is None and rubric["failure"]
        else:
            # oracle edits and a judge that measures them: every valid vote is right, and a
            # fault is never one of them
            assert rubric["score"] == 1.0 and rubric["votes"] == [True] * 3
            assert all(a["endpoint"] == good.base_url for a in valid)
        check_failed_attempts_name_endpoint_and_reason(rubric, bad.base_url, reason_of(fault))
    overall = json.loads((out / "taxonomy.json").read_text())["overall"]
    judged = overall["n_rubrics"] - overall["n_rubrics_failed"]
    assert judged > 0 and overall["n_rubrics_failed"] == sum(x["failed"] for x in lines)
    if overall["n"]:
        assert overall["IFR"] == overall["CR"] == 100.0  # the faults moved no score


def test_a_flapping_endpoint_in_one_process_fails_nothing_as_a_wrong_answer(synthetic_set, tmp_path):
    """One of two endpoints stopped and restarted (same port) while `mmae score` runs."""
    import threading

    meta, oracle, _ = small_set(synthetic_set, tmp_path, 6)
    out = tmp_path / "o"
    flaky = FakeJudgeServer(FakeJudgeConfig(latency_s=0.05)).start()
    port = flaky.http.server_address[1]
    url = flaky.base_url
    stop = threading.Event()
    flaps = []

    def flap() -> None:
        nonlocal flaky
        while not stop.wait(0.4):
            flaky.stop()
            flaps.append(1)
            stop.wait(0.3)
            flaky = FakeJudgeServer(FakeJudgeConfig(latency_s=0.05), port=port).start()

    with FakeJudgeServer(FakeJudgeConfig(latency_s=0.05)) as good:
        thread = threading.Thread(target=flap, daemon=True)
        thread.start()
        try:
            res = score(oracle, meta, out, f"{url},{good.base_url}", "--concurrency", "4", "--timeout", "5")
        finally:
            stop.set()
            thread.join()
            flaky.stop()
    assert flaps, "the endpoint never flapped during the run"
    assert res.exit_code == 0, res.output
    lines = results(out)
    assert len({(x["id"], x["rubric_index"]) for x in lines}) == len(lines) == 17
    assert all(x["score"] == 1.0 for x in lines)
    for rubric in lines:
        check_failed_attempts_name_endpoint_and_reason(rubric, url, "")
