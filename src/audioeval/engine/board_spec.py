"""Leaderboard definitions: validated data naming the pairs a board takes, its columns (metric,
direction, transform), the groups that weigh as one column, and the weights of the average.

Every board is one `BoardSpec`: the task-family boards (`engine/family_boards.py`) and the
boards a user writes in YAML, e.g.

```yaml
name: tts-quality
tasks: [tts, vc]                  # which pairs (also: family, benchmarks)
columns:
  - {metric: wer, direction: lower, transform: percent}          # 100 − 100 × WER
  - {metric: "mean:utmos", label: UTMOS, transform: mos, group: acoustic}
  - {metric: "mean:dnsmos_ovrl", label: OVRL, transform: mos, group: acoustic}
groups:
  acoustic: {weight: 2}           # the mean of its available columns, weighing 2 in the average
```

A column is repeated for every benchmark of the board that has its metric (`per: benchmark`), or
is one column over all of them, the mean of the model's values (`per: board`). Transforms put a
value on a 0–100 scale: `percent` (× 100: fractions, SIM), `mos` (× 20: 0–5 scores), `as_is`
(BLEU, MMAE's IFR), `auto` (from the metric's unit); a `lower` direction then enters as 100 − it.
Errors name the file and the field, with "did you mean …?".
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from audioeval.benchmarks.tasks import FAMILIES, TASKS
from audioeval.core.errors import InputError
from audioeval.core.suggest import did_you_mean
from audioeval.core.validation import describe_validation
from audioeval.metrics.corpus import MEAN_PREFIX, display_of, get_metric
from audioeval.store.yaml_file import read_yaml_mapping

HEADLINE = "headline"
"""The column metric that stands for each benchmark's own headline metric (left out for a
benchmark whose headline another column of the board names, so nothing counts twice)."""
AVERAGE = "average"
"""In `rank_by`: the board's average."""

Direction = Literal["auto", "higher", "lower"]
Transform = Literal["auto", "percent", "mos", "as_is"]


def _known_tasks(names: list[str] | None) -> list[str] | None:
    for name in names or ():
        if name not in TASKS:
            raise ValueError(f"unknown task {name!r}{did_you_mean(name, TASKS.names())}")
    return names


TaskNames = Annotated[list[str] | None, AfterValidator(_known_tasks)]
"""Task names of a board or column filter, each a known task."""


class ColumnDefinition(TypedDict, total=False):
    """A column as a boards YAML (or a benchmark's `Benchmark.boards`) writes it (`ColumnSpec`)."""

    metric: str
    label: str
    direction: str
    transform: str
    tasks: list[str]
    benchmarks: list[str]
    per: str
    group: str
    weight: float


class GroupDefinition(TypedDict, total=False):
    """A group as a boards YAML writes it (`GroupSpec`)."""

    label: str
    weight: float


class BoardDefinition(TypedDict, total=False):
    """A board as a boards YAML writes it, before `parse_board` checks it into a `BoardSpec`."""

    name: str
    title: str
    description: str
    family: str
    tasks: list[str]
    benchmarks: list[str]
    columns: list[ColumnDefinition]
    groups: dict[str, GroupDefinition]
    average: bool
    rank_by: list[str]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ColumnSpec(_Strict):
    """One column (or one per benchmark) of a board."""

    metric: str = Field(description="a metric of the pair summaries (`wer`, `mean:sim`) or `headline`")
    label: str | None = Field(None, description="header; default: the metric's declared display name")
    direction: Direction = Field("auto", description="auto: the metric's own (WER lower, accuracy higher)")
    transform: Transform = Field(
        "auto", description="onto 0–100: percent ×100, mos ×20, as_is; auto: by unit"
    )
    tasks: TaskNames = Field(None, description="only benchmarks of these tasks")
    benchmarks: list[str] | None = Field(None, description="only these benchmarks")
    per: Literal["benchmark", "board"] = "benchmark"
    group: str | None = Field(None, description="the group it is averaged in before the board's average")
    weight: float = Field(1.0, ge=0, allow_inf_nan=False, description="in its group, or in the average")

    @field_validator("metric")
    @classmethod
    def _metric(cls, v: str) -> str:
        if v != HEADLINE:
            try:
                get_metric(v)
            except InputError as exc:
                known = f"{HEADLINE} (each benchmark's headline metric), "
                raise ValueError(exc.message.replace("Known: ", "Known: " + known)) from None
        return v

    @model_validator(mode="after")
    def _one_metric_per_board_column(self) -> ColumnSpec:
        if self.per == "board" and self.metric == HEADLINE:
            raise ValueError(
                "a `per: board` column averages one metric over benchmarks: name it, not `headline`"
            )
        return self

    @property
    def shown_label(self) -> str | None:
        """The header (None for an unlabelled headline column: each benchmark's headline)."""
        if self.label:
            return self.label
        return None if self.metric == HEADLINE else display_of(self.metric)


