"""Formats are declared, never guessed: every predictions format and source type is given by
a benchmark, by name, through its `Benchmark`; `auto` takes the one format that matches a
file and says which; a missing or unreadable file, a file no format or several formats match,
several candidate answer keys, or a model that serves no benchmark given is an error naming
it (exit 2) before anything is written; a model of stored answers needs no input audio; an MCQ
item whose gold answer is not among its choices is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.adapters.predictions import PredictionsFile
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.prediction_formats import PREDICTION_FORMATS, format_names, format_of
from audioeval.benchmarks.sources.loader import load_samples
from audioeval.benchmarks.sources.source_formats import (
    GENERIC_SOURCE_TYPES,
    SOURCE_FORMATS,
    source_type_names,
)
from audioeval.benchmarks.spec import parse_spec
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.engine.model_factory import build_predictions
from audioeval.engine.model_specs import ModelConfig

load_benchmarks()  # the formats and source types the benchmarks contribute, for the parametrized tests

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "src" / "audioeval" / "benchmarks" / "demo" / "demo_data"
HYPS = ROOT / "examples" / "demo_hyps.jsonl"
MMAE_PREDICTION = {
    "id": "x1",
    "messages": [
        {"role": "user", "content": [{"type": "audio", "audio_url": "in.wav"}]},
        {"role": "assistant", "content": [{"type": "audio", "audio_url": "out.wav"}]},
    ],
}

runner = CliRunner()


def run_cli(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, [*args, "--no-progress"], env={"COLUMNS": "400"})


def _flat(text: str) -> str:
    return " ".join(text.split())


def _mcq_items() -> list[dict]:
    return json.loads((DEMO / "mcq-demo.json").read_text())


def test_every_format_and_source_type_comes_from_a_benchmark() -> None:
    """Only `text` and the files of tools that are no benchmark are generic; every other format
    and source type is a benchmark's, by name."""
    from audioeval.benchmarks.sources.tool_outputs import FORMATS as TOOL_FORMATS

    benches = load_benchmarks().values()
    given_formats = {n for b in benches for n in b.prediction_formats}
    given_sources = {n for b in benches for n in b.source_types}
    assert set(PREDICTION_FORMATS.names()) == given_formats | {"text", *TOOL_FORMATS}
    assert set(SOURCE_FORMATS.names()) == given_sources
    assert {"mmae", "mmar", "mmau"} <= given_formats and "mmae" in given_sources
    assert not given_sources & set(GENERIC_SOURCE_TYPES)


@pytest.mark.parametrize("name", format_names())  # every registered format, the benchmarks' included
def test_every_format_names_a_missing_folder_or_empty_file(tmp_path: Path, name: str) -> None:
    load_benchmarks()
    for path, why in (
        (tmp_path / "nope.jsonl", "not found"),
        (tmp_path, "is a folder"),
        (tmp_path / "empty.jsonl", "empty"),
    ):
        if why == "empty":
            path.write_text("\n")
        cfg = ModelConfig(name="mine", type="predictions", predictions=str(path), predictions_format=name)
        with pytest.raises(InputError) as info:
            build_predictions(cfg)
        assert (
            info.value.file == str(path) and why in info.value.message and "model mine" in info.value.message
        )


def test_auto_takes_the_one_matching_format_and_says_which(tmp_path: Path) -> None:
    load_benchmarks()
    mmae = tmp_path / "edits.json"
    mmae.write_text(json.dumps([MMAE_PREDICTION]))
    mmau = tmp_path / "mmau.json"
    mmau.write_text(json.dumps([{**item, "model_output": item["answer"]} for item in _mcq_items()]))
    for path, name in ((HYPS, "text"), (mmae, "mmae"), (mmau, "mmau")):
        chosen = format_of("auto", path)
        assert (chosen.name, chosen.how) == (name, "auto")
    adapter = build_predictions(ModelConfig(name="mine", type="predictions", predictions=str(HYPS)))
    assert "read as text (the one format it matches)" in adapter.describe()
    assert {
        "format": "text",
        "format_chosen": "auto",
        "prediction_key": "text",
        "matching": "by id",
    }.items() <= (adapter.signature().items())


def test_auto_refuses_a_file_no_format_or_several_formats_match(tmp_path: Path) -> None:
    load_benchmarks()
    odd = tmp_path / "odd.jsonl"
    odd.write_text(json.dumps({"id": "a", "hypothesis": "x"}) + "\n")
    with pytest.raises(InputError, match=r"'hypothesis'.*matches no predictions format") as info:
        format_of("auto", odd)
    assert info.value.file == str(odd)
    # an item both of MMAR's and of MMAU's shape: which one is the user's to say
    both = tmp_path / "both.json"
    item = {**_mcq_items()[0], "model_prediction": "x", "modality": "speech", "category": "Signal Layer"}
    both.write_text(json.dumps([item]))
    with pytest.raises(InputError, match=r"several predictions formats \(mmar, mmau\).*--predictions-format"):
        format_of("auto", both)
    assert format_of("mmau", both).how == "named"


