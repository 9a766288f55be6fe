"""Optional dependencies of the speech models, and where their bundled weights live."""

from __future__ import annotations

import importlib
import importlib.util
import os
from importlib import metadata
from pathlib import Path
from types import ModuleType

from audioeval.core.errors import OptionalDependencyError

SPEECH_HINT = "pip install 'audioeval[speech]'"
RESEMBLYZER_HINT = "pip install torch==2.13.0 webrtcvad-wheels librosa && pip install --no-deps resemblyzer"


QUIET_ENVIRONMENT = {"ORT_DISABLE_TELEMETRY": "1"}
"""Set (unless the user set them) before a metric library is imported. onnxruntime's telemetry
otherwise writes a device id and an event store under ~/.cache/Microsoft/DeveloperTools."""


def require(module: str, hint: str = SPEECH_HINT) -> ModuleType:
    """Import `module`, or raise OptionalDependencyError whose message is exactly `hint`."""
    for name, value in QUIET_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise OptionalDependencyError(hint) from exc


def package_dir(package: str, hint: str = SPEECH_HINT) -> Path:
    """The folder of an installed package, found without importing it."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise OptionalDependencyError(hint)
    return Path(next(iter(spec.submodule_search_locations)))


def dist_version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "unknown"
