"""The largest value each numeric setting may take, in every place it enters: a command's
flags (`cli/number_flags.py`), a run config (`engine/run_config.py`), the judge and model
settings (`JudgeSettings`, `ModelConfig`) and the Python API. Which setting each constant
bounds is said once: for the settings shared by `run`, the presets and the Python API, in their
declaration (`core/settings.py`); for any other flag, in `OPTION_MAXIMA` below.

A value past its bound is an error naming the setting (exit 2), before any file is read: an
absurd number would otherwise reach numpy (`--resamples 99999999999`: an array of 10¹¹ draws
per sample), a socket timeout or an allocation and fail there with a traceback, or hold a run
for a lifetime. Each bound is far beyond any meaningful use.
"""

from __future__ import annotations

MAX_RESAMPLES = 100_000
"""Bootstrap resamples (1,000 by default; the CI's digits settle long before this)."""
MAX_SEED = 2**32 - 1
"""Seeds: numpy's legacy seeds and most servers' take 32 bits."""
MAX_CONCURRENCY = 4096
"""Requests in flight (per model or judge), runtime workers and Ray actors."""
MAX_ATTEMPTS = 1000
"""Judge attempts, votes and sampled answers per item."""
MAX_TOKENS = 10_000_000
"""Tokens a model or judge may generate."""
MAX_SAMPLE_RATE = 384_000
"""Audio sample rates (Hz)."""
MAX_TEMPERATURE = 100.0
"""Sampling temperatures (servers accept 0-2)."""
MAX_PENALTY = 100.0
"""Repetition and length penalties of a model request (servers use 1-2)."""
MAX_SECONDS = 86_400.0
"""Timeouts: a day."""
MAX_GPUS = 1024.0
"""GPUs a Ray actor reserves."""
MAX_SYNTHETIC = 1_000_000
"""Samples a synthetic set generates."""
MAX_COST = 1_000_000_000.0
"""Dollars a run may spend (`--max-cost`)."""
MAX_COUNT = 1_000_000_000
"""Any other count (`--limit`, `--max-items`): no setting of audioeval means more."""

OPTION_MAXIMA: dict[str, float] = {
    "--judge-seed": MAX_SEED,
    "--ray-actors": MAX_CONCURRENCY,
    "--ray-gpus-per-actor": MAX_GPUS,
    "--judge-max-attempts": MAX_ATTEMPTS,
    "--judge-votes": MAX_ATTEMPTS,
    "--samples": MAX_ATTEMPTS,
    "--threshold": 1.0,
    "--n": MAX_SYNTHETIC,
    "--port": 65_535.0,
}
"""The bound of each numeric flag that is no shared setting, by its canonical name (a shared
setting's, `--resamples`, `--timeout`, …, is declared with it in `core/settings.py`); a flag
named nowhere (and without a `max` of its own) is bounded by MAX_COUNT."""


def option_maximum(flag: str, declared: float | None = None) -> float:
    """The largest value of the numeric flag `flag` (its own declared `max`, or its shared
    setting's, first)."""
    if declared is not None:
        return declared
    return OPTION_MAXIMA.get(flag, MAX_COUNT)
