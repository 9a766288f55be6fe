"""MMAR-Rubrics: judge prompt and parsing, trimmed mean, and `mcq score --rubrics` against a
fake OpenAI-compatible judge (retries of bad answers, resume, zero for unmatched answers)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.mcq.rubric_prompt import (
    build_rubric_messages,
    parse_rubric,
    parse_rubric_answer,
    trimmed_mean,
)
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from tests.fakes.mcq_server import FakeMcqConfig, FakeMcqServer, rubric, write_tone_set

runner = CliRunner()
RUBRIC = parse_rubric(rubric(0))


def answer(scores: list[Any], names: list[str] | None = None) -> str:
    names = names or [r.name for r in RUBRIC]
    pairs = zip(names, scores, strict=False)  # fewer scores than names on purpose, sometimes
    return json.dumps([{"name": n, "score": s, "justification": "j"} for n, s in pairs])


def test_parse_rubric_answer() -> None:
    assert parse_rubric_answer(answer([1, 1, 0, 1, 0]), RUBRIC).score == pytest.approx(0.6)
    fenced = "<think>[1, 2]</think>Sure:\n```json\n" + answer([1] * 5) + "\n```"
    assert parse_rubric_answer(fenced, RUBRIC).score == 1.0
    assert parse_rubric_answer(answer(["1", 0, 0, 0, 0]), RUBRIC).score == pytest.approx(0.2)
    short = parse_rubric_answer(answer([1, 1, 1]), RUBRIC)
    assert not short.valid and short.error == "3 scores for 5 rubric items"
    out_of_range = parse_rubric_answer(answer([1, 2, 0, 0, 0]), RUBRIC)
    assert not out_of_range.valid and "score 2 not in [0.0, 1.0]" in str(out_of_range.error)
    assert not parse_rubric_answer(answer([True, 1, 1, 1, 1]), RUBRIC).valid
    assert parse_rubric_answer("no json here", RUBRIC).error == "no JSON list of rubric scores"
    renamed = parse_rubric_answer(answer([1] * 5, ["x"] * 5), RUBRIC)
    assert renamed.valid and renamed.warning == "rubric names differ at item(s) 1, 2, 3, 4, 5"


def test_trimmed_mean_drops_the_highest_and_lowest() -> None:
    assert trimmed_mean([1.0, 0.8, 0.6, 0.4, 0.2]) == pytest.approx(0.6)
    assert trimmed_mean([0.0, 1.0, 1.0, 1.0, 0.2]) == pytest.approx(0.7333333)
    assert trimmed_mean([0.4, 0.6]) == pytest.approx(0.5)
    assert trimmed_mean([]) is None


def test_prompt_holds_ground_truth_rubric_and_submission() -> None:
    sys_msg, user = build_rubric_messages(
        question="Q?",
        answer="440 Hz",
        reference="ideal",
        rubric=RUBRIC,
        thinking="my reasons",
        prediction="440 Hz",
    )
    text = user.parts[0].text  # type: ignore[union-attr]
    assert sys_msg.role == "system" and "impartial" in sys_msg.parts[0].text  # type: ignore[union-attr]
    for needle in (
        "Question: Q?",
        "Correct answer: 440 Hz",
        "Reference reasoning: ideal",
        "1. Point 0 of item 0",
        "Allowed scores: 0, 1",
        "my reasons",
        "The answer is 440 Hz.",
    ):
        assert needle in text
    assert text.index("## Rubric") < text.index("## Required output") < text.index("my reasons")


def test_bad_rubric_definitions() -> None:
    with pytest.raises(ValueError, match="choices must be"):
        parse_rubric([{"name": "a", "scoring_point": "b", "choices": []}])
    with pytest.raises(ValueError, match="non-empty list"):
        parse_rubric("five points")


def predictions(tmp_path: Path, n: int = 6, wrong: tuple[int, ...] = (1,)) -> Path:
    items = write_tone_set(tmp_path / "set", n)
    for i, it in enumerate(items):
        it["answer_prediction"] = it["choices"][1] if i in wrong else it["answer"]
        it["thinking_prediction"] = f"I hear a steady tone, reasoning {i}."
    items[-1].pop("rubric")  # an item without a rubric: counted, not judged
    path = tmp_path / "preds.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in items))
    return path


def score_cli(preds: Path, out: Path, url: str, *extra: str) -> Any:
    return runner.invoke(
        app,
        [
            "mcq",
            "score",
            "--benchmark",
            "mmar",
            "--predictions",
            str(preds),
            "--output_dir",
            str(out),
            "--rubrics",
            "--judge-base-urls",
            url,
            "--judge-model",
            "fake-judge",
            "--no-progress",
            "--bootstrap",
            "50",
            *extra,
        ],
    )


def test_rubric_scoring_end_to_end_with_resume(tmp_path: Path) -> None:
    preds = predictions(tmp_path)
    out = tmp_path / "out"
    with FakeMcqServer(FakeMcqConfig(judge_garbage_first=2)) as server:
        res = score_cli(preds, out, server.base_url)
        assert res.exit_code == 0, res.output
        # 4 matched items judged (item 1 failed the match, item 5 has no rubric): 5 valid
        # calls each, plus 2 garbage answers retried.
        assert server.stats.judge_requests == 4 * 5 + 2
        assert {b["temperature"] for b in server.stats.bodies} == {0.0}
        assert {b["seed"] for b in server.stats.bodies} == {42}
        s = json.loads((out / "mcq_summary.json").read_text())
        r = s["rubrics"]
        assert (r["eligible"], r["scored"], r["failed"], r["zero_unmatched"], r["without_rubric"]) == (
            5,
            5,
            0,
            1,
            1,
        )
        # judged items score 0.6 (5,4,3,2,1 points: middle three), the unmatched one 0.
        assert s["overall"]["rubric"]["score"] == pytest.approx((4 * 0.6 + 0) / 5 * 100)
        assert s["overall"]["rubric"]["n"] == 5
        assert s["breakdowns"]["modality"]["music"]["rubric"]["score"] == pytest.approx(30.0)
        # one computation: the pair summary's `mean:rubric_score`, its CI and n, per group too
        (pair,) = json.loads((out / "summary.json").read_text())["results"]
        block = pair["metrics"]["mean:rubric_score"]
        assert (block["n"], block["count"], block["unit"]) == (5, 5, "fraction")
        assert s["overall"]["rubric"]["score"] == round(100 * block["value"], 2)
        assert s["overall"]["rubric"]["ci"] == [round(100 * x, 2) for x in block["ci"]]
        music = pair["breakdowns"]["modality"]["music"]["mean:rubric_score"]
        assert s["breakdowns"]["modality"]["music"]["rubric"]["ci"] == [
            round(100 * x, 2) for x in music["ci"]
        ]
        results = [json.loads(x) for x in (out / "rubrics/results.jsonl").read_text().splitlines()]
        judged = [x for x in results if x["judged"]]
        assert len(results) == 5 and len(judged) == 4
        assert sum(1 for x in judged for a in x["attempts"] if a["error"]) == 2
        assert all(sorted(x["call_scores"]) == [0.2, 0.4, 0.6, 0.8, 1.0] for x in judged)
        assert all(x["score"] == pytest.approx(0.6) for x in judged)
        rows = (out / "per_item.jsonl").read_text().splitlines()
        per_item = {x["id"]: x for x in map(json.loads, rows)}
        assert per_item["tone01"]["rubric_score"] == 0.0
        assert "rubric_score" not in per_item["tone05"]
        calls = server.stats.judge_requests
        again = score_cli(preds, out, server.base_url)
        assert again.exit_code == 0 and server.stats.judge_requests == calls
        assert json.loads((out / "mcq_summary.json").read_text())["rubrics"]["reused"] == 5
        # a changed prediction is judged again, the others are not
        items = [json.loads(x) for x in preds.read_text().splitlines()]
        items[0]["thinking_prediction"] = "New reasoning."
        preds.write_text("".join(json.dumps(x) + "\n" for x in items))
        third = score_cli(preds, out, server.base_url)
        assert third.exit_code == 0 and server.stats.judge_requests == calls + 5
        changed = score_cli(preds, out, server.base_url, "--judge-votes", "3")
        assert changed.exit_code == 2 and "other settings" in changed.output


def test_items_without_enough_valid_judge_answers_fail_and_are_not_scored(tmp_path: Path) -> None:
    preds = predictions(tmp_path, n=3, wrong=())
    out = tmp_path / "out"
    with FakeMcqServer(FakeMcqConfig(judge_garbage_first=1000)) as server:
        res = score_cli(preds, out, server.base_url, "--judge-max-attempts", "6")
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        assert "2 of 2 rubric-judged item(s) failed" in res.output
        assert "no JSON list of rubric scores" in res.output  # the first failure's reason
        assert server.stats.judge_requests == 2 * 6
    s = json.loads((out / "mcq_summary.json").read_text())
    assert s["rubrics"]["failed"] == 2 and s["rubrics"]["scored"] == 0
    assert s["overall"]["rubric"]["score"] is None and s["overall"]["rubric"]["failed"] == 2
    # a failed judgement leaves the item's official and robust scores as they are
    assert s["overall"]["official"]["correct"] == s["overall"]["robust"]["correct"] == 3
    per_item = [json.loads(x) for x in (out / "per_item.jsonl").read_text().splitlines()]
    assert [(r["official"], r.get("rubric_failed")) for r in per_item] == [(1, True), (1, True), (1, None)]
    # rescoring re-reads the failed judgements: the same files, no judge call
    again = CliRunner().invoke(app, ["rescore", str(out)])
    assert again.exit_code == 0, again.output
    assert json.loads((out / "mcq_summary.json").read_text()) == s
    with FakeMcqServer(FakeMcqConfig()) as server:  # a working judge: the failed items are judged again
        again = score_cli(preds, out, server.base_url, "--judge-max-attempts", "6")
        assert again.exit_code == 0, again.output
        assert server.stats.judge_requests == 2 * 5  # unusable answers were not cached
    s = json.loads((out / "mcq_summary.json").read_text())
    assert s["rubrics"]["failed"] == 0 and s["rubrics"]["scored"] == 2


def test_max_failed_accepts_failed_judgements(tmp_path: Path) -> None:
    preds = predictions(tmp_path, n=3, wrong=())
    with FakeMcqServer(FakeMcqConfig(judge_garbage_first=1000)) as server:
        res = score_cli(
            preds, tmp_path / "out", server.base_url, "--judge-max-attempts", "5", "--max-failed", "1.0"
        )
        assert res.exit_code == 0, res.output
        half = score_cli(
            preds, tmp_path / "o2", server.base_url, "--judge-max-attempts", "5", "--max-failed", "1"
        )
        assert half.exit_code == exit_codes.TOO_MANY_FAILURES, half.output  # 2 failed, 1 allowed


def test_rubric_meta_supplies_rubrics_by_id(tmp_path: Path) -> None:
    items = write_tone_set(tmp_path / "set", 2)
    bare = [{k: v for k, v in it.items() if k not in ("rubric", "thinking")} for it in items]
    for it in bare:
        it["answer_prediction"] = it["answer"]
    preds = tmp_path / "old.json"
    preds.write_text(json.dumps(bare))
    out = tmp_path / "out"
    with FakeMcqServer() as server:
        res = score_cli(
            preds, out, server.base_url, "--rubric-meta", str(tmp_path / "set" / "MMAR-meta.jsonl")
        )
        assert res.exit_code == 0, res.output
        assert server.stats.judge_requests == 10
    assert json.loads((out / "mcq_summary.json").read_text())["rubrics"]["scored"] == 2


def test_rubrics_need_a_judge_url(tmp_path: Path) -> None:
    preds = predictions(tmp_path, n=2)
    res = runner.invoke(
        app,
        [
            "mcq",
            "score",
            "--benchmark",
            "mmar",
            "--predictions",
            str(preds),
            "--output_dir",
            str(tmp_path / "o"),
            "--rubrics",
        ],
    )
    assert res.exit_code == 2 and "--judge" in res.output  # the canonical name (was --judge-base-urls)


def test_a_changed_answer_is_judged_again_not_reused(tmp_path: Path) -> None:
    preds = predictions(tmp_path)
    out = tmp_path / "out"
    with FakeMcqServer() as server:
        assert score_cli(preds, out, server.base_url).exit_code == 0
        first = json.loads((out / "mcq_summary.json").read_text())
        assert first["rubrics"]["zero_unmatched"] == 1
        calls = server.stats.judge_requests
        # another file: item 1's answer is now what was predicted, so it matches and is judged
        items = [json.loads(x) for x in preds.read_text().splitlines()]
        items[1]["answer"] = items[1]["answer_prediction"]
        other = tmp_path / "other.jsonl"
        other.write_text("".join(json.dumps(x) + "\n" for x in items))
        res = score_cli(other, out, server.base_url)
        assert res.exit_code == 0, res.output
        assert server.stats.judge_requests == calls + 5
    s = json.loads((out / "mcq_summary.json").read_text())
    assert s["rubrics"]["zero_unmatched"] == 0 and s["rubrics"]["reused"] == 4
    assert s["predictions_sha256"] != first["predictions_sha256"]
    per_item = {x["id"]: x for x in map(json.loads, (out / "per_item.jsonl").read_text().splitlines())}
    assert per_item[items[1]["id"]]["rubric_score"] == pytest.approx(0.6)


def test_rubric_confidence_intervals_are_those_recorded_before(tmp_path: Path) -> None:
    """Each group's rubric score, n, CI and failed count, as recorded from the scorer before
    it ran on the run engine (this fixture, 50 resamples, seed 0)."""
    preds = predictions(tmp_path)
    out = tmp_path / "out"
    with FakeMcqServer(FakeMcqConfig(judge_garbage_first=2)) as server:
        assert score_cli(preds, out, server.base_url).exit_code == 0
    s = json.loads((out / "mcq_summary.json").read_text())
    groups = {"overall": s["overall"].get("rubric")}
    for axis, gs in s["breakdowns"].items():
        groups.update({f"{axis}={name}": g.get("rubric") for name, g in gs.items()})
    recorded = Path(__file__).parent / "data" / "mcq_ci_parity.json"
    assert groups == json.loads(recorded.read_text(encoding="utf-8"))["mmar-rubrics"]
