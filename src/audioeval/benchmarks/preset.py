"""A preset as data: the command a benchmark offers beside `audioeval run`.

A `Preset` is a benchmark plus defaults plus the shared CLI options it exposes. It names its
command (`("mmae", "score")`), its own options (`PresetOption`: the preset's inputs, e.g. a
predictions file), the shared option groups it takes from the CLI (`SHARED_GROUPS`: the
judge's endpoints and settings, the run's output folder, cache, seed, resamples, failure
limit …) with its own defaults for them, and hidden aliases (the official script's flag
spellings). One generic mechanism (`cli/preset_commands.py`) builds the typer command from
it, and one generic runner (`presets/preset_run.py`) runs it through the run engine:

1. `check(values)` refuses unusable inputs before anything is written;
2. `plan(values)` states the run: the benchmark spec (with its `where`), the model config,
   the benchmark scorer's judge role;
3. the engine runs the plan; the benchmark's exporter writes its files into the output
   folder (the run directory itself);
4. `outcome(folder)` reads the figures back for the console (`Benchmark.console_table`)
   and the failed-work count (`--max-failed`).

`tools` are the benchmark's small helper commands beside its preset (writing a baseline's
predictions, a synthetic set): an option list and a function, no run engine.

Nothing here imports the engine: values are plain (a model config is a mapping of
`engine/model_specs.ModelConfig` fields), so a benchmark folder states its preset whole.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.benchmarks.spec import BenchmarkSpec
from audioeval.core.errors import InputError

REQUIRED: Any = ...
"""The default of an option the user must give."""

SHARED_GROUPS = ("judge", "run")
"""The shared option groups a preset may expose (`cli/preset_commands.py` holds their flags):
`judge`: --judge URLS, --judge-model, --judge-concurrency, --judge-timeout, --judge-api-key-env,
--audio-part, --judge-sample-rate, --judge-temperature, --judge-max-tokens, --judge-prompt;
`run`: --output-dir/-o, --seed, --resamples, --cache, --no-cache, --progress/--no-progress,
--exclude-missing, --max-failed, --no-probe."""


@dataclass(frozen=True)
class PresetOption:
    """One option of a preset's (or tool's) own: its value reaches `plan` under `name`."""

    name: str
    """The key of its value (a Python identifier)."""
    flag: str
    """The canonical flag (`--predictions`), or the metavar of a positional argument."""
    type: type = str
    """`str`, `int`, `float`, `bool` (an on/off flag) or `Path`."""
    default: Any = REQUIRED
    help: str = ""
    short: str | None = None
    """A one-letter spelling (`-o`)."""
    off_flag: str | None = None
    """For a bool: the flag that turns it off (`--full-clips`); none: the flag only turns it on."""
    minimum: float | None = None
    choices: tuple[str, ...] = ()
    """The values a `str` option accepts (none: any)."""
    argument: bool = False
    """A positional argument instead of a flag."""
    optional: bool = False
    """The value may be None (no default value)."""


@dataclass(frozen=True)
class PresetPlan:
    """What one preset run asks of the engine."""

    spec: BenchmarkSpec
    where: str
    """Where the spec comes from (a file the run signature hashes, e.g. the metadata)."""
    model: Mapping[str, Any]
    """The model under test, as `engine/model_specs.ModelConfig` fields."""


@dataclass(frozen=True)
class PresetOutcome:
    """What a finished preset run shows: figures for the console table, and its work."""

    figures: Mapping[str, Any]
    """What `Benchmark.console_table` renders (MMAE: its taxonomy)."""
    total: int
    """Units of headline work (samples)."""
    failed: int
    scored: int
    first_failure: str | None = None
    no_retry: list[str] | None = None
    """Why a rerun will not mend some failures (shown with the failure count)."""
    notes: list[str] = field(default_factory=list)
    """Lines printed after the table (Rich markup allowed; user text escaped by the preset)."""
    skipped: list[InputError] = field(default_factory=list)
    failed_outputs: list[InputError] = field(default_factory=list)


@dataclass(frozen=True)
class Preset:
    """The command a benchmark offers beside `audioeval run` (see the module doc)."""

    command: tuple[str, str]
    """(group, command): `("mmae", "score")` is `audioeval mmae score`."""
    help: str
    plan: Callable[[Mapping[str, Any]], PresetPlan]
    outcome: Callable[[Path, Mapping[str, Any]], PresetOutcome]
    """The output folder and the values -> figures and failed work."""
    options: tuple[PresetOption, ...] = ()
    shared: tuple[str, ...] = SHARED_GROUPS
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """Defaults of shared options, by value name (`judge_model`, `output_dir`, …)."""
    helps: Mapping[str, str] = field(default_factory=dict)
    """This preset's help text of shared options, by value name."""
    aliases: Mapping[str, str] = field(default_factory=dict)
    """Hidden flag spellings -> canonical flag (`--base_urls` -> `--judge`)."""
    check: Callable[[Mapping[str, Any]], None] | None = None
    """Refuses unusable inputs (raises `InputError`) before anything is written."""
    source_option: str | None = None
    """The option naming the input the run's signature hashes (`metadata`): `<group> rescore`
    refuses a different file."""
    title: str = ""
    """The console table's title (default: the group)."""

    def __post_init__(self) -> None:
        unknown = [g for g in self.shared if g not in SHARED_GROUPS]
        if unknown:
            raise ValueError(f"preset {' '.join(self.command)}: unknown shared option group(s) {unknown}")


@dataclass(frozen=True)
class PresetTool:
    """A benchmark's helper command beside its preset: `run(values)` -> lines to print."""

    command: tuple[str, str]
    help: str
    run: Callable[[Mapping[str, Any]], tuple[list[str], list[InputError]]]
    """Values -> (lines to print, items skipped)."""
    options: tuple[PresetOption, ...] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)
