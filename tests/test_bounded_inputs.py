"""One bounded reader for every JSON and YAML text: a value nested 100,000 deep is one error
naming the file and line (exit 2), never a RecursionError, in every reader of user files.

The gate is `store/bounded_json.loads` (JSON) and `store/yaml_file.load_yaml` (YAML); the
first test finds every parse in the package's code and checks it goes through them, the
others feed every reader the same deep inputs."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.store.bounded_json import MAX_NESTING, NestingError, loads, too_deep
from tests.run_helpers import tone_asr_manifest

runner = CliRunner()
PKG = Path(__file__).resolve().parents[1] / "src" / "audioeval"
DEPTH = 100_000
DEEP = "[" * DEPTH + "]" * DEPTH  # a JSON value (and a YAML flow sequence) nested 100,000 deep
DEEP_YAML_BLOCK = "".join("  " * i + "- \n" for i in range(2_000))  # block style, 2,000 deep

GATES = {"store/bounded_json.py", "store/yaml_file.py"}
"""The modules that may call the JSON and YAML parsers themselves."""
OWN_ENVIRONMENT = "adapters/runtimes/workers/"
"""Workers run in a runtime's own virtualenv, where audioeval is not installed; what they
parse comes from audioeval itself."""
PARSERS = {("json", "loads"), ("json", "load"), ("yaml", "load"), ("yaml", "safe_load"),
           ("yaml", "full_load"), ("yaml", "unsafe_load"), ("yaml", "load_all"),
           ("yaml", "safe_load_all"), ("yaml", "compose")}  # fmt: skip


def _parse_calls() -> list[str]:
    found = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        if rel in GATES or rel.startswith(OWN_ENVIRONMENT):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = node.func if isinstance(node, ast.Call) else None
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and (func.value.id, func.attr) in PARSERS
            ):
                found.append(f"{rel}:{node.lineno}: {func.value.id}.{func.attr}")
    return found


def test_every_json_and_yaml_parse_of_the_package_goes_through_the_bounded_gate() -> None:
    assert _parse_calls() == []
    # the scan does find a parse where there is one
    tree = ast.parse("import json\njson.loads('1')\n")
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call))
    assert (call.func.value.id, call.func.attr) in PARSERS  # type: ignore[attr-defined]


def test_the_bound_is_exact_and_any_depth_is_refused_as_malformed_json() -> None:
    at = "[" * MAX_NESTING + "]" * MAX_NESTING
    assert too_deep(loads(at)) is False
    for text in ("[" * (MAX_NESTING + 1) + "]" * (MAX_NESTING + 1), DEEP, '{"a": ' * DEPTH, "[" * DEPTH):
        with pytest.raises(NestingError) as err:
            loads(text)
        assert isinstance(err.value, json.JSONDecodeError)  # every caller's malformed-JSON path
        assert f"nested deeper than {MAX_NESTING}" in err.value.msg
    with pytest.raises(NestingError) as err:
        loads('{"a": 1,\n "b": ' + DEEP + "}")
    assert err.value.lineno == 2
    many = json.dumps([{"id": str(i), "x": [[1]]} for i in range(500)])  # many brackets, shallow
    assert len(loads(many)) == 500 and loads(many.encode()) == loads(many)
    # brackets, quotes and escapes inside strings never count
    tricky = json.dumps({"a": "[[[{{" * 50 + '\\"]]', "b": [["\\", '"']] * 60})
    assert loads(tricky) == json.loads(tricky)
    # the hot paths (record lines, HTTP bodies) only turn the interpreter's limit into the error
    assert loads("[" * 150 + "]" * 150, nesting=None) is not None
    with pytest.raises(NestingError):
        loads(DEEP.encode(), nesting=None)


@pytest.mark.parametrize("depth", [99, 100, 101, 102])
@pytest.mark.parametrize("size", ["small", "large"])
def test_the_two_measures_agree_at_the_bound(depth: int, size: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from audioeval.store import bounded_json

    value: Any = "x]"
    for i in range(depth):
        value = [value, '"{'] if i % 2 else {"k[": value, "q": "\\"}
    text = json.dumps(value)
    if size == "large":  # past the measured size: walked after parsing instead
        monkeypatch.setattr(bounded_json, "_MEASURED_CHARS", 10)
    if depth > MAX_NESTING:
        with pytest.raises(NestingError):
            loads(text)
    else:
        assert loads(text) == value


# --- every predictions format (enumerated from its registry) -------------------------------


def _deep_items(path: Path, jsonl: bool, first: dict[str, Any]) -> Path:
    rows = [json.dumps(first), json.dumps({**first, "id": "b"})[:-1] + ', "deep": ' + DEEP + "}"]
    path.write_text("\n".join(rows) + "\n" if jsonl else "[\n" + ",\n".join(rows) + "\n]\n", encoding="utf-8")
    return path


def _prediction_formats() -> list[str]:
    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.benchmarks.prediction_formats import PREDICTION_FORMATS

    load_benchmarks()
    return sorted(PREDICTION_FORMATS.names())


@pytest.mark.parametrize("jsonl", [True, False], ids=["jsonl", "json"])
@pytest.mark.parametrize("name", _prediction_formats())
def test_every_predictions_format_refuses_a_deep_file_naming_file_and_line(
    tmp_path: Path, name: str, jsonl: bool
) -> None:
    from audioeval.benchmarks.prediction_formats import PREDICTION_FORMATS

    first = {"id": "a", "text": "x", "output_audio": "a.wav", "model_prediction": "A", "messages": []}
    path = _deep_items(tmp_path / f"p.{'jsonl' if jsonl else 'json'}", jsonl, first)
    with pytest.raises(InputError) as err:
        PREDICTION_FORMATS.get(name).reader(None)(path)
    said = str(err.value)
    line = 2 if jsonl else 3  # the deep item's line ("[" alone on the first line of a JSON list)
    assert f"nested deeper than {MAX_NESTING}" in said, said
    assert f"{path.name}:{line}" in said or (path.name in said and f"at line {line} " in said), said


def test_the_registries_hold_what_these_tests_cover() -> None:
    from audioeval.benchmarks.sources.source_formats import GENERIC_SOURCE_TYPES

    assert {"mmae", "mmar", "mmau", "text"} <= set(_prediction_formats())
    json_sources = {s for s in GENERIC_SOURCE_TYPES if s.startswith("json")}
    assert json_sources == {"json", "jsonl"}  # the manifest kinds fed below


# --- every command that reads a user's JSON or YAML file -----------------------------------


def _refused(res: Any, file: Path, line: int | None = None) -> None:
    said = " ".join(res.output.split())
    assert res.exit_code == exit_codes.BAD_INPUT, res.output[-2000:]
    assert "Traceback" not in res.output and "RecursionError" not in res.output, res.output[-2000:]
    assert "nested deeper than" in said, said[-2000:]
    assert file.name in said, said[-2000:]
    if line is not None:
        assert f"{file.name}:{line}" in said, said[-2000:]


def _run(*args: str) -> Any:
    return runner.invoke(app, [*args, "--no-progress"])


@pytest.mark.parametrize("kind", ["jsonl", "json"])
def test_a_deep_manifest(tmp_path: Path, kind: str) -> None:
    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    row = {"id": "c0", "audio": "c0.wav", "text": "the tone"}
    deep = _deep_items(tmp_path / "set" / f"deep.{kind}", kind == "jsonl", row)
    assert manifest.is_file()
    res = _run("run", "-b", str(deep), "--task", "asr", "-m", "oracle", "-o", str(tmp_path / "o"))
    _refused(res, deep, 2 if kind == "jsonl" else 3)


def test_a_deep_predictions_file_given_to_run(tmp_path: Path) -> None:
    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    hyps = _deep_items(tmp_path / "hyps.jsonl", True, {"id": "c0", "text": "the tone"})
    res = _run(
        "run", "-b", str(manifest), "--task", "asr", "-m", f"predictions:{hyps}", "-o", str(tmp_path / "o")
    )
    _refused(res, hyps, 2)


def test_a_deep_judge_eval_bench(tmp_path: Path) -> None:
    bench = _deep_items(tmp_path / "bench.jsonl", True, {"uuid": "u", "audio": "a.wav", "caption": "c"})
    res = _run("judge-eval", "--bench", str(bench), "--judge", "http://127.0.0.1:9/v1", "--judge-model", "j",
               "--no-probe", "-o", str(tmp_path / "o"))  # fmt: skip
    _refused(res, bench, 2)


@pytest.mark.parametrize("kind", ["jsonl", "json"])
def test_a_deep_captions_file(tmp_path: Path, kind: str) -> None:
    captions = _deep_items(tmp_path / f"caps.{kind}", kind == "jsonl", {"id": "a", "caption": "a dog barks"})
    res = _run("rubric", "decompose", "--captions", str(captions), "--output", str(tmp_path / "r.jsonl"),
               "--judge", "http://127.0.0.1:9/v1", "--judge-model", "j", "--no-probe")  # fmt: skip
    _refused(res, captions, 2 if kind == "jsonl" else 3)


def test_deep_mmae_metadata_and_predictions(tmp_path: Path) -> None:
    meta = _deep_items(tmp_path / "meta.json", False, {"id": "a", "messages": []})
    preds = tmp_path / "preds.json"
    preds.write_text("[]")
    res = _run("mmae", "score", "--metadata", str(meta), "--predictions", str(preds),
               "--judge", "http://127.0.0.1:9/v1", "--no-probe", "-o", str(tmp_path / "o"))  # fmt: skip
    _refused(res, meta)
    good = tmp_path / "meta2.json"
    good.write_text("[]")
    deep_preds = _deep_items(tmp_path / "preds2.jsonl", True, {"id": "a", "messages": []})
    res = _run("mmae", "score", "--metadata", str(good), "--predictions", str(deep_preds),
               "--judge", "http://127.0.0.1:9/v1", "--no-probe", "-o", str(tmp_path / "o2"))  # fmt: skip
    _refused(res, deep_preds, 2)


def test_a_deep_mcq_predictions_file(tmp_path: Path) -> None:
    preds = _deep_items(tmp_path / "mmar.jsonl", True, {"id": "a", "question": "q", "choices": ["x", "y"],
                                                         "answer": "x", "model_prediction": "x"})  # fmt: skip
    res = _run("mcq", "score", "--benchmark", "mmar", "--predictions", str(preds), "-o", str(tmp_path / "o"))
    _refused(res, preds, 2)


@pytest.mark.parametrize("deep", [DEEP, DEEP_YAML_BLOCK], ids=["flow", "block"])
def test_deep_yaml_spec_run_config_and_template(tmp_path: Path, deep: str) -> None:
    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        f"name: deep\ntask: asr\nsource:\n  type: jsonl\n  path: {manifest}\nextra:\n{_indent(deep)}"
    )
    _refused(_run("run", "-b", str(spec), "-m", "oracle", "-o", str(tmp_path / "o1")), spec)
    config = tmp_path / "run.yaml"
    config.write_text(f"benchmarks: [{manifest}]\nmodels: [oracle]\ntask: asr\ngeneration:\n{_indent(deep)}")
    _refused(_run("run", str(config), "-o", str(tmp_path / "o2")), config)
    template = tmp_path / "prompt.yaml"
    template.write_text(f"name: deep\nuser: hi\ndescription:\n{_indent(deep)}")
    spec.write_text(
        f"name: deep\ntask: asr\nprompt: {template}\nsource:\n  type: jsonl\n  path: {manifest}\n"
    )
    _refused(_run("run", "-b", str(spec), "-m", "oracle", "-o", str(tmp_path / "o3")), template)


def _indent(text: str) -> str:
    return "".join("  " + line + "\n" for line in text.splitlines())


def test_an_input_file_over_the_size_bound_is_refused_before_it_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from audioeval.store import text_input, yaml_file

    manifest = tone_asr_manifest(tmp_path / "set", n=2)
    monkeypatch.setattr(text_input, "MAX_INPUT_BYTES", manifest.stat().st_size - 1)
    res = _run("run", "-b", str(manifest), "--task", "asr", "-m", "oracle", "-o", str(tmp_path / "o"))
    assert res.exit_code == exit_codes.BAD_INPUT and "over the bound of" in res.output, res.output
    monkeypatch.undo()
    monkeypatch.setattr(yaml_file, "MAX_YAML_CHARS", 10)
    with pytest.raises(InputError, match="over the bound of 10"):
        yaml_file.load_yaml("a: " + "b" * 20, "x.yaml")
