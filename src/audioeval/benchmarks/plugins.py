"""Finding every benchmark (`contract.Benchmark`): the built-in ones, listed here, and those
of installed packages, through the entry point group `audioeval.benchmarks`.

`load_benchmarks()` loads them all once and registers what they provide (scorers, template
folders, profiles, exporters, source types, predictions formats, default scorers of a task,
spec folders), and with them the generic judged scorers of
`judge/` (`judged_scorers()`: no benchmark's, and `scoring/` may not import `judge/`);
whatever resolves a scorer, exporter, profile or benchmark name calls it first. A broken plugin is an error naming its package and entry point; a
benchmark, scorer or exporter name given twice is an error naming both providers.
"""

from __future__ import annotations

import threading
from importlib.metadata import EntryPoint, entry_points

from audioeval.benchmarks.contract import Benchmark, BenchmarkPluginError
from audioeval.scoring.base import DeferredFactory, ScorerFactory

ENTRY_POINT_GROUP = "audioeval.benchmarks"
BUILTIN = "audioeval"
"""The provider named in errors for a built-in benchmark."""

_lock = threading.RLock()
_loaded: dict[str, Benchmark] | None = None
_loading = False
_providers: dict[str, str] = {}  # benchmark name -> "audioeval" or "package (entry point x = y)"


def builtin_benchmarks() -> list[Benchmark]:
    """The benchmarks shipped with audioeval, each its folder's `BENCHMARK`."""
    from audioeval.benchmarks.air_bench.benchmark import BENCHMARK as AIR_BENCH
    from audioeval.benchmarks.anyaudio_bench.benchmark import BENCHMARK as ANYAUDIO_BENCH
    from audioeval.benchmarks.asr_sets.benchmark import BENCHMARK as ASR_SETS
    from audioeval.benchmarks.ast_sets.benchmark import BENCHMARK as AST_SETS
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


def _provider(ep: EntryPoint) -> str:
    package = ep.dist.name if ep.dist is not None else "an unknown package"
    return f"package {package!r} (entry point {ep.name} = {ep.value} in group {ENTRY_POINT_GROUP})"


def installed_benchmarks() -> list[tuple[str, Benchmark]]:
    """(provider, benchmark) of every entry point of the group, in name order."""
    found = []
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (e.name, e.value)):
        where = _provider(ep)
        try:
            obj = ep.load()
        except Exception as exc:  # the plugin's own failure, reported with where it came from
            raise BenchmarkPluginError(
                f"benchmark plugin {where} failed to load: {type(exc).__name__}: {exc}"
            ) from exc
        if not isinstance(obj, Benchmark):
            raise BenchmarkPluginError(
                f"benchmark plugin {where} names a {type(obj).__name__}, not an audioeval Benchmark "
                "(audioeval.benchmarks.contract.Benchmark)"
            )
        found.append((where, obj))
    return found


def _check(candidates: list[tuple[str, Benchmark]]) -> None:
    """Every clash among the candidates, or with what is already registered, before any is
    registered (a failed load leaves the registries as they were)."""
    from audioeval.benchmarks.exporter_names import EXPORTERS
    from audioeval.benchmarks.prediction_formats import PREDICTION_FORMATS
    from audioeval.benchmarks.sources.source_formats import GENERIC_SOURCE_TYPES, SOURCE_FORMATS
    from audioeval.benchmarks.tasks import TASK_SCORERS, TASKS
    from audioeval.scoring.base import SCORERS
    from audioeval.scoring.profiles import PROFILES

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
    for where, bench in candidates:
        keys = [("benchmark", bench.name)]
        keys += [("scorer", n) for n in bench.scorers]
        keys += [("exporter", n) for n in bench.exporters]
        keys += [("profile", p.name) for p in bench.profiles]
        keys += [("spec", n) for n in bench.spec_files()]
        keys += [("source type", n) for n in bench.source_types]
        keys += [("predictions format", n) for n in bench.prediction_formats]
        keys += [("task scorers", n) for n in bench.task_scorers]
        unknown_tasks = sorted(set(bench.task_scorers) - set(TASKS.names()))
        if unknown_tasks:
            raise BenchmarkPluginError(
                f"benchmark {bench.name!r} from {where} gives default scorers for unknown task(s) "
                f"{', '.join(unknown_tasks)}"
            )
        for key in keys:
            if key in seen:
                raise BenchmarkPluginError(
                    f"{key[0]} name {key[1]!r} of benchmark {bench.name!r} from {where} is taken "
                    f"({seen[key]})"
                )
            seen[key] = f"by benchmark {bench.name!r} from {where}"


def _register(bench: Benchmark) -> None:
    from audioeval.benchmarks.exporter_names import EXPORTERS
    from audioeval.benchmarks.prediction_formats import PREDICTION_FORMATS
    from audioeval.benchmarks.sources.source_formats import SOURCE_FORMATS
    from audioeval.benchmarks.tasks import TASK_SCORERS
    from audioeval.prompts.templates import add_template_folder
    from audioeval.scoring.base import register_scorer
    from audioeval.scoring.profiles import register_profile

    for name, factory in bench.scorers.items():
        register_scorer(name, factory)
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
    from audioeval.scoring.base import register_scorer

    candidates = [(BUILTIN, b) for b in builtin_benchmarks()] + installed_benchmarks()
    _check(candidates)
    for name, factory in judged_scorers().items():
        register_scorer(name, factory)
    for where, bench in candidates:
        _register(bench)
        _providers[bench.name] = where
    return {bench.name: bench for _, bench in candidates}


def provider_of(name: str) -> str:
    """Where a loaded benchmark came from ("audioeval", or its package and entry point)."""
    load_benchmarks()
    return _providers[name]
