"""`audioeval judge-eval` end to end: a judge benchmark in the AnyAudio-Judge-Bench layout,
judged by a fake yes/no judge over real HTTP on 127.0.0.1 that measures each clip."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli.main import app
from tests.fakes.mcq_server import tone_wav
from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer
from tests.run_helpers import write_jsonl

runner = CliRunner()
JUDGE = "AnyAudio-Judge-7B"
TONES = (440, 550, 660, 880)


def rubric(hz: int) -> list[dict[str, str]]:
    return [
        {"dimension": "pitch", "question": f"Is there a steady tone near {hz} Hz?", "basis": f"{hz} Hz"},
        {"dimension": "texture", "question": "Is there no steady tone near 1320 Hz?", "basis": "a pure tone"},
        {
            "dimension": "timing",
            "question": f"Does a steady tone near {hz} Hz last the whole clip?",
            "basis": "steady",
        },
    ]


def judge_bench(root: Path, name: str = "bench.jsonl", n: int = 16) -> Path:
    """Rows of two subsets; a positive names the clip's own tone, a negative another one."""
    (root / "audios").mkdir(parents=True, exist_ok=True)
    rows = []
    for i in range(n):
        hz = TONES[i % 4]
        clip = root / "audios" / f"{name}-{i}.wav"
        tone_wav(clip, hz, seconds=0.4 + 0.005 * i)
        positive = i % 2 == 0
        said = hz if positive else TONES[(i + 1) % 4]
        rows.append(
            {
                "uuid": f"{name}-{i}",
                "audio": f"audios/{clip.name}",
                "caption": f"a steady {said} Hz tone",
                "label": "yes" if positive else "no",
                "type": "pos" if positive else "neg_swap",
                "subset": ("sound", "music")[(i // 2) % 2],
                "rubric": rubric(said),
            }
        )
    rows.append({**rows[0], "uuid": f"{name}-empty", "rubric": []})
    return write_jsonl(root / name, rows)


def judge_eval(bench: Path, url: str, out: Path, *extra: str) -> Any:
    return runner.invoke(
        app,
        ["judge-eval", "--bench", str(bench), "--judge", url, "--judge-model", JUDGE, "-o", str(out),
         "--no-progress", "--resamples", "200", *extra],
        catch_exceptions=False,
    )  # fmt: skip


def summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "judge_eval_summary.json").read_text())


def test_judge_eval_scores_the_judge_per_subset_resumes_and_rescores(tmp_path: Path) -> None:
    bench = judge_bench(tmp_path / "data")
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE)) as server:
        res = judge_eval(bench, server.base_url, out)
        assert res.exit_code == 0, res.output
        assert server.stats.requests == 16 * 3  # one request per item; the empty rubric is not judged
        again = judge_eval(bench, server.base_url, out)
        assert again.exit_code == 0 and server.stats.requests == 48  # resumed: no judge call
    s = summary(out)
    assert s["n"] == 17 and s["n_scored"] == 16
    assert s["unscored"] == {"n": 1, "ids": ["bench.jsonl-empty"]}
    assert s["failed"]["n"] == 0
    assert s["threshold"]["value"] == 0.5  # per_item: ours (the official logits mode has no accuracy)
    assert s["threshold"]["source"] == "default (ours: the official logits mode computes no accuracy)"
    assert s["overall"]["accuracy"] == 100.0 and s["overall"]["auroc"] == 1.0
    assert list(s["subsets"]) == ["sound", "music"]
    assert s["subsets"]["sound"]["n"] == 8 and s["subsets"]["sound"]["unscored"] == 1
    assert s["types"]["neg_swap"]["accuracy"] == 100.0
    assert "AnyAudio-Judge Bench" in res.output and "sound" in res.output
    block = s["reliability"]["anyaudio_items"]
    assert block["valid_answer_rate"]["value"] == 1.0 and block["valid_answer_rate"]["n"] == 48
    assert "judge reliability" in res.output
    rows = [json.loads(x) for x in (out / "per_row.jsonl").read_text().splitlines()]
    assert len(rows) == 16 and all(len(r["items"]) == 3 for r in rows)
    assert all(r["items"][0]["method"] == "logprobs" for r in rows)
    # a rescore with the judge stopped gives the same summary
    res = runner.invoke(app, ["rescore", str(out)])
    assert res.exit_code == 0, res.output
    assert summary(out) == s


def test_a_noisy_judge_scores_lower_and_the_threshold_can_be_tuned(tmp_path: Path) -> None:
    bench = judge_bench(tmp_path / "data", n=40)
    dev = judge_bench(tmp_path / "data", name="dev.jsonl", n=24)
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE, noise=0.4, seed=3)) as server:
        res = judge_eval(bench, server.base_url, out, "--tune-on", str(dev))
        assert res.exit_code == 0, res.output
    s = summary(out)
    assert s["threshold"]["source"] == f"tuned on {dev}" and s["threshold"]["dev_n"] == 24
    assert 0 < s["threshold"]["value"] < 1
    assert 40 <= s["overall"]["accuracy"] < 100
    lo, hi = s["overall"]["accuracy_ci"]
    assert lo <= s["overall"]["accuracy"] <= hi
    before = s
    res = runner.invoke(app, ["rescore", str(out)])
    assert res.exit_code == 0, res.output
    assert summary(out) == before  # tuned again from the stored dev records


def test_judge_failures_are_counted_never_scored(tmp_path: Path) -> None:
    bench = judge_bench(tmp_path / "data", n=4)
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE, logprobs="neither")) as server:
        # neither yes nor no among the logprobs: sampled answers; all are answered
        res = judge_eval(bench, server.base_url, out, "--samples", "3")
        assert res.exit_code == 0, res.output
        assert server.stats.sampled_requests == 4 * 3 * 3
    rows = [json.loads(x) for x in (out / "per_row.jsonl").read_text().splitlines()]
    assert {i["method"] for r in rows for i in r["items"]} == {"sampled"}


