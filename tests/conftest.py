"""Shared fixtures: a generated synthetic MMAE set and the fake judge server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from audioeval.benchmarks.mmae.synthetic import SyntheticSet, write_synthetic_set
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer

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


@pytest.fixture()
def judge_server() -> Iterator[FakeJudgeServer]:
    with FakeJudgeServer(FakeJudgeConfig()) as server:
        yield server
