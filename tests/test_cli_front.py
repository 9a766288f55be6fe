"""The front door: `-h` and `--version` on every level, and files that follow the umask."""

from __future__ import annotations

import os
import stat
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from audioeval import __version__
from audioeval.cli.main import app
from audioeval.store.atomic import write_json_atomic

runner = CliRunner()


def test_version_flag_prints_the_version():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.strip() == __version__


@pytest.mark.parametrize("argv", [["-h"], ["run", "-h"], ["mmae", "score", "-h"], ["leaderboard", "-h"]])
def test_short_help_works_on_every_level(argv):
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output


def test_summary_files_follow_the_umask(tmp_path):
    # a child process: the umask is process-wide, and the mode is read once per process
    code = (
        "import os; os.umask(0o022); from audioeval.store.atomic import write_json_atomic; "
        f"write_json_atomic({str(tmp_path / 'shared.json')!r}, {{'a': 1}}); "
        "os.umask(0o077); "
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    assert stat.S_IMODE(os.stat(tmp_path / "shared.json").st_mode) == 0o644
    write_json_atomic(tmp_path / "mine.json", {"a": 1})
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(os.stat(tmp_path / "mine.json").st_mode) == 0o666 & ~mask
