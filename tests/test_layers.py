"""The layer contract of DESIGN.md: a package imports only from layers below it (by import
statement or by a module path in a string), and no import cycle anywhere."""

import ast
import re
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "src" / "audioeval"
ORDER = [
    "core",
    "audio",
    "store",
    "prompts",
    "adapters",
    "postprocess",
    "scoring",
    "judge",
    "metrics",
    "benchmarks",
    "engine",
    "analysis",
    "presets",
    "report",
    "cli",
]


_MODULE_PATH_RE = re.compile(r"audioeval\.([a-z_]+)(?:\.[A-Za-z_]\w*)*\.?(?::\w+)?")


def _named_layer(text: str) -> str | None:
    """The layer a string names as a module path ("audioeval.judge.qa_judge:QaJudgeScorer",
    or the fixed start of an f-string such as f"audioeval.scoring.{module}")."""
    m = _MODULE_PATH_RE.fullmatch(text)
    return m.group(1) if m else None


def _string_imports(tree: ast.AST) -> set[str]:
    """Layers named by module paths in strings: what `importlib.import_module` and lazy
    registries ("package.module:attr") import at run time."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            text = node.values[0].value
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        layer = _named_layer(str(text))
        if layer:
            found.add(layer)
    return found


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = _string_imports(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("audioeval."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("audioeval."):
                    found.add(alias.name.split(".")[1])
    return found


def test_every_layer_imports_only_downward():
    violations = []
    for path in PKG.rglob("*.py"):
        rel = path.relative_to(PKG)
        if len(rel.parts) < 2:
            continue
        layer = rel.parts[0]
        assert layer in ORDER, f"{rel}: package {layer!r} is not a layer of DESIGN.md"
        for target in _imports(path):
            if target in ORDER and ORDER.index(target) > ORDER.index(layer):
                violations.append(f"{rel} imports audioeval.{target}")
    assert not violations, violations


def test_string_named_imports_are_seen():
    code = (
        'SCORER = _Lazy("audioeval.judge.qa_judge", "QaJudgeScorer")\n'
        'register("x", "audioeval.benchmarks.mmae.rubric_scorer:MmaeRubricScorer")\n'
        'importlib.import_module(f"audioeval.metrics.{name}")\n'
        'HELP = "see audioeval.report for tables"\n'
    )
    assert _string_imports(ast.parse(code)) == {"judge", "benchmarks", "metrics"}


def test_core_imports_no_heavy_library():
    for path in (PKG / "core").rglob("*.py"):
        text = path.read_text()
        for heavy in ("numpy", "soundfile", "httpx", "torch"):
            assert f"import {heavy}" not in text, f"{path.name} imports {heavy}"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PKG.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _import_targets(path: Path, module: str, modules: set[str]) -> dict[str, int]:
    """The audioeval modules `module` imports, each with the line of its first import: every
    `import` and `from … import` statement at any depth (module level, `if`/`try` blocks,
    `if TYPE_CHECKING:` blocks, class bodies and function bodies alike: an import deferred into
    a function still ties the two modules together, only later).

    `import a.b` and `from a.b import x` need a.b; `from a.b import c`, with c a submodule,
    needs a.b.c as well. Relative imports are resolved against the module's package.
    """
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    targets: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, base] if base else parent)
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
        for name in names:
            if name in modules and name != module:
                targets[name] = min(targets.get(name, node.lineno), node.lineno)
    return targets


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _import_graph() -> tuple[dict[str, Path], dict[str, dict[str, int]]]:
    paths = {_module_name(p): p for p in PKG.rglob("*.py")}
    return paths, {name: _import_targets(path, name, set(paths)) for name, path in paths.items()}


def _one_cycle(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A closed path through a strongly connected component, from its first module back to it
    (breadth first: the shortest such path)."""
    members, start = set(component), component[0]
    came_from: dict[str, str | None] = {start: None}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & members):
            if child == start:
                path = [node]
                while (previous := came_from[path[-1]]) is not None:
                    path.append(previous)
                return [*reversed(path), start]
            if child not in came_from:
                came_from[child] = node
                queue.append(child)
    raise AssertionError(f"{component} is not a cycle")


def _describe_cycle(
    cycle: list[str], component: list[str], lines: dict[str, dict[str, int]], paths: dict[str, Path]
) -> str:
    steps = [
        f"{paths[a].relative_to(PKG.parent)}:{lines[a][b]} imports {b}"
        for a, b in zip(cycle, cycle[1:], strict=False)
    ]
    return (
        f"import cycle ({len(component)} modules tied together): "
        + " -> ".join(cycle)
        + "\n    "
        + "\n    ".join(steps)
    )


def test_no_import_cycle():
    """No cycle among audioeval's modules, counting every import: those inside functions and
    `if TYPE_CHECKING:` blocks as well as those run while a module loads. `from pkg import sub`
    reads the package's namespace, so it depends on the package's `__init__` as well as on the
    submodule. A failure names each cycle module by module, with the line of each import."""
    paths, lines = _import_graph()
    graph = {name: set(targets) for name, targets in lines.items()}
    found = [_describe_cycle(_one_cycle(c, graph), c, lines, paths) for c in _cycles(graph)]
    assert not found, "\n".join(found)


def test_deferred_imports_are_counted(tmp_path):
    """An import inside a function or under TYPE_CHECKING is an edge of the graph."""
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "reg.py").write_text("def load():\n    from p import codec\n    return codec\n")
    (pkg / "codec.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from p.reg import load\n"
    )
    modules = {"p", "p.reg", "p.codec"}
    reg = _import_targets(pkg / "reg.py", "p.reg", modules)
    codec = _import_targets(pkg / "codec.py", "p.codec", modules)
    assert reg == {"p": 2, "p.codec": 2} and codec == {"p.reg": 3}
    graph = {"p": set(), "p.reg": set(reg), "p.codec": set(codec)}
    assert _cycles(graph) == [["p.codec", "p.reg"]]
    assert _one_cycle(["p.codec", "p.reg"], graph) == ["p.codec", "p.reg", "p.codec"]


def test_cycle_finder_sees_a_package_cycle():
    graph = {"p": {"p.reg"}, "p.reg": {"p.codec"}, "p.codec": {"p", "p.rng"}, "p.rng": set()}
    assert _cycles(graph) == [["p", "p.codec", "p.reg"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
