"""The `rubric_items` scorer: yes/no items put to an audio judge, P(yes) from logprobs
(AnyAudio-Judge style), against a fake judge over real HTTP on 127.0.0.1 that measures
the audio it is sent."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.adapters.openai_chat import reply_first_token
from audioeval.cli.main import app
from audioeval.judge.p_yes import p_yes, read_first_token
from audioeval.judge.rubric_items import read_all_at_once
from tests.fakes.mcq_server import tone_wav
from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer
from tests.run_helpers import write_jsonl

runner = CliRunner()
JUDGE = "AnyAudio-Judge-7B"
SURE = 1 / (1 + math.exp(-3.0))  # P(yes) of the fake judge's confident "yes" (logprob gap 3)


def item(question: str, dimension: str = "tone") -> dict[str, str]:
    return {"dimension": dimension, "question": question, "basis": "a steady tone"}


def bench(root: Path) -> Path:
    """Four clips; each rubric asks for the clip's own tone (yes), a missing one (no) and a
    negated missing one (yes)."""
    root.mkdir(parents=True, exist_ok=True)
    rows = []
    for i, hz in enumerate((440, 660, 880, 550)):
        tone_wav(root / f"c{i}.wav", hz, seconds=0.4)
        other = 1320 if hz != 1320 else 990
        rubric = [
            item(f"Is there a steady tone near {hz} Hz?"),
            item(f"Is there a steady tone near {other} Hz?"),
            item(f"Is there no steady tone near {other} Hz?"),
        ]
        rows.append(
            {"id": f"c{i}", "audio": f"c{i}.wav", "caption": f"a steady {hz} Hz tone", "rubric": rubric}
        )
    write_jsonl(root / "instruct.jsonl", rows)
    spec = root / "instruct.yaml"
    spec.write_text(
        "name: instruct-syn\ntask: audio_instruct\n"
        f"source: {{type: jsonl, path: {json.dumps(str(root / 'instruct.jsonl'))}}}\n",
        encoding="utf-8",
    )
    return spec


def with_scorer(spec: Path, args: dict[str, Any]) -> Path:
    text = spec.read_text(encoding="utf-8") + f"scorers: [{{rubric_items: {json.dumps(args)}}}]\n"
    out = spec.with_name(f"instruct-{len(args)}.yaml")
    out.write_text(text, encoding="utf-8")
    return out


def run(spec: Path, url: str, out: Path) -> Any:
    return runner.invoke(
        app,
        ["run", "--benchmark", str(spec), "--model", "echo", "--judge", url, "--judge-model", JUDGE,
         "-o", str(out), "--no-progress", "--resamples", "50"],
        catch_exceptions=False,
    )  # fmt: skip


def records(out: Path) -> list[dict[str, Any]]:
    (path,) = out.glob("*/*/records.jsonl")
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_p_yes_reads_the_first_token() -> None:
    both = p_yes([("Yes", -0.1), ("No", -2.5), (" yes", -3.0)])
    assert both is not None and both.bound is None
    assert both.value == pytest.approx(math.exp(-0.1) / (math.exp(-0.1) + math.exp(-2.5)))
    only_no = p_yes([("No", -0.2), ("The", -4.0)])  # yes bounded by the smallest listed
    assert only_no is not None and only_no.bound == "yes"
    assert only_no.value == pytest.approx(1 / (1 + math.exp(3.8)))
    assert p_yes([("The", -0.1), ("I", -1.0)]) is None
    assert p_yes([(" YES", -0.3), ("no", -0.3)]).value == pytest.approx(0.5)  # type: ignore[union-attr]


def test_first_token_reply_in_the_vllm_shape() -> None:
    body = {
        "choices": [
            {
                "message": {"role": "assistant", "content": "Yes"},
                "logprobs": {
                    "content": [
                        {"token": "Yes", "logprob": -0.01, "bytes": [89],
                         "top_logprobs": [{"token": "Yes", "logprob": -0.01, "bytes": [89]},
                                          {"token": "No", "logprob": -4.6, "bytes": [78]}]}
                    ]
                },
            }
        ]
    }  # fmt: skip
    got = reply_first_token(body)
    assert got == {"text": "Yes", "top_logprobs": [["Yes", -0.01], ["No", -4.6]]}
    assert read_first_token(json.dumps(got)).top_logprobs == [("Yes", -0.01), ("No", -4.6)]  # type: ignore[union-attr]
    without = {"choices": [{"message": {"role": "assistant", "content": "Yes"}, "logprobs": None}]}
    assert reply_first_token(without) == {"text": "Yes", "top_logprobs": None}
    with pytest.raises(ValueError):
        reply_first_token(
            {"choices": [{"message": {"content": "Y"}, "logprobs": {"content": [{"token": "Y"}]}}]}
        )


def test_all_at_once_answers_must_cover_every_item_once() -> None:
    good = '```json\n[{"id": 2, "answer": "no", "evidence": "x"}, {"id": 1, "answer": "Yes", "evidence": "y"}]\n```'
    assert read_all_at_once(good, 2) == ["yes", "no"]
    assert read_all_at_once('[{"id": 1, "answer": "yes"}]', 2) is None  # one missing
    assert read_all_at_once('[{"id": 1, "answer": "yes"}, {"id": 1, "answer": "no"}]', 2) is None
    assert read_all_at_once('[{"id": 1, "answer": "maybe"}, {"id": 2, "answer": "no"}]', 2) is None
    assert read_all_at_once(None, 1) is None


def test_rubric_items_per_item_p_yes_resume_and_rescore(tmp_path: Path) -> None:
    spec = bench(tmp_path / "data")
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE)) as server:
        res = run(spec, server.base_url, out)
        assert res.exit_code == 0, res.output
        stats = server.stats
        # one logprobs request per item, each sample's items carrying the same audio bytes
        assert stats.logprob_requests == stats.requests == 12 and stats.sampled_requests == 0
        assert not any(
            "logprobs_skipped" in i for r in records(out) for i in r["judge"]["rubric_items"]["items"]
        )
        assert stats.distinct_audio == 4
        again = run(spec, server.base_url, out)
        assert again.exit_code == 0 and stats.requests == 12  # resumed: no judge call
    recs = records(out)
    assert len(recs) == 4
    for rec in recs:
        items = rec["judge"]["rubric_items"]["items"]
        assert [round(i["p_yes"], 4) for i in items] == [round(SURE, 4), round(1 - SURE, 4), round(SURE, 4)]
        assert {i["method"] for i in items} == {"logprobs"}
        assert rec["scores"]["rubric_items"]["values"]["rubric_score"] == pytest.approx(
            (2 * SURE + 1 - SURE) / 3
        )
    summary = json.loads(next(out.glob("*/*/summary.json")).read_text())
    assert summary["metrics"]["mean:rubric_score"]["value"] == pytest.approx((2 * SURE + 1 - SURE) / 3)
    before = [r["scores"] for r in records(out)]
    res = runner.invoke(app, ["rescore", str(out)])  # the judge is stopped
    assert res.exit_code == 0, res.output
    assert [r["scores"] for r in records(out)] == before


def test_without_logprobs_the_share_of_sampled_yes_is_used_and_named(tmp_path: Path) -> None:
    spec = with_scorer(bench(tmp_path / "data"), {"samples": 5})
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE, logprobs="none")) as server:
        res = run(spec, server.base_url, out)
        assert res.exit_code == 0, res.output
        # one logprobs request answered without logprobs: the other 11 items skip theirs
        assert server.stats.logprob_requests == 1 and server.stats.sampled_requests == 12 * 5
    rows = [i for rec in records(out) for i in rec["judge"]["rubric_items"]["items"]]
    assert {i["method"] for i in rows} == {"sampled"}
    assert all(i["p_yes"] in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0) for i in rows)
    assert all(len(i["sampled"]) == 5 for i in rows)
    (asked,) = [i for i in rows if i["attempts"]]
    assert (
        "logprobs_skipped" not in asked and json.loads(asked["attempts"][0]["answer"])["top_logprobs"] is None
    )
    skipped = [i for i in rows if not i["attempts"]]
    assert len(skipped) == 11 and all("without logprobs" in i["logprobs_skipped"] for i in skipped)
    before = [r["scores"] for r in records(out)]
    res = runner.invoke(app, ["rescore", str(out)])  # the judge is stopped: stored answers only
    assert res.exit_code == 0, res.output
    assert [r["scores"] for r in records(out)] == before
    again = [i for rec in records(out) for i in rec["judge"]["rubric_items"]["items"]]
    assert [i.get("logprobs_skipped") for i in again] == [i.get("logprobs_skipped") for i in rows]
    run_json = json.loads((out / "run.json").read_text())
    assert "sampled answers" in json.dumps(run_json) or "sampled answers" in json.dumps(
        json.loads(next(out.glob("*/*/signature.json")).read_text())
    )


def test_logprobs_listing_neither_side_fall_back_per_item_and_skip_nothing(tmp_path: Path) -> None:
    spec = with_scorer(bench(tmp_path / "data"), {"samples": 3})
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE, logprobs="neither")) as server:
        assert run(spec, server.base_url, out).exit_code == 0
        # the server sends logprobs: every item asks, and each falls back on its own
        assert server.stats.logprob_requests == 12 and server.stats.sampled_requests == 12 * 3
    rows = [i for rec in records(out) for i in rec["judge"]["rubric_items"]["items"]]
    assert {i["method"] for i in rows} == {"sampled"} and not any("logprobs_skipped" in i for i in rows)


def test_one_side_listed_is_bounded_and_recorded(tmp_path: Path) -> None:
    spec = bench(tmp_path / "data")
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE, logprobs="one_side")) as server:
        assert run(spec, server.base_url, out).exit_code == 0
    items = records(out)[0]["judge"]["rubric_items"]["items"]
    assert items[0]["bound"] == "no" and items[0]["p_yes"] > 0.99  # "no" bounded by the smallest listed
    assert items[1]["bound"] == "yes" and items[1]["p_yes"] < 0.01


def test_all_at_once_mode_retries_a_broken_answer(tmp_path: Path) -> None:
    spec = with_scorer(bench(tmp_path / "data"), {"mode": "all_at_once"})
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE, broken_all_at_once_first=1)) as server:
        res = run(spec, server.base_url, out)
        assert res.exit_code == 0, res.output
        assert server.stats.all_at_once_requests == 5  # one per sample, one asked again
    for rec in records(out):
        assert rec["scores"]["rubric_items"]["values"]["rubric_score"] == pytest.approx(2 / 3)


def test_a_sample_without_a_rubric_is_an_input_error_not_a_score(tmp_path: Path) -> None:
    root = tmp_path / "data"
    spec = bench(root)
    rows = [json.loads(x) for x in (root / "instruct.jsonl").read_text().splitlines()]
    rows[1]["rubric"] = [{"dimension": "tone", "question": ""}]
    write_jsonl(root / "instruct.jsonl", rows)
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE)) as server:
        res = run(spec, server.base_url, out)
    assert res.exit_code != 0
    bad = [r for r in records(out) if r["id"] == "c1"][0]
    assert "rubric[0].question" in json.dumps(bad) and not bad.get("scores")


def test_labelled_items_give_the_judge_calibration(tmp_path: Path) -> None:
    root = tmp_path / "data"
    spec = bench(root)
    rows = [json.loads(x) for x in (root / "instruct.jsonl").read_text().splitlines()]
    for row in rows:
        for k, it in enumerate(row["rubric"]):
            it["label"] = "no" if k == 1 else "yes"  # the truth of each item
    write_jsonl(root / "instruct.jsonl", rows)
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE)) as server:
        assert run(spec, server.base_url, out).exit_code == 0
    summary = json.loads(next(out.glob("*/*/summary.json")).read_text())
    ece = summary["reliability"]["rubric_items"]["ece"]
    assert ece["n"] == 12 and ece["value"] == pytest.approx(1 - SURE, abs=1e-4)  # confident and right
    before = summary["reliability"]
    assert runner.invoke(app, ["rescore", str(out)]).exit_code == 0
    assert json.loads(next(out.glob("*/*/summary.json")).read_text())["reliability"] == before


def test_source_decompose_makes_the_missing_rubrics_before_the_run(tmp_path: Path) -> None:
    from tests.fakes.text_llm_server import FakeTextLlmConfig, FakeTextLlmServer

    root = tmp_path / "data"
    root.mkdir()
    rows = []
    for i, hz in enumerate((440, 660, 880)):
        tone_wav(root / f"c{i}.wav", hz, seconds=0.4)
        caption = f"there is a steady tone near {hz} Hz, there is no steady tone near 1320 Hz"
        rows.append({"id": f"c{i}", "audio": f"c{i}.wav", "caption": caption})
    rows[2]["rubric"] = [item("Is there a steady tone near 880 Hz?")]  # given: not decomposed
    write_jsonl(root / "captions.jsonl", rows)
    with FakeTextLlmServer(FakeTextLlmConfig(model="text-llm")) as llm:
        spec = root / "otf.yaml"
        spec.write_text(
            "name: otf\ntask: audio_instruct\n"
            f"source: {{type: jsonl, path: {json.dumps(str(root / 'captions.jsonl'))}, "
            f"decompose: {{llm: {json.dumps(llm.base_url)}, llm_model: text-llm}}}}\n",
            encoding="utf-8",
        )
        out = tmp_path / "out"
        with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE)) as judge:
            res = run(spec, judge.base_url, out)
            assert res.exit_code == 0, res.output
            assert "rubrics decomposed from captions: 2" in res.output
            assert llm.fake.stats.decompose_requests == 2
            again = run(spec, judge.base_url, out)
            assert again.exit_code == 0, again.output
            assert llm.fake.stats.decompose_requests == 2  # resumed: no LLM call
            assert judge.stats.requests == 2 * 2 + 1  # and no judge call either
    made = [json.loads(x) for x in (out / "otf" / "rubrics.jsonl").read_text().splitlines()]
    assert [m["id"] for m in made] == ["c0", "c1"]
    recs = {r["id"]: r for r in records(out)}
    questions = [i["question"] for i in recs["c0"]["judge"]["rubric_items"]["items"]]
    assert questions == [
        "Is it true that there is a steady tone near 440 Hz?",
        "Is it true that there is no steady tone near 1320 Hz?",
    ]
    assert recs["c0"]["scores"]["rubric_items"]["values"]["rubric_score"] == pytest.approx(SURE)
    assert len(recs["c2"]["judge"]["rubric_items"]["items"]) == 1


# -- whether the judge sends logprobs, learnt once per run (a scripted judge callable) -------


class ScriptedJudge:
    """A judge callable with no logprobs (or with them): each answer is a function of the
    item's question and the attempt only, so any order of requests gets the same answers.
    `fail_first`: the first logprobs request fails."""

    def __init__(self, *, logprobs: bool = False, fail_first: bool = False, delay_s: float = 0.0) -> None:
        self.logprobs, self.fail_first, self.delay_s = logprobs, fail_first, delay_s
        self.logprob_calls = self.sampled_calls = self.in_flight = self.most_in_flight = 0

    async def __call__(
        self, messages: Any, attempt: int, accept: Any = None, extra: Any = None, *, logprobs: int | None = None
    ) -> Any:
        import asyncio
        import hashlib

        from audioeval.core.generation import Generation

        question = messages[-1].parts[-1].text
        asks_logprobs = logprobs is not None  # the judge's typed request, never a sampling field
        self.logprob_calls += asks_logprobs
        self.sampled_calls += not asks_logprobs
        fails = asks_logprobs and self.fail_first and self.logprob_calls == 1
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        await asyncio.sleep(self.delay_s)
        self.in_flight -= 1
        if fails:
            return Generation(None, error="HTTP 503: injected")
        yes = hashlib.sha256(f"{question}|{attempt}".encode()).digest()[0] % 2 == 0
        if asks_logprobs:
            top = [["Yes", -0.1], ["No", -2.0]] if self.logprobs else None
            return Generation(json.dumps({"text": "Yes" if yes else "No", "top_logprobs": top}))
        return Generation("yes" if yes else "no")


def _samples(n: int, items: int) -> list[Any]:
    from audioeval.core.sample import Sample

    return [
        Sample(f"s{k}", fields={"rubric": [item(f"Is item {k}.{i} there?") for i in range(items)]})
        for k in range(n)
    ]


def _score(scorer: Any, judge: ScriptedJudge, samples: list[Any], order: list[int]) -> dict[str, Any]:
    """Each sample's detail, the samples started in `order` (their items race for the judge)."""
    import asyncio

    from audioeval.scoring.base import Prediction

    async def main() -> dict[str, Any]:
        async def one(k: int) -> Any:
            await asyncio.sleep(0.001 * order.index(k))
            return samples[k].id, await scorer.score_async(Prediction("", "", "out.wav"), samples[k], judge)

        return {sid: score.detail for sid, score in await asyncio.gather(*(one(k) for k in order))}

    return asyncio.run(main())


