"""Helpers for MMAE tests: run configs against the fake judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from audioeval.engine.mmae_run import MmaeRunConfig


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
