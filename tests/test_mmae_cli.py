"""The documented command line, run as a user would, in a subprocess."""

import json
import os
import signal
import subprocess
import sys
import time

from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer

AUDIOEVAL = [sys.executable, "-m", "audioeval.cli.main"]


def run(*args, env=None, **kw):
    return subprocess.run(
        [*AUDIOEVAL, *map(str, args)], capture_output=True, text=True, env=env, timeout=300, **kw
    )


def test_score_with_official_flag_spellings(small_synthetic_set, judge_server, tmp_path):
    out = tmp_path / "scores"
    p = run(
        "mmae",
        "score",
        "--predictions",
        small_synthetic_set.oracle_predictions,
        "--metadata",
        small_synthetic_set.metadata,
        "--base_urls",
        f"{judge_server.base_url},{judge_server.base_url}",
        "--output_dir",
        out,
        "--concurrency",
        8,
        "--retries",
        3,
        "--max_attempts",
        10,
        "--timeout",
        60,
        "--model",
        "Qwen3Omni-Instruct",
        "--no-progress",
    )
    assert p.returncode == 0, p.stderr
    assert "Instruction Following" in p.stdout and "100.00" in p.stdout
    tax = json.loads((out / "taxonomy.json").read_text())
    assert tax["overall"]["EMR"] == 100.0 and {"IFR", "CR", "EMR", "n"} <= set(tax["overall"])


def test_hyphenated_flags_and_default_audio_root(small_synthetic_set, judge_server, tmp_path):
    p = run(
        "mmae",
        "score",
        "--predictions",
        small_synthetic_set.oracle_predictions,
        "--metadata",
        small_synthetic_set.metadata,
        "--base-urls",
        judge_server.base_url,
        "--output-dir",
        tmp_path / "o",
        "--max-attempts",
        5,
        "--audio-part",
        "input_audio",
        "--slice-clips",
        "--no-progress",
    )
    assert p.returncode == 0, p.stderr
    assert judge_server.stats.part_types.get("input_audio", 0) > 0


def test_baseline_then_score(small_synthetic_set, judge_server, tmp_path):
    p = run(
        "mmae",
        "baseline",
        "noise",
        "--metadata",
        small_synthetic_set.metadata,
        "--audio_root",
        small_synthetic_set.root,
        "--out",
        tmp_path / "noise",
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "noise" / "predictions.json").exists()
    assert len(list((tmp_path / "noise" / "audio").glob("*.wav"))) == 12  # one edit per sample
    p = run(
        "mmae",
        "score",
        "--predictions",
        tmp_path / "noise" / "predictions.json",
        "--metadata",
        small_synthetic_set.metadata,
        "--base_urls",
        judge_server.base_url,
        "--output_dir",
        tmp_path / "o",
        "--audio_root",
        small_synthetic_set.root,
        "--no-progress",
    )
    assert p.returncode == 0, p.stderr
    assert json.loads((tmp_path / "o" / "taxonomy.json").read_text())["overall"]["EMR"] == 0.0


def test_bad_input_gives_one_clear_line_and_exit_2(tmp_path):
    bad = tmp_path / "MMAE-meta.json"
    bad.write_text("[{")
    preds = tmp_path / "p.json"
    preds.write_text("[]")
    p = run(
        "mmae",
        "score",
        "--predictions",
        preds,
        "--metadata",
        bad,
        "--base_urls",
        "http://127.0.0.1:9/v1",
        "--output_dir",
        tmp_path / "o",
        "--no-progress",
    )
    assert p.returncode == 2
    assert "MMAE-meta.json: malformed JSON" in p.stderr and "Traceback" not in p.stderr


def rubrics_recorded(out):
    """Rubrics of the samples in the record stream (a line cut by a kill is not one)."""
    stream = out / "mmae" / "predictions" / "records.jsonl"
    n = 0
    for line in stream.read_text().splitlines() if stream.exists() else []:
        try:
            n += len(json.loads(line)["sample"]["fields"]["rubrics"])
        except ValueError:
            continue
    return n


def test_kill_9_mid_run_then_resume_finishes_without_repeats(synthetic_set, tmp_path):
    out = tmp_path / "o"
    with FakeJudgeServer(FakeJudgeConfig(latency_s=0.05)) as s:
        args = [
            "mmae",
            "score",
            "--predictions",
            synthetic_set.oracle_predictions,
            "--metadata",
            synthetic_set.metadata,
            "--base_urls",
            s.base_url,
            "--output_dir",
            out,
            "--concurrency",
            4,
            "--no-progress",
        ]
        proc = subprocess.Popen(
            [*AUDIOEVAL, *map(str, args)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            if rubrics_recorded(out) >= 30:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        before = rubrics_recorded(out)
        assert 30 <= before < 119
        p = run(*args)
        assert p.returncode == 0, p.stderr
    lines = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    keys = [(x["id"], x["rubric_index"]) for x in lines]
    assert len(keys) == len(set(keys)) == 119
    assert f"{119 - before} rubric(s) now, {before} reused" in p.stdout.replace("\n", " ")
    assert json.loads((out / "taxonomy.json").read_text())["overall"]["EMR"] == 100.0


def test_ctrl_c_exits_130_and_a_rerun_resumes(synthetic_set, tmp_path):
    out = tmp_path / "o"
    with FakeJudgeServer(FakeJudgeConfig(latency_s=0.05)) as s:
        args = ["mmae", "score", "--predictions", synthetic_set.oracle_predictions, "--metadata",
                synthetic_set.metadata, "--base_urls", s.base_url, "--output_dir", out,
                "--concurrency", 4, "--no-progress"]  # fmt: skip
        # a suite started in the background (`pytest &`) runs with SIGINT ignored, and a child
        # inherits that: give it the default handler, as a terminal's foreground process has
        proc = subprocess.Popen(
            [*AUDIOEVAL, *map(str, args)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        deadline = time.time() + 60
        while time.time() < deadline and rubrics_recorded(out) < 30:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err
        assert "interrupted" in err and "Traceback" not in err
        before = rubrics_recorded(out)
        assert 30 <= before < 119
        p = run(*args)
        assert p.returncode == 0, p.stderr
    assert json.loads((out / "taxonomy.json").read_text())["overall"]["EMR"] == 100.0


def test_rescore_command(small_synthetic_set, judge_server, tmp_path):
    out = tmp_path / "o"
    assert (
        run(
            "mmae",
            "score",
            "--predictions",
            small_synthetic_set.oracle_predictions,
            "--metadata",
            small_synthetic_set.metadata,
            "--base_urls",
            judge_server.base_url,
            "--output_dir",
            out,
            "--no-progress",
        ).returncode
        == 0
    )
    before = judge_server.stats.requests
    (out / "taxonomy.json").unlink()
    p = run("mmae", "rescore", out, "--metadata", small_synthetic_set.metadata, "--reparse")
    assert p.returncode == 0, p.stderr
    assert json.loads((out / "taxonomy.json").read_text())["overall"]["EMR"] == 100.0
    assert judge_server.stats.requests == before
    p = run("mmae", "rescore", tmp_path / "nothing-here", "--metadata", small_synthetic_set.metadata)
    assert p.returncode == 2 and "not an audioeval run directory" in p.stderr
