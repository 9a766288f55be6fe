"""Seeded per-vote shuffles of a rubric's options, lettered A, B, C, ..."""

from __future__ import annotations

import hashlib
import random
import string
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ShuffledOptions:
    """Options in the order shown to the judge. `order[i]` is the original index of the
    option shown with letter i; original index 0 is the right choice."""

    texts: tuple[str, ...]
    order: tuple[int, ...]

    @property
    def letters(self) -> str:
        return string.ascii_uppercase[: len(self.texts)]

    @property
    def right_letter(self) -> str:
        return self.letters[self.order.index(0)]

    def render(self) -> str:
        return "\n".join(f"{letter}. {text}" for letter, text in zip(self.letters, self.texts, strict=True))


def vote_seed(seed: int, sample_id: str, rubric_index: int, attempt: int) -> int:
    blob = f"{seed}:{sample_id}:{rubric_index}:{attempt}".encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:8], "big")


def shuffle_options(right_choice: str, wrong_choices: list[str], *, seed: int) -> ShuffledOptions:
    """Shuffle the right choice among the wrong ones (all positions, 'None of the above'
    included), reproducibly for a given seed."""
    options = [right_choice, *wrong_choices]
    if len(options) > 26:
        raise ValueError(f"{len(options)} options: at most 26 can be lettered A-Z")
    order = list(range(len(options)))
    random.Random(seed).shuffle(order)
    return ShuffledOptions(tuple(options[i] for i in order), tuple(order))
