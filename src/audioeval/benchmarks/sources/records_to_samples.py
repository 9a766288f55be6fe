"""Turning source rows (dicts) into Samples: the field mapping, audio paths, taxonomy.

A field maps to one column, or (a list field such as `choices`) to several columns read in
order, empty ones dropped: `choices: [choice_a, choice_b, choice_c, choice_d]`. When a cell
was dropped, the cells by position are kept too, as `<field>_by_column` (None for an empty,
null or blank cell): an official rule that letters the columns themselves (AIR-Bench's gold
letter) reads them there, so a blank `choice_a` never shifts the letters. An audio column may
hold one path or a list of one path.

A row problem (no id, no audio, a field of the wrong type) is an InputError naming the
file, the row's id and the field; the loader collects these and goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.core.audio_path import audio_path_problem
from audioeval.core.errors import InputError
from audioeval.core.messages import AudioRef
from audioeval.core.sample import Sample
from audioeval.store.bounded_json import loads

AUDIO_FIELDS = ("audio", "reference_voice", "reference_audio")
LIST_FIELDS = ("choices", "references", "answers")
STRUCTURED_FIELDS = ("rubric",)
TEXT_OR_LIST_FIELDS = (
    "reference",
    "answer",
)  # a text, or a list of texts (scoring/fields.text_list)  # kept as the source has them (lists of objects), checked by their scorer
MULTI_COLUMN_FIELDS = LIST_FIELDS + TEXT_OR_LIST_FIELDS
"""The fields a spec may build from several columns (a list of column names in `fields`)."""
# Column names tried, in order, when a spec does not map a canonical field.
DEFAULT_COLUMNS: dict[str, tuple[str, ...]] = {
    "id": ("id", "sample_id", "key", "utt_id", "audio_id"),
    "audio": ("audio", "audio_path", "path", "wav", "file"),
    "reference": ("reference", "text", "transcript", "sentence", "normalized_text", "caption"),
    "references": ("references", "captions"),
    "question": ("question", "query"),
    "choices": ("choices", "options"),
    "answer": ("answer", "label", "gold"),
    "language": ("language", "lang"),
    "instruction": ("instruction",),
    "target_language": ("target_language",),
    "reference_voice": ("reference_voice", "prompt_audio"),
    "prompt_text": ("prompt_text",),
    "rubric": ("rubric",),
}

AudioResolver = Callable[[Any, str, str], AudioRef]
FieldMap = Mapping[str, str | list[str] | None]


@dataclass
class RowMapping:
    """How a source's rows become samples."""

    source: str
    fields: FieldMap
    taxonomy: list[str]
    resolve_audio: AudioResolver
    constants: Mapping[str, Any] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    """The fields the task needs (`TaskDefaults.required_fields`): a row without one is skipped."""
    answer_among_choices: bool = False
    """The task's gold answer is one of the choices (`TaskDefaults.answer_among_choices`): a row
    whose answer is not contradicts itself and is skipped, never scored."""

    def column(self, row: Mapping[str, Any], name: str) -> str | None:
        """The column holding field `name`: the mapped one (or, when a local copy uses the
        canonical name instead, that one), else the first default name present."""
        if name in self.fields:
            mapped = self.fields[name]
            if isinstance(mapped, list):  # several columns, read by `joined`
                return name if name in row and not any(c in row for c in mapped) else None
            if mapped is None or mapped in row or name not in row:
                return mapped
            return name
        return next((c for c in DEFAULT_COLUMNS.get(name, (name,)) if c in row), None)

    def to_sample(self, row: Mapping[str, Any], index: int) -> Sample:
        id_col = self.column(row, "id")
        sid = _sample_id(row[id_col], id_col) if id_col and row.get(id_col) is not None else str(index)
        values: dict[str, Any] = dict(self.constants)
        audio: dict[str, AudioRef] = {}
        wanted = set(DEFAULT_COLUMNS) | set(self.fields)
        for name in wanted - {"id"}:
            mapped = self.fields.get(name)
            col = self.column(row, name)
            if isinstance(mapped, list) and col is None:
                cells = self.joined(row, name, mapped, sid)
                items = [c for c in cells if c is not None]
                if items:
                    values[name] = items
                    if len(items) < len(cells):
                        values[by_column(name)] = cells
                continue
            if col is None or col not in row:
                if self.fields.get(name) is not None:
                    raise InputError(
                        f"column {col!r} (mapped to {name!r}) is missing",
                        file=self.source,
                        sample_id=sid,
                        field=col,
                    )
                continue
            value = row[col]
            if value is None:
                continue
            if name in AUDIO_FIELDS:
                audio[name] = self.resolve_audio(_one_clip(value, sid, col), sid, col)
            elif name in LIST_FIELDS:
                values[name] = _as_list(value, self.source, sid, col)
            elif name in STRUCTURED_FIELDS and isinstance(value, (list, dict)):
                values[name] = value
            elif name in TEXT_OR_LIST_FIELDS and isinstance(value, (list, tuple)):
                values[name] = _as_list(value, self.source, sid, col)  # several references
            elif isinstance(value, (list, tuple, dict)):
                kind = "an object" if isinstance(value, dict) else "a list"
                raise InputError(f"expected text, got {kind}", file=None, sample_id=sid, field=col)
            else:
                values[name] = value if isinstance(value, (int, float, bool)) else str(value)
        if "choices" not in values and isinstance(self.constants.get("labels"), list):
            values["choices"] = [str(x) for x in self.constants["labels"]]
        for name in self.required:
            if name not in audio and values.get(name) in (None, []):
                mapped = self.fields.get(name)
                if isinstance(mapped, list):
                    raise InputError(
                        f"columns {', '.join(mapped)} are all empty: the task needs its {name}",
                        sample_id=sid,
                        field=name,
                    )
                col = mapped or DEFAULT_COLUMNS.get(name, (name,))[0]
                raise InputError(
                    f"missing field {col!r}: the task needs its {name}", sample_id=sid, field=col
                )
        if self.answer_among_choices:
            self._check_gold(row, values, sid)
        groups = {}
        for key in self.taxonomy:
            mapped = self.fields.get(key)
            col = mapped if isinstance(mapped, str) else key
            if row.get(col) is not None:
                groups[key] = str(row[col])
        return Sample(sid, audio, values, groups, self.source)

    def _check_gold(self, row: Mapping[str, Any], values: Mapping[str, Any], sid: str) -> None:
        answer, choices = values.get("answer"), values.get("choices")
        if not isinstance(answer, str) or not isinstance(choices, list) or not choices:
            return
        texts = {c.strip() for c in choices if isinstance(c, str)}  # a blank cell (None) is no choice
        if answer.strip() not in texts:
            mapped = self.fields.get("answer")
            col = mapped if isinstance(mapped, str) else (self.column(row, "answer") or "answer")
            raise InputError(
                f"the gold answer {answer!r} is not one of the item's {len(texts)} choices",
                file=self.source,
                sample_id=sid,
                field=col,
            )

    def joined(self, row: Mapping[str, Any], name: str, columns: list[str], sid: str) -> list[str | None]:
        """Field `name`'s cells, one per column in order: the text, or None for an empty, null
        or blank cell. A column that is not in the row is an InputError (a typo in the spec, or
        a row that lacks the key: write it as null)."""
        items: list[str | None] = []
        for col in columns:
            if col not in row:
                raise InputError(
                    f"column {col!r} (one of the columns mapped to {name!r}) is missing",
                    file=self.source,
                    sample_id=sid,
                    field=col,
                )
            value = row[col]
            if isinstance(value, (list, tuple, dict)):
                kind = "an object" if isinstance(value, dict) else "a list"
                raise InputError(
                    f"expected text for one item of {name!r}, got {kind}",
                    file=self.source,
                    sample_id=sid,
                    field=col,
                )
            items.append(str(value) if value is not None and str(value).strip() else None)
        return items


