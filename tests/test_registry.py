"""One `Registry` type for every set of named things, and the scorers registered from above
the scoring layer (judged scorers) reaching everything that resolves scorer names."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.adapters.baselines import BASELINES, make_baseline
from audioeval.adapters.codecs.registry import BUILTIN_CODECS
from audioeval.benchmarks.mcq.definitions import BENCHMARKS
from audioeval.benchmarks.tasks import TASKS
from audioeval.cli.exit_codes import BAD_INPUT
from audioeval.cli.listing import LISTINGS
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.core.registry import Registry
from audioeval.metrics.corpus import METRICS
from audioeval.postprocess.chain import TEXT_STEPS
from audioeval.postprocess.steps import STEPS
from audioeval.scoring.scorer_registry import SCORERS


def test_registry_keeps_order_and_refuses_a_second_entry_of_a_name() -> None:
    colours = Registry("colour", [("red", 1), ("green", 2)])
    colours.register("blue", 3)
    assert colours.names() == ["red", "green", "blue"] and colours.items()[2] == ("blue", 3)
    assert "red" in colours and len(colours) == 3 and colours["green"] == 2
    assert colours.find("pink") is None and colours.get("blue") == 3
    with pytest.raises(ValueError, match="colour 'red' is already registered"):
        colours.register("red", 9)
    colours.unregister("blue")
    assert list(colours) == ["red", "green"]


def test_unknown_names_in_both_wordings() -> None:
    cli = Registry("colour", [("red", 1), ("green", 2)])
    with pytest.raises(InputError) as err:
        cli.get("gren", field="colour")
    assert err.value.message == "unknown colour 'gren' (did you mean 'green'?); known: green, red"
    assert err.value.field == "colour"
    spec = Registry("colour", [("red", 1)], spec_names=True, also_known=("mean:<key>",))
    with pytest.raises(InputError) as err:
        spec.get("rde", where="spec.yaml", field="colours[0]")
    assert err.value.message == "unknown colour 'rde'. Did you mean 'red'? Known: mean:<key>, red."
    assert err.value.file == "spec.yaml"


def test_every_named_set_is_a_registry() -> None:
    for registry in (
        SCORERS,
        STEPS,
        TEXT_STEPS,
        METRICS,
        TASKS,
        BASELINES,
        BUILTIN_CODECS,
        BENCHMARKS,
        LISTINGS,
    ):
        assert isinstance(registry, Registry)
        assert registry.names()


def test_unknown_baseline_kind_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="unknown baseline 'echoo' \\(did you mean 'echo'\\?\\)"):
        make_baseline("echoo")
    config = tmp_path / "run.yaml"
    config.write_text(
        "benchmarks: [demo-mcq]\n"
        "models:\n"
        "  - {name: b, type: baseline, baseline: echoo}\n"
        f"output_dir: {tmp_path / 'out'}\n"
    )
    res = CliRunner().invoke(app, ["run", str(config)])
    assert res.exit_code == BAD_INPUT and "did you mean 'echo'" in res.output


def test_judged_scorers_are_registered_from_their_own_layers() -> None:
    """`load_benchmarks()` (called by whatever resolves names) registers them, not an import;
    scoring/ never names the layers above it."""
    code = (
        "from audioeval.scoring.scorer_registry import SCORERS\n"
        "import audioeval.benchmarks.resolved\n"
        "assert 'qa_judge' not in SCORERS and 'mmae_rubrics' not in SCORERS\n"
        "from audioeval.benchmarks.plugins import load_benchmarks\n"
        "load_benchmarks()\n"
        "assert 'qa_judge' in SCORERS and 'mmae_rubrics' in SCORERS\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    listed = CliRunner().invoke(app, ["list", "scorers"])
    assert listed.exit_code == 0 and "qa_judge" in listed.output and "mmae_rubrics" in listed.output
