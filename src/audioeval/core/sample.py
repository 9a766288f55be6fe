"""One benchmark item, independent of where it came from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from audioeval.core.json_value import JsonValue
from audioeval.core.messages import AudioRef

Taxonomy = Mapping[str, str | list[str]]
"""A sample's breakdown keys: a group, or a list of groups (the sample is in each)."""


@dataclass(frozen=True, slots=True)
class Sample:
    """An item to put to a model and score.

    `audio` maps input names (`audio`, `reference_voice`, …) to audio on disk; `fields` holds
    the benchmark's text fields under canonical names (`reference`, `question`, `choices`,
    `answer`, `language`, …); `taxonomy` holds the keys results are broken down by (a list
    value puts the sample in the group of each element); `source`
    names the file or dataset it came from, for error messages. `item`: the benchmark's typed
    item the sample was made from, validated where the data entered (MMAE's `MmaeSample`), for
    its scorers and exporters to read instead of parsing `fields` again; it is not stored (a
    sample read back from records.jsonl has none until its benchmark parses `fields`, once:
    `with_item`).
    """

    id: str
    audio: Mapping[str, AudioRef] = field(default_factory=dict)
    fields: Mapping[str, JsonValue] = field(default_factory=dict)
    taxonomy: Taxonomy = field(default_factory=dict)
    source: str = ""
    item: object = field(default=None, compare=False, repr=False)

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)

    def with_item(self, item: object) -> None:
        """Keep the typed item parsed from `fields` of a sample read back from a file (the
        sample is unchanged otherwise: `fields` stay what is stored)."""
        object.__setattr__(self, "item", item)
