"""Predictions files produced elsewhere, by format: how a `predictions:FILE` model reads the
output of each id. Each format's parser lives with its benchmark:

| format | output | tasks | parser |
|---|---|---|---|
| `mmae` | edited audio (paths from the audio root) | audio_edit | `mmae/loading.edited_audio_by_id` |
| `mmar`, `mmau` | the answer text under the prediction key | mcq | `mcq/loading.answers_by_id` |
| `text` | `{"id", "text"}` items: any text output | every task with text output | `sources/text_predictions.text_predictions_by_id` |

`auto` (the default of `predictions:FILE`) reads a file whose first item has `text` as
`text`, any other as `mmae`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from audioeval.benchmarks.tasks import TASKS
from audioeval.core.errors import InputError
from audioeval.core.registry import Registry

Loader = Callable[[Path], tuple[Mapping[str, str], list[InputError]]]


@dataclass(frozen=True)
class PredictionFormat:
    """`reader(key)` gives the parser of a file (`key`: the prediction key, where the format has
    several); `output` is what each id's entry is; `tasks` the tasks it answers."""

    reader: Callable[[str | None], Loader]
    output: Literal["audio", "text"]
    tasks: frozenset[str]


def _mmae(key: str | None) -> Loader:
    from audioeval.benchmarks.mmae.loading import edited_audio_by_id

    return edited_audio_by_id


def _mcq(benchmark: str) -> Callable[[str | None], Loader]:
    def reader(key: str | None) -> Loader:
        from audioeval.benchmarks.mcq.loading import answers_by_id

        return answers_by_id(benchmark, key)

    return reader


def _text(key: str | None) -> Loader:
    from audioeval.benchmarks.sources.text_predictions import text_predictions_by_id

    return text_predictions_by_id


TEXT_TASKS = frozenset(name for name, task in TASKS.items() if task.output == "text")

PREDICTION_FORMATS: Registry[PredictionFormat] = Registry(
    "predictions format",
    [
        ("mmae", PredictionFormat(_mmae, "audio", frozenset({"audio_edit"}))),
        ("mmar", PredictionFormat(_mcq("mmar"), "text", frozenset({"mcq"}))),
        ("mmau", PredictionFormat(_mcq("mmau"), "text", frozenset({"mcq"}))),
        ("text", PredictionFormat(_text, "text", TEXT_TASKS)),
    ],
)


def format_of(name: str, path: Path) -> PredictionFormat:
    """The format named (`auto`: `text` for a file of `{id, text}` items, else `mmae`)."""
    if name == "auto":
        from audioeval.benchmarks.sources.text_predictions import looks_like_text_predictions

        name = "text" if looks_like_text_predictions(path) else "mmae"
    return PREDICTION_FORMATS.get(name, field="predictions_format")
