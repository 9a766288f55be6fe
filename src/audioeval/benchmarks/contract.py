"""The `Benchmark` contract: everything a benchmark provides, stated in one typed object.

A benchmark, built in (a folder under `benchmarks/`) or from an installed package, is one
`Benchmark` value. `benchmarks/plugins.load_benchmarks()` collects them (the built-in ones
listed there, then every entry point of the group `audioeval.benchmarks`, each naming a
`Benchmark` object) and registers what they provide: scorers with the scorer registry,
template folders with the prompt loader, text profiles with the profile registry, exporters
with the exporter registry, source types and predictions formats with theirs; spec folders are searched by `benchmarks/registry.py` for shipped
benchmark names. Nothing is found by a module path in a string: every field holds the
object itself. A heavy module stays out of import time behind a factory whose body imports
it (`scoring.base.DeferredFactory`, or a small function that imports and calls).

A package adds a benchmark with, in its `pyproject.toml`:

    [project.entry-points."audioeval.benchmarks"]
    keyword_demo = "keyword_bench:BENCHMARK"

(see `examples/plugin_benchmark/` and docs/architecture.md, "Adding a benchmark").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audioeval.benchmarks.pair_exports import Exporter as Exporter  # re-exported: a field's type
from audioeval.benchmarks.prediction_formats import PredictionFormat
from audioeval.benchmarks.sources.source_formats import SourceFormat
from audioeval.core.errors import RunConfigError
from audioeval.metrics.declaration import MeanDeclaration
from audioeval.scoring.base import ScorerFactory
from audioeval.scoring.profiles import TextProfile

if TYPE_CHECKING:
    from audioeval.benchmarks.preset import Preset, PresetTool


class BenchmarkPluginError(RunConfigError):
    """A benchmark that cannot be loaded or registered: a broken entry point, an object that
    is not a `Benchmark`, or a name (benchmark, scorer, spec, exporter) taken twice."""


@dataclass(frozen=True)
class Benchmark:
    """What one benchmark (or family of benchmarks) provides. Every field but `name` is optional."""

    name: str
    """The benchmark's (or family's) name, unique among every loaded benchmark: `mmae`,
    `keyword_demo`. Lower case letters, digits, `_` and `-`."""

    description: str = ""
    """One line for `audioeval list benchmarks` and the docs."""

    specs: Traversable | None = None
    """A folder of spec YAMLs (`importlib.resources.files("pkg").joinpath("specs")`); each
    file's stem is a benchmark name that `audioeval run --benchmark NAME` finds, exactly as a
    built-in spec (`benchmarks/<family>/specs/`). A name given twice is an error."""

    scorers: Mapping[str, ScorerFactory] = field(default_factory=dict)
    """Scorer name -> factory object (a scorer class, a function returning a scorer, or a
    `DeferredFactory`), registered explicitly with `scoring.scorer_registry.register_scorer`."""

    metrics: tuple[MeanDeclaration, ...] = ()
    """The `mean:<key>` metrics its scorers feed, declared once: display name, unit, direction
    and the per-sample value each is made of (`metrics/declaration.py`), registered with the
    one metric registry (`metrics.corpus.METRICS`). Every summary, table, board, page and
    console shows the metric by them. A `mean:<key>` nobody declares is a plain `score` shown
    under its key."""

    boards: tuple[Mapping[str, Any], ...] = ()
    """Leaderboards it gives, as data in the format of a boards YAML (`engine/board_spec.py`),
    naming its declared metrics: a board named like a task family's replaces that family's
    generic one (MMAE's `editing`: IFR, CR, EMR, ranked by EMR, then IFR, then CR)."""

    template_folders: tuple[tuple[str, str], ...] = ()
    """(package, folder) pairs of prompt templates (e.g. a judge prompt) that `load_template`
    then finds by name (`prompts.templates.add_template_folder`)."""

    profiles: tuple[TextProfile, ...] = ()
    """Scoring profiles (text conventions of the profiled scorers) this benchmark defines,
    registered with `scoring.profiles.register_profile` under their own names."""

    exporters: Mapping[str, Exporter] = field(default_factory=dict)
    """Exporter name -> function writing the benchmark's own files beside a pair's summary,
    at the end of every run and rescore. The name is either a scorer's (its records are
    exported whenever a spec lists it) or one a spec names in `exports:`."""

    source_types: Mapping[str, SourceFormat] = field(default_factory=dict)
    """Source type name -> reader of the benchmark's own data file format, which a spec names
    in `source.type` (`sources/source_formats.py`); the generic types need none."""

    prediction_formats: Mapping[str, PredictionFormat] = field(default_factory=dict)
    """Predictions format name -> how a `predictions:FILE` model reads a file of outputs in the
    benchmark's own format (`prediction_formats.py`): its reader, what it answers, and how
    `auto` recognises it."""

    task_scorers: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    """Task name -> the scorers a benchmark of that task gets when its spec names none, for a
    task (`tasks.py`) whose default scorers this benchmark provides."""

    presets: tuple[Preset, ...] = ()
    """The commands this benchmark offers beside `audioeval run`, as data (`benchmarks/preset.py`:
    its options, the shared CLI options it exposes, its defaults); `cli/preset_commands.py`
    builds each command, `presets/preset_run.py` runs it through the engine. None: the
    benchmark runs through `audioeval run` only."""

    tools: tuple[PresetTool, ...] = ()
    """Helper commands beside its presets (a baseline's predictions, a synthetic set)."""

    console_table: Callable[[Mapping[str, Any]], Any] | None = None
    """Optional hook: a pair summary (for a preset: its `PresetOutcome.figures`) -> what is
    printed for it (a `rich` renderable, or a list of them). Default None: the generic table
    of headline metrics."""

    report_section: Callable[[Mapping[str, Any]], str] | None = None
    """Optional hook: a pair summary -> an HTML fragment for the report. Default None: the
    generic section of metrics and breakdowns."""

    old_output_hint: Callable[[Path], str | None] | None = None
    """Optional hook: a folder without `run.json` -> what to do with it when this benchmark's
    preset wrote it in an earlier audioeval (before output folders were run directories), or
    None when it is not such a folder. `rescore` and `report` ask every benchmark."""

    definitions: Mapping[str, str] = field(default_factory=dict)
    """Metric name -> what it is, in a sentence or two (`mean:ifr` -> how MMAE's IFR is
    made): the report page's Definitions block shows it under every page that has the metric."""

    def __post_init__(self) -> None:
        for metric, text in self.definitions.items():
            if not isinstance(metric, str) or not isinstance(text, str) or not text.strip():
                raise TypeError(
                    f"benchmark {self.name!r}: definition of {metric!r} must be a non-empty text, not {text!r}"
                )
        if (
            not isinstance(self.name, str)
            or not self.name
            or not all(c.islower() or c.isdigit() or c in "_-" for c in self.name)
        ):
            raise ValueError(f"benchmark name {self.name!r}: use lower case letters, digits, _ and -")
        for name, factory in self.scorers.items():
            if isinstance(factory, str) or not callable(factory):
                raise TypeError(
                    f"benchmark {self.name!r}: scorer {name!r} must be a factory object, not {factory!r}"
                )
        for kind, named, wanted in (
            ("source type", self.source_types, SourceFormat),
            ("predictions format", self.prediction_formats, PredictionFormat),
        ):
            for name, value in named.items():
                if not isinstance(value, wanted):
                    raise TypeError(
                        f"benchmark {self.name!r}: {kind} {name!r} must be a {wanted.__name__}, not {value!r}"
                    )
        for metric in self.metrics:
            if not isinstance(metric, MeanDeclaration):
                raise TypeError(
                    f"benchmark {self.name!r}: metric {metric!r} must be a MeanDeclaration "
                    "(metrics/declaration.py)"
                )
        for board in self.boards:
            if not isinstance(board, Mapping) or not isinstance(board.get("name"), str):
                raise TypeError(f"benchmark {self.name!r}: a board must be a mapping with a `name`, not {board!r}")
        for name, exporter in self.exporters.items():
            if isinstance(exporter, str) or not callable(exporter):
                raise TypeError(
                    f"benchmark {self.name!r}: exporter {name!r} must be a function, not {exporter!r}"
                )

    def spec_files(self) -> dict[str, Traversable]:
        """Benchmark name -> spec file of every YAML in `specs` (none when it has no folder)."""
        if self.specs is None:
            return {}
        found = {}
        for entry in self.specs.iterdir():
            if entry.name.endswith((".yaml", ".yml")):
                found[entry.name.rsplit(".", 1)[0]] = entry
        return dict(sorted(found.items()))
