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

A preset's values are typed (`PresetValues`: the shared settings as the attributes of a
`SharedValues`, one per setting `core/settings.py` declares, the preset's own options by name,
which each preset reads once into a typed options object of its own, `read_options`).
Nothing here imports the engine: a plan's model is a `PlanModel` of
`engine/model_specs.ModelConfig` fields, so a benchmark folder states its preset whole.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from audioeval.benchmarks.sources.loader import SampleSet
from audioeval.benchmarks.spec import BenchmarkSpec
from audioeval.core.errors import InputError
from audioeval.core.settings import DEFAULTS, GROUPS, SETTING, USAGE_AND_COST, group_names

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

REQUIRED: Any = ...
"""The default of an option the user must give."""

OptionValue = str | int | float | bool | Path | Sequence[str] | None
"""A value of a preset's option or of a shared setting: of a type `PresetOption.type` or
`Setting.type` allows, or an endpoint list as the CLI parses `--judge` and `--model`."""


SHARED_GROUPS = GROUPS
"""The shared setting groups a preset may expose, declared with their flags, defaults, bounds
and help in `core/settings.py`: `judge` (--judge URLS, --judge-model, --judge-concurrency,
--judge-timeout, --judge-api-key-env, --audio-part, --judge-sample-rate, --judge-temperature,
--judge-max-tokens, --judge-prompt), `run` (--output-dir/-o, --seed, --cache, --no-cache,
--resamples, --progress/--no-progress, --exclude-missing, --max-failed, --no-probe), `model`
(the model under test, an OpenAI-compatible endpoint: --model/-m NAME@URL[,URL] (or a served
name with the hidden --base-urls URL[,URL]; the CLI gives the plan `model` as the name and
`model_urls` as the list), --concurrency, --timeout, --api-key-env, --temperature,
--max-tokens, --sample-rate, --audio-part) and `data` (--limit, --data-root). The runner sends
`temperature`/`max_tokens` as the run's sampling and `sample_rate` to the model; the plan
builds the model config. `--audio-part` is the model's (`model_audio_part`) in the model
group, the judge's in the judge group: a preset exposes one of them."""

SHARED_OPTIONS: dict[str, tuple[str, ...]] = {g: group_names(g) for g in GROUPS}
"""The value names of each shared group: `Preset.shared` names whole groups or single options
of them (a preset exposes only the options it uses)."""


def shared_group(name: str) -> str | None:
    """The shared group a value name belongs to (None: not a shared option)."""
    return next((g for g, names in SHARED_OPTIONS.items() if name in names), None)


@dataclass(frozen=True)
class SharedValues:
    """The shared settings' values as a preset's plan and the runner read them: one typed
    attribute per setting of `core/settings.py` (which declares its flags, default, bounds and
    help; each default here is the declared one, `DEFAULTS`), plus what code or the CLI gives
    beside the flags. After the CLI: `judge` is the list of endpoint URLs, or the preset's
    offline judge by name (`Preset.offline_judge`); `model` is the served name and `model_urls`
    its endpoints."""

    # the judge
    judge: Sequence[str] | str | None = DEFAULTS["judge"]
    judge_model: str = DEFAULTS["judge_model"]
    judge_concurrency: int = DEFAULTS["judge_concurrency"]
    judge_timeout: float = DEFAULTS["judge_timeout"]
    judge_api_key_env: str = DEFAULTS["judge_api_key_env"]
    audio_part: str = DEFAULTS["audio_part"]
    judge_sample_rate: int = DEFAULTS["judge_sample_rate"]
    judge_temperature: float | None = DEFAULTS["judge_temperature"]
    judge_max_tokens: int | None = DEFAULTS["judge_max_tokens"]
    judge_prompt: Path | None = DEFAULTS["judge_prompt"]
    # the run
    output_dir: Path | None = DEFAULTS["output_dir"]
    seed: int = DEFAULTS["seed"]
    cache: Path | None = DEFAULTS["cache"]
    no_cache: bool = DEFAULTS["no_cache"]
    resamples: int = DEFAULTS["resamples"]
    progress: bool = DEFAULTS["progress"]
    exclude_missing: bool = DEFAULTS["exclude_missing"]
    max_failed: str = DEFAULTS["max_failed"]
    prices: Path | None = DEFAULTS["prices"]
    max_calls: int | None = DEFAULTS["max_calls"]
    max_cost: float | None = DEFAULTS["max_cost"]
    dry_run: bool = DEFAULTS["dry_run"]
    no_probe: bool = DEFAULTS["no_probe"]
    # the model under test
    model: str | None = DEFAULTS["model"]
    base_urls: str | None = DEFAULTS["base_urls"]
    concurrency: int = DEFAULTS["concurrency"]
    timeout: float = DEFAULTS["timeout"]
    api_key_env: str = DEFAULTS["api_key_env"]
    temperature: float | None = DEFAULTS["temperature"]
    max_tokens: int | None = DEFAULTS["max_tokens"]
    sample_rate: int = DEFAULTS["sample_rate"]
    model_audio_part: str = DEFAULTS["model_audio_part"]
    # the data
    limit: int | None = DEFAULTS["limit"]
    data_root: Path | None = DEFAULTS["data_root"]
    # given beside the flags
    judge_api_key: str | None = None
    """A key given in code; otherwise read from `judge_api_key_env`."""
    model_urls: Sequence[str] | None = None
    """The endpoints of `--model NAME@URL` (the CLI splits them off)."""


