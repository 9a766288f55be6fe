"""Early stop of decided majorities (`--early-stop`, scorer argument `early_stop: true`) and a
judge response cache shared across output folders (`--judge-cache PATH`).

The vote collector is checked exhaustively against scripted answers; MMAE end to end against
the fake judge over real HTTP, made noisy (wrong options and unreadable answers, drawn per
request content, so both protocols get the same answer to the same attempt).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.core.generation import Generation
from audioeval.core.sample import Sample
from audioeval.judge.qa_judge import QaJudgeScorer
from audioeval.judge.votes import (
    check_early_stop,
    collect_votes,
    majority_to_decide,
    reduce_votes,
    strict_majority,
)
from audioeval.scoring.base import Prediction
from audioeval.scoring.scorer_registry import build_scorer
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
from tests.mmae_helpers import config, records_file, rescore_mmae, results, run_mmae

load_benchmarks()  # registers the judged scorers this file builds by name
runner = CliRunner()
NOISY = dict(wrong_rate=0.3, invalid_rate=0.15, seed=7)  # wrong or unreadable, per request content
WRONG = dict(wrong_rate=0.3, seed=7)  # every answer readable: every one is cached


# -- the vote collector ------------------------------------------------------------------------


async def _protocol(script: tuple[bool | None, ...], n: int, early: bool) -> tuple[list[list[int]], Any]:
    """Collect votes over scripted answers (True/False: a valid vote, None: invalid); the
    rounds launched and the outcome."""
    answers: dict[int, bool | None] = {}
    rounds: list[list[int]] = []
    in_flight = 0

    def valid_votes() -> list[bool]:
        return [v for _, v in sorted(answers.items()) if v is not None]

    async def ask(i: int) -> bool:
        nonlocal in_flight
        if in_flight == 0:  # every attempt of a round starts before any of them answers
            rounds.append([])
        rounds[-1].append(i)
        in_flight += 1
        await asyncio.sleep(0)
        in_flight -= 1
        answers[i] = script[i]
        return script[i] is not None

    to_decide = (lambda: majority_to_decide(valid_votes(), n)) if early else None
    await collect_votes(ask, votes_needed=n, max_attempts=len(script), to_decide=to_decide)
    return rounds, reduce_votes(valid_votes(), n, "strict_majority", early_stop=early)


def test_early_stop_gives_the_full_protocols_verdict_for_every_answer_sequence():
    async def check_all() -> int:
        decided_early = 0
        for n in range(1, 6):
            for script in itertools.product((True, False, None), repeat=n + 2):
                full_rounds, full = await _protocol(script, n, early=False)
                rounds, early = await _protocol(script, n, early=True)
                asked = [i for r in rounds for i in r]
                assert asked == list(range(len(asked)))  # attempt indices fixed, in order
                assert len(asked) <= sum(map(len, full_rounds))
                if not full.failed:  # the verdict the full protocol gives, with fewer calls
                    assert (early.failed, early.score) == (False, full.score)
                    assert early.votes == full.votes[: len(early.votes)]
                if early.not_asked:
                    decided_early += 1
                    assert early.not_asked == n - len(early.votes)
                    for rest in itertools.product((True, False), repeat=early.not_asked):
                        assert (
                            strict_majority([*early.votes, *rest]) == early.score
                        )  # nothing could change it
                elif not early.failed:
                    assert early.votes == full.votes
        return decided_early

    assert asyncio.run(check_all()) > 1000


@pytest.mark.parametrize(
    ("script", "rounds"),
    [
        ((True, True, None, None, None), [[0, 1]]),  # two agreeing votes: the third is not asked
        ((False, False, None, None, None), [[0, 1]]),
        ((True, False, True, None, None), [[0, 1], [2]]),  # they disagree: one more
        ((None, True, True, None, None), [[0, 1], [2]]),
        ((None, None, False, True, True), [[0, 1], [2, 3], [4]]),
    ],
)
def test_a_round_launches_only_the_votes_that_could_decide(script, rounds):
    got, outcome = asyncio.run(_protocol(script, 3, early=True))
    assert got == rounds and not outcome.failed


def test_majority_to_decide():
    assert [majority_to_decide([], n) for n in (1, 2, 3, 4, 5)] == [1, 1, 2, 2, 3]
    assert majority_to_decide([True, True], 3) == 0 and majority_to_decide([True, False], 3) == 1
    assert majority_to_decide([True, True], 4) == 1  # 2 of 4 is no majority: a tie fails
    assert majority_to_decide([False, False], 4) == 0  # 2 "no" of 4: a pass is out of reach


def test_early_stop_is_refused_for_the_trimmed_mean_scorer():
    with pytest.raises(ValueError, match="trimmed_mean"):
        check_early_stop("trimmed_mean", "mmar_rubrics")
    check_early_stop("strict_majority", "qa_judge")
    with pytest.raises(InputError, match="early_stop") as err:
        build_scorer("mmar_rubrics", {"early_stop": True}, where="bench.yaml")
    assert "bench.yaml" in err.value.describe()
    with pytest.raises(InputError, match="true or false"):
        build_scorer("mmae_rubrics", {"early_stop": "yes"}, where="bench.yaml")


def test_qa_judge_stops_a_decided_majority_and_rescores_it_the_same():
    sample = Sample("q1", fields={"question": "2+2?", "answer": "4"})
    asked: list[int] = []

    async def judge(messages, attempt, accept=None, extra=None):  # type: ignore[no-untyped-def]
        asked.append(attempt)
        return Generation("yes")

    scorer = QaJudgeScorer(votes=3, early_stop=True)
    score = asyncio.run(scorer.score_async(Prediction("4", "4"), sample, judge))
    assert asked == [0, 1] and score.values == {"judge_correct": 1.0}
    assert score.detail["votes_not_asked"] == 1 and scorer.signature()["early_stop"] == "decided-majority"
    again = scorer.rescore(Prediction("4", "4"), sample, score.detail)
    assert again.values == score.values and again.detail["votes_not_asked"] == 1
    assert "early_stop" not in QaJudgeScorer(votes=3).signature()  # off: the signature is unchanged


# -- MMAE end to end ---------------------------------------------------------------------------


def _verdicts(out: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """Each rubric's stored outcome (votes, score, attempts, votes not asked), by (id, rubric)."""
    lines = [json.loads(x) for x in records_file(out).read_text().splitlines()]
    return {
        (rec["id"], o["rubric_index"]): o for rec in lines for o in rec["judge"]["mmae_rubrics"]["rubrics"]
    }


