"""Every built-in benchmark is one folder under `benchmarks/` exporting one registered
`Benchmark` (its specs in `specs/`), and nothing outside `benchmarks/` is named after one.

The names compared are every registered benchmark's name and every shipped spec's name
(normalised: lower case, every run of other characters `_`), with their family words: the
first word (or two) that several specs of one benchmark share (`mmau` of `mmau-pro` and
`mmau-test-mini`), and a `*_bench` name without `_bench`. A module file, template YAML or
folder outside `benchmarks/` whose name holds one of them, as whole words, with or without
the `_` between them (`airbench_chat` holds `air_bench`), is named after a benchmark.
"""

from __future__ import annotations

import importlib
import re
from collections import Counter
from pathlib import Path

from audioeval.benchmarks.plugins import builtin_benchmarks, load_benchmarks
from audioeval.benchmarks.registry import shipped_benchmarks

PKG = Path(__file__).resolve().parents[1] / "src" / "audioeval"
BENCHMARKS = PKG / "benchmarks"

# Folders of `benchmarks/` that are its machinery, not a benchmark.
MACHINERY = {"sources", "__pycache__"}

# Words that start several specs' names but name a modality, not a benchmark
# (`speech-cmmlu`, `speech-hsk1`: `scoring/speech_scorers.py` is about speech, not them).
GENERIC_WORDS = {"speech"}

# Preset modules still named after the benchmark whose command they offer, each path under
# src/audioeval -> why it is still there. Presets are data (`benchmarks/preset.py`: a benchmark
# plus defaults plus the shared CLI options it exposes, built into commands by
# `cli/preset_commands.py`): `mmae score` is one, and its modules are gone from here. Nothing
# may join this list.
PRESET_MODULES: dict[str, str] = {}


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]


def _norm(name: str) -> str:
    return "_".join(_words(name))


def _keys() -> dict[str, str]:
    """Normalised benchmark-ish name (also without `_`) -> the registered name it comes from."""
    keys: dict[str, str] = {}

    def add(key: str, source: str) -> None:
        if key and key not in GENERIC_WORDS:
            keys.setdefault(key, source)
            keys.setdefault(key.replace("_", ""), source)

    for bench in load_benchmarks().values():
        add(_norm(bench.name), bench.name)
        if bench.name.endswith("_bench"):
            add(_norm(bench.name.removesuffix("_bench")), bench.name)
        specs = list(bench.spec_files())
        for spec in specs:
            add(_norm(spec), spec)
        for width in (1, 2):
            shared = Counter("_".join(_words(s)[:width]) for s in specs if len(_words(s)) > width)
            for prefix, count in shared.items():
                if count >= 2:
                    add(prefix, f"{bench.name} ({prefix}-* specs)")
    return keys


def _named_after(name: str, keys: dict[str, str]) -> str | None:
    words = _words(name)
    for i in range(len(words)):
        for j in range(i + 1, len(words) + 1):
            for joined in ("_".join(words[i:j]), "".join(words[i:j])):
                if joined in keys:
                    return keys[joined]
    return None


def _outside_benchmarks() -> list[Path]:
    found = []
    for path in sorted(PKG.rglob("*")):
        rel = path.relative_to(PKG)
        if rel.parts[0] == "benchmarks" or "__pycache__" in rel.parts or rel.parts[-1].endswith(".egg-info"):
            continue
        if path.is_dir() or path.suffix in (".py", ".yaml", ".yml", ".json", ".java"):
            found.append(rel)
    return found


def test_the_names_compared_include_the_family_words() -> None:
    keys = _keys()
    for key in ("voicebench", "air_bench", "airbench", "mmae", "mmar", "mmau", "anyaudio", "ultraeval"):
        assert key in keys, key
    # a modality, a task and a generic judged scorer, no benchmark
    assert "speech" not in keys and "mcq" not in keys and "rubric_items" not in keys
    assert _named_after("airbench_chat.py", keys) == "air_bench"
    assert _named_after("judge_voicebench_qa.yaml", keys) is not None
    assert _named_after("speech_scorers.py", keys) is None
    assert _named_after("mcq_match.py", keys) is None


def test_no_module_or_template_outside_benchmarks_is_named_after_a_benchmark() -> None:
    keys = _keys()
    named = {
        str(rel): source
        for rel in _outside_benchmarks()
        if (source := _named_after(rel.with_suffix("").name if rel.suffix else rel.name, keys))
    }
    unexpected = {rel: source for rel, source in named.items() if rel not in PRESET_MODULES}
    assert not unexpected, f"named after a benchmark, move into its folder under benchmarks/: {unexpected}"
    gone = sorted(set(PRESET_MODULES) - set(named))
    assert not gone, f"no longer named after a benchmark: drop from PRESET_MODULES: {gone}"
    for rel in PRESET_MODULES:
        assert rel.startswith(("cli/", "presets/", "report/")), rel


def test_every_benchmark_folder_exports_one_registered_benchmark() -> None:
    builtin = {b.name: b for b in builtin_benchmarks()}
    assert len(builtin) == len(builtin_benchmarks()), "a built-in benchmark name given twice"
    folders = sorted(p for p in BENCHMARKS.iterdir() if p.is_dir() and p.name not in MACHINERY)
    for folder in folders:
        assert (folder / "benchmark.py").is_file(), f"{folder.name}/ has no benchmark.py"
    for folder in folders:  # its BENCHMARK is one of the built-in ones `load_benchmarks` registers
        module = importlib.import_module(f"audioeval.benchmarks.{folder.name}.benchmark")
        assert any(module.BENCHMARK is b for b in builtin.values()), f"{folder.name}: BENCHMARK not listed"
        assert load_benchmarks()[module.BENCHMARK.name] is module.BENCHMARK
    assert len(folders) == len(builtin), "a built-in benchmark without its own folder"


def test_every_shipped_spec_lives_in_its_benchmark_folder() -> None:
    assert not (BENCHMARKS / "registry").exists(), (
        "benchmarks/registry/ is gone: specs live with their benchmark"
    )
    on_disk = {p.stem: p for p in BENCHMARKS.glob("*/specs/*.yaml")}
    shipped = shipped_benchmarks()
    assert set(on_disk) == set(shipped)
    for name, where in shipped.items():
        assert Path(where) == on_disk[name], name
    assert not list(BENCHMARKS.glob("*.yaml")), "a spec outside any benchmark's folder"


def test_no_scorer_registers_by_import_side_effect() -> None:
    """Scorers, templates and profiles are stated on a `Benchmark`: no registration module."""
    assert not list(PKG.rglob("scorer_registration.py"))
    assert not (BENCHMARKS / "scorer_plugins.py").exists()
    for path in PKG.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if path.name not in ("templates.py", "plugins.py", "profiles.py", "base.py"):
            assert "add_template_folder(" not in text, path
            assert "register_profile(" not in text, path
