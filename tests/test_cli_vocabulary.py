"""One spelling per concept across every command (issue 24): the option walk.

Every visible option has one long name (plus an optional short one and its `--no-` form), with
hyphens; a concept is spelled the same everywhere (the table below); the underscore form of
every option, and each command's hidden aliases (older spellings, the official scripts' flags),
are accepted and rewritten to the canonical name.
"""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from audioeval.cli.main import app
from audioeval.cli.options import AliasedCommand

# concept -> (canonical name, other spellings that must not be visible anywhere)
CONCEPTS = {
    "output folder": ("--output-dir", {"--output_dir", "--out", "--run-dir", "--run_dir", "--outdir"}),
    "judge endpoints": ("--judge", {"--base_urls", "--base-urls", "--judge-base-urls", "--llm", "--judge-url"}),
    "judge model": ("--judge-model", {"--llm-model"}),
    "judge concurrency": ("--judge-concurrency", {"--llm-concurrency"}),
    "judge timeout": ("--judge-timeout", {"--llm-timeout"}),
    "judge API key": ("--judge-api-key-env", {"--llm-api-key-env"}),
    "judge attempts": ("--judge-max-attempts", {"--max-attempts", "--max_attempts"}),
    "judge votes": ("--judge-votes", {"--retries"}),
    "bootstrap resamples": ("--resamples", {"--bootstrap", "--n-resamples"}),
    "response cache file": ("--cache", {"--judge-cache", "--cache-path"}),
    "tokens per answer": ("--max-tokens", {"--max_tokens"}),
    "data root": ("--data-root", {"--data_root"}),
    "benchmark": ("--benchmark", {"--bench"}),
}
SHORT = {"--output-dir": "-o", "--model": "-m", "--benchmark": "-b"}


def _commands() -> list[tuple[str, object]]:
    out = []

    def walk(cmd: object, path: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
        else:
            out.append((" ".join(path), cmd))

    walk(typer.main.get_command(app), [])
    return out


COMMANDS = _commands()


def _visible(cmd: object) -> list:
    return [p for p in cmd.params if p.param_type_name == "option" and not getattr(p, "hidden", False)]  # type: ignore[attr-defined]


def test_the_walk_finds_every_command() -> None:
    names = {name for name, _ in COMMANDS}
    assert {"run", "mmae score", "mcq score", "mcq predict", "judge-eval", "rubric decompose", "codec"} <= names


@pytest.mark.parametrize(("name", "cmd"), COMMANDS, ids=[n for n, _ in COMMANDS])
def test_one_visible_spelling_per_concept(name: str, cmd: object) -> None:
    forbidden = {alt: canonical for canonical, alts in CONCEPTS.values() for alt in alts}
    for param in _visible(cmd):
        longs = [o for o in param.opts if o.startswith("--")]
        shorts = [o for o in param.opts if not o.startswith("--")]
        assert len(longs) == 1, f"{name}: {param.opts} has more than one visible long name"
        assert len(shorts) <= 1, f"{name}: {param.opts}"
        for opt in [*longs, *param.secondary_opts]:
            assert "_" not in opt, f"{name}: {opt} (hyphens, not underscores)"
            assert opt not in forbidden, f"{name}: {opt} is spelled {forbidden[opt]} elsewhere"
            assert "url" not in opt.lower(), f"{name}: {opt} (endpoints are --judge, or a model's NAME@URL)"
        if longs[0] in SHORT and shorts:
            assert shorts == [SHORT[longs[0]]], f"{name}: {longs[0]} is short {SHORT[longs[0]]}"
        assert "\n" not in (param.help or ""), f"{name}: {longs[0]}'s help has a hard line break"


@pytest.mark.parametrize(("name", "cmd"), COMMANDS, ids=[n for n, _ in COMMANDS])
def test_underscore_forms_and_aliases_are_accepted(name: str, cmd: object) -> None:
    assert isinstance(cmd, AliasedCommand), f"{name} does not accept underscore forms"
    for param in cmd.params:
        for opt in [*param.opts, *getattr(param, "secondary_opts", [])]:
            if opt.startswith("--") and "-" in opt[2:]:
                assert cmd.canonical_option("--" + opt[2:].replace("-", "_")) == opt
    known = {o for p in cmd.params for o in (*p.opts, *getattr(p, "secondary_opts", ()))}
    for alias, target in cmd.ALIASES.items():
        assert target in known, f"{name}: alias {alias} -> unknown {target}"
        assert cmd.canonical_option(alias) == target


def test_official_mmae_spellings_stay_accepted_on_its_preset() -> None:
    cmd = dict(COMMANDS)["mmae score"]
    official = {
        "--base_urls": "--judge",
        "--output_dir": "--output-dir",
        "--concurrency": "--judge-concurrency",
        "--retries": "--judge-votes",
        "--max_attempts": "--judge-max-attempts",
        "--timeout": "--judge-timeout",
        "--model": "--judge-model",
        "--bootstrap": "--resamples",
    }
    for spelled, canonical in official.items():
        assert cmd.canonical_option(spelled) == canonical  # type: ignore[attr-defined]


def test_aliases_and_underscores_work_on_the_command_line(tmp_path) -> None:
    runner = CliRunner()
    old = runner.invoke(app, ["mmae", "synth", "--out", str(tmp_path / "a"), "--n", "2"])
    assert old.exit_code == 0, old.output
    under = runner.invoke(app, ["mmae", "synth", "--output_dir", str(tmp_path / "b"), "--n=2"])
    assert under.exit_code == 0, under.output
    new = runner.invoke(app, ["mmae", "synth", "-o", str(tmp_path / "c"), "--n", "2"])
    assert new.exit_code == 0, new.output
    for folder in "abc":
        assert (tmp_path / folder / "MMAE-meta.json").is_file()
    baseline = runner.invoke(
        app,
        ["mmae", "baseline", "identity", "--metadata", str(tmp_path / "a" / "MMAE-meta.json"),
         "--audio_root", str(tmp_path / "a"), "--out", str(tmp_path / "ident")],
    )  # fmt: skip
    assert baseline.exit_code == 0, baseline.output
    assert (tmp_path / "ident" / "predictions.json").is_file()


def test_help_shows_canonical_names_only() -> None:
    res = CliRunner().invoke(app, ["mmae", "score", "-h"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "--judge-model" in res.output and "--output-dir" in res.output
    for hidden in ("--bootstrap", "--output_dir", "--judge-cache", "--max_attempts"):
        assert hidden not in res.output
