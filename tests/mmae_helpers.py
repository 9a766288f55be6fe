"""Helpers for MMAE tests: run configs against the fake judge, and the files of a run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from audioeval.presets.mmae_score import MmaeRunConfig


def config(preds: Path, meta: Path, out: Path, urls: list[str], **kw: Any) -> MmaeRunConfig:
    base: dict[str, Any] = dict(
        predictions=preds,
        metadata=meta,
        output_dir=out,
        base_urls=urls,
        progress=False,
        n_resamples=200,
        timeout=20.0,
    )
    base.update(kw)
    return MmaeRunConfig(**base)


def results(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def records_file(out: Path) -> Path:
    """The record stream of an `mmae score` output folder (a run directory)."""
    return out / "mmae" / "predictions" / "records.jsonl"