def _without_run(tax: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in tax.items() if k not in ("run", "reliability")}


@pytest.fixture(scope="module")
def both_protocols(small_synthetic_set, tmp_path_factory):
    """One noisy judge; the full protocol and early stop, each into its own folder."""
    tmp = tmp_path_factory.mktemp("early_stop")
    preds, meta = small_synthetic_set.oracle_predictions, small_synthetic_set.metadata
    with FakeJudgeServer(FakeJudgeConfig(**NOISY)) as server:
        full = run_mmae(config(preds, meta, tmp / "full", [server.base_url]))
        full_requests = server.stats.requests
        early = run_mmae(config(preds, meta, tmp / "early", [server.base_url], early_stop=True))
        early_requests = server.stats.requests - full_requests
    return full, early, full_requests, early_requests


def test_early_stop_gives_every_rubric_the_full_protocols_verdict(both_protocols):
    full, early, full_requests, early_requests = both_protocols
    full_lines, early_lines = _verdicts(full.output_dir), _verdicts(early.output_dir)
    assert (
        full_lines.keys()
        == early_lines.keys()
        == {(r["id"], r["rubric_index"]) for r in results(full.output_dir)}
    )
    stopped = {k: line for k, line in early_lines.items() if line["votes_not_asked"]}
    for key, line in early_lines.items():
        ref = full_lines[key]
        assert ref["failed"] is False  # the full protocol decided every rubric: none could differ
        assert (line["score"], line["failed"]) == (ref["score"], ref["failed"]), key
        n = len(line["attempts"])  # the attempts asked are the full protocol's first ones
        assert [a["attempt"] for a in line["attempts"]] == list(range(n))
        assert [a["raw"] for a in line["attempts"]] == [a["raw"] for a in ref["attempts"][:n]]
        assert line["votes"] == ref["votes"][: len(line["votes"])]
        assert line["votes_not_asked"] == 3 - len(line["votes"])
    assert {line["score"] for line in stopped.values()} == {0, 1}  # passes and failures stopped early
    assert len(stopped) < len(early_lines)  # and some rubrics needed their third vote
    assert early.per_sample == full.per_sample
    assert _without_run(early.taxonomy) == _without_run(full.taxonomy)
    # what the run block says: the votes not asked, each at least one call saved
    run = json.loads((early.output_dir / "taxonomy.json").read_text())["run"]
    saved = sum(line["votes_not_asked"] for line in early_lines.values())
    assert run["early_stop"] is True and run["calls_saved"] == saved == early.calls_saved > 0
    assert run["rubrics_stopped_early"] == len(stopped)
    assert saved == 3 * len(early_lines) - sum(len(line["votes"]) for line in early_lines.values())
    assert early.calls == early_requests < full_requests == full.calls
    # each vote not asked was at least one attempt (identical requests share a cache entry)
    attempts = [sum(len(line["attempts"]) for line in x.values()) for x in (full_lines, early_lines)]
    assert attempts[0] - attempts[1] >= saved
    assert "early_stop" not in json.loads((full.output_dir / "taxonomy.json").read_text())["run"]


