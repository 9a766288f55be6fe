"""Benchmark specs: validated YAML data naming registered code, never holding code.

A spec says where the data is (`source`), how its columns map to sample fields (`fields`),
and how the task is prompted, post-processed and scored. Every value left out comes from
the task's defaults (`benchmarks/tasks.py`). Errors name the spec file and the field, with
"did you mean …?" for misspelt keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from audioeval.benchmarks.sources.records_to_samples import MULTI_COLUMN_FIELDS
from audioeval.core.errors import InputError
from audioeval.core.names import name_problem
from audioeval.core.request_settings import checked_settings
from audioeval.core.validation import describe_validation
from audioeval.store.yaml_file import read_yaml_mapping

StepSpec = str | dict[str, dict[str, Any]]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DecomposeSpec(_Strict):
    """`source.decompose`: rows without a `rubric` get one before the run, decomposed from
    their caption (the `caption` field, else `reference`) by a text LLM, as `audioeval rubric
    decompose` does; cached and resumed in `<run>/<benchmark>/rubrics.run/`."""

    llm: str | list[str] = Field(description="OpenAI-compatible endpoint(s) of the text LLM")
    llm_model: str
    domain: Literal["auto", "speech", "sound", "music", "mix"] = "mix"  # the official default
    max_items: int | None = Field(None, ge=1, description="ours: a cap (the official has none)")
    max_attempts: int = Field(3, ge=1)
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float | None = Field(
        None, ge=0, allow_inf_nan=False, description="decomposition; default: greedy, as the official"
    )
    max_tokens: int | None = Field(
        None, ge=1, description="decomposition; default: the official per-domain budget"
    )


class SourceSpec(_Strict):
    """Where samples come from. `path` is a file, folder, saved dataset or hub name; a
    relative local path is taken from the spec file's folder, or from `data_root`. A local
    copy at `<data root>/<local_name>/` (default: the benchmark's name) is read in its place."""

    type: str = Field(
        description="a generic type (jsonl, json, csv, folder, hf, hf_disk: read through `fields`) "
        "or a file format a benchmark contributes (`sources/source_formats.py`)"
    )
    path: str
    name: str | None = Field(None, description="Hugging Face dataset configuration")
    split: str | None = None
    revision: str | None = Field(None, description="hub revision, e.g. refs/convert/parquet")
    audio_root: str | None = Field(None, description="folder that audio paths are relative to")
    labels_from: Literal["folder", "none"] = "none"
    streaming: bool = False
    decompose: DecomposeSpec | None = None
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="settings of a source type a benchmark contributes (its reader's own, e.g. the "
        "key holding an answer); the generic types take none",
    )
    local_name: str | None = Field(
        None,
        description="the folder under the data root that holds the local copy (default: the "
        "benchmark's name); specs reading the same data name one folder",
    )
    origin: str | None = Field(
        None,
        description="where the data comes from when it is not on a hub in a loadable form (a "
        "download page, the files to fetch): said when the data is missing",
    )
    prepare: str | None = Field(
        None,
        description="the command that makes the local copy ($AUDIOEVAL_DATA stands for the data "
        "root): said when the data is missing; a hub source has one made from its name",
    )

    @field_validator("local_name")
    @classmethod
    def _local_name(cls, v: str | None) -> str | None:
        if v is not None and (not v or v != v.strip() or v in (".", "..") or any(c in v for c in "/\\")):
            raise ValueError(
                f"{v!r} is not a folder name: give the one folder under the data root that holds "
                "the local copy, e.g. the name of the benchmark whose copy this spec shares"
            )
        return v


class BreakdownGroups(_Strict):
    """How a breakdown lists the groups of one taxonomy key (`BenchmarkSpec.groups`)."""

    fixed: list[str] = Field(
        default_factory=list, description="groups listed first, in this order, kept when empty"
    )
    order: Literal["sorted", "first_seen"] = Field(
        "sorted", description="the other groups: by name, or in the order the samples first name them"
    )

    def as_plan(self) -> tuple[tuple[str, ...], str]:
        return tuple(self.fixed), self.order


