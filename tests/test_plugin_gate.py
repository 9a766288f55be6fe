"""One plugin gate: a benchmark plugin (an entry point of an installed package, here a
`*.dist-info` folder put on the path) can break only what needs it.

- A plugin that raises on import, takes a built-in name or has no specs folder is one line
  naming its distribution, entry point and error; every command's `--help`, `list` and a run
  of a built-in benchmark still work (with the note), and a run that needs it exits 2.
- Every scorer hook (`scoring/scorer_hooks.py`) is called through one guard
  (`scoring/hook_guard.py`): an exception or a value of the wrong kind is an error naming the
  scorer, its package and the hook; a NaN never enters a record or a mean.
- A plugin's `mean:` metric without a unit stays off the boards.
- The pair signature names each plugin's distribution and version: a plugin upgraded in
  place is another signature, never mixed with the old scores on resume.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from audioeval.core.record import Score
from audioeval.core.sample import Sample
from audioeval.scoring.hook_guard import (
    CALLED,
    DECLARED,
    HOOKS,
    ScorerHookError,
    call_hook,
    check_declarations,
    checked_signature,
)
from audioeval.scoring.judged import JudgedScorer
from audioeval.scoring.scorer_hooks import Scorer
from tests.run_helpers import tone_asr_manifest

ROOT = Path(__file__).resolve().parents[1]
DIST = "audioeval-gate-demo"


def _install(site: Path, code: str, *, version: str = "0.1.0", module: str = "gate_plugin") -> Path:
    """A package on `site`: `module` with `code`, its dist-info naming the entry point."""
    (site / module).mkdir(parents=True, exist_ok=True)
    (site / module / "__init__.py").write_text(textwrap.dedent(code))
    for old in site.glob("*.dist-info"):
        for f in old.iterdir():
            f.unlink()
        old.rmdir()
    info = site / f"{DIST.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {DIST}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[audioeval.benchmarks]\ngate = {module}:BENCHMARK\n")
    (info / "top_level.txt").write_text(f"{module}\n")
    (info / "RECORD").write_text(f"{module}/__init__.py,,\n")
    return site


DRIVER = r"""
import json, sys
from typer.testing import CliRunner
import typer
from audioeval.cli.main import app

def invoke(args):
    res = CliRunner().invoke(app, args)
    out = res.output + (res.stderr if res.stderr_bytes is not None else "")
    return {"args": args, "code": res.exit_code, "out": out, "exc": None if res.exception is None or isinstance(res.exception, SystemExit) else repr(res.exception)}

results = []
if sys.argv[1] == "help":
    root = typer.main.get_command(app)
    paths = []
    def walk(cmd, path):
        paths.append(path)
        if hasattr(cmd, "commands"):
            for name in cmd.list_commands(None):
                walk(cmd.get_command(None, name), [*path, name])
    walk(root, [])
    results = [invoke([*p, "--help"]) for p in paths]
else:
    results = [invoke(a) for a in json.loads(sys.argv[2])]
