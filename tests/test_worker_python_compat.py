"""The shipped model workers run under a runtime's own Python, which may be older than
audioeval's (a model's repository pinning Python 3.8 or 3.9, `AUDIOEVAL_RUNTIME_PYTHON_<NAME>`):
their source parses as Python 3.8, and nothing evaluated when a worker module is imported uses
`X | Y` between types (3.10) or a builtin collection subscripted (`dict[...]`, 3.9).
Annotations are exempt: every worker module defers them (`from __future__ import annotations`)."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest

WORKERS = Path(__file__).resolve().parents[1] / "src" / "audioeval" / "adapters" / "runtimes" / "workers"
BUILTIN_GENERICS = {"dict", "list", "tuple", "set", "frozenset", "type"}
OLDEST = (3, 8)


def _worker_files() -> list[Path]:
    files = sorted(WORKERS.glob("*.py"))
    assert len(files) >= 3, "the shipped workers were not found"
    return files


def _evaluated_nodes(tree: ast.Module) -> list[ast.AST]:
    """The expressions Python evaluates at import: everything but annotations (deferred) and
    function bodies (run later, under the same rules: checked too, since calls run them)."""
    out: list[ast.AST] = []

    class Visit(ast.NodeVisitor):
        def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
            if node.value is not None:
                self.visit(node.value)  # the annotation itself is not evaluated

        def visit_arg(self, node: ast.arg) -> None:
            return None  # parameter annotations: deferred

        def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
            for stmt in node.body:
                self.visit(stmt)
            for d in node.decorator_list + node.args.defaults + node.args.kw_defaults:
                if d is not None:
                    self.visit(d)

        visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815

        def generic_visit(self, node: ast.AST) -> None:
            out.append(node)
            super().generic_visit(node)

    Visit().visit(tree)
    return out


def _problems(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(source, feature_version=OLDEST)
    except SyntaxError as exc:
        return [f"{path.name}:{exc.lineno}: not Python {OLDEST[0]}.{OLDEST[1]} syntax ({exc.msg})"]
    problems = []
    if "from __future__ import annotations" not in source:
        problems.append(f"{path.name}: annotations are evaluated (add `from __future__ import annotations`)")
    for node in _evaluated_nodes(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            names = [n for n in (node.left, node.right) if isinstance(n, ast.Name | ast.Constant | ast.Subscript)]
            is_type = any(
                isinstance(n, ast.Name) and (n.id[:1].isupper() or n.id in {"str", "int", "float", "bool", "bytes"})
                for n in (node.left, node.right)
            ) or any(isinstance(n, ast.Constant) and n.value is None for n in (node.left, node.right))
            if names and is_type:
                problems.append(f"{path.name}:{node.lineno}: `X | Y` of types is evaluated (Python 3.10)")
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in BUILTIN_GENERICS:
            problems.append(f"{path.name}:{node.lineno}: `{node.value.id}[...]` is evaluated (Python 3.9)")
    return problems


def test_every_shipped_worker_is_importable_by_an_older_python() -> None:
    problems = [p for f in _worker_files() for p in _problems(f)]
    assert problems == []


def test_the_check_finds_what_older_pythons_refuse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = tmp_path / "w.py"
    bad.write_text("from __future__ import annotations\nA = str | None\nB = dict[str, int]\nx: A | None = None\n")
    found = _problems(bad)
    assert [p.split(":")[1] for p in found] == ["2", "3"], found  # the annotation on line 4 is exempt


@pytest.mark.parametrize("version", ["3.8", "3.9"])
def test_every_shipped_worker_imports_under_that_python_when_installed(version: str) -> None:
    found = [shutil.which(f"python{version}"), *sorted(map(str, Path.home().glob(f".pyenv/versions/{version}.*/bin/python")))]
    python = next((p for p in found if p and subprocess.run([p, "-c", "pass"], capture_output=True).returncode == 0), None)
    if python is None:
        pytest.skip(f"python{version} is not installed here (the source check above still runs)")
    for path in _worker_files():
        code = f"import importlib.util as u, sys; sys.path.insert(0, {str(WORKERS)!r}); s = u.spec_from_file_location('m', {str(path)!r}); s.loader.exec_module(u.module_from_spec(s))"
        done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, f"{path.name}: {done.stderr[-500:]}"
