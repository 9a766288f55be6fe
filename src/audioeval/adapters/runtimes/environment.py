"""Runtime environments: one virtual environment per runtime and requirements hash.

`setup_environment` creates `<runtimes dir>/<name>-<requirements hash>` with `python -m venv`
and installs the spec's pinned requirements with pip from the package registry. A marker
file written last records the hash, so setup is idempotent (quick when already done) and an
interrupted install is redone. A file lock keeps two processes from installing at once.

Where runtimes live (`runtime_roots`): `$AUDIOEVAL_RUNTIMES` when set, else beside the active
virtualenv (`<project>/.venv-runtimes` for a project's `.venv`, `<venv>/audioeval-runtimes` for
another venv), else `$XDG_CACHE_HOME/audioeval/runtimes` (`~/.cache/audioeval/runtimes`). Setup
installs into the first; lookup searches them all, so a runtime installed by `make` is found from
a shell and one installed earlier in the user cache is never installed again. An explicit
`runtimes_dir` argument is the only place looked.

`resolve_python` picks the interpreter a worker runs with: an explicit one (dev mode:
`python_executable=` or `$AUDIOEVAL_RUNTIME_PYTHON_<NAME>`), else the installed venv's, else
`RuntimeNotInstalledError` naming every place looked and carrying the exact setup command.
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
from typing import TypedDict

from audioeval.adapters.runtimes.spec import RuntimeSpec
from audioeval.core.errors import AudioevalError, OptionalDependencyError
from audioeval.store.bounded_json import loads

MARKER = ".audioeval-runtime.json"
ENV_DIR_VAR = "AUDIOEVAL_RUNTIMES"
INHERIT_VAR = "AUDIOEVAL_RUNTIME_INHERIT"
"""Set to 1: a new runtime venv sees this interpreter's site-packages (tests, development)."""


