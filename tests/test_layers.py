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


def _import_time_statements(tree: ast.Module) -> list[ast.stmt]:
    """Statements run when the module is imported: the module body, including `if`, `try`
    and `with` blocks and class bodies, but not `if TYPE_CHECKING:` blocks nor functions."""
    found: list[ast.stmt] = []
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            pending.extend(node.orelse)
        elif isinstance(node, ast.ClassDef):
            pending.extend(node.body)
        elif isinstance(node, ast.If | ast.Try | ast.With):
            for block in ("body", "orelse", "finalbody"):
                pending.extend(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                pending.extend(handler.body)
        else:
            found.append(node)
    return found


def _import_time_targets(path: Path, module: str, modules: set[str]) -> set[str]:
    """The audioeval modules that must finish loading while `module` loads.

    `import a.b` and `from a.b import x` need a.b; `from a.b import c`, with c a submodule,
    needs a.b.c as well. Relative imports are resolved against the module's package.
    """
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    targets: set[str] = set()
    for node in _import_time_statements(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, base] if base else parent)
            targets.add(base)
            targets.update(f"{base}.{alias.name}" for alias in node.names)
    return {t for t in targets if t in modules and t != module}


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


def test_no_import_cycle():
    """No cycle among the imports that run while a module loads (module level, `if`/`try`
    blocks included; imports inside functions and `if TYPE_CHECKING:` excluded, as they run
    after every module has loaded). `from pkg import sub` reads the package's namespace, so
    it depends on the package's `__init__` as well as on the submodule."""
    paths = {_module_name(p): p for p in PKG.rglob("*.py")}
    graph = {name: _import_time_targets(path, name, set(paths)) for name, path in paths.items()}
    assert _cycles(graph) == []


def test_cycle_finder_sees_a_package_cycle():
    graph = {"p": {"p.reg"}, "p.reg": {"p.codec"}, "p.codec": {"p", "p.rng"}, "p.rng": set()}
    assert _cycles(graph) == [["p", "p.codec", "p.reg"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
