"""Output folders: one that cannot be used is a one-line error (exit 2) before any work, and
one audioeval process at a time writes to a folder (a second one exits 5 naming the first)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.store.run_lock import LOCK_FILE, hold_run_lock
from tests.fakes.mcq_server import write_tone_set
from tests.run_helpers import tone_asr_manifest

runner = CliRunner()
NO_JUDGE = "http://127.0.0.1:9/v1"  # never contacted: every command here stops before


def commands(tmp_path: Path, out: Path) -> dict[str, list[str]]:
    """Every command that writes an output folder, writing to `out`, with inputs it can read."""
    manifest = tone_asr_manifest(tmp_path / "asr", n=2)
    mcq = tmp_path / "mcq"
    items = write_tone_set(mcq, 2)
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps({**x, "answer_prediction": x["answer"]}) + "\n" for x in items))
    meta = tmp_path / "MMAE-meta.json"
    meta.write_text("[]")
    return {
        "mmae score": ["mmae", "score", "--predictions", str(meta), "--metadata", str(meta),
                       "--base_urls", NO_JUDGE, "--output_dir", str(out), "--no-progress"],
        "mmae rescore": ["mmae", "rescore", str(out), "--metadata", str(meta)],
        "mmae baseline": ["mmae", "baseline", "identity", "--metadata", str(meta),
                          "--audio_root", str(tmp_path), "--out", str(out)],
        "mmae synth": ["mmae", "synth", "--out", str(out), "--n", "2"],
        "mcq score": ["mcq", "score", "--benchmark", "mmar", "--predictions", str(preds),
                      "--output_dir", str(out)],
        "mcq predict": ["mcq", "predict", "--benchmark", "mmar", "--audio_root", str(mcq),
                        "--base_urls", NO_JUDGE, "--model", "m", "--out", str(tmp_path / "p.jsonl"),
                        "--run_dir", str(out), "--no-progress"],
        "run": ["run", "-b", str(manifest), "--task", "asr", "-m", "constant", "-o", str(out),
                "--no-progress"],
        "codec": ["codec", "--codec", "mulaw", "-b", str(manifest), "-o", str(out), "--no-progress"],
        "rescore": ["rescore", str(out)],
    }  # fmt: skip


def one_line(res, code: int) -> str:  # type: ignore[no-untyped-def]
    assert res.exit_code == code, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in res.output, res.output
    return lines[0]


ALL = ["mmae score", "mmae rescore", "mmae baseline", "mmae synth", "mcq score", "mcq predict",
       "run", "codec", "rescore"]  # fmt: skip
LOCKING = ["mmae score", "mmae rescore", "mcq score", "mcq predict", "run", "codec", "rescore"]


@pytest.mark.parametrize("command", ALL)
def test_an_output_folder_that_is_a_file_is_refused(tmp_path: Path, command: str) -> None:
    blocker = tmp_path / "results.txt"
    blocker.write_text("keep me")
    line = one_line(runner.invoke(app, commands(tmp_path, blocker)[command]), exit_codes.BAD_INPUT)
    assert str(blocker) in line and "is an existing file" in line
    assert blocker.read_text() == "keep me"


@pytest.mark.parametrize("command", ["mmae score", "mmae synth", "mcq score", "run"])
def test_an_output_folder_under_a_file_is_refused(tmp_path: Path, command: str) -> None:
    blocker = tmp_path / "results.txt"
    blocker.write_text("")
    out = blocker / "out"
    line = one_line(runner.invoke(app, commands(tmp_path, out)[command]), exit_codes.BAD_INPUT)
    assert str(out) in line and "cannot create the output folder (a part of its path is a file)" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only folders")
@pytest.mark.parametrize("command", ["mmae score", "mcq score", "run"])
def test_an_output_folder_that_is_not_writable_is_refused(tmp_path: Path, command: str) -> None:
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o500)
    try:
        line = one_line(runner.invoke(app, commands(tmp_path, out)[command]), exit_codes.BAD_INPUT)
    finally:
        out.chmod(0o700)
    assert str(out) in line and "not writable" in line


def test_mmae_cache_that_is_a_folder_is_refused(synthetic_set, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    res = runner.invoke(
        app,
        ["mmae", "score", "--predictions", str(synthetic_set.oracle_predictions),
         "--metadata", str(synthetic_set.metadata), "--base_urls", NO_JUDGE,
         "--output_dir", str(tmp_path / "o"), "--cache", str(cache), "--no-progress"],
    )  # fmt: skip
    line = one_line(res, exit_codes.BAD_INPUT)
    assert str(cache) in line and "--cache" in line and "not a folder" in line
    assert not (tmp_path / "o").exists()


def test_mcq_predict_out_that_is_a_folder_is_refused(tmp_path: Path) -> None:
    args = commands(tmp_path, tmp_path / "run")["mcq predict"]
    folder = tmp_path / "p.jsonl"
    folder.mkdir()
    line = one_line(runner.invoke(app, args), exit_codes.BAD_INPUT)
    assert str(folder) in line and "--out" in line and "not a folder" in line


@pytest.mark.parametrize("command", LOCKING)
def test_a_second_command_on_a_held_folder_exits_5_naming_the_holder(tmp_path: Path, command: str) -> None:
    out = tmp_path / "held"
    args = commands(tmp_path, out)[command]
    with hold_run_lock(out):
        line = one_line(runner.invoke(app, args), exit_codes.LOCKED)
        assert str(out) in line and f"pid {os.getpid()}" in line
    assert sorted(p.name for p in out.iterdir()) == [LOCK_FILE]  # the refused command wrote nothing


def test_after_the_holder_ends_the_command_runs(tmp_path: Path) -> None:
    out = tmp_path / "held"
    args = commands(tmp_path, out)["run"]
    with hold_run_lock(out):
        assert runner.invoke(app, args).exit_code == exit_codes.LOCKED
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert (out / "summary.json").is_file()
    assert (out / LOCK_FILE).read_text().strip() == str(os.getpid())  # the last holder's pid


def test_a_killed_holder_leaves_no_lock(tmp_path: Path) -> None:
    out = tmp_path / "held"
    args = commands(tmp_path, out)["run"]
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time; from pathlib import Path; from audioeval.store.run_lock import hold_run_lock\n"
         "with hold_run_lock(Path(sys.argv[1])):\n    print('held', flush=True); time.sleep(120)",
         str(out)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        line = one_line(runner.invoke(app, args), exit_codes.LOCKED)
        assert f"pid {holder.pid}" in line
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output


def test_the_default_folder_names_every_benchmark_and_model_and_a_changed_setting_gets_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from audioeval.cli.main import app

    monkeypatch.chdir(tmp_path)
    cli = CliRunner()
    args = ["run", "-m", "oracle,constant", "-b", "demo-mcq,demo-speech-en", "--no-progress"]
    first = cli.invoke(app, args)
    assert first.exit_code == 0, first.output
    [folder] = list((tmp_path / "runs").iterdir())
    assert folder.name.startswith("demo-mcq+demo-speech-en-oracle+constant-"), folder.name
    again = cli.invoke(app, args)  # the same command resumes the same folder
    assert again.exit_code == 0 and "reused" in again.output
    assert len(list((tmp_path / "runs").iterdir())) == 1
    limited = cli.invoke(app, [*args, "--limit", "2"])  # a setting that moves a number
    assert limited.exit_code == 0, limited.output
    assert len(list((tmp_path / "runs").iterdir())) == 2