def by_column(name: str) -> str:
    """The field holding list field `name`'s cells by column position, when one was empty."""
    return f"{name}_by_column"


def _one_clip(value: Any, sid: str, col: str) -> Any:
    """An audio cell as one clip: a list of one path is that path; several are refused."""
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            return value[0]
        raise InputError(
            f"{len(value)} audio clips in one cell; a sample takes one clip per audio field",
            sample_id=sid,
            field=col,
        )
    return value


def _sample_id(value: Any, col: str) -> str:
    """A row's id as text: a string, or a whole number written in decimal."""
    if isinstance(value, str):
        if not value.strip():
            raise InputError("empty id", sample_id=value, field=col)
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(
        f"an id must be a string or a whole number, not {type(value).__name__}",
        sample_id=str(value),
        field=col,
    )


def _as_list(value: Any, source: str, sid: str, col: str) -> list[str]:
    if isinstance(value, str):

        text = value.strip()
        if text.startswith("["):
            try:
                value = loads(text)
            except ValueError:
                raise InputError("not a JSON list", file=source, sample_id=sid, field=col) from None
        else:
            return [value]
    if not isinstance(value, (list, tuple)):
        raise InputError(
            f"expected a list, got {type(value).__name__}", file=source, sample_id=sid, field=col
        )
    return [str(v) for v in value]


def path_resolver(root: Path) -> AudioResolver:
    """Audio given as a path string, relative to `root` unless absolute."""

    def resolve(value: Any, sid: str, col: str) -> AudioRef:
        if not isinstance(value, str) or not value.strip():
            raise InputError("expected an audio file path", sample_id=sid, field=col)  # file: the loader's
        problem = audio_path_problem(value)
        if problem:
            raise InputError(problem, sample_id=sid, field=col)
        p = Path(value).expanduser()
        return AudioRef(str(p if p.is_absolute() else root / p))

    return resolve
