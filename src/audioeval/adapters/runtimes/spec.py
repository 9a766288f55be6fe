"""Runtime specs: validated YAML data describing a model that runs in its own environment.

A spec names the pinned Python requirements of the runtime's virtual environment, the
worker script that serves the model over JSON lines (see `adapters/local_runtime.py`), the
worker's arguments, the tasks it serves and what it outputs. It holds no code. Built-in
specs ship in `adapters/runtimes/specs/`; a spec file elsewhere can be loaded by path.
Errors name the file and the field, with "did you mean …?" for misspelt keys.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from audioeval.core.errors import InputError
from audioeval.core.suggest import unknown_name
from audioeval.core.validation import describe_validation
from audioeval.store.yaml_file import read_yaml_mapping

_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9._-]*$")
# "name==1.2.3" (extras and markers allowed) or "name @ file:///… / https://…".
_PINNED_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[^\]]*\])?\s*(==\s*[^\s,;=<>!~]+|@\s*\S+)\s*(;.*)?$")
WorkerArg = str | int | float | bool | None


class RuntimeSpec(BaseModel):
    """One isolated runtime: an environment, a worker script and its arguments."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(description="lower-case name, also the environment folder's prefix")
    description: str = ""
    requirements: tuple[str, ...] = Field(
        default=(), description="pip requirements of the environment, each pinned with '==' (or 'name @ url')"
    )
    worker: Path = Field(description="worker script; relative to the spec file or the shipped workers folder")
    worker_args: dict[str, WorkerArg] = Field(default_factory=dict, description="passed as --args-json")
    tasks: tuple[str, ...] = Field(min_length=1, description="task names the worker serves, e.g. asr")
    output: Literal["text", "audio", "text+audio"] = "text"
    env: dict[str, str] = Field(default_factory=dict, description="extra environment variables of the worker")
    startup_timeout_s: float = Field(120.0, gt=0, description="how long the worker may take to print ready")
    request_timeout_s: float = Field(300.0, gt=0, description="default time limit of one request")
    source: str = Field("", description="the spec file it was read from (set by the loader)")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _NAME_RE.match(v):
            raise ValueError("must be lower-case letters, digits, '.', '_' or '-' (e.g. whisper-tiny.en)")
        return v

    @field_validator("requirements")
    @classmethod
    def _pinned(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        for req in v:
            if not _PINNED_RE.match(req.strip()):
                raise ValueError(f"{req!r} is not pinned: write 'name==version' (or 'name @ url')")
        return tuple(r.strip() for r in v)

    @property
    def requirements_hash(self) -> str:
        """12 hex digits over the requirements and the Python minor version: the env's identity."""
        ident = {
            "requirements": list(self.requirements),
            "python": f"{sys.version_info[0]}.{sys.version_info[1]}",
        }
        return hashlib.sha256(json.dumps(ident, sort_keys=True).encode("utf-8")).hexdigest()[:12]

    @property
    def worker_sha256(self) -> str:
        """The worker script's content hash (changes in the worker change the signature)."""
        try:
            return hashlib.sha256(self.worker.read_bytes()).hexdigest()[:16]
        except OSError:
            return "missing"

    @property
    def described(self) -> str:
        """`runtime 'name' (its spec file)`, for messages."""
        return f"runtime {self.name!r}" + (f" ({self.source})" if self.source else "")

    def lacks(self, task: str, outputs: tuple[str, ...]) -> list[str]:
        """What this spec lacks to serve `task` with one of `outputs`, in words; empty if nothing."""
        missing = []
        if task not in self.tasks:
            missing.append(f"task {task} (its tasks: {', '.join(self.tasks)})")
        if self.output not in outputs:
            missing.append(
                f"{outputs[0]} output (its output: {self.output}), which must be {' or '.join(outputs)}"
            )
        return missing

    @property
    def env_var_name(self) -> str:
        """`AUDIOEVAL_RUNTIME_PYTHON_<NAME>`: an interpreter to use instead of the runtime's venv."""
        return "AUDIOEVAL_RUNTIME_PYTHON_" + re.sub(r"[^A-Za-z0-9]", "_", self.name).upper()


def _shipped_dir(kind: str) -> Path:
    return Path(str(resources.files("audioeval.adapters.runtimes"))) / kind


def _resolve_worker(worker: Any, base: Path | None) -> Any:
    if not isinstance(worker, str | Path):
        return worker
    p = Path(worker)
    if p.is_absolute():
        return p
    candidates = ([base / p] if base else []) + [_shipped_dir("workers") / p]
    return next((c for c in candidates if c.is_file()), candidates[0])


def parse_runtime_spec(data: Any, source: str) -> RuntimeSpec:
    """A validated spec, or InputError naming the file and the first bad field."""
    if not isinstance(data, dict):
        raise InputError("a runtime spec must be a YAML mapping", file=source)
    if "source" in data:
        raise InputError("unknown key; 'source' is set by the loader", file=source, field="source")
    base = Path(source).parent if source else None
    data = {**data, "source": source}
    if "worker" in data:
        data["worker"] = _resolve_worker(data["worker"], base)
    try:
        spec = RuntimeSpec.model_validate(data)
    except ValidationError as exc:
        known = [k for k in RuntimeSpec.model_fields if k != "source"]
        message, field = describe_validation(exc.errors(), known)
        raise InputError(message, file=source, field=field) from None
    if not spec.worker.is_file():
        raise InputError(f"worker script not found: {spec.worker}", file=source, field="worker")
    return spec


def load_runtime_spec_file(path: Path) -> RuntimeSpec:
    return parse_runtime_spec(read_yaml_mapping(path, "runtime spec"), str(path))


def builtin_spec_files() -> dict[str, Path]:
    """Shipped spec files by runtime name (the file stem)."""
    folder = _shipped_dir("specs")
    return {p.name.removesuffix(".yaml"): p for p in sorted(folder.glob("*.yaml"))}


def load_runtime_spec(name_or_path: str) -> RuntimeSpec:
    """A built-in runtime by name, or a spec file by path (ending in .yaml or .yml)."""
    if name_or_path.endswith((".yaml", ".yml")):
        return load_runtime_spec_file(Path(name_or_path))
    files = builtin_spec_files()
    if name_or_path not in files:
        raise InputError(unknown_name("runtime", name_or_path, files))
    spec = load_runtime_spec_file(files[name_or_path])
    if spec.name != name_or_path:
        raise InputError(
            f"name {spec.name!r} differs from the file name", file=str(files[name_or_path]), field="name"
        )
    return spec
