"""The README's Python example runs as written, from a checkout's top folder, and gives the
figure its comment states."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _python_example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Python API", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the README's Python API section holds a python block"
    return match.group(1)


def test_the_readme_python_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = _python_example()
    for path in re.findall(r"predictions:([\w./-]+)", code):  # the files it names, as in a checkout
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / path, tmp_path / path)
    monkeypatch.chdir(tmp_path)
    scope: dict[str, object] = {}
    exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - the example, as a user runs it
    result = scope["result"]
    stated = re.search(r'\["wer"\]\s+# ([0-9.]+)', code)
    assert stated is not None
    assert result.summary.scores["demo-speech-en"]["mine"]["wer"] == pytest.approx(
        float(stated.group(1)), abs=5e-4
    )
    assert set(result.summary.scores["demo-speech-en"]) == {"mine", "oracle"}
    assert any("read as text" in line for line in result.readings)