print(json.dumps(results))
"""


def _drive(site: Path, mode: str, runs: list[list[str]] | None = None) -> list[dict[str, Any]]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT / "src"), str(ROOT)])}
    # the plugin's module is rewritten in place between drives (an upgrade): no compiled copy of
    # it may be kept, whose mtime and size (same second, same length) would pass for the new one
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    res = subprocess.run(
        [sys.executable, "-c", DRIVER, mode, json.dumps(runs or [])],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=site.parent,
    )
    assert res.returncode == 0, res.stderr[-3000:]
    return json.loads(res.stdout.strip().splitlines()[-1])


BROKEN = {
    "raises on import": 'raise RuntimeError("boom while importing")\n',
    "clashes with a built-in name": """
        from audioeval.benchmarks.contract import Benchmark
        from audioeval.scoring.match import AccuracyScorer
        BENCHMARK = Benchmark("gate", scorers={"accuracy": AccuracyScorer})
    """,
    "lacks its specs folder": """
        from pathlib import Path
        from audioeval.benchmarks.contract import Benchmark
        BENCHMARK = Benchmark("gate", specs=Path(__file__).parent / "specs")
    """,
    "ships a spec named '.'": """
        from pathlib import Path
        from audioeval.benchmarks.contract import Benchmark
        (Path(__file__).parent / "specs").mkdir(exist_ok=True)
        (Path(__file__).parent / "specs" / "..yaml").write_text("name: .")
        BENCHMARK = Benchmark("gate", specs=Path(__file__).parent / "specs")
    """,
}
WHY = {
    "raises on import": "RuntimeError: boom while importing",
    "clashes with a built-in name": "scorer name 'accuracy'",
    "lacks its specs folder": "specs folder cannot be read",
    "ships a spec named '.'": "spec file '.': '.' is reserved",
}


def _line_in(text: str, kind: str) -> bool:
    flat = " ".join(text.split())
    return f"package '{DIST}' 0.1.0 (entry point gate = gate_plugin:BENCHMARK" in flat and WHY[kind] in flat


@pytest.mark.parametrize("kind", list(BROKEN))
def test_every_command_help_works_beside_a_broken_plugin(tmp_path: Path, kind: str) -> None:
    site = _install(tmp_path / "site", BROKEN[kind])
    results = _drive(site, "help")
    assert len(results) > 20  # every command and group, presets included
    assert any(r["args"][:2] == ["mmae", "score"] for r in results)  # built-in presets still there
    for r in results:
        assert r["code"] == 0 and r["exc"] is None, r
        assert _line_in(r["out"], kind), r["out"][:400]


@pytest.mark.parametrize("kind", list(BROKEN))
def test_list_and_unrelated_runs_work_and_a_run_that_needs_it_exits_2(tmp_path: Path, kind: str) -> None:
    site = _install(tmp_path / "site", BROKEN[kind])
    manifest = tone_asr_manifest(tmp_path / "data", n=2)
    runs = [
        ["list", "benchmarks"],
        ["run", "-b", str(manifest), "--task", "asr", "-m", "oracle", "-o", str(tmp_path / "ok")],
        ["run", "-b", "gate-demo", "-m", "oracle", "-o", str(tmp_path / "needs")],
        ["run", "-b", str(_spec(tmp_path)), "-m", "oracle", "-o", str(tmp_path / "scorer")],  # its scorer
    ]
    listed, unrelated, needs, needs_scorer = _drive(site, "run", runs)
    assert listed["code"] == 0 and "mmau-test-mini" in listed["out"] and _line_in(listed["out"], kind)
    assert unrelated["code"] == 0 and _line_in(unrelated["out"], kind), unrelated
    assert needs["code"] == 2 and needs["exc"] is None
    assert "unknown benchmark 'gate-demo'" in needs["out"] and _line_in(needs["out"], kind)
    assert needs_scorer["code"] == 2 and needs_scorer["exc"] is None
    error = needs_scorer["out"].split("error:", 1)[1]
    assert "unknown scorer 'gate_hit'" in error and _line_in(error, kind)
    assert "Traceback" not in json.dumps([listed, unrelated, needs, needs_scorer])


# The scorer hooks, each given a raising, a wrong-kind and (where it returns numbers) a NaN
# implementation. `HOOKS` must hold every public attribute of `Scorer` and `JudgedScorer`.


def test_the_guard_knows_every_hook_of_the_scorer_base() -> None:
    public = {
        n for c in (Scorer, JudgedScorer) for n in [*vars(c), *c.__annotations__] if not n.startswith("_")
    }
    assert public == set(HOOKS)
    assert set(HOOKS) == {*CALLED, *DECLARED, "signature"}


SAMPLE = Sample("s1", fields={"reference": "a b"})
NAN_SCORE = Score({"v": math.nan}, {"n": 1})
ARGS: dict[str, tuple[Any, ...]] = {
    "score": (None, SAMPLE),
    "rescore": (None, SAMPLE, {}),
    "score_async": (None, SAMPLE, None),
    "failed_output_score": (SAMPLE, "text"),
    "planned_calls": (SAMPLE,),
    "reliability_items": ({},),
    "prompt_examples": (),
    "use_prompt": (None,),
}
WRONG: dict[str, object] = {
    "score": Score({"v": 1.0}, {"kw": "0.5"}),  # a string where `mean:kw` averages numbers
    "rescore": {"v": 1.0},
    "score_async": "1.0",
    "failed_output_score": Score({"v": 1.0}, {"kw": [0.5]}),
    "planned_calls": -1,
    "reliability_items": {"not": "a list"},
    "prompt_examples": "text",
}
NANS = {"score", "rescore", "score_async", "failed_output_score"}


def _scorer_with(hook: str, impl: Any) -> JudgedScorer:
    async def coro(self: Any, *args: Any) -> Any:
        return impl(*args)

    body = coro if hook == "score_async" else (lambda self, *args: impl(*args))
    cls = type("GateScorer", (JudgedScorer,), {"name": "gate", "metrics": ("mean:kw",), hook: body})
    return cls()


def _raise(*_: Any) -> Any:
    raise ZeroDivisionError("plugin bug")


def _call(scorer: Scorer, hook: str) -> Any:
    import asyncio

    if hook == "score_async":
        from audioeval.scoring.hook_guard import call_hook_async

        return asyncio.run(call_hook_async(scorer, hook, *ARGS[hook]))
    return call_hook(scorer, hook, *ARGS[hook])


@pytest.mark.parametrize("hook", sorted(CALLED))
def test_every_called_hook_that_raises_or_returns_a_wrong_kind_is_an_error_naming_it(hook: str) -> None:
    cases = [("raises", _raise)]
    if hook in WRONG:
        cases.append(("wrong kind", lambda *_: WRONG[hook]))
    if hook in NANS:
        cases.append(("NaN", lambda *_: NAN_SCORE))
    for case, impl in cases:
        with pytest.raises(ScorerHookError) as err:
            _call(_scorer_with(hook, impl), hook)
        text = err.value.message
        assert f"scorer 'gate' of module 'tests', hook {hook}:" in text, (case, text)
    if hook in NANS:
        assert "values.v is not a finite number" in str(_nan_error(hook))


def _nan_error(hook: str) -> ScorerHookError:
    with pytest.raises(ScorerHookError) as err:
        _call(_scorer_with(hook, lambda *_: NAN_SCORE), hook)
    return err.value


@pytest.mark.parametrize("hook", sorted([*DECLARED, "signature"]))
def test_every_declared_hook_of_the_wrong_kind_is_an_error_naming_it(hook: str) -> None:
    bad: list[Any] = {
        "name": [3, "", None],
        "metrics": [3, "mean:x", [1]],
        "extra_metrics": [None, "mean:x", [2]],
        "metric_renames": [3, {"a": 1}, ["x"]],
    }.get(hook, [3, "x", None, math.nan])
    if hook == "signature":
        cases = [lambda self: ["not", "a", "mapping"], lambda self: {"x": math.nan}, lambda self: _raise()]
        for impl in cases:
            scorer = type("S", (Scorer,), {"name": "gate", "signature": impl})()
            with pytest.raises(ScorerHookError, match="scorer 'gate' of module 'tests', hook signature:"):
                checked_signature(scorer)
        return
    for value in bad:
        scorer = type("S", (JudgedScorer,), {"name": "gate", "signature": lambda self: {}})()
        object.__setattr__(scorer, hook, value)
        with pytest.raises(ScorerHookError, match=rf"hook {hook}: expected"):
            check_declarations(scorer)


# End to end: a plugin's scorer, run by `audioeval run` on a small ASR set.

SCORER_PLUGIN = """
    import math
    from types import MappingProxyType
    from audioeval.benchmarks.contract import Benchmark
    from audioeval.metrics.declaration import MeanDeclaration
    from audioeval.core.record import Score
    from audioeval.scoring.scorer_hooks import Scorer

    MODE = {mode!r}

    class GateScorer(Scorer):
        name = "gate_hit"
        metrics = ("mean:gate_hit",)

        def signature(self):
            return {{"scorer": self.name}}

        def score(self, prediction, sample):
            if MODE == "raises":
                raise RuntimeError("plugin bug in score")
            if MODE == "string stat":
                return Score({{"gate_hit": 1.0}}, {{"gate_hit": "1.0"}})
            hit = float(bool(prediction.text))
            return Score({{"gate_hit": hit * {factor}}}, {{"gate_hit": hit * {factor}}})

        def failed_output_score(self, sample, output_kind="text"):
            if MODE == "raises failed":
                raise RuntimeError("plugin bug in failed_output_score")
            if MODE == "nan failed":
                return Score({{"gate_hit": math.nan}}, {{"gate_hit": math.nan}})
            return Score({{"gate_hit": 0.0}}, {{"gate_hit": 0.0}})

    BENCHMARK = Benchmark("gate", scorers={{"gate_hit": GateScorer}}, {units})
