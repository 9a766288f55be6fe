"""Bounds for every numeric and structured setting, where it enters: each numeric flag of
each command (found by walking the command tree), each numeric field of a run config (found
in its models), and the Python API. An absurd value is one line naming the setting, exit 2,
before anything is read or written."""

from __future__ import annotations

import types
import typing
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from tests.run_helpers import tone_asr_manifest

runner = CliRunner()


def _numeric_options() -> list[tuple[str, str, type]]:
    import typer

    from audioeval.cli.number_flags import number_type

    out = []

    def walk(cmd: Any, path: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
            return
        for p in cmd.params:
            kind = number_type(p) if p.param_type_name == "option" else None
            if kind is not None:
                out.append((" ".join(path), p.opts[0], kind))

    walk(typer.main.get_command(app), [])
    return out


NUMERIC_OPTIONS = _numeric_options()


def test_the_walk_finds_every_command_s_numeric_options() -> None:
    assert {("run", "--resamples"), ("judge-eval", "--threshold"), ("mcq score", "--judge-timeout")} <= {
        (c, f) for c, f, _ in NUMERIC_OPTIONS
    }
    assert len(NUMERIC_OPTIONS) >= 50


@pytest.mark.parametrize(
    ("command", "flag", "kind"), NUMERIC_OPTIONS, ids=[f"{c}:{f}" for c, f, _ in NUMERIC_OPTIONS]
)
def test_every_numeric_option_refuses_an_absurd_value_naming_it(command: str, flag: str, kind: type) -> None:
    for value in ("99999999999", "1e300") if kind is float else ("99999999999",):
        res = runner.invoke(app, [*command.split(), f"{flag}={value}"])
        assert res.exit_code == exit_codes.BAD_INPUT, (value, res.output)
        assert isinstance(res.exception, SystemExit), (value, res.exception)
        lines = [x for x in res.output.splitlines() if x.strip()]
        assert len(lines) == 1 and lines[0].startswith(f"error: field '{flag}': must be ≤ "), (
            value,
            res.output,
        )


def test_the_issue_example_resamples_never_reaches_numpy(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    res = runner.invoke(app, ["run", "-b", str(manifest), "--task", "asr", "-m", "oracle", "-o", str(tmp_path / "o"),
                              "--resamples", "99999999999", "--no-progress"])  # fmt: skip
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    assert "field '--resamples': must be ≤ 100,000, got 99999999999" in res.output
    assert not (tmp_path / "o").exists()


# --- a run config: every numeric field of its sections, found in their models -------------


def _numeric_fields(model: type[BaseModel]) -> list[tuple[str, type]]:
    out = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if typing.get_origin(annotation) in (typing.Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            annotation = args[0] if len(args) == 1 else None
        if annotation in (int, float) and not info.exclude:
            out.append((name, annotation))
        elif annotation in (int, float) and name == "unreachable_after_s":
            out.append((name, annotation))
    return out


def _config_cases() -> list[tuple[str, str, type]]:
    from audioeval.core.request_settings import SETTINGS
    from audioeval.engine.model_specs import ModelConfig
    from audioeval.engine.run_config import RunFile
    from audioeval.engine.run_judge import JudgeSettings

    cases = [("", name, kind) for name, kind in _numeric_fields(RunFile)]
    cases += [
        ("generation", name, int if s.kind.startswith("whole number") else float)
        for name, s in sorted(SETTINGS.items())
        if s.kind.startswith(("number", "whole number"))
    ]
    cases += [("judge", name, kind) for name, kind in _numeric_fields(JudgeSettings)]
    cases += [("models", name, kind) for name, kind in _numeric_fields(ModelConfig)]
    return cases


CONFIG_CASES = _config_cases()


def test_the_config_walk_finds_the_numeric_fields() -> None:
    found = {(s, n) for s, n, _ in CONFIG_CASES}
    assert {
        ("", "resamples"),
        ("generation", "seed"),
        ("judge", "concurrency"),
        ("models", "timeout_s"),
    } <= found


def _config(tmp_path: Path, section: str, field: str, value: Any) -> Path:
    import yaml

    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    data: dict[str, Any] = {"benchmarks": [str(manifest)], "task": "asr", "models": ["oracle"]}
    if section == "":
        data[field] = value
    elif section == "generation":
        data["generation"] = {field: value}
    elif section == "judge":
        data["judge"] = {"urls": ["http://127.0.0.1:9/v1"], field: value}
    else:
        data["models"] = [{"name": "m", "type": "openai", "urls": ["http://127.0.0.1:9/v1"], field: value}]
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@pytest.mark.parametrize(
    ("section", "field", "kind"), CONFIG_CASES, ids=[f"{s}.{f}" for s, f, _ in CONFIG_CASES]
)
def test_every_numeric_field_of_a_run_config_refuses_an_absurd_value(
    tmp_path: Path, section: str, field: str, kind: type
) -> None:
    config = _config(tmp_path, section, field, 99999999999 if kind is int else 1e300)
    res = runner.invoke(app, ["run", str(config), "-o", str(tmp_path / "o"), "--no-progress", "--no-probe"])
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    said = " ".join(res.output.split())
    assert "run.yaml" in said and field in said, said
    assert "less than or equal" in said or "must be ≤" in said, said
    assert "Traceback" not in res.output


@pytest.mark.parametrize("urls", [5, [1, 2], {"a": "http://x/v1"}, 2.5, True])
def test_a_judge_whose_urls_are_not_text_is_refused_naming_the_field(tmp_path: Path, urls: Any) -> None:
    import yaml

    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    for judge in ({"urls": urls}, urls):
        path = tmp_path / "run.yaml"
        path.write_text(yaml.safe_dump({"benchmarks": [str(manifest)], "task": "asr", "models": ["oracle"],
                                        "judge": judge}))  # fmt: skip
        res = runner.invoke(app, ["run", str(path), "-o", str(tmp_path / "o"), "--no-progress"])
        said = " ".join(res.output.split())
        assert res.exit_code == exit_codes.BAD_INPUT, res.output
        assert "Traceback" not in res.output and "TypeError" not in said, said
        assert "run.yaml" in said and "judge" in said, said


# --- the Python API ----------------------------------------------------------------------


def test_the_python_api_bounds_the_same_settings(tmp_path: Path) -> None:
    import audioeval

    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    for kwargs, field in (({"resamples": 99999999999}, "resamples"), ({"seed": 2**40}, "seed")):
        with pytest.raises(InputError) as err:
            audioeval.evaluate(["oracle"], [manifest], task="asr", output_dir=tmp_path / "o", **kwargs)
        assert err.value.field == field
    with pytest.raises(InputError, match="resamples"):
        audioeval.rescore(tmp_path / "o", resamples=99999999999)
    assert not (tmp_path / "o").exists()


# --- sizes: the bootstrap draws in bounded chunks, with the same draws ---------------------


def test_the_bootstrap_draws_in_chunks_with_the_same_intervals(monkeypatch: pytest.MonkeyPatch) -> None:
    from audioeval.metrics import bootstrap

    rng = np.random.default_rng(1)
    groups = [
        [rng.random(300), rng.integers(0, 2, 300).astype(float)],
        [np.where(rng.random(77) < 0.1, np.nan, 1.0 * rng.random(77))],
    ]
    whole = bootstrap.bootstrap_means_ci_groups(groups, n_resamples=500, seed=3)
    monkeypatch.setattr(bootstrap, "MAX_DRAW_CELLS", 300 * 7)  # chunks of 7 rows (and 27 of 77)
    assert bootstrap.bootstrap_means_ci_groups(groups, n_resamples=500, seed=3) == whole
