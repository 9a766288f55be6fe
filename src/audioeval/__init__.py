"""audioeval: end-to-end evaluation of audio foundation models.

`audioeval.evaluate`, `audioeval.rescore` and `audioeval.leaderboard` are the Python API
(`audioeval/api.py`); they are imported on first use, so `import audioeval` stays light.
"""

from typing import Any

from audioeval.core.version import __version__

__all__ = ["__version__", "evaluate", "leaderboard", "rescore"]


def __getattr__(name: str) -> Any:
    if name in ("evaluate", "rescore", "leaderboard", "run_request"):
        from audioeval import api

        return getattr(api, name)
    raise AttributeError(f"module 'audioeval' has no attribute {name!r}")