def test_early_stop_is_in_the_signature_only_when_on(both_protocols):
    full, early, _, _ = both_protocols

    def scorer_sig(out: Path) -> dict[str, Any]:
        sig = json.loads((records_file(out).parent / "signature.json").read_text())
        return sig["benchmark"]["scorers"][0]

    assert "early_stop" not in scorer_sig(full.output_dir)
    assert scorer_sig(early.output_dir)["early_stop"] == "decided-majority"
    spec = json.loads((full.output_dir / "run.json").read_text())["benchmarks"][0]["spec"]
    assert "early_stop" not in json.dumps(spec)  # folders scored before keep their spec


def test_rescore_of_an_early_stopped_folder_gives_the_same_numbers(both_protocols, small_synthetic_set):
    _, early, _, _ = both_protocols  # the judge is stopped
    before = json.loads((early.output_dir / "taxonomy.json").read_text())
    lines = _verdicts(early.output_dir)
    tax = rescore_mmae(early.output_dir, small_synthetic_set.metadata, n_resamples=200)
    assert _without_run(tax) == _without_run(before)
    assert tax["run"]["early_stop"] is True and tax["run"]["rescored"] is True
    assert tax["run"]["calls_saved"] == before["run"]["calls_saved"]
    again = _verdicts(early.output_dir)
    assert {k: (v["score"], v["failed"]) for k, v in again.items()} == {
        k: (v["score"], v["failed"]) for k, v in lines.items()
    }


def test_mmae_score_early_stop_flag(small_synthetic_set, tmp_path):
    with FakeJudgeServer(FakeJudgeConfig(**NOISY)) as server:
        res = runner.invoke(
            app,
            [
                "mmae",
                "score",
                "--predictions",
                str(small_synthetic_set.oracle_predictions),
                "--metadata",
                str(small_synthetic_set.metadata),
                "--base_urls",
                server.base_url,
                "--output_dir",
                str(tmp_path / "out"),
                "--no-progress",
                "--bootstrap",
                "50",
                "--early-stop",
            ],  # fmt: skip
            catch_exceptions=False,
        )
    assert res.exit_code == 0, res.output
    run = json.loads((tmp_path / "out" / "taxonomy.json").read_text())["run"]
    assert run["early_stop"] is True and f"{run['calls_saved']} vote(s) not asked" in res.output


