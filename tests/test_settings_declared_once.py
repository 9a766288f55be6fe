"""The settings shared by `run`, the presets and the Python API are declared once
(`core/settings.py`) and generated into each front door: every command of the app (found by
walking it) and the API are compared with the declaration, and fed the same values out of
bounds."""

from __future__ import annotations

import inspect
import types
import typing
from dataclasses import fields
from enum import Enum
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

import audioeval
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.preset import REQUIRED, SHARED_OPTIONS
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.core.settings import SETTING, SETTINGS, Setting, check_keywords, setting_of_flag
from audioeval.presets.preset_run import SHARED_DEFAULTS

runner = CliRunner()

OWN_MEANING = {("run", "--model"): "a list of model refs of any kind (NAME@URL, baselines, replay, …)"}
"""Options of a command that carry a declared setting's flag with a type of their own."""


def _commands() -> dict[str, Any]:
    out: dict[str, Any] = {}

    def walk(cmd: Any, path: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
            return
        out[" ".join(path)] = cmd

    walk(typer.main.get_command(app), [])
    return out


COMMANDS = _commands()


def _value_type(param: Any) -> Any:
    annotation = param.type_descriptor.annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        annotation = args[0] if len(args) == 1 else annotation
    return annotation


def _shared_options() -> list[tuple[str, Any, Setting]]:
    """(command, click option, its declared setting) for every option of every command whose
    flag is a declared setting's."""
    out = []
    for name, cmd in COMMANDS.items():
        for param in cmd.params:
            if param.param_type_name != "option" or (name, param.opts[0]) in OWN_MEANING:
                continue
            setting = setting_of_flag(param.opts[0])
            if setting is not None:
                out.append((name, param, setting))
    return out


SHARED = _shared_options()
PRESETS = {" ".join(p.command): p for b in load_benchmarks().values() for p in b.presets}
TOOLS = {" ".join(t.command): t for b in load_benchmarks().values() for t in b.tools}


def test_the_walk_finds_the_shared_options_of_run_presets_and_tools() -> None:
    found = {(c, p.opts[0]) for c, p, _ in SHARED}
    assert {("run", "--resamples"), ("mmae score", "--resamples"), ("mcq score", "--judge-timeout"),
            ("mcq predict", "--timeout"), ("judge-eval", "--limit"), ("codec", "--resamples"),
            ("rescore", "--resamples"), ("mmae rescore", "--resamples"), ("leaderboard", "--seed"),
            ("run", "--judge-concurrency"), ("mmae synth", "--output-dir")} <= found  # fmt: skip
    assert {c for c, _, _ in SHARED} >= {"run", "codec", "rescore", *PRESETS}


def _allowed_defaults(command: str, setting: Setting, param: Any) -> list[Any]:
    """The defaults a command may give a setting: the declared one; a preset's own
    (`Preset.defaults`); a tool's own option default; None for a rescore (as the run did);
    required (`...`) for a command's output folder that has no default name."""
    allowed = [setting.default]
    if command in PRESETS and setting.name in PRESETS[command].defaults:
        allowed.append(PRESETS[command].defaults[setting.name])
    if command in TOOLS:
        allowed += [o.default for o in TOOLS[command].options if o.flag == setting.flag]
    if command.endswith("rescore"):
        allowed.append(None)
    if setting.name == "output_dir":
        allowed.append(REQUIRED)
    return allowed


def _default(param: Any) -> Any:
    if param.required:
        return REQUIRED
    default = param.default
    return default.value if hasattr(default, "value") else default


@pytest.mark.parametrize(("command", "param", "setting"), SHARED, ids=[f"{c}:{p.opts[0]}" for c, p, _ in SHARED])
def test_every_command_s_shared_option_is_its_declared_setting(command: str, param: Any, setting: Setting) -> None:
    """Same flags, type, bounds on every command; the default declared or the command's own by
    a stated rule; one meaning per flag name."""
    declared = {f for spelling in setting.flags for f in spelling.split("/")}
    assert set(param.opts) | set(param.secondary_opts) >= declared, (command, param.opts)
    kind = _value_type(param)
    if setting.choices:
        assert sorted(e.value for e in kind) == sorted(setting.choices)
    else:
        assert kind is setting.type, (command, kind, setting.type)
    if setting.numeric:  # the bounds are the number validator's, read from the declaration
        assert param.min is None and param.max is None, (command, param.min, param.max)
    assert _default(param) in _allowed_defaults(command, setting, param), (command, _default(param))
    assert param.hidden == setting.hidden


def test_resamples_has_one_minimum_and_one_maximum_everywhere() -> None:
    """The issue's example: `--resamples` had a minimum of 10 in presets and 0 in `run`."""
    commands = [c for c, _, s in SHARED if s.name == "resamples"]
    assert len(commands) >= 10
    for command in commands:
        for value, ok in (("-1", False), ("0", True), ("100001", False)):
            # checked as parsed, before the command's other inputs (missing here: another error)
            res = runner.invoke(app, [*command.split(), "--resamples", value])
            assert ("'--resamples'" not in res.output) == ok, (command, value, res.output)


@pytest.mark.parametrize(
    ("command", "param", "setting"),
    [x for x in SHARED if x[2].numeric],
    ids=[f"{c}:{p.opts[0]}" for c, p, s in SHARED if s.numeric],
)
def test_every_shared_numeric_option_refuses_values_past_its_declared_bounds(
    command: str, param: Any, setting: Setting
) -> None:
    assert setting.maximum is not None, f"{setting.name}: a numeric setting declares its maximum"
    past = setting.maximum * 10 if setting.type is float else int(setting.maximum) + 1
    res = runner.invoke(app, [*command.split(), f"{param.opts[0]}={past}"])
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    assert f"error: field '{param.opts[0]}': must be ≤ " in res.output, res.output
    below = setting.lowest - (1 if setting.type is int else 0.0005)
    res = runner.invoke(app, [*command.split(), f"{param.opts[0]}={below}"])
    assert res.exit_code == exit_codes.BAD_INPUT and param.opts[0] in res.output, res.output


def test_one_meaning_per_flag_name() -> None:
    """Two settings share a flag only as one setting of two roles: the same type, default,
    bounds, choices and help; no command takes both."""
    by_flag: dict[str, list[Setting]] = {}
    for s in SETTINGS:
        for spelling in s.flags:
            for flag in spelling.split("/"):
                by_flag.setdefault(flag, []).append(s)
    for flag, same in by_flag.items():
        first = same[0]
        for other in same[1:]:
            assert (other.type, other.default, other.minimum, other.maximum, other.choices, other.help) == (
                first.type, first.default, first.minimum, first.maximum, first.choices, first.help
            ), flag  # fmt: skip
    for command, cmd in COMMANDS.items():
        flags = [f for p in cmd.params for f in p.opts]
        assert len(flags) == len(set(flags)), command


SEVERAL_KINDS = {
    "--benchmark": "repeatable on run and codec (names, specs, manifests); one name on a preset",
    "--model": "repeatable on run (any model ref); one endpoint model on mcq predict",
}
"""Flags whose value is a list on one command and one item of it on another."""


def _kind(param: Any) -> Any:
    kind = _value_type(param)
    if isinstance(kind, type) and issubclass(kind, Enum):
        return str
    return kind


def test_a_flag_on_several_commands_has_one_type_and_bounds() -> None:
    """One meaning per flag name, also for the options that are no shared setting (a preset's
    `--judge-votes`, `--judge-max-attempts`, `--metadata`, …), found by walking every command."""
    seen: dict[str, dict[Any, list[str]]] = {}
    for command, cmd in COMMANDS.items():
        for param in cmd.params:
            if param.param_type_name == "option" and param.opts[0] not in SEVERAL_KINDS:
                key = (_kind(param), param.min, param.max, param.count)
                seen.setdefault(param.opts[0], {}).setdefault(key, []).append(command)
    several = {flag: kinds for flag, kinds in seen.items() if sum(map(len, kinds.values())) > 1}
    assert len(several) >= 25
    assert {flag: kinds for flag, kinds in several.items() if len(kinds) > 1} == {}


def test_a_preset_s_own_default_keeps_within_the_declared_bounds() -> None:
    from audioeval.benchmarks.preset import Preset, PresetOutcome

    def outcome(folder: Any, values: Any) -> PresetOutcome:
        return PresetOutcome({}, 0, 0, 0)

    for defaults, why in (({"resamples": 10**9}, "must be ≤ 100,000"), ({"judge_timeout": 0.0}, "must be ≥"),
                          ({"colour": 1}, "not a shared setting"), ({"audio_part": "mp3"}, "one of")):  # fmt: skip
        with pytest.raises(ValueError, match=why):
            Preset(("x", "y"), "", lambda v: None, outcome, defaults=defaults)  # type: ignore[arg-type,return-value]


def test_the_preset_groups_and_defaults_are_the_declaration() -> None:
    assert {n for names in SHARED_OPTIONS.values() for n in names} == set(SETTING)
    for s in SETTINGS:
        assert SHARED_DEFAULTS[s.name] == s.default


# --- the Python API and the engine's records of the same settings --------------------------


def test_the_api_keywords_have_the_declared_defaults() -> None:
    params = inspect.signature(audioeval.evaluate).parameters
    keyworded = [s for s in SETTINGS if s.keyword]
    assert len(keyworded) >= 15
    for s in keyworded:
        assert s.keyword in params, s.keyword
        assert params[s.keyword].default == s.keyword_default, s.keyword
    assert SETTING["progress"].keyword_default is False  # a library call is quiet unless asked
    for name in ("resamples", "seed"):
        assert inspect.signature(audioeval.leaderboard).parameters[name].default == SETTING[name].default


def test_the_engine_request_and_settings_records_have_the_declared_defaults() -> None:
    from audioeval.engine.evaluate import EvalRequest
    from audioeval.engine.model_specs import ModelConfig
    from audioeval.engine.run_config import RunFile
    from audioeval.engine.run_judge import JudgeSettings

    request = {f.name: f.default for f in fields(EvalRequest)}
    compared = 0
    for s in SETTINGS:
        field = {"cache": "cache_path"}.get(s.keyword or "", s.keyword)
        if field in request:
            assert request[field] == (s.keyword_default if s.api_default is ... else s.default), field
            compared += 1
    assert compared >= 10
    judge = JudgeSettings(urls=["http://127.0.0.1:1/v1"])
    for field, name in {"model": "judge_model", "concurrency": "judge_concurrency", "timeout_s": "judge_timeout",
                        "api_key_env": "judge_api_key_env", "audio_part": "audio_part",
                        "sample_rate": "judge_sample_rate", "temperature": "judge_temperature",
                        "max_tokens": "judge_max_tokens"}.items():  # fmt: skip
        assert getattr(judge, field) == SETTING[name].default, field
    model = ModelConfig(name="m", type="openai", urls=["http://127.0.0.1:1/v1"])
    for field, name in {"concurrency": "concurrency", "timeout_s": "timeout", "api_key_env": "api_key_env",
                        "audio_part": "model_audio_part"}.items():  # fmt: skip
        assert getattr(model, field) == SETTING[name].default, field
    assert RunFile.model_fields["resamples"].default == SETTING["resamples"].default


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.keyword and s.numeric], ids=lambda s: s.keyword)
def test_every_numeric_api_keyword_refuses_values_past_its_bounds(setting: Setting, tmp_path: Path) -> None:
    assert setting.maximum is not None and setting.keyword
    past = setting.maximum * 10 if setting.type is float else int(setting.maximum) + 1
    for bad in (past, setting.lowest - 1, float("nan")):
        with pytest.raises(InputError) as err:
            audioeval.evaluate(["oracle"], ["demo-mcq"], output_dir=tmp_path / "o", **{setting.keyword: bad})
        assert err.value.field == setting.keyword, bad
    assert not (tmp_path / "o").exists()  # refused before anything is read or written


def test_the_issue_example_resamples_in_the_api(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="must be ≤ 100,000"):
        audioeval.evaluate(["oracle"], ["demo-mcq"], output_dir=tmp_path / "o", resamples=99999999999)
    with pytest.raises(InputError, match="resamples"):
        audioeval.rescore(tmp_path, resamples=-1)
    with pytest.raises(InputError, match="True or False"):
        check_keywords({"use_cache": "no"})


def test_a_preset_takes_resamples_0_as_run_does(small_synthetic_set: Any, judge_server: Any, tmp_path: Path) -> None:
    """One meaning of `--resamples 0` (no confidence intervals), also where presets refused it."""
    out = tmp_path / "o"
    res = runner.invoke(app, ["mmae", "score", "--predictions", str(small_synthetic_set.oracle_predictions),
                              "--metadata", str(small_synthetic_set.metadata), "--judge", judge_server.base_url,
                              "-o", str(out), "--no-progress", "--resamples", "0"])  # fmt: skip
    assert res.exit_code == 0, res.output
    again = runner.invoke(app, ["mmae", "rescore", str(out), "--metadata", str(small_synthetic_set.metadata),
                                "--resamples", "0"])  # fmt: skip
    assert again.exit_code == 0, again.output
