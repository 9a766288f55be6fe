"""Names are names: one rule for model, system and benchmark names (`core/names.py`), checked
at every entry (a `-m` reference, `NAME=SPEC`, a run config, the Python API, a preset's
`--name`, a benchmark spec, an ad-hoc manifest), with the rule in the message; a model's
folder is one folder below its benchmark, and two names sharing a folder are refused naming
both. Nothing is written outside the run folder's pair folders by a bad name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import audioeval
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.core.names import MAX_FOLDER_CHARS, NAME_RULE, check_name, folder_name, name_problem
from audioeval.engine.model_specs import ModelConfig, parse_model_ref
from tests.run_helpers import tone_asr_manifest

RULE = "is not '.' or '..'"
BAD = ["..", ".", "a\x00b", "a\nb", " padded", "x" * 300]
URL = "http://127.0.0.1:9/v1"  # nothing listens: a name that got through would fail later, exit 3


def _cli(*args: object):
    return CliRunner().invoke(app, [str(a) for a in args])


def _written(out: Path) -> list[str]:
    return sorted(str(p.relative_to(out)) for p in out.rglob("*")) if out.exists() else []


def test_the_rule_and_its_folders() -> None:
    for bad in BAD:
        assert name_problem(bad) is not None, bad
        with pytest.raises(InputError, match="is not '.' or '..'"):
            check_name(bad)
    for good in [
        "oracle",
        "Qwen/Qwen2-Audio-7B-Instruct",
        "predictions:/tmp/a b.jsonl",
        "émoji 🎧",
        "👩\u200d💻 dev",
        "...",
    ]:
        assert name_problem(good) is None, good
        folder = folder_name(good)
        assert folder not in (".", "..") and "/" not in folder and len(folder) <= MAX_FOLDER_CHARS
    assert name_problem("a/b", benchmark=True) is not None and name_problem("a/b") is None
    assert folder_name("Qwen/Qwen2-Audio") == "Qwen_Qwen2-Audio"  # unchanged for ordinary names
    assert folder_name("_.._") not in (".", "..")  # a name whose kept characters are reserved
    long_a, long_b = "m" * 150 + "a", "m" * 150 + "b"
    assert folder_name(long_a) != folder_name(long_b) and len(folder_name(long_a)) == MAX_FOLDER_CHARS


@pytest.mark.parametrize(
    "ref", ["..@" + URL, ".@" + URL, "transcription:..@" + URL, "..=oracle", "gemini:.."]
)
def test_a_reserved_model_name_on_the_command_line_is_refused_with_the_rule(tmp_path: Path, ref: str) -> None:
    manifest = tone_asr_manifest(tmp_path / "data", n=2)
    out = tmp_path / "out"
    res = _cli("run", "-b", manifest, "--task", "asr", "-m", ref, "-o", out)
    assert res.exit_code == 2, res.output
    assert RULE in res.output and "field 'model'" in res.output
    assert _written(out) == []  # no summary at the run's top, nothing in the benchmark folder


@pytest.mark.parametrize("bad", BAD)
def test_every_model_entry_refuses_a_bad_name(tmp_path: Path, bad: str) -> None:
    """The entries: a `-m` reference, `NAME=SPEC`, a run config's string and mapping, the
    Python API's reference and `ModelConfig` (even one built without validation)."""
    with pytest.raises(InputError, match=r"is not '\.' or '\.\.'"):
        parse_model_ref(f"{bad}@{URL}") if bad.strip() == bad else check_name(bad)
    manifest = tone_asr_manifest(tmp_path / "data", n=2)
    entries = [json.dumps({"name": bad, "type": "baseline", "baseline": "oracle"})]
    if bad == bad.strip():  # a reference string is read without its outer white space
        entries.append(json.dumps(f"{bad}@{URL}"))
    for i, entry in enumerate(entries):
        config = tmp_path / f"run{i}.yaml"
        out = tmp_path / f"out{i}"
        config.write_text(f"benchmarks: [{manifest}]\ntask: asr\noutput_dir: {out}\nmodels:\n  - {entry}\n")
        res = _cli("run", config)
        assert res.exit_code == 2 and RULE in res.output and "models[0]" in res.output, res.output
        assert _written(out) == []
    out = tmp_path / "api"
    for model in [ModelConfig.model_construct(name=bad, type="baseline", baseline="oracle")]:
        with pytest.raises(InputError, match=r"is not '\.' or '\.\.'"):
            audioeval.evaluate([model], [str(manifest)], task="asr", output_dir=out)
        assert _written(out) == []


def test_every_preset_name_option_refuses_a_reserved_name(synthetic_set, tmp_path: Path) -> None:
    """Every preset that takes the system's name (`--name`), found from the loaded benchmarks."""
    presets = [
        p for b in load_benchmarks().values() for p in b.presets if any(o.name == "name" for o in p.options)
    ]
    assert presets, "no preset takes --name"
    for preset in presets:
        assert preset.command == ("mmae", "score"), "a new preset with --name: give it its inputs here"
        out = tmp_path / "mmae"
        res = _cli(
            "mmae", "score", "--predictions", synthetic_set.oracle_predictions, "--metadata",
            synthetic_set.metadata, "--judge", URL, "--name", "..", "-o", out, "--no-progress",
        )  # fmt: skip
        assert res.exit_code == 2, res.output
        assert "field '--name'" in res.output and RULE in res.output
        assert not (out / "summary.json").exists() and not (out / "mmae" / "summary.json").exists()


def test_two_names_sharing_a_folder_are_refused_naming_both(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "data", n=2)
    res = _cli(
        "run", "-b", manifest, "--task", "asr", "-m", "a+b=oracle", "-m", "a_b=oracle", "-o", tmp_path / "o"
    )
    assert res.exit_code == 2
    assert "'a+b' and 'a_b' would share the folder 'a_b'" in res.output and "named twice" not in res.output
    res = _cli(
        "run", "-b", manifest, "--task", "asr", "-m", "x=oracle", "-m", "x=oracle", "-o", tmp_path / "o"
    )
    assert res.exit_code == 2 and "'x' is named twice" in res.output


@pytest.mark.parametrize("bad", ["..", ".", "a/b", "a\tb"])
def test_a_benchmark_spec_with_a_bad_name_is_refused(tmp_path: Path, bad: str) -> None:
    manifest = tone_asr_manifest(tmp_path / "data", n=2)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        json.dumps({"name": bad, "task": "asr", "source": {"type": "jsonl", "path": str(manifest)}})
    )
    out = tmp_path / "out"
    res = _cli("run", "-b", spec, "-m", "oracle", "-o", out)
    assert res.exit_code == 2, res.output
    assert "field 'name'" in res.output and NAME_RULE in res.output
    assert _written(out) == []


def test_a_manifest_named_dot_dot_scores_into_a_folder_of_its_own(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "data", n=2)
    odd = manifest.with_name("..jsonl")  # its stem is '.'
    odd.write_text(manifest.read_text())
    out = tmp_path / "out"
    res = _cli("run", "-b", odd, "--task", "asr", "-m", "oracle", "-o", out)
    assert res.exit_code == 0, res.output
    (pair,) = out.glob("*/oracle/summary.json")
    assert pair.parent.parent.name not in (".", "..") and pair.parent.parent.parent == out
    assert json.loads((out / "summary.json").read_text())["results"]