"""


def _scorer_site(
    site: Path, mode: str, *, units: bool = True, factor: float = 1.0, version: str = "0.1.0"
) -> Path:
    declared = 'metrics=(MeanDeclaration("gate_hit", "gate hit", "fraction"),)' if units else ""
    return _install(site, SCORER_PLUGIN.format(mode=mode, units=declared, factor=factor), version=version)


def _spec(tmp_path: Path, n: int = 3) -> Path:
    manifest = tone_asr_manifest(tmp_path / "data", n=n)
    spec = tmp_path / "gate.yaml"
    spec.write_text(
        json.dumps({"name": "gate-tones", "task": "asr", "source": {"type": "jsonl", "path": str(manifest)},
                    "scorers": ["gate_hit"]})
    )  # fmt: skip
    return spec


def _records(out: Path) -> str:
    (path,) = out.glob("gate-tones/*/records.jsonl")
    return path.read_text()


@pytest.mark.parametrize("mode", ["raises", "string stat"])
def test_a_plugin_score_hook_that_raises_or_gives_a_string_fails_its_samples_naming_it(
    tmp_path: Path, mode: str
) -> None:
    site = _scorer_site(tmp_path / "site", mode)
    out = tmp_path / "out"
    (res,) = _drive(site, "run", [["run", "-b", str(_spec(tmp_path)), "-m", "oracle", "-o", str(out)]])
    assert res["code"] == 4 and res["exc"] is None, res
    assert (out / "summary.json").is_file()  # the run ended with its summaries
    first = json.loads(_records(out).splitlines()[0])
    assert f"scorer 'gate_hit' of package '{DIST}' 0.1.0, hook score" in first["error"], first["error"]
    assert first["failure"] == "cannot score"


@pytest.mark.parametrize("mode", ["nan failed", "raises failed"])
def test_a_failed_output_score_hook_that_raises_or_gives_nan_is_never_written_nor_averaged(
    tmp_path: Path, mode: str
) -> None:
    site = _scorer_site(tmp_path / "site", mode)
    spec = _spec(tmp_path, n=3)
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        json.dumps({"id": "c0", "text": "the tone number 0 is steady"}) + "\n"
    )  # c1, c2: no output
    out = tmp_path / "out"
    args = ["run", "-b", str(spec), "-m", f"predictions:{preds}", "-o", str(out), "--max-failed", "100%"]
    first, again = _drive(site, "run", [args, args])
    for res in (first, again):
        assert res["code"] == 0 and res["exc"] is None, res
        text = _records(out)
        assert "NaN" not in text and "Infinity" not in text
    lines = [json.loads(x) for x in _records(out).splitlines()]
    failed = [r for r in lines if r["id"] != "c0"]
    assert failed and all("hook failed_output_score" in r["error"] for r in failed)
    assert all("gate_hit" not in (r.get("failure_scores") or {}) for r in failed)
    pair = json.loads(next(out.glob("gate-tones/*/summary.json")).read_text())
    assert pair["metrics"]["mean:gate_hit"]["value"] == 1.0  # c0 alone; no NaN mean


def test_a_plugin_mean_without_a_unit_stays_off_the_boards(tmp_path: Path) -> None:
    runs = {}
    for units in (True, False):
        site = _scorer_site(tmp_path / f"site{units}", "ok", units=units)
        out = tmp_path / f"out{units}"
        (res,) = _drive(site, "run", [["run", "-b", str(_spec(tmp_path)), "-m", "oracle", "-o", str(out)]])
        assert res["code"] == 0, res
        runs[units] = json.loads((out / "summary.json").read_text())
    pair = next(r for r in runs[False]["results"] if r["benchmark"] == "gate-tones")
    assert pair["metrics"]["mean:gate_hit"]["unit"] == "undeclared"
    boards = json.dumps(runs[False].get("boards", {}))
    assert "gate_hit" not in boards
    declared = json.dumps(runs[True].get("boards", {}))
    assert "gate_hit" in declared and '"normalised": 100.0' in declared


def test_a_plugin_upgraded_in_place_is_another_signature(tmp_path: Path) -> None:
    spec = _spec(tmp_path)
    out = tmp_path / "out"
    args = [["run", "-b", str(spec), "-m", "oracle", "-o", str(out)]]
    site = _scorer_site(tmp_path / "site", "ok", version="0.1.0")
    (first,) = _drive(site, "run", args)
    assert first["code"] == 0, first
    sig = json.loads(next(out.glob("gate-tones/*/signature.json")).read_text())
    assert sig["benchmark"]["plugins"]["gate"]["distribution"] == DIST
    assert sig["benchmark"]["plugins"]["gate"]["version"] == "0.1.0"
    site = _scorer_site(tmp_path / "site", "ok", factor=0.5, version="0.2.0")  # same signature()
    (second,) = _drive(site, "run", args)
    assert second["code"] == 2 and "0.2.0" in second["out"], second  # not resumed with old scores
    # `rescore` scores the stored outputs again with the upgraded scorer and records its version
    rescored, third = _drive(site, "run", [["rescore", str(out)], *args])
    assert rescored["code"] == 0 and third["code"] == 0, (rescored, third)
    sig = json.loads(next(out.glob("gate-tones/*/signature.json")).read_text())
    assert sig["benchmark"]["plugins"]["gate"]["version"] == "0.2.0"
    pair = json.loads(next(out.glob("gate-tones/*/summary.json")).read_text())
    assert pair["metrics"]["mean:gate_hit"]["value"] == 0.5  # every sample by the new scorer