# -- the shared judge cache --------------------------------------------------------------------


def test_two_output_folders_sharing_a_judge_cache(small_synthetic_set, tmp_path, monkeypatch):
    key = "sk-test-early-stop-0123456789"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    cache = tmp_path / "shared" / "judge.sqlite"

    def score(out: Path, url: str) -> Any:
        return runner.invoke(
            app,
            [
                "mmae",
                "score",
                "--predictions",
                str(small_synthetic_set.oracle_predictions),
                "--metadata",
                str(small_synthetic_set.metadata),
                "--base_urls",
                url,
                "--output_dir",
                str(out),
                "--judge-cache",
                str(cache),
                "--no-progress",
                "--bootstrap",
                "50",
            ],  # fmt: skip
            catch_exceptions=False,
        )

    with FakeJudgeServer(FakeJudgeConfig(api_key=key, **WRONG)) as server:
        first = score(tmp_path / "a", server.base_url)
        assert first.exit_code == 0, first.output
        asked = server.stats.requests
        second = score(tmp_path / "b", server.base_url)
        assert second.exit_code == 0, second.output
        assert server.stats.requests == asked > 0  # the second folder asked the judge nothing
    a = json.loads((tmp_path / "a" / "taxonomy.json").read_text())
    b = json.loads((tmp_path / "b" / "taxonomy.json").read_text())
    assert _without_run(a) == _without_run(b)
    ra, rb = a["reliability"]["mmae_rubrics"], b["reliability"]["mmae_rubrics"]  # sums in record order
    assert ra["fleiss_kappa"]["value"] == pytest.approx(rb["fleiss_kappa"]["value"], abs=1e-12)
    assert (ra["items"], ra["requests"], ra["valid_votes"]) == (
        rb["items"],
        rb["requests"],
        rb["valid_votes"],
    )
    assert a["run"]["judge_calls"] == asked and b["run"]["judge_calls"] == 0
    assert b["run"]["cache_hits"] == a["run"]["cache_hits"] + asked  # every attempt answered by the cache
    assert not (tmp_path / "a" / "judge_cache.sqlite").exists()
    for path in cache.parent.iterdir():  # the database and any WAL left: never the API key
        assert key.encode() not in path.read_bytes()
    refused = runner.invoke(
        app,
        ["mmae", "score", "--predictions", "p.json", "--base_urls", "http://127.0.0.1:9/v1",
         "--judge-cache", str(cache), "--no-cache"],
    )  # fmt: skip
    assert refused.exit_code != 0 and "--judge-cache" in refused.output


