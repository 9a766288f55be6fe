"""Input files as users write them: a BOM, CRLF line ends, Latin-1 text, YAML aliases and tags.

Every JSON, JSONL, CSV and YAML input is read alike (store/text_input.py, store/yaml_file.py):
a BOM and CRLF are accepted, another encoding is one line naming the file and the line, exit 2.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.mcq.definitions import MMAR
from audioeval.benchmarks.mcq.loading import load_mcq_file
from audioeval.benchmarks.mmae.loading import load_metadata, load_predictions
from audioeval.benchmarks.registry import adhoc_spec
from audioeval.benchmarks.sources.loader import load_samples
from audioeval.benchmarks.spec import load_spec_file
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.engine.run_config import load_run_config
from audioeval.prompts.templates import load_template
from tests.run_helpers import tone_asr_manifest

runner = CliRunner()


def windows_text(path: Path, text: str) -> Path:
    """`text` saved as a Windows editor does: a BOM and CRLF line ends."""
    path.write_bytes(codecs.BOM_UTF8 + text.replace("\n", "\r\n").encode("utf-8"))
    return path


def one_line_error(res: Any, code: int = 2) -> str:
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1, res.output
    return lines[0]


def test_mmae_metadata_and_predictions_with_bom_and_crlf(synthetic_set, tmp_path: Path) -> None:
    meta_text = synthetic_set.metadata.read_text(encoding="utf-8")
    preds = json.loads(synthetic_set.oracle_predictions.read_text(encoding="utf-8"))
    meta = windows_text(tmp_path / "MMAE-meta.json", meta_text)
    as_json = windows_text(tmp_path / "p.json", json.dumps(preds, indent=1))
    as_jsonl = windows_text(tmp_path / "p.jsonl", "".join(json.dumps(p) + "\n" for p in preds))
    samples, errors = load_metadata(meta)
    assert not errors and samples == load_metadata(synthetic_set.metadata)[0]
    for path in (as_json, as_jsonl):
        loaded, errors = load_predictions(path)
        assert not errors and loaded == load_predictions(synthetic_set.oracle_predictions)[0]


def mcq_items() -> list[dict[str, Any]]:
    return [
        {
            "id": f"q{i}",
            "question": "Which?",
            "choices": ["Dog", "Café"],
            "answer": "Dog",
            "modality": "sound",
            "category": "Signal Layer",
            "sub-category": "Counting",
            "answer_prediction": ["Dog", "Café"][i % 2],
        }
        for i in range(4)
    ]


@pytest.mark.parametrize("name", ["p.jsonl", "p.json", "jsonl-named.json"])
def test_mcq_files_with_bom_and_crlf(tmp_path: Path, name: str) -> None:
    items = mcq_items()
    text = json.dumps(items, indent=1) if name == "p.json" else "".join(json.dumps(x) + "\n" for x in items)
    loaded = load_mcq_file(windows_text(tmp_path / name, text), MMAR)
    assert [i.id for i in loaded.items] == ["q0", "q1", "q2", "q3"]
    assert [i.prediction for i in loaded.items] == ["Dog", "Café", "Dog", "Café"]


def _csv(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


@pytest.mark.parametrize("kind", ["jsonl", "json", "csv"])
def test_run_manifests_with_bom_and_crlf(tmp_path: Path, kind: str) -> None:
    source = tone_asr_manifest(tmp_path / "set", n=3)
    rows = [json.loads(line) for line in source.read_text().splitlines()]
    rows[1]["text"] = "a reference, with a comma\nand a line break"
    text = {
        "jsonl": "".join(json.dumps(r) + "\n" for r in rows),
        "json": json.dumps(rows, indent=1),
        "csv": _csv(rows),
    }[kind]
    path = windows_text(tmp_path / "set" / f"m.{kind}", text)
    loaded = load_samples(adhoc_spec(path, "asr"), str(path))
    assert not loaded.skipped
    assert [s.id for s in loaded.samples] == ["c0", "c1", "c2"]
    reference = loaded.samples[1].fields["reference"]
    assert reference.replace("\r\n", "\n") == rows[1]["text"]
    assert all(Path(s.audio["audio"].path).is_file() for s in loaded.samples)


def test_specs_configs_and_templates_with_bom_and_crlf(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    spec = windows_text(
        tmp_path / "spec.yaml", f"name: tones\ntask: asr\nsource:\n  type: jsonl\n  path: {manifest}\n"
    )
    assert load_spec_file(spec).name == "tones"
    cfg = windows_text(tmp_path / "run.yaml", f"benchmarks: [{spec}]\nmodels: [constant]\n")
    assert load_run_config(cfg).benchmarks == [str(spec)]
    template = windows_text(tmp_path / "t.yaml", "name: mine\nuser: 'Transcribe: {{ sample.id }}'\n")
    assert load_template(template).name == "mine"


def latin1(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("latin-1"))
    return path


def test_latin1_mmae_metadata_is_one_line_naming_file_and_line(synthetic_set, tmp_path: Path) -> None:
    meta = json.loads(synthetic_set.metadata.read_text(encoding="utf-8"))
    meta[0]["messages"][0]["content"][0]["text"] = "Enlève le son"
    path = latin1(tmp_path / "MMAE-meta.json", json.dumps(meta, indent=1, ensure_ascii=False))
    res = runner.invoke(
        app,
        ["mmae", "score", "--predictions", str(synthetic_set.oracle_predictions), "--metadata", str(path),
         "--base_urls", "http://127.0.0.1:9/v1", "--output_dir", str(tmp_path / "o"), "--no-progress"],
    )  # fmt: skip
    line = one_line_error(res)
    assert f"{path}:" in line and "not UTF-8" in line and "byte 0xe8" in line and "save it as UTF-8" in line


def test_latin1_mmae_predictions(synthetic_set, tmp_path: Path) -> None:
    preds = json.loads(synthetic_set.oracle_predictions.read_text(encoding="utf-8"))
    preds[0]["messages"][0]["content"][0]["text"] = "Enlève"
    path = latin1(tmp_path / "p.jsonl", "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in preds))
    res = runner.invoke(
        app,
        ["mmae", "score", "--predictions", str(path), "--metadata", str(synthetic_set.metadata),
         "--base_urls", "http://127.0.0.1:9/v1", "--output_dir", str(tmp_path / "o"), "--no-progress"],
    )  # fmt: skip
    assert f"{path}:1: predictions file is not UTF-8" in one_line_error(res)


@pytest.mark.parametrize("name", ["p.jsonl", "p.json"])
def test_latin1_mcq_predictions(tmp_path: Path, name: str) -> None:
    items = mcq_items()
    text = (
        json.dumps(items, ensure_ascii=False, indent=1)
        if name == "p.json"
        else "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in items)
    )
    path = latin1(tmp_path / name, text)
    out = tmp_path / "o"
    res = runner.invoke(
        app, ["mcq", "score", "--benchmark", "mmar", "--predictions", str(path), "--output_dir", str(out)]
    )
    line = one_line_error(res)
    assert str(path) in line and "not UTF-8" in line and "byte 0xe9" in line
    assert not out.exists()  # refused before anything was written


@pytest.mark.parametrize("kind", ["jsonl", "json", "csv"])
def test_latin1_run_manifest(tmp_path: Path, kind: str) -> None:
    source = tone_asr_manifest(tmp_path / "set", n=2)
    rows = [json.loads(line) for line in source.read_text().splitlines()]
    rows[1]["text"] = "déjà vu"
    text = {
        "jsonl": "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
        "json": json.dumps(rows, ensure_ascii=False),
        "csv": _csv(rows),
    }[kind]
    path = latin1(tmp_path / "set" / f"m.{kind}", text)
    res = runner.invoke(
        app,
        [
            "run",
            "-b",
            str(path),
            "--task",
            "asr",
            "-m",
            "constant",
            "-o",
            str(tmp_path / "o"),
            "--no-progress",
        ],
    )
    line = one_line_error(res)
    assert str(path) in line and "manifest file is not UTF-8" in line and "byte 0xe9" in line


def test_latin1_benchmark_spec_and_run_config(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    spec = latin1(
        tmp_path / "spec.yaml",
        f"name: tones\ndescription: Tonalités\ntask: asr\nsource:\n  type: jsonl\n  path: {manifest}\n",
    )
    res = runner.invoke(app, ["run", "-b", str(spec), "-m", "constant", "-o", str(tmp_path / "o")])
    assert f"{spec}:2: benchmark spec file is not UTF-8" in one_line_error(res)
    cfg = latin1(tmp_path / "run.yaml", f"# réglages\nbenchmarks: [{manifest}]\nmodels: [constant]\n")
    res = runner.invoke(app, ["run", str(cfg)])
    assert f"{cfg}:1: run config file is not UTF-8" in one_line_error(res)


BILLION_LAUGHS = """name: lol
task: asr
source: {type: jsonl, path: m.jsonl}
variables:
  a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
  f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
  g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
  h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
  i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def test_a_yaml_alias_bomb_is_refused_naming_the_file(tmp_path: Path) -> None:
    spec = tmp_path / "lol.yaml"
    spec.write_text(BILLION_LAUGHS)
    assert len(BILLION_LAUGHS) < 1500
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", "-b", str(spec), "-m", "constant", "-o", str(out), "--no-progress"])
    line = one_line_error(res)
    assert str(spec) in line and "aliases expand to more than 100,000 values" in line
    assert not out.exists()


