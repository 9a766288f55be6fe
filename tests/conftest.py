"""Shared fixtures: a generated synthetic MMAE set and the fake judge server."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

# Idle threads of the native thread pools sleep at once instead of spinning. `make test` runs
# 4 workers on 2 cores: a thread that spins while waiting for its next piece of work takes the
# core from a process that has work. The number of threads, and so every result, is unchanged;
# set before numpy or torch is loaded (the workers and CLI subprocesses inherit them).
# OpenMP (libgomp: torch, in-process and in the runtime workers): measured on this machine,
# tests/test_speaker_resemblyzer.py took 40 s of CPU without it and 11 s with it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# OpenBLAS (numpy, scipy): its idle threads otherwise spin up to 2**28 cycles after each call.
os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

import pytest  # noqa: E402

from audioeval.benchmarks.mmae.synthetic import SyntheticSet, write_synthetic_set  # noqa: E402
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def shared_path(*parts: str) -> Path:
    """A file under ../shared, or a skip that says why (a user's clone has no shared/)."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"{p} not present: ../shared exists in CI only, not in a user's clone")
    return p


@pytest.fixture(scope="session")
def synthetic_set(tmp_path_factory: pytest.TempPathFactory) -> SyntheticSet:
    return write_synthetic_set(tmp_path_factory.mktemp("mmae_syn"), 42)


@pytest.fixture(scope="session")
def small_synthetic_set(tmp_path_factory: pytest.TempPathFactory) -> SyntheticSet:
    """The first 12 samples of `synthetic_set` (the set is built sample by sample): every
    complexity twice and every modality, mono and stereo inputs at all three rates, the second
    inputs of multi-audio samples and the first turns of multi-round ones, every clip slice a
    rubric of the 42 names, and an extraction sample without a Consistency rubric; 34 rubrics.
    A run of it costs a third of the whole set's: for tests of how a run goes (failures,
    retries, resumes, options), where the taxonomy of all 42 is not what is checked."""
    return write_synthetic_set(tmp_path_factory.mktemp("mmae_syn_small"), 12)


@pytest.fixture()
def judge_server() -> Iterator[FakeJudgeServer]:
    with FakeJudgeServer(FakeJudgeConfig()) as server:
        yield server
