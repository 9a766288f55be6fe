"""The AnyAudio-Judge Bench row and its validation: one row becomes one Sample.

A row is `uuid, audio, caption, label (yes|no), type, subset, rubric [{dimension, question,
basis}]`. A bad row is an InputError naming the file, the row (JSONL line, or dataset row
when it has no usable uuid), the uuid and the field; the loader skips and counts it. A row
whose rubric is empty (or null) is kept, marked `unscored`: it is counted, never judged.
An item's field is the first non-empty of its English and Chinese keys (`dimension`|`维度`,
`question`|`题目`, `basis`|`依据`), else empty; an item with an empty question is kept and
judged, as the official `evaluate_benchmark.py` keeps it (official-rules.md §3.7).

Sample:
- `audio["audio"]`: the clip (an AudioRef of a file on disk);
- `fields`: `caption`, `label` ("yes" | "no", lower case), `type`, `subset`, `rubric` (a
  list of `{dimension, question, basis}` strings), `unscored` (bool);
- `taxonomy`: `subset` and `type` (unknown values are kept as they are).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from audioeval.benchmarks.rubric_items.decompose import ITEM_KEYS
from audioeval.core.errors import InputError
from audioeval.core.messages import AudioRef
from audioeval.core.sample import Sample
from audioeval.core.shorten import shorten
from audioeval.postprocess.yes_no import read_label

SUBSETS = ("speech", "speech_gen", "sound", "sound_gen", "music", "music_gen", "mix")
"""The paper's subsets, in the paper's order (tables and summaries list others after)."""
TYPES = ("pos", "pos_clap", "pos_gemini", "neg_swap", "neg_change", "neg_gemini")

AudioResolver = Callable[[Any, str, str], AudioRef]


@dataclass(frozen=True, slots=True)
class RowPlace:
    """Where a row is: its file or dataset, and its JSONL line or dataset row index."""

    source: str
    line: int | None = None
    row: int | None = None

    def error(self, message: str, *, uuid: str | None = None, field: str | None = None) -> InputError:
        if uuid is None and self.row is not None:
            message = f"row {self.row}: {message}"
        return InputError(message, file=self.source, sample_id=uuid, field=field, line=self.line)


def ordered(names: list[str] | set[str], known: tuple[str, ...]) -> list[str]:
    """`names` with the known ones first, in their order, then the others sorted."""
    present = set(names)
    return [n for n in known if n in present] + sorted(present - set(known))


def _text(row: Mapping[str, Any], name: str, place: RowPlace, uuid: str, *, empty_ok: bool = False) -> str:
    if name not in row or row[name] is None:
        raise place.error("missing field", uuid=uuid, field=name)
    value = row[name]
    if not isinstance(value, str):
        raise place.error(f"expected a string, got {type(value).__name__}", uuid=uuid, field=name)
    if not empty_ok and not value.strip():
        raise place.error("empty string", uuid=uuid, field=name)
    return value.strip() if not empty_ok else value


def row_uuid(row: Any, place: RowPlace) -> str:
    """The row's uuid: a non-empty string."""
    if not isinstance(row, Mapping):
        raise place.error(f"row is a {type(row).__name__}, not an object")
    value = row.get("uuid")
    if value is None:
        raise place.error("missing field", field="uuid")
    if not isinstance(value, str) or not value.strip():
        raise place.error(f"expected a non-empty string, got {shorten(value)}", field="uuid")
    return value.strip()


def _label(row: Mapping[str, Any], place: RowPlace, uuid: str) -> str:
    value = _text(row, "label", place, uuid)
    yes = read_label(value)
    if yes is None:
        raise place.error(f"expected yes or no, got {shorten(value)}", uuid=uuid, field="label")
    return "yes" if yes else "no"


def _rubric(row: Mapping[str, Any], place: RowPlace, uuid: str) -> list[dict[str, str]]:
    if "rubric" not in row:
        raise place.error("missing field", uuid=uuid, field="rubric")
    value = row["rubric"]
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise place.error(
            f"expected a list of {{dimension, question, basis}}, got {type(value).__name__}",
            uuid=uuid,
            field="rubric",
        )
    return [_item(item, k, place, uuid) for k, item in enumerate(value)]


def _item(item: Any, k: int, place: RowPlace, uuid: str) -> dict[str, str]:
    where = f"rubric[{k}]"
    if not isinstance(item, Mapping):
        raise place.error(f"item is a {type(item).__name__}, not an object", uuid=uuid, field=where)
    out: dict[str, str] = {}
    for name, keys in ITEM_KEYS.items():  # a rubric item may still carry the decomposer's own keys
        value = next((item[key] for key in keys if item.get(key)), "")  # the official's `or`
        if not isinstance(value, str):
            raise place.error(
                f"expected a string, got {type(value).__name__}", uuid=uuid, field=f"{where}.{name}"
            )
        out[name] = value.strip()
    return out


def row_sample(row: Any, place: RowPlace, resolve_audio: AudioResolver) -> Sample:
    """The Sample of one bench row; InputError (naming file, row, uuid, field) when bad."""
    uuid = row_uuid(row, place)
    label = _label(row, place, uuid)
    subset = _text(row, "subset", place, uuid)
    kind = _text(row, "type", place, uuid)
    caption = _text(row, "caption", place, uuid, empty_ok=True)
    rubric = _rubric(row, place, uuid)
    if row.get("audio") is None:
        raise place.error("missing field", uuid=uuid, field="audio")
    try:
        audio = resolve_audio(row["audio"], uuid, "audio")
    except InputError as exc:
        raise place.error(exc.message, uuid=uuid, field=exc.field or "audio") from None
    fields = {
        "caption": caption,
        "label": label,
        "type": kind,
        "subset": subset,
        "rubric": rubric,
        "unscored": not rubric,
    }
    return Sample(uuid, {"audio": audio}, fields, {"subset": subset, "type": kind}, place.source)


def is_unscored(sample: Sample) -> bool:
    """Whether the sample has no rubric item to judge (it is counted, never scored)."""
    return bool(sample.get("unscored")) or not sample.get("rubric")