BESIDE_FLAGS = ("judge_api_key", "model_urls")
"""The values of `SharedValues` that are no setting of `core/settings.py`."""
SHARED_NAMES = tuple(f.name for f in fields(SharedValues))
if set(SHARED_NAMES) != {*SETTING, *BESIDE_FLAGS}:  # the declaration and its typed values agree
    raise RuntimeError(f"SharedValues and core/settings.py differ: {sorted(set(SHARED_NAMES) ^ {*SETTING, *BESIDE_FLAGS})}")


@dataclass(frozen=True)
class PresetValues:
    """Every value of one preset command, as its plan, check and outcome and the runner read
    them: the shared settings typed (`settings`), the preset's own options by name (`own`, as
    their `PresetOption`s declare them: a preset reads them once into its own typed options
    with `read_options`, as MMAE's `ScoreOptions`), and, for `outcome`, what the benchmark's
    exporter just returned for the output folder (`exported`; None: nothing): an outcome that
    knows it (MMAE's `WrittenFiles`) reports from it instead of reading back the files just
    written."""

    settings: SharedValues = field(default_factory=SharedValues)
    own: Mapping[str, OptionValue] = field(default_factory=dict)
    exported: object = None


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


Options = TypeVar("Options", bound="DataclassInstance")


def run_folder_beside(output: Path) -> Path:
    """The run folder of a preset that writes one file, when `--output-dir` is not given:
    `OUTPUT.run/` beside that file."""
    return output.parent / f"{output.name}.run"


def read_options(kind: type[Options], options: Sequence[PresetOption], values: PresetValues) -> Options:
    """A preset's own options as its typed options object `kind` (a dataclass with one field
    per option of `options`, by name): each option's value among `values`, or, not given, its
    declared default (`REQUIRED` for a required one: only a rescore, which reads its folder
    alone, lacks one)."""
    given = {**{o.name: o.default for o in options}, **values.own}
    return kind(**{f.name: given[f.name] for f in fields(kind)})


class PlanModel(TypedDict, total=False):
    """The model under test of a preset's plan, as `engine/model_specs.ModelConfig` fields."""

    name: str
    type: str
    urls: list[str]
    served_model: str
    api_key_env: str
    concurrency: int
    timeout_s: float
    audio_part: str
    baseline: str
    predictions: str
    predictions_format: str
    prediction_key: str | None
    audio_root: str


class PlanJudge(TypedDict, total=False):
    """`engine/run_judge.JudgeSettings` fields a preset's plan sets over the shared `judge`
    options (MMAR-Rubrics: its seed and max_tokens)."""

    seed: int | None
    max_tokens: int | None
    temperature: float | None
    role: str


@dataclass(frozen=True)
class PlanPart:
    """A further benchmark of a preset's run (`judge-eval --tune-on`: the dev split)."""

    spec: BenchmarkSpec
    where: str
    samples: SampleSet | None = None


@dataclass(frozen=True)
class PresetPlan:
    """What one preset run asks of the engine: one benchmark (`spec`), or more (`also`)."""

    spec: BenchmarkSpec
    where: str
    """Where the spec comes from (a file the run signature hashes, e.g. the metadata)."""
    model: PlanModel
    """The model under test, as `engine/model_specs.ModelConfig` fields."""
    samples: SampleSet | None = None
    """The samples, when the preset read and checked its input itself (`mcq score`: the
    predictions file, with the rubric plan); None: the engine reads the spec's source."""
    rescore_changed_samples: bool = False
    """The input changes per sample between runs into one folder (a predictions file scored
    again): a sample whose content changed is scored again instead of refused, and the input
    file's location and hash stay out of the pair signature."""
    export_info: Mapping[str, Any] = field(default_factory=dict)
    """What the preset tells its benchmark's exporter (`PairExport.run_info`)."""
    judge: PlanJudge | None = field(default_factory=lambda: PlanJudge())
    """`engine/run_judge.JudgeSettings` fields set over the shared `judge` options (MMAR-Rubrics:
    its seed and max_tokens); None: this run asks no judge."""
    also: tuple[PlanPart, ...] = ()
    """Further benchmarks of the same run, with the same model (their exports go to their pair
    folders; only the first benchmark's go to the output folder's top)."""