def test_a_mistyped_predictions_file_is_an_error_before_anything_is_written(tmp_path: Path) -> None:
    """Once: `mine` vanished from the board, exit 0, when its file was mistyped."""
    out = tmp_path / "out"
    res = run_cli(
        "run",
        "-m",
        f"mine=predictions:{tmp_path / 'hyps.jsonl'},oracle",
        "-b",
        "demo-speech-en",
        "-o",
        str(out),
    )
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    assert "hyps.jsonl" in res.output and "model mine: predictions file not found" in _flat(res.output)
    assert not out.exists()


def test_a_model_that_serves_no_benchmark_given_is_an_error_naming_it(tmp_path: Path) -> None:
    """Once: an MMAE file of edited audio run on an ASR set left `mine` off the board, exit 0."""
    edits = tmp_path / "edits.json"
    edits.write_text(json.dumps([MMAE_PREDICTION]))
    out = tmp_path / "out"
    res = run_cli("run", "-m", f"mine=predictions:{edits},oracle", "-b", "demo-speech-en", "-o", str(out))
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    text = _flat(res.output)
    assert "model mine serves no benchmark given: it serves audio_edit" in text
    assert "read as mmae" in text and "demo-speech-en needs task asr" in text
    assert not out.exists()


def _both_keys(tmp_path: Path) -> Path:
    """An MMAU file carrying two candidate answer keys, as published files do."""
    items = [
        {**item, "model_output": item["choices"][-1], "model_prediction": item["answer"]}
        for item in _mcq_items()
    ]
    path = tmp_path / "published.json"
    path.write_text(json.dumps(items))
    return path


def test_several_candidate_keys_are_an_error_unless_one_is_given_in_run(tmp_path: Path) -> None:
    path = _both_keys(tmp_path)
    res = run_cli("run", "-m", f"mine=predictions:{path}", "-b", "demo-mcq", "-o", str(tmp_path / "a"))
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    assert "'model_output', 'model_prediction'" in res.output and "--prediction-key" in res.output
    assert not (tmp_path / "a").exists()
    out = tmp_path / "b"
    res = run_cli(
        "run",
        "-m",
        f"mine=predictions:{path}",
        "-b",
        "demo-mcq",
        "-o",
        str(out),
        "--prediction-key",
        "model_prediction",
    )
    assert res.exit_code == 0, res.output
    assert (
        "read as mmau (the one format it matches), answers under 'model_prediction', matched by id"
        in _flat(res.output)
    )
    summary = json.loads(next((out / "demo-mcq").glob("*/summary.json")).read_text())
    assert summary["metrics"]["accuracy"]["value"] == 1.0  # model_prediction holds the gold answers
    run = json.dumps(json.loads((out / "run.json").read_text()))
    assert '"prediction_key": "model_prediction"' in run and '"format": "mmau"' in run


def test_several_candidate_keys_are_an_error_unless_one_is_given_in_mcq_score(tmp_path: Path) -> None:
    """Once: `mcq score` read `model_output` silently (59.70 % where the authors published 66.00 %)."""
    path = _both_keys(tmp_path)
    res = run_cli(
        "mcq", "score", "--benchmark", "mmau", "--predictions", str(path), "-o", str(tmp_path / "a")
    )
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    assert "'model_output', 'model_prediction'" in res.output
    res = run_cli(
        "mcq", "score", "--benchmark", "mmau", "--predictions", str(path), "-o", str(tmp_path / "b"),
        "--prediction-key", "model_prediction",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "answers under 'model_prediction'" in _flat(res.output)


def _clipless_manifest(tmp_path: Path) -> Path:
    rows = [json.loads(x) for x in (DEMO / "speech" / "manifest.jsonl").read_text().splitlines()][:3]
    manifest = tmp_path / "set" / "manifest.jsonl"
    manifest.parent.mkdir()
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    spec = tmp_path / "clipless.yaml"
    spec.write_text(
        f"name: clipless\ntask: asr\nsource: {{type: jsonl, path: {manifest}}}\nfields: {{reference: text}}\n"
    )
    return spec


def test_stored_answers_score_a_benchmark_whose_clips_are_absent(tmp_path: Path) -> None:
    """Once: every sample failed `audio file not found`, though no stored answer reads audio."""
    spec = _clipless_manifest(tmp_path)
    hyps = tmp_path / "hyps.jsonl"
    hyps.write_text("".join(line + "\n" for line in HYPS.read_text().splitlines()[:3]))
    out = tmp_path / "out"
    res = run_cli("run", "-m", f"mine=predictions:{hyps}", "-b", str(spec), "-o", str(out))
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "clipless" / "mine" / "summary.json").read_text())
    assert (summary["n"], summary["scored"], summary["failed"]) == (3, 3, 0)
    replayed = tmp_path / "replayed"
    res = run_cli("run", "-m", f"replay:{out / 'clipless' / 'mine'}", "-b", str(spec), "-o", str(replayed))
    assert res.exit_code == 0, res.output
    (path,) = (replayed / "clipless").glob("*/summary.json")
    again = json.loads(path.read_text())
    assert again["scored"] == 3 and again["metrics"]["wer"]["value"] == summary["metrics"]["wer"]["value"]
    # a model that listens still has its clips checked
    res = run_cli("run", "-m", "oracle", "-b", str(spec), "-o", str(tmp_path / "oracle"))
    assert "audio file not found" in res.output


