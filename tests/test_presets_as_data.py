"""Presets are data (`benchmarks/preset.py`), built into commands by one mechanism
(`cli/preset_commands.py`) and run by one runner (`presets/preset_run.py`); `summary.json` is
one typed `RunSummary`, written by the engine alone (issue 23)."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from audioeval.benchmarks.contract import Benchmark
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.preset import (
    BESIDE_FLAGS,
    SHARED_NAMES,
    Preset,
    PresetOption,
    PresetOutcome,
    PresetPlan,
    PresetTool,
    PresetValues,
    SharedValues,
)
from audioeval.benchmarks.spec import BenchmarkSpec, SourceSpec
from audioeval.cli.main import app
from audioeval.cli.preset_commands import add_preset_commands
from audioeval.core.errors import InputError
from audioeval.core.settings import SETTING, SETTINGS
from audioeval.engine.run_summary import RunSummary, read_run_summary, write_run_summary
from audioeval.presets.preset_run import preset_request, preset_values

SRC = Path(__file__).resolve().parents[1] / "src" / "audioeval"


def _plan(values: PresetValues) -> PresetPlan:
    level, data = values.own["level"], values.own["data"]
    if isinstance(level, int) and level > 3:
        raise InputError("--level must be at most 3", field="--level")
    spec = BenchmarkSpec(name="toy", task="asr", source=SourceSpec(type="jsonl", path=str(data)))
    return PresetPlan(spec, str(data), {"name": "echo", "type": "predictions", "predictions": str(data)})


def _outcome(folder, values):  # type: ignore[no-untyped-def]
    return PresetOutcome(figures={}, total=0, failed=0, scored=0)


TOY = Preset(
    command=("toy", "score"),
    help="Score a toy set.",
    plan=_plan,
    outcome=_outcome,
    options=(
        PresetOption("data", "--data", Path, help="The toy manifest."),
        PresetOption("level", "--level", int, 1, minimum=0, help="A toy level."),
        PresetOption("fast", "--fast", bool, False, off_flag="--slow", help="Go fast."),
    ),
    shared=("run",),
    defaults={"output_dir": Path("outputs/toy"), "resamples": 50},
    aliases={"--lvl": "--level"},
)
SAID: list[dict] = []
TOOL = PresetTool(
    command=("toy", "say"),
    help="Say a word.",
    run=lambda values: (SAID.append(dict(values)) or [f"said {values['word']}"], []),
    options=(PresetOption("word", "WORD", str, choices=("hi", "bye"), argument=True),),
)


def _toy_app() -> typer.Typer:
    toy_app = typer.Typer()

    @toy_app.command("noop")
    def noop() -> None:  # a second command, so that the groups stay groups
        """Nothing."""

    add_preset_commands(toy_app, {"toy": Benchmark(name="toy", presets=(TOY,), tools=(TOOL,))})
    return toy_app


def _flags(command: object) -> set[str]:
    return {o for p in command.params for o in (*p.opts, *getattr(p, "secondary_opts", ()))}  # type: ignore[attr-defined]


def test_a_preset_is_built_into_its_command_with_the_shared_options_it_exposes() -> None:
    group = typer.main.get_command(_toy_app()).commands["toy"]  # type: ignore[attr-defined]
    assert set(group.commands) == {"score", "rescore", "say"}
    flags = _flags(group.commands["score"])
    assert {
        "--data",
        "--level",
        "--fast",
        "--slow",
        "--output-dir",
        "-o",
        "--resamples",
        "--max-failed",
    } <= flags
    assert not any(f.startswith("--judge") for f in flags)  # the judge group is not exposed
    res = CliRunner().invoke(_toy_app(), ["toy", "score", "--help"], env={"COLUMNS": "200"})
    assert res.exit_code == 0 and "A toy level." in res.output and "outputs/toy" in res.output


def test_a_tool_runs_with_its_options_and_aliases_are_accepted() -> None:
    res = CliRunner().invoke(_toy_app(), ["toy", "say", "bye"])
    assert res.exit_code == 0, res.output
    assert "said bye" in res.output and SAID[-1] == {"word": "bye"}  # a choice arrives as its text
    bad = CliRunner().invoke(_toy_app(), ["toy", "score", "--data", "x.jsonl", "--lvl", "9"])
    assert bad.exit_code == 2 and "--lvl must be at most 3" in bad.output  # refused by its plan, as typed


def test_preset_values_fill_the_defaults_and_refuse_a_missing_value(tmp_path: Path) -> None:
    values = preset_values(TOY, {"data": tmp_path / "d.jsonl"})
    assert values.own["level"] == 1 and values.settings.resamples == 50
    assert values.settings.output_dir == Path("outputs/toy")
    req = preset_request(TOY, values)
    assert req.judge is None and req.resamples == 50 and req.specs[0][0].name == "toy"
    with pytest.raises(InputError, match="no value for data"):
        preset_values(TOY, {})


def test_preset_values_are_typed_the_shared_settings_as_declared() -> None:
    """A preset's values: the shared settings as the attributes of one `SharedValues` (one per
    setting of `core/settings.py`, its declared default), the preset's own options by name."""
    assert set(SHARED_NAMES) == {*SETTING, *BESIDE_FLAGS}
    bare = SharedValues()
    for s in SETTINGS:
        assert getattr(bare, s.name) == s.default, s.name
    values = preset_values(TOY, {"data": Path("d.jsonl"), "seed": 7})
    assert isinstance(values, PresetValues) and isinstance(values.settings, SharedValues)
    assert (values.settings.seed, values.settings.resamples) == (7, 50)  # given; the preset's own default
    assert values.settings.output_dir == Path("outputs/toy")
    assert dict(values.own) == {"data": Path("d.jsonl"), "level": 1, "fast": False}


