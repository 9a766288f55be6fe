"""The optional `speech` extra: import one of its modules or fail with the exact install hint."""

from __future__ import annotations

import importlib
from types import ModuleType

from audioeval.core.errors import OptionalDependencyError

SPEECH_HINT = "pip install 'audioeval[speech]'"


def require_speech(module: str) -> ModuleType:
    """Import `module` (part of the `speech` extra); raise the install hint when it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise OptionalDependencyError(SPEECH_HINT) from exc