def test_an_mcq_gold_answer_not_among_its_choices_is_refused(tmp_path: Path) -> None:
    """Once: the item was scored (the oracle got it right)."""
    items = _mcq_items()[:3]
    items[1] = {**items[1], "answer": "Not one of the choices"}
    items[2] = {**items[2], "answer": items[2]["choices"][1] + " "}  # spaces aside, it is one
    data = tmp_path / "mcq.json"
    data.write_text(json.dumps(items))
    for i, item in enumerate(items):
        shutil.copy(DEMO / item["audio_id"], tmp_path / f"c{i}.flac")
        item["audio_id"] = f"c{i}.flac"
    data.write_text(json.dumps(items))
    spec = parse_spec(
        {
            "name": "m",
            "task": "mcq",
            "source": {"type": "json", "path": str(data)},
            "fields": {"audio": "audio_id"},
        },
        "inline.yaml",
    )
    loaded = load_samples(spec, "inline.yaml")
    assert [s.id for s in loaded.samples] == [items[0]["id"], items[2]["id"]]
    (err,) = loaded.skipped
    assert (err.file, err.sample_id, err.field) == (str(data), items[1]["id"], "answer")
    assert "not one of the item's 4 choices" in err.message


def test_the_signature_holds_how_the_file_was_read(tmp_path: Path) -> None:
    load_benchmarks()
    adapter = build_predictions(
        ModelConfig(name="m", type="predictions", predictions=str(_both_keys(tmp_path)),
                    predictions_format="mmau", prediction_key="model_output")
    )  # fmt: skip
    assert isinstance(adapter, PredictionsFile)
    sig = adapter.signature()
    assert (sig["format"], sig["format_chosen"], sig["prediction_key"], sig["matching"]) == (
        "mmau", "named", "model_output", "by id",
    )  # fmt: skip


@pytest.mark.parametrize("name", [n for n in source_type_names() if n not in GENERIC_SOURCE_TYPES])
def test_every_contributed_source_type_names_a_missing_file(tmp_path: Path, name: str) -> None:
    missing = tmp_path / "missing.json"
    spec = parse_spec({"name": "x", "task": "asr", "source": {"type": name, "path": str(missing)}}, "inline.yaml")
    with pytest.raises(InputError) as info:
        load_samples(spec, "inline.yaml")
    assert info.value.file == str(missing)


def test_an_unknown_source_type_lists_the_contributed_ones() -> None:
    from audioeval.benchmarks.resolved import resolve

    with pytest.raises(InputError) as info:
        resolve(parse_spec({"name": "x", "task": "asr", "source": {"type": "mmea", "path": "x"}}, "inline.yaml"), "x")
    assert info.value.field == "source.type" and "mmae" in info.value.message and "jsonl" in info.value.message


def test_mcq_score_loads_its_file_as_its_benchmark_s_source_type(tmp_path: Path) -> None:
    """No second route: the preset names the file as a source of the benchmark's own type,
    and the engine's loader reads it, as it reads an installed package's."""
    from audioeval.benchmarks.mcq.preset import SCORE, plan
    from audioeval.presets.preset_run import preset_values

    path = tmp_path / "mmau.json"
    path.write_text(json.dumps([{**item, "model_output": item["answer"]} for item in _mcq_items()]))
    planned = plan(preset_values(SCORE, {"benchmark": "mmau", "predictions": path}))
    assert planned.samples is None
    source = planned.spec.source
    assert (source.type, source.options) == ("mmau", {"prediction_key": "model_output"})
    assert source.type in SOURCE_FORMATS.names()
    loaded = load_samples(planned.spec, str(path))
    assert [s.id for s in loaded.samples] == [item["id"] for item in _mcq_items()]
    assert loaded.samples[0].fields["prediction"] == _mcq_items()[0]["answer"]


def test_a_model_left_out_of_some_benchmarks_is_named_with_them() -> None:
    """A model serving some of the benchmarks given runs on those; the others are named, not
    silently absent from their boards."""
    from types import SimpleNamespace

    from audioeval.engine.evaluate import _unpaired

    load_benchmarks()
    mine = ModelConfig(name="mine", type="predictions", predictions=str(HYPS))
    adapters = {mine.slug: build_predictions(mine)}
    benches = [SimpleNamespace(name=n, spec=SimpleNamespace(task=t)) for n, t in (("a", "asr"), ("t", "tts"))]
    (line,) = _unpaired(benches, [mine], adapters)  # type: ignore[arg-type]
    assert line.startswith("mine is not run on t: it serves ") and "asr" in line
    assert _unpaired(benches[:1], [mine], adapters) == []  # type: ignore[arg-type]
