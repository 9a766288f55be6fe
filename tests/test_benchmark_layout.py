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

import ast
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


# Generic code: the machinery every benchmark goes through. It names no benchmark in its code:
# a benchmark's source type, predictions format, scorers and defaults come through its
# `Benchmark`, by name, as a package installed beside audioeval gives its own.
GENERIC_CODE = (
    "benchmarks/sources",
    "benchmarks/tasks.py",
    "benchmarks/prediction_formats.py",
    "engine",
    "analysis",
    "report",
    "cli",
)

# Words of the benchmark names that are also plain words of generic code (`--seed`).
PLAIN_WORDS = {"seed"}

# Sentences of generic code (help texts, board titles, messages) that still cite a benchmark as
# an example, by file -> how many: they may only go. A name used as code (a string with no
# space: a type, a format, a scorer, a key) is never allowed.
PROSE_CITING_A_BENCHMARK: dict[str, int] = {
    "analysis/pair_records.py": 1,
    "benchmarks/tasks.py": 6,
    "cli/leaderboard_commands.py": 1,
    "cli/rank_commands.py": 1,
    "cli/report_commands.py": 1,
    "cli/run_commands.py": 3,
    "engine/family_boards.py": 5,
    "engine/leaderboard.py": 1,
    "report/judge_eval_table.py": 1,
    "report/leaderboard_table.py": 2,
}


def _generic_files() -> list[Path]:
    found = []
    for part in GENERIC_CODE:
        path = PKG / part
        found += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return found


def _literals(tree: ast.AST) -> list[ast.Constant]:
    """Every string literal that is not documentation (a docstring, or a string standing
    alone as a statement, such as an attribute's doc)."""
    docs = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    return [
        n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def _benchmark_words(text: str, keys: dict[str, str]) -> list[str]:
    words = _words(text)
    return [w for w in words if w in keys and w not in PLAIN_WORDS]


def test_generic_code_names_no_benchmark_in_a_string() -> None:
    keys = _keys()
    as_code: list[str] = []
    prose: Counter[str] = Counter()
    for path in _generic_files():
        rel = str(path.relative_to(PKG))
        for node in _literals(ast.parse(path.read_text(encoding="utf-8"))):
            named = _benchmark_words(node.value, keys)
            if not named:
                continue
            if any(c.isspace() for c in node.value.strip()):
                prose[rel] += 1
            else:
                as_code.append(f"{rel}:{node.lineno} {node.value!r} names {', '.join(keys[w] for w in named)}")
    assert not as_code, (
        "generic code names a benchmark: let the benchmark give it through its `Benchmark` "
        f"(source_types, prediction_formats, task_scorers, …): {as_code}"
    )
    grown = {f: (n, PROSE_CITING_A_BENCHMARK.get(f, 0)) for f, n in prose.items() if n > PROSE_CITING_A_BENCHMARK.get(f, 0)}
    assert not grown, f"new sentences of generic code citing a benchmark (file: (found, allowed)): {grown}"
    gone = {f: (prose.get(f, 0), n) for f, n in PROSE_CITING_A_BENCHMARK.items() if prose.get(f, 0) < n}
    assert not gone, f"fewer sentences cite a benchmark now: lower PROSE_CITING_A_BENCHMARK (found, listed): {gone}"


def test_the_generic_code_check_sees_a_benchmark_name() -> None:
    keys = _keys()
    tree = ast.parse('"""mmae in a docstring"""\nTYPE = "mmae"\nFORMATS = ("mmar", "text")\nHELP = "Reasoning (MMAU)"\n')
    found = sorted(n.value for n in _literals(tree) if _benchmark_words(n.value, keys))
    assert found == ["Reasoning (MMAU)", "mmae", "mmar"]
    assert not _benchmark_words("--seed", keys)
