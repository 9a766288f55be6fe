"""Failed work is never a success: exit code 4 past `--max-failed` (every output written), and
only usable answers enter the response cache, so a rerun retries what failed."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli import exit_codes
from audioeval.cli.failed_work import MaxFailed, parse_max_failed
from audioeval.core.errors import InputError
from audioeval.store.response_cache import ResponseCache
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
from tests.fakes.mcq_server import FakeMcqServer, write_tone_set
from tests.mmae_helpers import config, records_file, results, rubric_count, run_mmae
from tests.run_helpers import demo_speech_as_wavs, write_jsonl

runner = CliRunner()
RARE = "near 990 Hz"  # a rubric of 7 samples of the synthetic set, 2 of the small one (first: sample 2)


def cli(*args: Any) -> Any:
    return runner.invoke(app_(), [str(a) for a in args], catch_exceptions=False)


def app_() -> Any:
    from audioeval.cli.main import app

    return app


def mmae_score(synthetic_set: Any, url: str, out: Path, *extra: Any) -> Any:
    return cli(
        "mmae", "score", "--predictions", synthetic_set.oracle_predictions, "--metadata",
        synthetic_set.metadata, "--base_urls", url, "--output_dir", out, "--no-progress",
        "--max_attempts", 3, "--bootstrap", 10, *extra,
    )  # fmt: skip


def test_max_failed_is_a_share_or_a_count() -> None:
    assert parse_max_failed("0") == MaxFailed(count=0)
    assert parse_max_failed("3") == MaxFailed(count=3)
    assert parse_max_failed("1.0") == MaxFailed(share=1.0)
    assert parse_max_failed("5%") == MaxFailed(share=0.05)
    assert parse_max_failed("5%").allows(5, 100) and not parse_max_failed("5%").allows(6, 100)
    assert parse_max_failed("2").allows(2, 1000) and not parse_max_failed("2").allows(3, 1000)
    for bad in ("nan", "-1", "1.5", "150%", "some", ""):
        with pytest.raises(InputError, match="--max-failed"):
            parse_max_failed(bad)


def test_cache_refuses_what_the_caller_rejects(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "c.sqlite")
    cache.put("k", "")
    assert cache.get("k", lambda t: bool(t)) is None and (cache.rejected, cache.hits) == (1, 0)
    assert cache.get("k") == ""  # without a check, as stored
    cache.close()


def test_empty_judge_answers_are_not_cached_and_a_rerun_judges_them(small_synthetic_set, tmp_path):
    out = tmp_path / "o"
    total = rubric_count(small_synthetic_set.metadata)
    with FakeJudgeServer(FakeJudgeConfig(answer_style="empty")) as empty:
        res = mmae_score(small_synthetic_set, empty.base_url, out)
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        assert "nothing was scored" in res.output and "empty answer" in res.output
        assert empty.stats.requests == total * 3
    assert json.loads((out / "taxonomy.json").read_text())["overall"]["n_rubrics_failed"] == total
    with FakeJudgeServer(FakeJudgeConfig()) as good:  # a new judge, at another address
        again = mmae_score(small_synthetic_set, good.base_url, out)
        assert again.exit_code == 0, again.output
        assert f"judged {total} rubric(s) now" in again.output
        # asked live (identical rubrics of the set may share an answer cached in this run)
        assert good.stats.answered > total and f"{good.stats.answered} judge call(s)" in again.output
    overall = json.loads((out / "taxonomy.json").read_text())["overall"]
    assert overall["EMR"] == 100.0 and overall["n_rubrics_failed"] == 0


def test_cached_answers_that_no_longer_parse_are_asked_again(small_synthetic_set, tmp_path):
    out = tmp_path / "o"
    with FakeJudgeServer(FakeJudgeConfig()) as judge:
        cfg = config(
            small_synthetic_set.oracle_predictions,
            small_synthetic_set.metadata,
            out,
            [judge.base_url],
            concurrency=1,
        )
        first = run_mmae(cfg)
        # an older version cached empty answers: poison every entry, forget the results
        with sqlite3.connect(out / "judge_cache.sqlite") as db:
            db.execute("UPDATE responses SET text = ''")
        records_file(out).unlink()
        second = run_mmae(cfg)
    # as many live calls as the first time; the only hits are those the first run had too
    # (identical rubrics of the set sharing an answer); no poisoned entry was used
    assert first.calls + first.cache_hits == rubric_count(small_synthetic_set.metadata) * 3
    assert (second.calls, second.cache_hits) == (first.calls, first.cache_hits)
    assert all(len(r["attempts"]) == 3 and not r["failed"] for r in results(out))
    assert second.taxonomy["overall"]["EMR"] == 100.0


def test_mmae_score_exits_4_when_rubrics_fail_unless_max_failed_allows(small_synthetic_set, tmp_path):
    with FakeJudgeServer(FakeJudgeConfig(empty_when=RARE)) as judge:
        res = mmae_score(small_synthetic_set, judge.base_url, tmp_path / "a")
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        assert "2 of 12 sample(s) failed, more than --max-failed 0 allows" in res.output
        assert "first failure: id 'syn00002', rubric 1: only 0 valid votes" in res.output
        assert (tmp_path / "a" / "taxonomy.json").exists() and (tmp_path / "a" / "per_sample.json").exists()
        ok = mmae_score(small_synthetic_set, judge.base_url, tmp_path / "b", "--max-failed", "1.0")
        assert ok.exit_code == 0, ok.output
        # a rerun judges the 2 failed rubrics again, and they fail again
        counted = mmae_score(small_synthetic_set, judge.base_url, tmp_path / "b", "--max-failed", "1")
        assert counted.exit_code == exit_codes.TOO_MANY_FAILURES, counted.output
        allowed = mmae_score(small_synthetic_set, judge.base_url, tmp_path / "b", "--max-failed", "2")
        assert allowed.exit_code == 0, allowed.output


def test_mmae_score_counts_missing_predictions_as_failed_work(small_synthetic_set, tmp_path):
    """A predictions file lacking samples: the headline counts them at 0, and the command says
    the system did not produce everything (exit 4) unless --max-failed allows it."""
    rows = json.loads(Path(small_synthetic_set.oracle_predictions).read_text())
    root = Path(small_synthetic_set.oracle_predictions).parent
    for row in rows:
        part = row["messages"][-1]["content"][0]
        part["audio_url"] = str(root / part["audio_url"])
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(rows[:8]))
    with FakeJudgeServer(FakeJudgeConfig()) as judge:
        args = ["mmae", "score", "--predictions", partial, "--metadata", small_synthetic_set.metadata,
                "--audio_root", root, "--base_urls", judge.base_url, "--no-progress", "--bootstrap", "50"]  # fmt: skip
        res = cli(*args, "--output_dir", tmp_path / "a")
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        text = " ".join(res.output.split())
        assert "4 of 12 sample(s) failed" in text and "sample has no prediction" in text
        assert "partial.json has no answer for 4 id(s)" in text and "rerunning will not help" in text
        assert "rerunning the same command retries" not in text
        ok = cli(*args, "--output_dir", tmp_path / "b", "--max-failed", "4")
        assert ok.exit_code == 0, ok.output
    overall = json.loads((tmp_path / "a" / "taxonomy.json").read_text())["overall"]
    assert overall["n"] == 12 and overall["EMR"] == round(100 * 8 / 12, 2)


def test_run_with_a_judge_exits_4_when_rubrics_fail(synthetic_set, tmp_path):
    from tests.test_run_mmae import JUDGE, write_spec

    spec = write_spec(tmp_path / "mmae.yaml", synthetic_set.metadata)
    args = ["run", "-b", spec, "-m", f"predictions:{synthetic_set.oracle_predictions}", "--limit", 4,
            "--judge-model", JUDGE, "--no-progress", "--resamples", 10]  # fmt: skip
    with FakeJudgeServer(FakeJudgeConfig(model=JUDGE, empty_when=RARE)) as judge:
        res = cli(*args, "--judge", judge.base_url, "-o", tmp_path / "a")
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        assert "1 of 4 sample(s) failed" in res.output and "id 'syn00002'" in res.output
        assert (tmp_path / "a" / "summary.json").exists()
        ok = cli(*args, "--judge", judge.base_url, "-o", tmp_path / "b", "--max-failed", "1.0")
        assert ok.exit_code == 0, ok.output


def test_mcq_predict_exits_4_when_items_fail(tmp_path: Path) -> None:
    root = tmp_path / "set"
    write_tone_set(root, 4)
    (root / "audio" / "tone01.wav").unlink()
    with FakeMcqServer() as server:
        args = ["mcq", "predict", "--benchmark", "mmar", "--audio_root", root, "--base_urls",
                server.base_url, "--model", "fake-audio-lm", "--no-progress"]  # fmt: skip
        res = cli(*args, "--out", tmp_path / "a.jsonl")
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        assert "1 of 4 item(s) failed" in res.output and "tone01" in res.output
        assert (tmp_path / "a.jsonl").exists()
        assert cli(*args, "--out", tmp_path / "b.jsonl", "--max-failed", "25%").exit_code == 0


def test_codec_exits_4_when_a_clip_cannot_be_read(tmp_path: Path) -> None:
    manifest = demo_speech_as_wavs(tmp_path, n=1)
    (tmp_path / "bad.wav").write_bytes(b"RIFF but not audio")
    rows = [json.loads(x) for x in manifest.read_text().splitlines()]
    rows.append({"id": "bad", "audio": "bad.wav", "text": "nothing"})
    write_jsonl(manifest, rows)
    args = ["codec", "--codec", "mulaw", "-b", manifest, "--no-progress", "--resamples", 0]
    res = cli(*args, "-o", tmp_path / "a")
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    assert "1 of 2 sample(s) failed" in res.output and "bad" in res.output
    assert (tmp_path / "a" / "summary.json").exists()
    assert cli(*args, "-o", tmp_path / "b", "--max-failed", "1").exit_code == 0
