"""Finding every benchmark (`contract.Benchmark`): the built-in ones, listed here, and those
of installed packages, through the entry point group `audioeval.benchmarks`.

`load_benchmarks()` loads them all once and registers what they provide (scorers, template
folders, profiles, exporters, source types, predictions formats, default scorers of a task,
spec folders), and with them the generic judged scorers of
`judge/` (`judged_scorers()`: no benchmark's, and `scoring/` may not import `judge/`);
whatever resolves a scorer, exporter, profile or benchmark name calls it first.

A plugin is one gate: a plugin that raises on import, names no `Benchmark`, takes a name that
is taken (a built-in one, or an earlier plugin's) or whose specs folder cannot be read is not
loaded, and is listed in `broken_plugins()` as one line naming its distribution, entry point
and error; every other benchmark loads, and the commands that need none of its names run. A
name given twice among the built-in benchmarks is a defect: raised, naming both providers.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points

from audioeval.benchmarks.contract import Benchmark, BenchmarkPluginError
from audioeval.core.names import name_problem
from audioeval.metrics.declaration import declare, declared_names
from audioeval.scoring.base import DeferredFactory, ScorerFactory

ENTRY_POINT_GROUP = "audioeval.benchmarks"
BUILTIN = "audioeval"
"""The provider named in errors for a built-in benchmark."""

_lock = threading.RLock()
_loaded: dict[str, Benchmark] | None = None
_loading = False
_providers: dict[str, str] = {}  # benchmark name -> "audioeval" or "package (entry point x = y)"
_origins: dict[str, PluginOrigin] = {}  # benchmark name -> its plugin's origin (installed ones)
_scorer_origins: dict[str, tuple[str, PluginOrigin]] = {}  # scorer or spec name -> (benchmark, origin)
_broken: list[BrokenPlugin] = []


def builtin_benchmarks() -> list[Benchmark]:
    """The benchmarks shipped with audioeval, each its folder's `BENCHMARK`."""
    from audioeval.benchmarks.air_bench.benchmark import BENCHMARK as AIR_BENCH
    from audioeval.benchmarks.anyaudio_bench.benchmark import BENCHMARK as ANYAUDIO_BENCH
    from audioeval.benchmarks.asr_sets.benchmark import BENCHMARK as ASR_SETS
    from audioeval.benchmarks.ast_sets.benchmark import BENCHMARK as AST_SETS
    from audioeval.benchmarks.audiobench.benchmark import BENCHMARK as AUDIOBENCH
    from audioeval.benchmarks.caption_sets.benchmark import BENCHMARK as CAPTION_SETS
    from audioeval.benchmarks.classification_sets.benchmark import BENCHMARK as CLASSIFICATION_SETS
    from audioeval.benchmarks.demo.benchmark import BENCHMARK as DEMO
    from audioeval.benchmarks.mcq.benchmark import BENCHMARK as MMAR_MMAU
    from audioeval.benchmarks.mmae.benchmark import BENCHMARK as MMAE
    from audioeval.benchmarks.rubric_items.benchmark import BENCHMARK as RUBRIC_ITEMS
    from audioeval.benchmarks.speech_cmmlu_hsk.benchmark import BENCHMARK as SPEECH_CMMLU_HSK
    from audioeval.benchmarks.spoken_qa_sets.benchmark import BENCHMARK as SPOKEN_QA_SETS
    from audioeval.benchmarks.tts_sets.benchmark import BENCHMARK as TTS_SETS
    from audioeval.benchmarks.ultraeval.benchmark import BENCHMARK as ULTRAEVAL
    from audioeval.benchmarks.voicebench.benchmark import BENCHMARK as VOICEBENCH

    return [
        MMAE,
        MMAR_MMAU,
        ANYAUDIO_BENCH,
        RUBRIC_ITEMS,
        VOICEBENCH,
        AIR_BENCH,
        ULTRAEVAL,
        AUDIOBENCH,
        SPEECH_CMMLU_HSK,
        SPOKEN_QA_SETS,
        TTS_SETS,
        ASR_SETS,
        AST_SETS,
        CAPTION_SETS,
        CLASSIFICATION_SETS,
        DEMO,
    ]


