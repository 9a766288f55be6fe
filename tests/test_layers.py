"""The layer contract of DESIGN.md: a package imports only from layers below it."""

import ast
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
    "report",
    "cli",
]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
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


def test_core_imports_no_heavy_library():
    for path in (PKG / "core").rglob("*.py"):
        text = path.read_text()
        for heavy in ("numpy", "soundfile", "httpx", "torch"):
            assert f"import {heavy}" not in text, f"{path.name} imports {heavy}"