class GroupSpec(_Strict):
    """Columns averaged into one value first (the mean of the available ones, by column weight)."""

    label: str | None = None
    weight: float = Field(1.0, ge=0, allow_inf_nan=False, description="in the board's average")


class BoardSpec(_Strict):
    """A leaderboard: which pairs, which columns, how they are averaged and ranked."""

    name: str
    title: str | None = None
    description: str = ""
    family: str | None = Field(None, description="pairs of benchmarks whose task is of this family")
    tasks: TaskNames = Field(None, description="pairs of benchmarks of these tasks")
    benchmarks: list[str] | None = Field(None, description="pairs of these benchmarks")
    columns: list[ColumnSpec] = Field(min_length=1)
    groups: dict[str, GroupSpec] = Field(default_factory=dict)
    average: bool = Field(True, description="false: no average; rows ranked by `rank_by`")
    rank_by: list[str] = Field(
        default_factory=list, description="column labels, group names or `average`, in order of precedence"
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("must not be empty")
        return v

    @field_validator("family")
    @classmethod
    def _family(cls, v: str | None) -> str | None:
        if v is not None and v not in FAMILIES:
            raise ValueError(f"unknown family {v!r}{did_you_mean(v, FAMILIES)}; known: {', '.join(FAMILIES)}")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> BoardSpec:
        labels = [c.shown_label for c in self.columns if c.shown_label is not None]
        twice = sorted({x for x in labels if labels.count(x) > 1})
        if twice:
            raise ValueError(f"two columns are labelled {twice[0]!r}: give one a `label`")
        used = {c.group for c in self.columns if c.group}
        for name in self.groups:
            if name not in used:
                raise ValueError(f"group {name!r} has no column (a column joins it with `group: {name}`)")
        for name in used:
            pers = {c.per for c in self.columns if c.group == name}
            if len(pers) > 1:
                raise ValueError(f"the columns of group {name!r} mix `per: benchmark` and `per: board`")
        known = [*labels, *used, *([AVERAGE] if self.average else [])]
        for key in self.rank_by:
            if key not in known:
                raise ValueError(
                    f"rank_by {key!r} is not a column label or group{did_you_mean(key, known)}; "
                    f"known: {', '.join(known)}"
                )
        if self.average and not any(self._entry_weight(c) > 0 for c in self.columns):
            raise ValueError("every column weighs 0: nothing to average (or set `average: false`)")
        return self

    def _entry_weight(self, column: ColumnSpec) -> float:
        if column.group is None:
            return column.weight
        return self.group_spec(column.group).weight if column.weight > 0 else 0.0

    def group_spec(self, name: str) -> GroupSpec:
        """The group's settings (weight 1, labelled by its name, when not declared)."""
        return self.groups.get(name) or GroupSpec()

    @property
    def shown_title(self) -> str:
        return self.title or self.name


def metric_key(metric: str) -> str:
    """`mean:dnsmos_ovrl` -> `dnsmos_ovrl`: a metric's key in `summary.json`'s `scores` and top
    level, stable as stored runs and scripts read it (what is *shown* is the metric's declared
    display name, `metrics/corpus.shown_name`)."""
    return metric.removeprefix(MEAN_PREFIX)


def _known_keys(parent: tuple[Any, ...]) -> list[str]:
    """The keys allowed at a nested location of a board (`columns.0.…`, `groups.x.…`)."""
    if parent[:1] == ("columns",):
        return list(ColumnSpec.model_fields)
    if parent[:1] == ("groups",):
        return list(GroupSpec.model_fields)
    return list(BoardSpec.model_fields)


def parse_board(data: Any, where: str) -> BoardSpec:
    """A validated board, or InputError naming `where` and the first bad field."""
    if not isinstance(data, dict):
        raise InputError("a board must be a YAML mapping", file=where)
    try:
        return BoardSpec.model_validate(data)
    except ValidationError as exc:
        # a misspelt key first: the required key it stands for is then missing too
        errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
        message, location = describe_validation(errors, _known_keys)
        raise InputError(message, file=where, field=location or None) from None


def load_board_file(path: Path) -> list[BoardSpec]:
    """The boards of a YAML file: one board mapping, or `boards: [mapping, …]`."""
    data = read_yaml_mapping(path, "board definition")
    if set(data) != {"boards"}:
        return [parse_board(data, str(path))]
    boards = data["boards"]
    if not isinstance(boards, list) or not boards:
        raise InputError("`boards` must be a non-empty list of boards", file=str(path), field="boards")
    specs = [parse_board(b, f"{path} boards[{i}]") for i, b in enumerate(boards)]
    names = [s.name for s in specs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"two boards are named {twice[0]!r}", file=str(path), field="boards")
    return specs
