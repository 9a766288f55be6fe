"""Runtime environments: one virtual environment per runtime and requirements hash.

`setup_environment` creates `<runtimes dir>/<name>-<requirements hash>` with `python -m venv`
and installs the spec's pinned requirements with pip from the package registry. A marker
file written last records the hash, so setup is idempotent (quick when already done) and an
interrupted install is redone. A file lock keeps two processes from installing at once.

The runtimes dir is `$AUDIOEVAL_RUNTIMES`, else `$XDG_CACHE_HOME/audioeval/runtimes`
(`~/.cache/audioeval/runtimes`). `resolve_python` picks the interpreter a worker runs with:
an explicit one (dev mode: `python_executable=` or `$AUDIOEVAL_RUNTIME_PYTHON_<NAME>`), else
the installed venv's, else `RuntimeNotInstalledError` carrying the exact setup command.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from audioeval.adapters.runtimes.spec import RuntimeSpec
from audioeval.core.errors import AudioevalError, OptionalDependencyError

MARKER = ".audioeval-runtime.json"
ENV_DIR_VAR = "AUDIOEVAL_RUNTIMES"


class RuntimeNotInstalledError(OptionalDependencyError):
    """The runtime's environment is missing; the message carries the exact setup command."""

    def __init__(self, spec: RuntimeSpec, env_dir: Path) -> None:
        self.hint = setup_command(spec)
        super().__init__(
            f"runtime {spec.name!r} is not installed (no environment at {env_dir}); "
            f"install it with: {self.hint}"
        )


class RuntimeSetupError(AudioevalError):
    """Creating the environment or installing its requirements failed."""


def setup_command(spec: RuntimeSpec) -> str:
    target = spec.name if not spec.source or _is_builtin(spec) else spec.source
    return f"audioeval runtime setup {target}"


def _is_builtin(spec: RuntimeSpec) -> bool:
    from audioeval.adapters.runtimes.spec import builtin_spec_files

    path = builtin_spec_files().get(spec.name)
    return path is not None and Path(spec.source).resolve() == path.resolve()


def runtimes_root(runtimes_dir: str | Path | None = None) -> Path:
    if runtimes_dir is not None:
        return Path(runtimes_dir).expanduser().resolve()
    if os.environ.get(ENV_DIR_VAR):
        return Path(os.environ[ENV_DIR_VAR]).expanduser().resolve()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "audioeval" / "runtimes"


def env_dir(spec: RuntimeSpec, runtimes_dir: str | Path | None = None) -> Path:
    return runtimes_root(runtimes_dir) / f"{spec.name}-{spec.requirements_hash}"


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def read_marker(venv: Path) -> dict[str, object] | None:
    try:
        data = json.loads((venv / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def is_installed(spec: RuntimeSpec, runtimes_dir: str | Path | None = None) -> bool:
    venv = env_dir(spec, runtimes_dir)
    marker = read_marker(venv)
    return (
        marker is not None
        and marker.get("requirements_hash") == spec.requirements_hash
        and venv_python(venv).exists()
    )


def resolve_python(
    spec: RuntimeSpec, runtimes_dir: str | Path | None = None, python_executable: str | Path | None = None
) -> tuple[Path, str]:
    """(interpreter, where it came from): explicit, environment variable, or the runtime's venv."""
    if python_executable is not None:
        return Path(python_executable), "python_executable"
    if os.environ.get(spec.env_var_name):
        return Path(os.environ[spec.env_var_name]), spec.env_var_name
    venv = env_dir(spec, runtimes_dir)
    if not is_installed(spec, runtimes_dir):
        raise RuntimeNotInstalledError(spec, venv)
    return venv_python(venv), "venv"


@dataclass(frozen=True)
class SetupResult:
    spec_name: str
    env_dir: Path
    already_installed: bool
    seconds: float


@contextlib.contextmanager
def _install_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        try:
            import fcntl

            fcntl.flock(fh, fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - Windows: no cross-process lock
            pass
        yield


def _run(cmd: list[str], what: str, spec: RuntimeSpec, *, tail_lines: int = 25) -> None:
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        tail = "\n".join(proc.stdout.strip().splitlines()[-tail_lines:])
        raise RuntimeSetupError(
            f"runtime {spec.name!r}: {what} failed (exit code {proc.returncode}).\n"
            f"--- last lines of its output ---\n{tail}\n---\n"
            f"retry with: {shlex.join(cmd)}\n"
            f"or run again: {setup_command(spec)}"
        )


def pip_install_command(python: Path, requirements: tuple[str, ...]) -> list[str]:
    return [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", *requirements]


def setup_environment(
    spec: RuntimeSpec,
    runtimes_dir: str | Path | None = None,
    *,
    force: bool = False,
    log: Callable[[str], None] | None = None,
) -> SetupResult:
    """Create (or reuse) the runtime's venv and install its requirements; idempotent."""
    say = log or (lambda _msg: None)
    venv = env_dir(spec, runtimes_dir)
    t0 = time.perf_counter()
    with _install_lock(venv.parent / f".{venv.name}.lock"):
        if force and venv.exists():
            shutil.rmtree(venv)
        if is_installed(spec, runtimes_dir):
            return SetupResult(spec.name, venv, True, time.perf_counter() - t0)
        (venv / MARKER).unlink(missing_ok=True)
        if not venv_python(venv).exists():
            say(f"creating {venv}")
            cmd = [sys.executable, "-m", "venv", str(venv)]
            _run(
                cmd if spec.requirements else [*cmd, "--without-pip"],
                "creating the virtual environment",
                spec,
            )
        if spec.requirements:
            say(f"installing {len(spec.requirements)} requirement(s): {' '.join(spec.requirements)}")
            _run(pip_install_command(venv_python(venv), spec.requirements), "pip install", spec)
        seconds = time.perf_counter() - t0
        marker = {
            "name": spec.name,
            "requirements": list(spec.requirements),
            "requirements_hash": spec.requirements_hash,
            "python": sys.version.split()[0],
            "setup_seconds": round(seconds, 2),
            "installed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        tmp = venv / (MARKER + ".tmp")
        tmp.write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, venv / MARKER)
    return SetupResult(spec.name, venv, False, seconds)
