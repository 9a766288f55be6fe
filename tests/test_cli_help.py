"""Every command's help at 80 columns (`cli/help_layout.py`): each option and argument name
whole, and help text shown as written (brackets included), groups' command lists too."""

from __future__ import annotations

import re

import pytest
import typer
from typer.testing import CliRunner

from audioeval.cli.main import app

runner = CliRunner()


def _walk() -> list[tuple[list[str], object]]:
    """Every command and group of the app, by the words that reach it."""
    out: list[tuple[list[str], object]] = []

    def walk(cmd: object, path: list[str]) -> None:
        out.append((path, cmd))
        for name, sub in (getattr(cmd, "commands", None) or {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(app), [])
    return out


COMMANDS = _walk()


def _help(path: list[str], columns: int = 80) -> str:
    res = runner.invoke(app, [*path, "-h"], env={"COLUMNS": str(columns)})
    assert res.exit_code == 0, res.output
    return res.output


def test_the_walk_reaches_presets_and_groups() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"run", "leaderboard", "list", "mmae score", "mcq score", "runtime"} <= names


@pytest.mark.parametrize("path,cmd", COMMANDS, ids=[" ".join(p) or "audioeval" for p, _ in COMMANDS])
def test_every_option_name_is_whole_at_80_columns(path: list[str], cmd: object) -> None:
    text = _help(path)
    assert max(len(line) for line in text.splitlines()) <= 80
    for param in cmd.params:  # type: ignore[attr-defined]
        if getattr(param, "hidden", False):
            continue
        names = [*param.opts, *param.secondary_opts] if param.param_type_name == "option" else []
        for name in names:
            assert re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text), f"{name} cut in {path} -h"
        help_text = getattr(param, "help", None) or ""
        for bracketed in re.findall(r"\[[\w.,-]+\]", help_text):  # markup-like text is shown as written
            assert bracketed in text, f"{bracketed} of {param.name} lost in {path} -h"
    for name in getattr(cmd, "commands", None) or {}:
        assert re.search(rf"│ {re.escape(name)} ", text), f"command {name} cut in {path} -h"


def test_run_help_keeps_the_install_extra_and_long_words() -> None:
    text = _help(["run"])
    assert "pip install 'audioeval[ray]'" in text
    assert "--judge-concurrency" in text and "--judge-api-key-env" in text
    flat = "".join(line.strip("│ ") for line in text.splitlines())
    assert "temperature=0,max_tokens=512,top_p=1,seed=0" in flat  # folded, not cut with …
