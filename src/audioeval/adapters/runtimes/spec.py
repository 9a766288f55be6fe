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
import math
import os
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
MODEL_ARG = "model"


class SpecVariant(BaseModel):
    """How `NAME:PARAM` picks a variant of a built-in runtime: `encodec:6k` sets the worker arg
    `bandwidth` to 6.0 (`suffix: k`), `mimi:8q` sets `num_quantizers` to 8 (`suffix: q`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    worker_arg: str = Field(description="the worker argument the parameter sets")
    suffix: str = Field("", description="unit letter after the number (k: kbit/s, q: quantizers)")
    kind: Literal["float", "int"] = "float"
    example: str = Field(description="an example parameter, for messages (e.g. 6k)")


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
    variant: SpecVariant | None = Field(None, description="what `NAME:PARAM` sets (built-in runtimes)")
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
        return "AUDIOEVAL_RUNTIME_PYTHON_" + self._env_suffix

    @property
    def model_env_var(self) -> str:
        """`AUDIOEVAL_RUNTIME_MODEL_<NAME>`: the worker arg `model` (a hub id or a local folder)."""
        return "AUDIOEVAL_RUNTIME_MODEL_" + self._env_suffix

    @property
    def _env_suffix(self) -> str:
        return re.sub(r"[^A-Za-z0-9]", "_", self.name).upper()


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
    """A built-in runtime by name (`NAME:PARAM` picks a variant: `encodec:6k`), or a spec file by
    path (ending in .yaml or .yml). `$AUDIOEVAL_RUNTIME_MODEL_<NAME>`, when set, replaces the
    worker arg `model` (a hub id or a local folder), so the signature records it."""
    if name_or_path.endswith((".yaml", ".yml")):
        return _model_from_env(load_runtime_spec_file(Path(name_or_path)))
    files = builtin_spec_files()
    name, sep, param = name_or_path.partition(":")
    if name not in files:
        raise InputError(unknown_name("runtime", name_or_path, files))
    spec = load_runtime_spec_file(files[name])
    if spec.name != name:
        raise InputError(f"name {spec.name!r} differs from the file name", file=str(files[name]), field="name")
    return _model_from_env(with_variant(spec, param.strip()) if sep else spec)


def with_variant(spec: RuntimeSpec, param: str) -> RuntimeSpec:
    """The spec with `NAME:PARAM`'s worker argument set (`encodec` + `6k` → bandwidth 6.0)."""
    v = spec.variant
    if v is None:
        raise InputError(f"{spec.described} takes no parameter: write {spec.name!r}", field="model")
    text = param.lower().removesuffix(v.suffix.lower()) if v.suffix else param
    try:
        value: float | int = int(text) if v.kind == "int" else float(text)
    except ValueError:
        value = -1
    if not (math.isfinite(value) and value > 0):
        raise InputError(
            f"{spec.name}:{param}: expected a positive number{' followed by ' + repr(v.suffix) if v.suffix else ''},"
            f" e.g. {spec.name}:{v.example} (sets the worker's {v.worker_arg})",
            field="model",
        )
    return spec.model_copy(update={"worker_args": {**spec.worker_args, v.worker_arg: value}})


def _model_from_env(spec: RuntimeSpec) -> RuntimeSpec:
    model = os.environ.get(spec.model_env_var)
    if not model or MODEL_ARG not in spec.worker_args:
        return spec
    return spec.model_copy(update={"worker_args": {**spec.worker_args, MODEL_ARG: model}})