class BenchmarkSpec(_Strict):
    name: str
    task: str
    description: str = ""
    language: str = "en"
    source: SourceSpec
    fields: dict[str, str | list[str] | None] = Field(
        default_factory=dict,
        description="sample field -> source column (null: do not read that field); a list "
        "field (choices, references, answers, reference, answer) may name several columns, "
        "read in order with empty cells dropped",
    )
    taxonomy: list[str] = Field(default_factory=list)
    groups: dict[str, BreakdownGroups] = Field(
        default_factory=dict,
        description="taxonomy key -> how its breakdown lists groups: `fixed` groups first, in "
        "that order and kept when empty, then the others `sorted` (default) or `first_seen`",
    )
    crosses: dict[str, list[str]] = Field(
        default_factory=dict,
        description="cross breakdowns: a name -> two or more taxonomy keys; a sample is in the "
        "group `a|b` for each group a of the first key and b of the second (e.g. "
        "`modality_x_complexity: [modality, complexity]`)",
    )
    failed_outputs: Literal["counted", "excluded"] = Field(
        "counted",
        description="samples without a usable output (no prediction, a failed model call): "
        "`counted` in the metrics as their scorers' failure scores, or `excluded` from them "
        "(still counted), as a benchmark's official scorer leaves them out",
    )
    variables: dict[str, Any] = Field(
        default_factory=dict, description="constants for the prompt (e.g. labels, target_language)"
    )
    prompt: str | None = None
    postprocess: list[StepSpec] | None = None
    scorers: list[StepSpec] | None = None
    metrics: list[str] | None = None
    headline: str | None = None
    exports: str | None = Field(
        None,
        description="the benchmark's own files, written from its records after every run and "
        "rescore (an exporter name; default: the exporter of its first scorer that has one)",
    )
    homepage: str | None = None
    license: str | None = None
    limit: int | None = Field(None, ge=1, description="score only the first N samples")
    generation: dict[str, Any] | None = Field(
        None,
        description="sampling settings its requests carry (temperature, max_tokens, top_p, seed, …), "
        "over the task's default (greedy for tasks with one right reply); the user's settings win; "
        "each checked against core/request_settings.py",
    )
    profile: str = Field(
        "audioeval",
        description="scoring conventions of the profiled scorers: a registered scoring profile, "
        "ours (audioeval) or UltraEval-Audio's (ultraeval; docs/fidelity.md), checked when the "
        "spec is resolved; `--profile` on run and rescore overrides it",
    )

    @property
    def local_copy_name(self) -> str:
        """The folder under the data root that a local copy of the source is read from."""
        return self.source.local_name or self.name

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        problem = name_problem(v, benchmark=True)
        if problem is not None:
            raise ValueError(problem)
        return v

    @field_validator("generation")
    @classmethod
    def _generation(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        """Each setting as the one declaration of what a model request may carry types it."""
        if v is None:
            return v
        try:
            return checked_settings(v, field="generation")
        except InputError as exc:
            raise ValueError(f"{exc.field}: {exc.message}") from None

    @field_validator("scorers")
    @classmethod
    def _scorers(cls, v: list[StepSpec] | None) -> list[StepSpec] | None:
        if v is not None and not v:
            raise ValueError("an empty list scores nothing: name one or more scorers, or leave "
                             "`scorers` out for the task's default ones")
        return v

    @field_validator("groups")
    @classmethod
    def _groups(cls, v: dict[str, BreakdownGroups], info: Any) -> dict[str, BreakdownGroups]:
        keys = info.data.get("taxonomy") or []
        for key in v:
            if key not in keys:
                raise ValueError(f"{key!r} is not a taxonomy key of this spec ({', '.join(keys) or 'none'})")
        return v

    @field_validator("crosses")
    @classmethod
    def _crosses(cls, v: dict[str, list[str]], info: Any) -> dict[str, list[str]]:
        keys = info.data.get("taxonomy") or []
        for name, parts in v.items():
            if name in keys:
                raise ValueError(f"{name!r} is a taxonomy key already: give the cross another name")
            if len(parts) < 2 or len(set(parts)) != len(parts):
                raise ValueError(f"{name!r}: name two or more distinct taxonomy keys, not {parts}")
            for key in parts:
                if key not in keys:
                    raise ValueError(
                        f"{name!r}: {key!r} is not a taxonomy key of this spec ({', '.join(keys) or 'none'})"
                    )
        return v

    @field_validator("fields")
    @classmethod
    def _fields(cls, v: dict[str, str | list[str] | None]) -> dict[str, str | list[str] | None]:
        for name, columns in v.items():
            if not isinstance(columns, list):
                continue
            if name not in MULTI_COLUMN_FIELDS:
                raise ValueError(
                    f"{name!r} maps to a list of columns; only a list field "
                    f"({', '.join(MULTI_COLUMN_FIELDS)}) can be built from several columns"
                )
            if not columns or not all(c.strip() for c in columns):
                raise ValueError(f"{name!r}: give one or more non-empty column names")
            if len(set(columns)) != len(columns):
                raise ValueError(f"{name!r}: a column is named twice in {columns}")
        return v


def _known_keys(parent: tuple[Any, ...]) -> list[str]:
    """The keys allowed at a nested location of a spec (`source.…` or the top level)."""
    model: Any = BenchmarkSpec
    for part in parent:
        sub = getattr(model, "model_fields", {}).get(str(part))
        model = sub.annotation if sub is not None else model
    return list(getattr(model, "model_fields", {}) or BenchmarkSpec.model_fields)


def parse_spec(data: Any, source: str) -> BenchmarkSpec:
    """A validated spec, or InputError naming the file and the first bad field."""
    if not isinstance(data, dict):
        raise InputError("a benchmark spec must be a YAML mapping", file=source)
    try:
        return BenchmarkSpec.model_validate(data)
    except ValidationError as exc:
        message, location = describe_validation(exc.errors(), _known_keys)
        raise InputError(message, file=source, field=location) from None


def load_spec_file(path: Path) -> BenchmarkSpec:
    return parse_spec(read_yaml_mapping(path, "benchmark spec"), str(path))
