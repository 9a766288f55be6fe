"""An offline machine and a hub benchmark (issue 24): detected first, said in one line, with
no retries of the datasets library before it."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.errors import InputError

datasets = pytest.importorskip("datasets", reason="the hf extra is not installed")

SPEC = "name: hubbed\ntask: asr\nsource: {type: hf, path: someone/some-set, split: test}\n"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def no_hub(monkeypatch: pytest.MonkeyPatch) -> list:
    """The hub's endpoint is a closed local port; load_dataset records that it was called."""
    for var in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{_closed_port()}")
    calls: list = []

    def load_dataset(*args: object, **kwargs: object) -> None:
        calls.append(args)
        raise ConnectionError("retried for 30 s")

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    return calls


def test_an_unreachable_hub_is_named_at_once_without_asking_datasets(tmp_path: Path, no_hub: list) -> None:
    from audioeval.benchmarks.sources.loader import load_samples
    from audioeval.benchmarks.spec import load_spec_file

    spec = tmp_path / "hubbed.yaml"
    spec.write_text(SPEC)
    t0 = time.perf_counter()
    with pytest.raises(InputError) as info:
        load_samples(load_spec_file(spec), str(spec), root=tmp_path / "data")
    assert time.perf_counter() - t0 < 20  # one quick check (3 s limit), not the 30 s of retries
    assert no_hub == [], "the datasets library must not be asked (its retries are the noise)"
    message = info.value.message
    assert message.startswith("offline: the Hugging Face hub cannot be reached")
    assert "someone/some-set" in message and "<data root>/hubbed/" in message and "HF_HUB_OFFLINE" in message


def test_the_cli_prints_one_line(tmp_path: Path, no_hub: list) -> None:
    (tmp_path / "data").mkdir()
    spec = tmp_path / "hubbed.yaml"
    spec.write_text(SPEC)
    res = CliRunner().invoke(app, ["run", "-m", "oracle", "-b", str(spec), "--no-progress",
                                   "--data-root", str(tmp_path / "data")], env={"COLUMNS": "2000"})  # fmt: skip
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "offline" in lines[0], res.output
    assert no_hub == []


def test_declared_offline_reads_the_datasets_cache_without_a_probe(
    tmp_path: Path, no_hub: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    from audioeval.benchmarks.sources.hf import open_dataset

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(InputError) as info:
        open_dataset("hf", "someone/some-set", None, "test", "spec.yaml", local_name="hubbed")
    assert len(no_hub) == 1, "offline declared: the datasets cache is asked"
    assert "could not load dataset" in info.value.message