def _qa_judge() -> ScorerFactory:
    from audioeval.judge.qa_judge import QaJudgeScorer

    return QaJudgeScorer


def _rubric_items() -> ScorerFactory:
    from audioeval.judge.rubric_items import RubricItemsScorer

    return RubricItemsScorer


def _chat_rating() -> ScorerFactory:
    from audioeval.judge.chat_rating import ChatRatingScorer

    return ChatRatingScorer


def judged_scorers() -> dict[str, ScorerFactory]:
    """The generic judged scorers of `judge/`, no benchmark's own: `qa_judge` (open answers
    against a reference), `rubric_items` (yes/no rubric items), `chat_rating` (a judged
    rating of a chat reply). Registered here, beside the benchmarks, because `scoring/` may
    not import `judge/`; each module loads when its scorer is first built."""
    return {
        "qa_judge": DeferredFactory(_qa_judge),
        "rubric_items": DeferredFactory(_rubric_items),
        "chat_rating": DeferredFactory(_chat_rating),
    }


@dataclass(frozen=True)
class PluginOrigin:
    """Where a benchmark from an installed package came from: its distribution, version and
    entry point (recorded in the signature of every pair it scores)."""

    distribution: str
    version: str
    entry_point: str
    """`name = module:attr` as the package declares it."""

    def describe(self) -> str:
        return (
            f"package {self.distribution!r} {self.version} (entry point {self.entry_point} "
            f"in group {ENTRY_POINT_GROUP})"
        )

    def as_signature(self) -> dict[str, str]:
        return {"distribution": self.distribution, "version": self.version, "entry_point": self.entry_point}


@dataclass(frozen=True)
class BrokenPlugin:
    """A plugin that was not loaded (it raised on import, names no `Benchmark`, takes a name
    that is taken, or its specs folder cannot be read), and why. The other benchmarks load."""

    origin: PluginOrigin
    error: str

    def line(self) -> str:
        """One line naming the distribution, the entry point and the error."""
        return f"benchmark plugin {self.origin.describe()} not loaded: {self.error}"


def _origin(ep: EntryPoint) -> PluginOrigin:
    dist = ep.dist
    name = dist.name if dist is not None else "an unknown package"
    version = (dist.version if dist is not None else None) or "unknown version"
    return PluginOrigin(name, version, f"{ep.name} = {ep.value}")


def _load_entry_point(ep: EntryPoint) -> Benchmark:
    """The `Benchmark` an entry point names; BenchmarkPluginError saying why not."""
    try:
        obj = ep.load()
    except Exception as exc:  # the plugin's own failure, reported with where it came from
        raise BenchmarkPluginError(f"failed to load: {type(exc).__name__}: {exc}") from exc
    if not isinstance(obj, Benchmark):
        raise BenchmarkPluginError(
            f"names a {type(obj).__name__}, not an audioeval Benchmark (audioeval.benchmarks.contract.Benchmark)"
        )
    return obj


def installed_benchmarks() -> tuple[list[tuple[PluginOrigin, Benchmark]], list[BrokenPlugin]]:
    """(origin, benchmark) of every entry point of the group that loads, in name order, and
    the broken ones (`BrokenPlugin`): a plugin's failure is its own, never every command's."""
    found, broken = [], []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name, e.value)):
        origin = _origin(ep)
        try:
            found.append((origin, _load_entry_point(ep)))
        except BenchmarkPluginError as exc:
            broken.append(BrokenPlugin(origin, str(exc)))
    return found, broken