def test_yaml_with_a_few_anchors_still_loads(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "name: tones\ntask: asr\n"
        f"source: &src {{type: jsonl, path: {manifest}}}\n"
        "variables:\n  base: &base {lang: en, words: [a, b]}\n  copy: *base\n  more: [*base, *base]\n"
    )
    loaded = load_spec_file(spec)
    assert loaded.variables["copy"] == loaded.variables["base"] == {"lang": "en", "words": ["a", "b"]}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("name: !!python/object/apply:os.system ['touch pwned']\ntask: asr\n", "build Python objects"),
        ("name: &n [*n]\ntask: asr\n", "refers to a node that contains it"),
    ],
)
def test_python_tags_and_recursive_aliases_are_refused(tmp_path: Path, text: str, words: str) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(text)
    res = runner.invoke(app, ["run", "-b", str(spec), "-m", "constant", "-o", str(tmp_path / "o")])
    line = one_line_error(res)
    assert str(spec) in line and words in line
    assert not (tmp_path / "pwned").exists() and not Path("pwned").exists()


def test_a_data_uri_in_a_run_manifest_skips_its_row_with_a_short_message(tmp_path: Path) -> None:
    import base64

    source = tone_asr_manifest(tmp_path / "set", n=3)
    rows = [json.loads(line) for line in source.read_text().splitlines()]
    wav = (source.parent / rows[1]["audio"]).read_bytes()
    rows[1]["audio"] = "data:audio/wav;base64," + base64.b64encode(wav).decode()
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "o"
    res = runner.invoke(
        app, ["run", "-b", str(source), "--task", "asr", "-m", "oracle", "-o", str(out), "--no-progress"]
    )
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output  # the skipped row is failed work
    assert max(len(line) for line in res.output.splitlines()) < 400
    (skipped,) = json.loads((out / "asr" / "skipped.json").read_text())
    assert (skipped["id"], skipped["field"], skipped["file"]) == ("c1", "audio", str(source))
    assert "data: URI" in skipped["error"] and " KB)" in skipped["error"] and len(skipped["error"]) < 300
    assert json.loads((out / "summary.json").read_text())["scores"]["asr"]["oracle"]["wer"] == 0.0