def test_audioeval_run_shares_a_judge_cache_and_takes_early_stop_from_the_spec(synthetic_set, tmp_path):
    spec = tmp_path / "mmae.yaml"
    spec.write_text(
        "name: mmae-syn\ntask: audio_edit\n"
        f"source: {{type: mmae, path: {json.dumps(str(synthetic_set.metadata))}}}\n"
        "scorers: [{mmae_rubrics: {early_stop: true}}]\n",
        encoding="utf-8",
    )
    cache = tmp_path / "cache.sqlite"
    preds = synthetic_set.oracle_predictions

    def run(out: Path, url: str) -> Any:
        return runner.invoke(
            app,
            [
                "run",
                "--benchmark",
                str(spec),
                "--model",
                f"predictions:{preds}",
                "--judge",
                url,
                "--judge-model",
                "fake",
                "-o",
                str(out),
                "--judge-cache",
                str(cache),
                "--no-progress",
                "--resamples",
                "50",
                "--limit",
                "10",
            ],  # fmt: skip
            catch_exceptions=False,
        )

    with FakeJudgeServer(FakeJudgeConfig(model="fake", **WRONG)) as server:
        first = run(tmp_path / "a", server.base_url)
        assert first.exit_code == 0, first.output
        asked = server.stats.requests
        second = run(tmp_path / "b", server.base_url)
        assert second.exit_code == 0, second.output
        assert server.stats.requests == asked > 0
    taxes = [json.loads(next((tmp_path / x / "mmae-syn").glob("*/taxonomy.json")).read_text()) for x in "ab"]
    assert _without_run(taxes[0]) == _without_run(taxes[1])
    assert taxes[0]["run"]["early_stop"] is True and taxes[0]["run"]["calls_saved"] > 0
    assert taxes[1]["run"]["calls_saved"] == taxes[0]["run"]["calls_saved"]
    assert not (tmp_path / "a" / "response_cache.sqlite").exists()
    refused = runner.invoke(app, ["run", "-b", str(spec), "-m", f"predictions:{preds}", "--judge-cache",
                                  str(cache), "--no-cache"])  # fmt: skip
    assert refused.exit_code != 0 and "--judge-cache" in refused.output


WRITER = """
import sys
from audioeval.store.response_cache import ResponseCache
cache = ResponseCache(sys.argv[1])
for i in range(300):
    cache.put(f"{sys.argv[2]}-{i}", "answer")
    assert cache.get(f"{sys.argv[2]}-{i // 2}") == "answer"
cache.close()
"""


def test_two_processes_write_one_cache_at_once(tmp_path):
    from audioeval.store.response_cache import ResponseCache

    path = tmp_path / "shared.sqlite"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), name]) for name in ("a", "b")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    cache = ResponseCache(path)
    try:
        assert all(cache.get(f"{name}-{i}") == "answer" for name in "ab" for i in range(300))
    finally:
        cache.close()


def test_mcq_judge_eval_and_decompose_share_a_judge_cache_across_output_folders(tmp_path):
    from tests.fakes.mcq_server import FakeMcqServer
    from tests.fakes.text_llm_server import FakeTextLlmServer
    from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer
    from tests.test_judge_eval import JUDGE, judge_bench, judge_eval
    from tests.test_mcq_rubrics import predictions, score_cli
    from tests.test_rubric_decompose import decompose_cli, write_captions

    cache = str(tmp_path / "cache.sqlite")
    preds = predictions(tmp_path / "mcq")
    with FakeMcqServer() as server:
        for out in ("mcq_a", "mcq_b"):
            res = score_cli(preds, tmp_path / out, server.base_url, "--judge-cache", cache)
            assert res.exit_code == 0, res.output
            if out == "mcq_a":
                asked = server.stats.judge_requests
        assert server.stats.judge_requests == asked > 0
    bench = judge_bench(tmp_path / "data")
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE)) as judge:
        for out in ("eval_a", "eval_b"):
            res = judge_eval(bench, judge.base_url, tmp_path / out, "--judge-cache", cache)
            assert res.exit_code == 0, res.output
            if out == "eval_a":
                asked = judge.stats.requests
        assert judge.stats.requests == asked > 0
    captions = write_captions(tmp_path)
    with FakeTextLlmServer() as llm:
        for out in ("rubrics_a.jsonl", "rubrics_b.jsonl"):
            res = decompose_cli(captions, tmp_path / out, llm.base_url, "--judge-cache", cache)
            assert res.exit_code == 0, res.output
            if out == "rubrics_a.jsonl":
                asked = llm.stats.requests
        assert llm.stats.requests == asked > 0
    assert (tmp_path / "rubrics_a.jsonl").read_text() == (tmp_path / "rubrics_b.jsonl").read_text()
    for out in ("mcq_a", "eval_a", "rubrics_a.jsonl.run"):
        assert not list((tmp_path / out).glob("*.sqlite"))  # the shared file, not one per folder