def _names(bench: Benchmark) -> list[tuple[str, str]]:
    """(kind, name) of everything a benchmark registers; its specs folder read here (an error
    when it cannot be read, or holds a spec whose file name breaks the naming rule)."""
    keys = [("benchmark", bench.name)]
    keys += [("scorer", n) for n in bench.scorers]
    keys += [("exporter", n) for n in bench.exporters]
    keys += [("profile", p.name) for p in bench.profiles]
    keys += [("metric", m.name) for m in bench.metrics]
    keys += [("board", str(b["name"])) for b in bench.boards]
    try:
        specs = bench.spec_files()
    except OSError as exc:
        raise BenchmarkPluginError(f"its specs folder cannot be read ({type(exc).__name__}: {exc})") from None
    for name in specs:
        problem = name_problem(name, benchmark=True)
        if problem is not None:
            raise BenchmarkPluginError(f"spec file {name!r}: {problem}")
    from audioeval.benchmarks.tasks import TASKS

    unknown_tasks = sorted(set(bench.task_scorers) - set(TASKS.names()))
    if unknown_tasks:
        raise BenchmarkPluginError(
            f"benchmark {bench.name!r} gives default scorers for unknown task(s) {', '.join(unknown_tasks)}"
        )
    keys += [("spec", n) for n in specs]
    keys += [("source type", n) for n in bench.source_types]
    keys += [("predictions format", n) for n in bench.prediction_formats]
    keys += [("task scorers", n) for n in bench.task_scorers]
    return keys


def _taken() -> dict[tuple[str, str], str]:
    """(kind, name) -> who holds it, of what is registered before any benchmark is."""
    from audioeval.benchmarks.exporter_names import EXPORTERS
    from audioeval.benchmarks.prediction_formats import PREDICTION_FORMATS
    from audioeval.benchmarks.sources.source_formats import GENERIC_SOURCE_TYPES, SOURCE_FORMATS
    from audioeval.benchmarks.tasks import TASK_SCORERS, TASKS
    from audioeval.scoring.profiles import PROFILES
    from audioeval.scoring.scorer_registry import SCORERS

    seen: dict[tuple[str, str], str] = {}
    for kind, names in (
        ("scorer", SCORERS),
        ("exporter", EXPORTERS),
        ("profile", PROFILES),
        ("source type", SOURCE_FORMATS),
        ("predictions format", PREDICTION_FORMATS),
        ("task scorers", TASK_SCORERS),
    ):
        seen.update({(kind, n): "already registered" for n in names})
    seen.update({("source type", n): "a generic source type of audioeval" for n in GENERIC_SOURCE_TYPES})
    seen.update({("predictions format", "auto"): "the word that asks for the format to be found"})
    seen.update({("task scorers", t.name): "the task's own" for t in TASKS.values() if t.scorers})
    seen.update({("scorer", n): "a generic judged scorer of audioeval" for n in judged_scorers()})
    seen.update({("metric", n): "already declared" for n in declared_names()})
    return seen


def _claim(seen: dict[tuple[str, str], str], where: str, bench: Benchmark) -> None:
    """Take every name of `bench` in `seen`; BenchmarkPluginError naming the first that is taken
    (nothing taken then)."""
    keys = _names(bench)
    for key in keys:
        if key in seen:
            raise BenchmarkPluginError(
                f"{key[0]} name {key[1]!r} of benchmark {bench.name!r} from {where} is taken ({seen[key]})"
            )
    for key in keys:
        seen[key] = f"by benchmark {bench.name!r} from {where}"


def _check(candidates: list[tuple[str, Benchmark]]) -> None:
    """Every clash among the candidates, or with what is already registered, before any is
    registered (a failed check leaves the registries as they were)."""
    seen = _taken()
    for where, bench in candidates:
        _claim(seen, where, bench)