class RuntimeNotInstalledError(OptionalDependencyError):
    """The runtime's environment is missing; the message carries the exact setup command."""

    def __init__(self, spec: RuntimeSpec, looked_in: list[Path]) -> None:
        self.hint = setup_command(spec)
        self.looked_in = looked_in
        places = ", ".join(str(p) for p in looked_in)
        super().__init__(
            f"runtime {spec.name!r} is not installed (looked for an environment at {places}); "
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


def user_cache_root() -> Path:
    """`$XDG_CACHE_HOME/audioeval/runtimes`, by default `~/.cache/audioeval/runtimes`."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "audioeval" / "runtimes"


def virtualenv_root() -> Path | None:
    """Runtimes beside the active virtualenv: `<project>/.venv-runtimes` for a `.venv` (where
    `make` puts them), else `<venv>/audioeval-runtimes`; None outside a virtualenv."""
    if sys.prefix == sys.base_prefix:
        return None
    venv = Path(sys.prefix)
    return venv.parent / ".venv-runtimes" if venv.name == ".venv" else venv / "audioeval-runtimes"


def runtime_roots(runtimes_dir: str | Path | None = None) -> list[Path]:
    """Where runtimes are looked for, in order; setup installs into the first.

    An explicit `runtimes_dir` alone; else `$AUDIOEVAL_RUNTIMES` (when set), the virtualenv's
    folder and the user cache."""
    if runtimes_dir is not None:
        return [Path(runtimes_dir).expanduser().resolve()]
    roots = [Path(os.environ[ENV_DIR_VAR]).expanduser().resolve()] if os.environ.get(ENV_DIR_VAR) else []
    roots += [p for p in (virtualenv_root(), user_cache_root()) if p is not None]
    return list(dict.fromkeys(roots))


def runtimes_root(runtimes_dir: str | Path | None = None) -> Path:
    """Where `setup_environment` installs new runtimes."""
    return runtime_roots(runtimes_dir)[0]


def env_dir(spec: RuntimeSpec, runtimes_dir: str | Path | None = None) -> Path:
    """The runtime's environment in `runtimes_root` (where it is, or will be, installed)."""
    return runtimes_root(runtimes_dir) / env_name(spec)


def env_name(spec: RuntimeSpec) -> str:
    return f"{spec.name}-{spec.requirements_hash}"


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


class SetupMarker(TypedDict, total=False):
    """The file a runtime's environment holds once set up to the end."""

    name: str
    requirements: list[str]
    requirements_hash: str
    python: str
    setup_seconds: float
    inherits_site_packages: bool
    installed_at: str


def read_marker(venv: Path) -> SetupMarker | None:
    try:
        data = loads((venv / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _complete(spec: RuntimeSpec, venv: Path) -> bool:
    """Whether `venv` holds the runtime, set up to the end (its marker has the spec's hash)."""
    marker = read_marker(venv)
    return (
        marker is not None
        and marker.get("requirements_hash") == spec.requirements_hash
        and venv_python(venv).exists()
    )


def installed_env(spec: RuntimeSpec, runtimes_dir: str | Path | None = None) -> Path | None:
    """The first complete environment of the runtime in `runtime_roots`, or None."""
    for root in runtime_roots(runtimes_dir):
        if _complete(spec, root / env_name(spec)):
            return root / env_name(spec)
    return None


def is_installed(spec: RuntimeSpec, runtimes_dir: str | Path | None = None) -> bool:
    return installed_env(spec, runtimes_dir) is not None


def resolve_python(
    spec: RuntimeSpec, runtimes_dir: str | Path | None = None, python_executable: str | Path | None = None
) -> tuple[Path, str]:
    """(interpreter, where it came from): explicit, environment variable, or the runtime's venv."""
    if python_executable is not None:
        return Path(python_executable), "python_executable"
    if os.environ.get(spec.env_var_name):
        return Path(os.environ[spec.env_var_name]), spec.env_var_name
    venv = installed_env(spec, runtimes_dir)
    if venv is None:
        raise RuntimeNotInstalledError(spec, [root / env_name(spec) for root in runtime_roots(runtimes_dir)])
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


def inherit_packages() -> bool:
    """Whether new venvs inherit this interpreter's packages (`$AUDIOEVAL_RUNTIME_INHERIT=1`)."""
    return os.environ.get(INHERIT_VAR, "").strip().lower() in ("1", "true", "yes")


def _inherit_site_packages(venv: Path) -> list[str]:
    """Point the venv at this interpreter's site-packages with a .pth file (after its own, so a
    package pip installs into the venv wins); pip then finds pinned requirements that are already
    installed here satisfied, and setup takes seconds, offline. Returns the inherited folders."""
    import site
    import sysconfig

    parents = [p for p in site.getsitepackages() if Path(p).is_dir()]
    own = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    own.mkdir(parents=True, exist_ok=True)
    (own / "_audioeval_inherit.pth").write_text("".join(p + "\n" for p in parents), encoding="utf-8")
    return parents


def pip_install_command(python: Path, requirements: tuple[str, ...]) -> list[str]:
    return [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", *requirements]


def setup_environment(
    spec: RuntimeSpec,
    runtimes_dir: str | Path | None = None,
    *,
    force: bool = False,
    log: Callable[[str], None] | None = None,
) -> SetupResult:
    """Create (or reuse) the runtime's venv and install its requirements; idempotent.

    A runtime already installed in any of `runtime_roots` is reused there (unless `force`).
    With `$AUDIOEVAL_RUNTIME_INHERIT=1` a new venv inherits this interpreter's packages (and
    pip): for tests and development, in a runtimes folder of their own; the marker says so."""
    say = log or (lambda _msg: None)
    inherit = inherit_packages()
    t0 = time.perf_counter()
    found = None if force else installed_env(spec, runtimes_dir)
    if found is not None:
        return SetupResult(spec.name, found, True, time.perf_counter() - t0)
    venv = env_dir(spec, runtimes_dir)
    with _install_lock(venv.parent / f".{venv.name}.lock"):
        if force and venv.exists():
            shutil.rmtree(venv)
        if _complete(spec, venv):  # another process finished it while this one waited
            return SetupResult(spec.name, venv, True, time.perf_counter() - t0)
        (venv / MARKER).unlink(missing_ok=True)
        inherited: list[str] = []
        if not venv_python(venv).exists():
            say(f"creating {venv}")
            cmd = [sys.executable, "-m", "venv", str(venv)]
            _run(
                cmd if spec.requirements and not inherit else [*cmd, "--without-pip"],
                "creating the virtual environment",
                spec,
            )
        if inherit:
            inherited = _inherit_site_packages(venv)
        if spec.requirements:
            say(f"installing {len(spec.requirements)} requirement(s): {' '.join(spec.requirements)}")
            _run(pip_install_command(venv_python(venv), spec.requirements), "pip install", spec)
        seconds = time.perf_counter() - t0
        marker: SetupMarker = {
            "name": spec.name,
            "requirements": list(spec.requirements),
            "requirements_hash": spec.requirements_hash,
            "python": sys.version.split()[0],
            "setup_seconds": round(seconds, 2),
            "inherits_site_packages": inherited,
            "installed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        tmp = venv / (MARKER + ".tmp")
        tmp.write_text(json.dumps(marker, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, venv / MARKER)
    return SetupResult(spec.name, venv, False, seconds)
