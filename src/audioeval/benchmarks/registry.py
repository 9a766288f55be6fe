"""Finding benchmarks: a shipped spec by name, a spec file, or an ad-hoc local manifest.

A shipped spec is a YAML in the `specs/` folder of a loaded benchmark (`Benchmark.specs`:
built in, `benchmarks/<family>/specs/<name>.yaml`, or from an installed package); its
`where` in errors is that file's path.

`my.jsonl` / `my.csv` / `my.json` (with `--task`) becomes a spec whose source is that file
and whose everything else comes from the task's defaults.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from audioeval.benchmarks.spec import BenchmarkSpec, load_spec_file, parse_spec
from audioeval.core.errors import InputError
from audioeval.core.names import folder_name, name_problem
from audioeval.core.suggest import unknown_name
from audioeval.store.yaml_file import parse_yaml_mapping

MANIFEST_SUFFIXES = {".jsonl": "jsonl", ".json": "json", ".csv": "csv"}


def _spec_entries() -> dict[str, tuple[Any, str]]:
    """name -> (spec file, `where`: its path) of every shipped spec, from the spec folders of
    the loaded benchmarks (`Benchmark.specs`, built-in or from a package; a name given twice
    was refused when they were loaded)."""
    from audioeval.benchmarks.plugins import load_benchmarks

    found = {}
    for bench in load_benchmarks().values():
        for name, entry in bench.spec_files().items():
            found[name] = (entry, str(entry))
    return dict(sorted(found.items()))


def shipped_benchmarks() -> dict[str, str]:
    """name -> path of every shipped spec (`benchmarks/<family>/specs/<name>.yaml` for a
    built-in one)."""
    return {name: where for name, (_, where) in _spec_entries().items()}


def shipped_benchmark_families() -> dict[str, str]:
    """spec name -> the name of the loaded benchmark (family) that ships it."""
    from audioeval.benchmarks.plugins import load_benchmarks

    return {name: bench.name for bench in load_benchmarks().values() for name in bench.spec_files()}


def load_shipped(name: str) -> tuple[BenchmarkSpec, str]:
    files = _spec_entries()
    if name not in files:
        from audioeval.benchmarks.plugins import broken_plugins_note

        message, note = unknown_name("benchmark", name, files), broken_plugins_note()
        raise InputError(f"{note}; {message}" if note else message, field="benchmark")
    entry, where = files[name]
    spec = parse_spec(parse_yaml_mapping(entry.read_text(encoding="utf-8"), where, "benchmark spec"), where)
    if spec.name != name:
        raise InputError(f"spec name {spec.name!r} differs from its file name", file=where, field="name")
    return spec, where


def adhoc_spec(path: Path, task: str, language: str | None = None) -> BenchmarkSpec:
    """A spec for a local manifest scored as `task`, named after the file; `language` (default
    en) picks WER or CER and the normaliser of ASR scoring."""
    kind = MANIFEST_SUFFIXES[path.suffix.lower()]
    name = re.sub(r"[\s,@/\\]", "_", path.stem) or "adhoc"
    if name_problem(name, benchmark=True):  # `..jsonl`, a control character: a folder name of it
        name = folder_name(path.stem, empty="adhoc")
    data: dict[str, str | dict[str, str]] = {"name": name, "task": task, "source": {"type": kind, "path": str(path.resolve())}}
    if language:
        data["language"] = language
    return parse_spec(data, str(path))


def retask(spec: BenchmarkSpec, task: str) -> BenchmarkSpec:
    """The same data scored as another task (e.g. an ASR set as a codec benchmark): the
    prompt, post-processing, scorers and metrics become the new task's defaults."""
    if spec.task == task:
        return spec
    reset = {
        "task": task,
        "prompt": None,
        "postprocess": None,
        "scorers": None,
        "metrics": None,
        "headline": None,
    }
    return spec.model_copy(update=reset)


def resolve_benchmark(
    ref: str, *, task: str | None = None, as_task: bool = False, language: str | None = None
) -> tuple[BenchmarkSpec, str]:
    """(spec, where) for a shipped name, a `.yaml` spec file or a manifest with `task`.

    With `as_task`, a spec of another task is re-tasked (`retask`) instead of refused;
    `language` is an ad-hoc manifest's (a spec has its own: another value is refused).
    """
    spec, where = _resolve(ref, task=task, as_task=as_task, language=language)
    if language and spec.language != language:
        raise InputError(
            f"--language {language} applies to an ad-hoc manifest; {spec.name}'s spec says "
            f"language: {spec.language}",
            file=where,
            field="language",
        )
    return spec, where


def _resolve(ref: str, *, task: str | None, as_task: bool, language: str | None) -> tuple[BenchmarkSpec, str]:
    p = Path(ref).expanduser()
    suffix = p.suffix.lower()
    if suffix in (".yaml", ".yml"):
        spec = load_spec_file(p)
        return (retask(spec, task) if task else spec), str(p)
    if suffix in MANIFEST_SUFFIXES:
        if not p.is_file():
            raise InputError("benchmark manifest not found", file=str(p), field="benchmark")
        if not task:
            raise InputError(
                "an ad-hoc manifest needs --task (asr, ast, classification, captioning, spoken_qa, mcq, …)",
                file=str(p),
                field="task",
            )
        return adhoc_spec(p, task, language), str(p)
    spec, where = load_shipped(ref)
    if task and spec.task != task and as_task:
        return retask(spec, task), where
    if task and spec.task != task:
        raise InputError(f"benchmark {ref!r} is a {spec.task!r} task, not {task!r}", field="task")
    return spec, where