def test_items_skip_the_logprobs_request_once_the_judge_sent_none_whatever_the_order() -> None:
    from audioeval.judge.rubric_items import RubricItemsScorer

    samples = _samples(3, 4)
    details = []
    for order in ([0, 1, 2], [2, 1, 0]):
        judge = ScriptedJudge(delay_s=0.005)
        details.append(_score(RubricItemsScorer(samples=3), judge, samples, order))
        assert judge.logprob_calls == 1 and judge.sampled_calls == 12 * 3
    first, second = details
    assert first["s0"]["items"][0]["attempts"] and not second["s0"]["items"][0]["attempts"]  # asked, skipped
    for sid in first:  # the same value whether the item's logprobs request was asked or skipped
        assert [(i["p_yes"], i["method"]) for i in first[sid]["items"]] == [
            (i["p_yes"], i["method"]) for i in second[sid]["items"]
        ]
    scorer = RubricItemsScorer(samples=3)  # the stored answers read again, no judge call
    for detail in first.values():
        assert scorer.rescore(None, None, detail).detail == detail  # type: ignore[arg-type]


def test_a_judge_that_sends_logprobs_is_asked_for_every_item() -> None:
    from audioeval.judge.rubric_items import RubricItemsScorer

    judge = ScriptedJudge(logprobs=True, delay_s=0.005)
    details = _score(RubricItemsScorer(samples=3), judge, _samples(3, 4), [0, 1, 2])
    assert judge.logprob_calls == 12 and judge.sampled_calls == 0
    assert judge.most_in_flight > 1  # once known, the requests go together
    rows = [i for d in details.values() for i in d["items"]]
    assert {i["method"] for i in rows} == {"logprobs"} and not any("logprobs_skipped" in i for i in rows)


def test_a_failed_first_logprobs_request_lets_the_others_go_together() -> None:
    from audioeval.judge.rubric_items import RubricItemsScorer

    judge = ScriptedJudge(fail_first=True, delay_s=0.005)
    details = _score(RubricItemsScorer(samples=3), judge, _samples(1, 4), [0])
    # the failed one, then the three waiting items at once and its second attempt
    assert judge.logprob_calls == 1 + 3 + 1 and judge.most_in_flight >= 4
    rows = details["s0"]["items"]
    assert {i["method"] for i in rows} == {"sampled"} and not any("logprobs_skipped" in i for i in rows)


def test_what_the_judge_sends_is_learnt_again_in_each_run() -> None:
    from audioeval.judge.rubric_items import RubricItemsScorer

    scorer = RubricItemsScorer(samples=3)
    _score(scorer, ScriptedJudge(), _samples(1, 3), [0])
    with_logprobs = ScriptedJudge(logprobs=True)
    details = _score(scorer, with_logprobs, _samples(1, 3), [0])
    assert with_logprobs.logprob_calls == 3 and {i["method"] for i in details["s0"]["items"]} == {"logprobs"}
