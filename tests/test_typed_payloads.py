"""Untyped payloads in `src/`: every `dict[str, Any]`-like annotation, and every use of a
module-level alias that only renames one (`Row = dict[str, Any]`), counted and held under a
budget. A JSON document has its TypedDict where it is written; what passes between functions
has a precise type; what stays open JSON is counted here.

The count is that of

    git grep -cE 'dict\\[str, Any\\]|Mapping\\[str, Any\\]|MutableMapping\\[str, Any\\]|Dict\\[str, Any\\]|dict\\[str, object\\]|Mapping\\[str, object\\]' -- src

(lines that match, summed over the files) plus the uses of such aliases (found by the
module-level assignments whose value is one of those forms, then every name that refers to one
in the module defining it or importing it)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PKG = SRC / "audioeval"

UNTYPED = re.compile(
    r"dict\[str, Any\]|Mapping\[str, Any\]|MutableMapping\[str, Any\]|Dict\[str, Any\]"
    r"|dict\[str, object\]|Mapping\[str, object\]"
)
"""The forms a typed payload replaces (the pattern of the count in the module doc)."""

_ALIAS_VALUE = re.compile(
    r"(?:typing\.|collections\.abc\.|abc\.)?(?:dict|Dict|Mapping|MutableMapping)\[str, (?:typing\.)?(?:Any|object)\]"
)
"""A value an alias that only renames an untyped payload is defined as."""

WHOLE_SRC_BUDGET = 250

ENGINE_OWNED = (
    "leaderboard.py",
    "run_summary.py",
    "rescore.py",
    "rescore_target.py",
    "family_boards.py",
    "board_spec.py",
    "exports.py",
    "evaluate.py",
    "pair_signature.py",
    "run_config.py",
    "sample_pipeline.py",
    "generation_settings.py",
    "model_specs.py",
    "model_factory.py",
    "run_layout.py",
)
"""The engine modules on the path of every figure (the engine's model and judge clients are
counted with the whole of src/)."""

FIGURE_PATH_BUDGETS: dict[str, tuple[tuple[str, ...], int]] = {
    "core": (("audioeval/core",), 4),
    "metrics": (("audioeval/metrics",), 1),
    "store": (("audioeval/store",), 2),
    "report": (("audioeval/report",), 2),
    "analysis": (("audioeval/analysis",), 1),
    "api": (("audioeval/api.py",), 1),
    "cli": (("audioeval/cli",), 6),
    "engine (figure path)": (tuple(f"audioeval/engine/{name}" for name in ENGINE_OWNED), 8),
}
"""The untyped payloads each part of a figure's path may still hold: the documents of a run
folder (records, pair and run summaries, boards, leaderboards, the report's data) are typed,
so what is left is truly open JSON (a user's extra settings, keyword options, a YAML file
before it is validated). At most 75 over the whole path."""
FIGURE_PATH_TOTAL = 75


def _source_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def _pattern_lines(text: str) -> int:
    """The lines of `text` with an untyped payload (as `git grep -c` counts them)."""
    return sum(1 for line in text.splitlines() if UNTYPED.search(line))


def _module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def untyped_aliases(tree: ast.Module) -> set[str]:
    """The module-level aliases of an untyped payload in a module (`Row = dict[str, Any]`,
    `Json: TypeAlias = Mapping[str, Any]`, `type Row = dict[str, Any]`)."""
    found = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name, value = node.target.id, node.value
        elif type(node).__name__ == "TypeAlias":  # `type X = ...` (Python 3.12)
            name, value = node.name.id, node.value  # type: ignore[attr-defined]
        else:
            continue
        text = (
            value.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str)
            else ast.unparse(value)
        )
        if _ALIAS_VALUE.fullmatch(re.sub(r"\s+", " ", text).replace("[str,Any]", "[str, Any]")):
            found.add(name)
    return found


def alias_uses(tree: ast.Module, names: set[str]) -> int:
    """How often a module refers to one of `names` (outside its definition and its import): in
    annotations, in code, in string annotations."""
    if not names:
        return 0
    defined = {
        id(node.targets[0] if isinstance(node, ast.Assign) else node.target)
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
    }
    annotations = [
        a
        for node in ast.walk(tree)
        for a in (
            [node.annotation]
            if isinstance(node, ast.arg | ast.AnnAssign)
            else [node.returns]
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            else []
        )
        if a is not None
    ]
    quoted = {id(c) for a in annotations for c in ast.walk(a) if isinstance(c, ast.Constant)}
    word = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b")
    uses = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names and id(node) not in defined:
            uses += 1
        elif isinstance(node, ast.Attribute) and node.attr in names:
            uses += 1
        elif id(node) in quoted and isinstance(node, ast.Constant) and isinstance(node.value, str):
            uses += len(word.findall(node.value))  # a string annotation
    return uses


def count_untyped(files: list[Path], src: Path = SRC) -> dict[Path, int]:
    """Per file: its lines with an untyped payload plus its uses of an untyped alias (defined
    in any of the files, under `src`; used where defined or where imported)."""
    trees = {p: ast.parse(p.read_text(encoding="utf-8")) for p in files}
    aliases = {_module_name(p, src): untyped_aliases(t) for p, t in trees.items()}
    out = {}
    for path, tree in trees.items():
        visible = set(aliases[_module_name(path, src)])
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in aliases:
                visible |= {a.asname or a.name for a in node.names if a.name in aliases[node.module]}
        out[path] = _pattern_lines(path.read_text(encoding="utf-8")) + alias_uses(tree, visible)
    return out


def _owned(prefixes: tuple[str, ...], files: list[Path]) -> list[Path]:
    rel = {p: p.relative_to(SRC).as_posix() for p in files}
    return [p for p in files if any(rel[p] == pre or rel[p].startswith(pre + "/") for pre in prefixes)]


def test_the_count_sees_lines_and_aliases(tmp_path: Path) -> None:
    pkg = tmp_path / "src" / "demo"
    pkg.mkdir(parents=True)
    (pkg / "rows.py").write_text(
        "from typing import Any, Mapping, TypeAlias\n"
        "Row = dict[str, Any]\n"
        "Json: TypeAlias = 'Mapping[str, Any]'\n"
        "Scores = dict[str, float]\n"
        "def f(r: Row, j: Json, s: Scores) -> list[Row]:\n"
        "    return [r]\n"
        "def g(x: Mapping[str, Any]) -> None: ...\n"
    )
    (pkg / "use.py").write_text("from demo.rows import Row\ndef h(r: Row) -> 'Row': ...\n")
    tree = ast.parse((pkg / "rows.py").read_text())
    assert untyped_aliases(tree) == {"Row", "Json"}
    found = count_untyped(_source_files(pkg), tmp_path / "src")
    # rows.py: 3 lines with the pattern (two definitions, g) + Row twice and Json once in f
    assert found[pkg / "rows.py"] == 3 + 3
    assert found[pkg / "use.py"] == 2  # an imported alias counts where it is used


def test_every_part_of_a_figures_path_holds_its_budget() -> None:
    files = _source_files(PKG)
    counts = count_untyped(files)
    over, total = [], 0
    for part, (prefixes, budget) in FIGURE_PATH_BUDGETS.items():
        owned = _owned(prefixes, files)
        assert owned, f"{part}: no file under {prefixes}"
        n = sum(counts[p] for p in owned)
        total += n
        if n > budget:
            worst = sorted(((counts[p], p.relative_to(SRC).as_posix()) for p in owned), reverse=True)[:5]
            over.append(f"{part}: {n} untyped payloads, budget {budget} (most: {worst})")
    assert not over, over
    assert total <= FIGURE_PATH_TOTAL, (
        f"{total} untyped payloads on a figure's path, budget {FIGURE_PATH_TOTAL}"
    )


def test_src_holds_at_most_250_untyped_payloads() -> None:
    files = _source_files(PKG)
    counts = count_untyped(files)
    total = sum(counts.values())
    worst = sorted(((n, p.relative_to(SRC).as_posix()) for p, n in counts.items()), reverse=True)[:10]
    assert total <= WHOLE_SRC_BUDGET, f"{total} untyped payloads in src/ (most: {worst})"