def test_all_at_once_reads_answers_as_the_official_generate_mode(tmp_path: Path) -> None:
    # official-rules.md §3.6-3.7: items listed from id 0; an item the answer leaves out is
    # unparsed and drops out of the row's score (#yes / #parsed), never asked again; 0.8 threshold
    bench = judge_bench(tmp_path / "data", n=4)
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE, drop_last_all_at_once=True)) as server:
        res = judge_eval(bench, server.base_url, out, "--mode", "all_at_once")
        assert res.exit_code == 0, res.output
        assert server.stats.all_at_once_requests == 4  # one per row: a partial answer is scored
    rows = [json.loads(x) for x in (out / "per_row.jsonl").read_text().splitlines()]
    got = {r["uuid"]: ([i["p_yes"] for i in r["items"]], r["score"]) for r in rows}
    # positives: yes, yes, (left out) -> 2/2; negatives (another tone): no, yes, (left out) -> 1/2
    assert got == {
        "bench.jsonl-0": ([1.0, 1.0, None], 1.0),
        "bench.jsonl-1": ([0.0, 1.0, None], 0.5),
        "bench.jsonl-2": ([1.0, 1.0, None], 1.0),
        "bench.jsonl-3": ([0.0, 1.0, None], 0.5),
    }
    s = summary(out)
    assert s["threshold"] == {"value": 0.8, "source": "default (official generate mode)"}
    assert s["official"]["overall_acc"] == 100.0 and s["official"]["n_samples"] == 5
    assert s["official"]["overall_mean_score"] == 0.75


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--threshold", "0.4", "--tune-on", "dev.jsonl"], "not both"),
        (["--threshold", "nan"], "--threshold"),
    ],
)
def test_bad_flags_are_refused(tmp_path: Path, flags: list[str], message: str) -> None:
    bench = judge_bench(tmp_path / "data", n=2)
    res = judge_eval(bench, "http://127.0.0.1:9/v1", tmp_path / "out", *flags)
    assert res.exit_code == 2 and message in res.output


def test_a_missing_bench_names_the_file(tmp_path: Path) -> None:
    res = judge_eval(tmp_path / "nope.jsonl", "http://127.0.0.1:9/v1", tmp_path / "out")
    assert res.exit_code == 2 and "nope.jsonl" in res.output


def test_all_at_once_rows_whose_answers_parse_no_item_are_counted_failed(tmp_path: Path) -> None:
    """A row whose every attempt parses no item fails (the judge gave it no value): counted in
    the summary, never scored, and the command ends with the nothing-scored exit."""
    bench = judge_bench(tmp_path / "data", n=4)
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE, all_at_once_text="I cannot tell.")) as server:
        res = judge_eval(bench, server.base_url, out, "--mode", "all_at_once")
        assert server.stats.all_at_once_requests == 4 * 3  # every attempt of every row
    assert res.exit_code == 4, res.output
    assert "failed (judge) 4" in res.output and "I cannot tell." in res.output
    s = summary(out)
    assert s["failed"]["n"] == 4 and s["official"]["overall_mean_score"] is None
    rows = [json.loads(x) for x in (out / "per_row.jsonl").read_text().splitlines()]
    assert all(r["failed"] and r["score"] is None for r in rows)


def test_a_threshold_known_after_judging_gives_the_run_s_own_figures(tmp_path: Path) -> None:
    """The pair summary at a threshold the records hold no verdict at (tuned after judging, or
    a folder judged before judge-eval's metrics were declared: its records hold the score
    alone) is the engine's, over the same records: at the run's own threshold it is the run's
    summary.json, figure for figure, overall and in every breakdown."""
    from dataclasses import replace

    from audioeval.benchmarks.anyaudio_bench.figures import METRICS
    from audioeval.benchmarks.anyaudio_bench.tuned import pair_at
    from audioeval.benchmarks.pair_figures import PairFigures
    from audioeval.core.record import Score
    from audioeval.store.json_file import read_sample_ids
    from audioeval.store.run_folder import pair_run_id, read_pair

    bench = judge_bench(tmp_path / "data")
    out = tmp_path / "out"
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE, noise=0.3, seed=3)) as server:
        res = judge_eval(bench, server.base_url, out, "--threshold", "0.6")
    assert res.exit_code == 0, res.output
    folder = out / "judge-bench" / "echo"
    ids = read_sample_ids(folder / "sample_ids.json")
    records = read_pair(folder, pair_run_id(folder), expected_ids=ids).usable().records
    earlier = [  # as an earlier audioeval recorded them: the score alone
        r
        if not r.scores
        else replace(
            r,
            scores={
                k: Score(s.values, {"rubric_score": s.stats["rubric_score"]}) for k, s in r.scores.items()
            },
        )
        for r in records
    ]
    run = PairFigures.of(json.loads((folder / "summary.json").read_text()))
    again = pair_at(earlier, ids, 0.6, n_resamples=200, seed=0)
    assert set(METRICS) <= set(run.metrics)
    assert {m: again.metrics[m] for m in METRICS} == {m: run.metrics[m] for m in METRICS}
    assert again.breakdowns == {
        k: {g: {m: b[m] for m in METRICS} for g, b in v.items()} for k, v in run.breakdowns.items()
    }
    s = summary(out)
    assert s["overall"]["accuracy"] == round(100 * run.metrics["accuracy"].value, 2)
