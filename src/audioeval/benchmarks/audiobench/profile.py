"""The `audiobench` scoring profile: AudioBench's ASR text rules (`text_rules.py`) behind the
`wer`/`cer` hooks of `scoring/profiles.TextProfile`. Both scorers count AudioBench's
whitespace words (a Chinese text is spaced per ideograph first), and the corpus rate is
Σ edits / Σ reference words, as its `compute_score` sums jiwer's measures."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from audioeval.benchmarks.audiobench import text_rules
from audioeval.scoring.profiles import TextProfile

SOURCE = "AudioLLMs/AudioBench src/dataset_src/text_normalizer/preprocess_text.py"


def wer_tokens(text: str, unit: str, language: str) -> list[str]:
    """The profile hook: AudioBench's tokens (the same for `wer` and `cer`: it scores every
    ASR set with jiwer's word error rate over its normalised text)."""
    return text_rules.tokens(text, language)


def _jiwer() -> str:
    try:
        return version("jiwer")
    except PackageNotFoundError:  # pragma: no cover - jiwer is a dependency
        return "absent"


def wer_signature(unit: str) -> dict[str, Any]:
    """The profile hook: the chain per language family, the source and jiwer's version."""
    return {
        "source": SOURCE,
        "en": text_rules.describe("en"),
        "zh": text_rules.describe("zh"),
        "jiwer": _jiwer(),
    }


AUDIOBENCH = TextProfile(
    name="audiobench",
    description="AudioBench's ASR conventions (AudioLLMs/AudioBench)",
    wer_tokens=wer_tokens,
    wer_signature=wer_signature,
)
