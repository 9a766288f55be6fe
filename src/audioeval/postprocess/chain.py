"""Named chains of text steps ending in a choice extractor; the chain's name goes in results."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypedDict

from audioeval.core.registry import Registry
from audioeval.postprocess.choice_extraction import ChoiceExtraction, extract_choice
from audioeval.postprocess.markdown import strip_markdown
from audioeval.postprocess.think_tags import strip_think

TextStep = Callable[[str], str]

TEXT_STEPS: Registry[TextStep] = Registry(
    "text step",
    [("strip_think", strip_think), ("strip_markdown", strip_markdown), ("strip_whitespace", str.strip)],
)


class ChoiceChainDescription(TypedDict):
    """A choice chain as a signature names it: its version and its steps."""

    name: str
    steps: list[str]


@dataclass(frozen=True)
class ChoiceChain:
    """Text steps applied in order, then `extract_choice`."""

    name: str
    steps: tuple[str, ...]

    def clean(self, text: str) -> str:
        for step in self.steps:
            text = TEXT_STEPS[step](text)
        return text

    def __call__(self, text: str, choices: Sequence[str]) -> ChoiceExtraction:
        return extract_choice(self.clean(text), choices)

    def describe(self) -> ChoiceChainDescription:
        return {"name": self.name, "steps": [*self.steps, "extract_choice"]}


ROBUST_MCQ = ChoiceChain("mcq-robust-v1", ("strip_think", "strip_markdown"))
