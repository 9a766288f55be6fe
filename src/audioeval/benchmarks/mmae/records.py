"""MMAE samples and predictions as validated records."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from audioeval.benchmarks.mmae.rubric_votes import McqRubric

COMPLEXITIES = ("single", "multi-part", "multi-instruction", "multi-audio", "multi-round", "multi-hop")
INSTRUCTION_FOLLOWING = "instruction following"


@functools.lru_cache(maxsize=256)  # a set has a few category labels, asked of every rubric
def is_instruction_following(category: str) -> bool:
    """'Instruction Following' (any case/spacing); every other label is consistency."""
    return " ".join(category.lower().replace("-", " ").split()) == INSTRUCTION_FOLLOWING


@dataclass(frozen=True)
class MmaeSample:
    id: str
    complexity: str
    modality: str
    granularity: tuple[str, ...]
    operations: tuple[tuple[str, str], ...]
    input_audio: tuple[str, ...]
    rubrics: tuple[McqRubric, ...]

    def taxonomy(self) -> dict[str, object]:
        return {
            "complexity": self.complexity,
            "modality": self.modality,
            "granularity": list(self.granularity),
            "operations": [{"granularity": g, "operation": o} for g, o in self.operations],
        }


@dataclass(frozen=True)
class MmaePrediction:
    id: str
    output_audio: str
    input_audio: tuple[str, ...]