def _register(bench: Benchmark) -> None:
    from audioeval.benchmarks.exporter_names import EXPORTERS
    from audioeval.benchmarks.prediction_formats import PREDICTION_FORMATS
    from audioeval.benchmarks.sources.source_formats import SOURCE_FORMATS
    from audioeval.benchmarks.tasks import TASK_SCORERS
    from audioeval.prompts.templates import add_template_folder
    from audioeval.scoring.profiles import register_profile
    from audioeval.scoring.scorer_registry import register_scorer

    for name, factory in bench.scorers.items():
        register_scorer(name, factory)
    for metric in bench.metrics:
        declare(metric)
    for name, exporter in bench.exporters.items():
        EXPORTERS.register(name, exporter)
    for profile in bench.profiles:
        register_profile(profile.name, profile)
    for package, folder in bench.template_folders:
        add_template_folder(package, folder)
    for name, source in bench.source_types.items():
        SOURCE_FORMATS.register(name, source)
    for name, fmt in bench.prediction_formats.items():
        PREDICTION_FORMATS.register(name, fmt)
    for task, scorers in bench.task_scorers.items():
        TASK_SCORERS.register(task, tuple(scorers))


def load_benchmarks() -> dict[str, Benchmark]:
    """Every benchmark by name (built-in first), loaded and registered once per process."""
    global _loaded, _loading
    with _lock:
        if _loaded is not None:
            return _loaded
        if _loading:
            raise BenchmarkPluginError("a benchmark asked for the benchmarks while they were being loaded")
        _loading = True
        try:
            _loaded = _load()
        finally:
            _loading = False
        return _loaded


def _load() -> dict[str, Benchmark]:
    """The built-in benchmarks (a clash among them is a defect: raised), then each plugin that
    loads and takes no name that is taken; every other plugin is listed in `broken_plugins()`."""
    from audioeval.benchmarks.sources.tool_outputs import register_formats
    from audioeval.scoring.scorer_registry import register_scorer

    register_formats()
    builtin = [(BUILTIN, b) for b in builtin_benchmarks()]
    _check(builtin)
    seen = _taken()
    for where, bench in builtin:
        _claim(seen, where, bench)
    found, broken = installed_benchmarks()
    plugins: list[tuple[PluginOrigin, Benchmark]] = []
    for origin, bench in found:
        try:
            _claim(seen, origin.describe(), bench)
        except BenchmarkPluginError as exc:
            broken.append(BrokenPlugin(origin, str(exc)))
            continue
        plugins.append((origin, bench))
    for name, factory in judged_scorers().items():
        register_scorer(name, factory)
    for where, bench in builtin:
        _register(bench)
        _providers[bench.name] = where
    for origin, bench in plugins:
        _register(bench)
        _providers[bench.name] = origin.describe()
        _origins[bench.name] = origin
        _scorer_origins.update(dict.fromkeys(bench.scorers, (bench.name, origin)))
        _scorer_origins.update(dict.fromkeys(bench.spec_files(), (bench.name, origin)))
    _broken[:] = broken
    return {bench.name: bench for _, bench in [*builtin, *plugins]}


def broken_plugins() -> list[BrokenPlugin]:
    """The plugins that were not loaded, each with its reason (none when every one loaded)."""
    load_benchmarks()
    return list(_broken)


def broken_plugins_note() -> str:
    """Every plugin that was not loaded, one line each joined by "; ", to lead a message about
    a name none of the loaded benchmarks provides ("" when every plugin loaded)."""
    return "; ".join(b.line() for b in broken_plugins())


def plugin_origins(scorers: list[str], spec: str | None = None) -> dict[str, dict[str, str]]:
    """Benchmark (family) name -> distribution, version and entry point of each installed
    plugin that provides one of `scorers` or the spec `spec`; built-in ones are not named."""
    load_benchmarks()
    out = {}
    for name in [*scorers, *([spec] if spec else [])]:
        if name in _scorer_origins:
            family, origin = _scorer_origins[name]
            out[family] = origin.as_signature()
    return dict(sorted(out.items()))


def provider_of(name: str) -> str:
    """Where a loaded benchmark came from ("audioeval", or its package and entry point)."""
    load_benchmarks()
    return _providers[name]