def test_mmae_score_options_are_its_declared_options_typed() -> None:
    from audioeval.benchmarks.mmae.preset import OPTIONS, SCORE, ScoreOptions

    assert [f.name for f in fields(ScoreOptions)] == [o.name for o in OPTIONS]
    opts = ScoreOptions.of(preset_values(SCORE, {"predictions": Path("p.json"), "judge": ["http://x/v1"]}))
    assert (opts.judge_votes, opts.judge_max_attempts, opts.verify, opts.metadata) == (3, 10, "off", Path("MMAE-meta.json"))
    assert opts.root == Path("p.json").absolute().parent


def test_mmae_score_is_a_preset_of_the_mmae_benchmark() -> None:
    mmae = load_benchmarks()["mmae"]
    assert [p.command for p in mmae.presets] == [("mmae", "score")]
    assert {t.command[1] for t in mmae.tools} == {"baseline", "synth"}
    assert mmae.console_table is not None
    group = typer.main.get_command(app).commands["mmae"]  # type: ignore[attr-defined]
    assert set(group.commands) == {"score", "rescore", "baseline", "synth"}
    assert (
        not (SRC / "cli" / "mmae_commands.py").exists() and not (SRC / "presets" / "mmae_score.py").exists()
    )


def test_only_the_engine_writes_the_run_summary() -> None:
    writers = sorted(
        str(p.relative_to(SRC))
        for p in SRC.rglob("*.py")
        if re.search(r"\bwrite_run_summary\(", p.read_text(encoding="utf-8"))
    )
    assert writers == ["engine/evaluate.py", "engine/rescore.py", "engine/run_summary.py"]
    for path in SRC.rglob("*.py"):  # no exporter or preset writes a summary.json of its own
        if path.parent.name == "engine":  # the run's, and each pair's in its folder
            continue
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"""write_json_atomic\([^)]*["']summary\.json["']""", text), path


