"""The default Chinese CER on a published AISHELL-1 log (AudioBench's Qwen2-Audio-7B-Instruct
outputs, in ../shared/data/published/): a Latin word is one token, as every published scorer
counts, so the figure is the published one; the per-letter rule (`latin: letter`) is not."""

from __future__ import annotations

import json

import pytest

from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction
from audioeval.scoring.scorer_registry import build_scorer
from tests.conftest import shared_path


def _corpus_cer(rows: list[dict[str, str]], **args: str) -> float:
    scorer = build_scorer("cer", {"language": "zh", **args}, where="test")
    edits = tokens = 0
    for i, row in enumerate(rows):
        stats = scorer.score(
            Prediction(row["prediction"], row["prediction"]),
            Sample(str(i), fields={"reference": row["reference"]}),
        ).stats
        edits += stats["substitutions"] + stats["deletions"] + stats["insertions"]
        tokens += stats["ref_len"]
    return edits / tokens


def test_default_chinese_cer_is_the_published_aishell_figure() -> None:
    log = json.loads(
        shared_path(
            "data", "published", "audiobench", "Qwen2-Audio-7B-Instruct", "aishell_asr_zh_test_wer_score.json"
        ).read_text(encoding="utf-8")
    )
    published = log["wer"]  # 0.0926: its texts are AudioBench's normalised ones
    assert _corpus_cer(log["sample_wer"]) == pytest.approx(published, abs=5e-4)
    assert _corpus_cer(log["sample_wer"], latin="letter") > 1.8 * published  # 273 answers end in English