@dataclass(frozen=True)
class PresetOutcome:
    """What a finished preset run shows: figures for the console table, and its work."""

    figures: Mapping[str, Any]
    """What `Benchmark.console_table` renders (MMAE: its taxonomy)."""
    total: int
    """Units of headline work (`unit`s)."""
    failed: int
    scored: int
    first_failure: str | None = None
    no_retry: list[str] | None = None
    """Why a rerun will not mend some failures (shown with the failure count)."""
    notes: list[str] = field(default_factory=list)
    """Lines printed after the table (Rich markup allowed; user text escaped by the preset)."""
    skipped: list[InputError] = field(default_factory=list)
    failed_outputs: list[InputError] = field(default_factory=list)
    unit: str = "sample"
    """What `total` counts, for the `--max-failed` message (`mcq score --rubrics`: a
    rubric-judged item)."""


@dataclass(frozen=True)
class Preset:
    """The command a benchmark offers beside `audioeval run` (see the module doc)."""

    command: tuple[str, ...]
    """(group, command): `("mmae", "score")` is `audioeval mmae score`; one name: a top-level
    command (`("judge-eval",)` is `audioeval judge-eval`, with no `rescore` of its own:
    `audioeval rescore` reads its folder)."""
    help: str
    plan: Callable[[PresetValues], PresetPlan]
    outcome: Callable[[Path, PresetValues], PresetOutcome]
    """The output folder and the values -> figures and failed work; it may also write the
    preset's product from the folder's records (`mcq predict`: the predictions file). The
    values hold, in `exported`, what the exporter just returned for the folder."""
    options: tuple[PresetOption, ...] = ()
    shared: tuple[str, ...] = ("judge", "run")
    """The shared options it exposes: whole groups (`"judge"`, `"run"`) or single options of
    them (`"judge_model"`, `SHARED_OPTIONS`); `"judge"` beside other judge options is only
    the `--judge` option."""
    defaults: Mapping[str, OptionValue] = field(default_factory=dict)
    """Its own defaults of shared settings, by value name (`judge_model`, `output_dir`, …;
    `REQUIRED`: one it cannot run without, as `--judge` of a judged preset); the others keep
    their declared defaults (`core/settings.py`)."""
    helps: Mapping[str, str] = field(default_factory=dict)
    """This preset's help text of shared options, by value name."""
    aliases: Mapping[str, str] = field(default_factory=dict)
    """Hidden flag spellings -> canonical flag (`--base_urls` -> `--judge`)."""
    check: Callable[[PresetValues], None] | None = None
    """Refuses unusable inputs (raises `InputError`) before anything is written."""
    source_option: str | None = None
    """The option naming the input the run's signature hashes (`metadata`): `<group> rescore`
    refuses a different file."""
    title: str = ""
    """The console table's title (default: the group)."""
    output_dir: Callable[[PresetValues], Path] | None = None
    """The output folder when `--output-dir` is not given (then its default is None)."""
    rescore: bool = True
    """Whether it gets `<group> rescore` (`mcq predict` does not: `mcq score` has its group's)."""
    offline_judge: str | None = None
    """A `--judge` value that names no endpoint but a judge of the preset's own that asks no
    model (`mmae score --judge verifiers`); its plan then asks no run judge."""

    def __post_init__(self) -> None:
        if len(self.command) not in (1, 2):
            raise ValueError(f"preset {self.command}: one name (top-level) or (group, name)")
        unknown = [g for g in self.shared if g not in SHARED_GROUPS and shared_group(g) is None]
        if unknown:
            raise ValueError(f"preset {' '.join(self.command)}: unknown shared option(s) {unknown}")
        for name, value in self.defaults.items():  # its own defaults, within the declared bounds
            problem = "not a shared setting" if name not in SETTING else None
            if problem is None and value is not REQUIRED and value is not None:
                problem = SETTING[name].problem(value)
            if problem:
                raise ValueError(f"preset {' '.join(self.command)}: default of {name}: {problem}")

    def exposes(self, name: str) -> bool:
        """Whether the shared option `name` is one of this preset's (by its group or by name;
        the usage and cost settings, `USAGE_AND_COST`, are every preset's, as they are `run`'s)."""
        if name in self.shared or name in USAGE_AND_COST:
            return True
        group = shared_group(name)
        # a group named with none of its other options named is the whole group ("judge" is
        # both the judge group and its --judge option)
        return group in self.shared and not any(n in self.shared for n in SHARED_OPTIONS[group] if n != group)

    def uses(self, group: str) -> bool:
        """Whether the preset exposes any option of the shared `group`."""
        return any(self.exposes(n) for n in SHARED_OPTIONS[group])


@dataclass(frozen=True)
class PresetTool:
    """A benchmark's helper command beside its preset: `run(values)` -> lines to print."""

    command: tuple[str, str]
    help: str
    run: Callable[[Mapping[str, OptionValue]], tuple[list[str], list[InputError]]]
    """Values -> (lines to print, items skipped)."""
    options: tuple[PresetOption, ...] = ()
    aliases: Mapping[str, str] = field(default_factory=dict)