def test_the_run_summary_round_trips(tmp_path: Path) -> None:
    pair = {
        "benchmark": "b", "model": "m", "task": "codec", "n": 2, "scored": 2, "failed": 0,
        "metrics": {"codec:wer": {"value": 0.1, "ci": [0.0, 0.2]}},
        "reliability": {"judge": {"valid": {"value": 1.0}}},
    }  # fmt: skip
    written = write_run_summary(tmp_path, [pair], metric_models={"asr": {"calls": 2}})
    data = json.loads((tmp_path / "summary.json").read_text())
    assert data["results"] == [pair] and data["scores"] == {"b": {"m": {"codec:wer": 0.1}}}
    assert data["reliability"] == {"b": {"m": pair["reliability"]}} and data["codecs"] == {"m": {"wer": 0.1}}
    assert data["metric_models"] == {"asr": {"calls": 2}} and data["n"] == 2
    back = read_run_summary(tmp_path)
    assert isinstance(back, RunSummary) and back.results == written.results
    assert back.to_json() == {k: v for k, v in data.items() if k != "content_sha256"}
    (tmp_path / "summary.json").write_text(json.dumps({"robust": {}, "official": {}}))  # an old export
    assert read_run_summary(tmp_path) is None


def test_a_preset_may_be_top_level_expose_single_shared_options_and_plan_several_specs() -> None:
    from audioeval.benchmarks.preset import PlanPart

    flags = {o for p in typer.main.get_command(app).commands["judge-eval"].params for o in p.opts}  # type: ignore[attr-defined]
    assert {"--judge", "--judge-model", "--judge-prompt", "--cache", "--max-failed"} <= flags
    assert not {"--exclude-missing", "--judge-sample-rate", "--judge-temperature"} & flags  # not its options
    with pytest.raises(ValueError, match="unknown shared"):
        Preset(("x", "y"), "", _plan, lambda f, v: PresetOutcome({}, 0, 0, 0), shared=("judge_colour",))
    with pytest.raises(ValueError, match="top-level"):
        Preset(("a", "b", "c"), "", _plan, lambda f, v: PresetOutcome({}, 0, 0, 0))
    spec = BenchmarkSpec(name="dev", task="asr", source=SourceSpec(type="jsonl", path="d.jsonl"))
    two = Preset(
        ("x",),
        "",
        lambda v: PresetPlan(
            spec.model_copy(update={"name": "main"}),
            "m.jsonl",
            {"name": "m", "type": "baseline", "baseline": "echo"},
            judge=None,
            also=(PlanPart(spec, "d.jsonl"),),
        ),  # fmt: skip
        lambda f, v: PresetOutcome({}, 0, 0, 0),
        shared=(
            "output_dir",
            "seed",
            "resamples",
            "cache",
            "no_cache",
            "progress",
            "no_probe",
            "exclude_missing",
        ),
    )
    req = preset_request(two, preset_values(two, {"output_dir": Path("o")}))
    assert [s.name for s, _ in req.specs] == ["main", "dev"] and req.judge is None


def test_a_preset_run_from_python_loads_the_benchmarks_its_plan_looks_up(tmp_path: Path) -> None:
    """`run_preset` / `plan_preset` / `rescore_preset` called from Python, in a process that
    never built the CLI (so never loaded the benchmarks): every one reads its values through
    `preset_values`, which loads them, so the registries a plan looks up (predictions formats,
    scorers) are filled. Checked in a fresh interpreter with `mcq score` on a real-shaped file
    (it ended in "unknown predictions format 'mmar'")."""
    import subprocess
    import sys

    items = [{"id": "q1", "question": "Which?", "choices": ["a dog", "a cat"], "answer": "a cat",
              "modality": "sound", "category": "Signal Layer", "sub-category": "x", "answer_prediction": "a cat"}]  # fmt: skip
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps(items), encoding="utf-8")
    code = (
        "import json, sys\n"
        "from audioeval.benchmarks import plugins\n"
        "from audioeval.benchmarks.mcq.preset import SCORE\n"
        "from audioeval.presets.preset_run import run_preset\n"
        "assert plugins._loaded is None\n"
        f"run_preset(SCORE, {{'benchmark': 'mmar', 'predictions': {str(preds)!r}, 'output_dir': {str(tmp_path / 'out')!r}, 'progress': False}})\n"
        "print('SCORED')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "SCORED" in done.stdout
    summary = json.loads((tmp_path / "out" / "mcq_summary.json").read_text())
    assert summary["overall"]["n"] == 1
