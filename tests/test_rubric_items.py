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
        assert server.stats.logprob_requests == 12 and server.stats.sampled_requests == 12 * 5
    for rec in records(out):
        items = rec["judge"]["rubric_items"]["items"]
        assert {i["method"] for i in items} == {"sampled"}
        assert all(i["p_yes"] in (0.0, 0.2, 0.4, 0.6, 0.8, 1.0) for i in items)
    run_json = json.loads((out / "run.json").read_text())
    assert "sampled answers" in json.dumps(run_json) or "sampled answers" in json.dumps(
        json.loads(next(out.glob("*/*/signature.json")).read_text())
    )


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
