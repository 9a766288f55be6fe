"""`mcq predict` against a fake OpenAI-compatible audio model, with generated tones."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.mcq.definitions import MMAR, MMAU
from audioeval.benchmarks.mcq.predict_preset import PREDICT
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.core.messages import AudioPart, AudioRef, TextPart
from audioeval.presets.preset_run import run_preset
from audioeval.prompts.templates import load_template, parse_template, render
from tests.fakes.mcq_server import FakeMcqConfig, FakeMcqServer, tone_wav, write_tone_set
from tests.run_helpers import mcq_score_file as score_file

runner = CliRunner()


def config(root: Path, url: str, out: Path, **kw: Any) -> dict[str, Any]:
    """The values of `mcq predict` (`benchmarks/mcq/predict_preset.py`) as the Python API takes them."""
    base: dict[str, Any] = dict(
        benchmark="mmar",
        audio_root=root,
        model_urls=[url],
        model="fake-audio-lm",
        output=out,
        progress=False,
        timeout=20.0,
    )
    base.update(kw)
    return base


def predict(values: dict[str, Any]) -> SimpleNamespace:
    """Run the preset; its outcome and the engine's account, as one record."""
    done = run_preset(PREDICT, values)
    out, engine = done.outcome, done.engine
    return SimpleNamespace(
        items=out.total,
        answered=out.scored,
        failed=out.failed,
        asked_now=engine.asked,
        reused=engine.reused,
        calls=engine.calls,
        run_dir=done.output_dir,
        records=pair(done.output_dir) / "records.jsonl",
    )


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def pair(run_dir: Path, bench: str = "mmar", model: str = "fake-audio-lm") -> Path:
    """The engine's folder of one benchmark × model in a run directory."""
    return run_dir / bench / model


def test_predict_then_score_and_resume(tmp_path: Path) -> None:
    items = write_tone_set(tmp_path / "set", 8)
    out = tmp_path / "preds.jsonl"
    with FakeMcqServer() as server:
        res = predict(config(tmp_path / "set", server.base_url, out))
        assert (res.items, res.answered, res.asked_now, res.reused) == (8, 8, 8, 0)
        assert server.stats.audio_requests == 8 and server.stats.part_types == {"audio_url": 8}
        preds = lines(out)
        assert [p["id"] for p in preds] == [i["id"] for i in items]
        assert all(p["answer_prediction"] == p["answer"] for p in preds)
        assert all(p["thinking_prediction"] == "" for p in preds)
        assert preds[0]["rubric"] == items[0]["rubric"]  # the metadata is kept
        run_dir = tmp_path / "preds.jsonl.run"
        assert res.run_dir == run_dir and res.records == pair(run_dir) / "records.jsonl"
        recs = lines(res.records)
        assert len(recs) == 8 and all(r["error"] is None for r in recs)
        assert {r["id"]: r["output"]["text"] for r in recs} == {i["id"]: i["answer"] for i in items}
        signature = json.loads((pair(run_dir) / "signature.json").read_text())
        assert signature["benchmark"]["template"] == "mcq-choices-v1"
        assert signature["benchmark"]["task"] == "mcq"
        assert signature["model"]["served_model"] == "fake-audio-lm"
        assert (run_dir / "run.json").is_file() and (pair(run_dir) / "summary.json").is_file()
        assert json.loads((pair(run_dir) / "summary.json").read_text())["metrics"]["accuracy"]["value"] == 1.0
        before = out.read_bytes()
        again = predict(config(tmp_path / "set", server.base_url, out))
        assert (again.asked_now, again.reused, again.calls) == (0, 8, 0)
        assert server.stats.requests == 8 and out.read_bytes() == before
    s = score_file(MMAR, out, n_resamples=50).summary
    assert s["overall"]["official"]["accuracy"] == 100.0
    assert s["overall"]["robust"]["accuracy"] == 100.0


def test_missing_audio_is_recorded_and_asked_again_once_present(tmp_path: Path) -> None:
    root = tmp_path / "set"
    write_tone_set(root, 4)
    (root / "audio" / "tone02.wav").unlink()
    out = tmp_path / "preds.json"
    with FakeMcqServer() as server:
        res = predict(config(root, server.base_url, out))
        assert (res.answered, res.failed) == (3, 1)
        recs = lines(pair(tmp_path / "preds.json.run") / "records.jsonl")
        failed = [r for r in recs if r["error"] is not None]
        assert [r["id"] for r in failed] == ["tone02"]
        assert failed[0]["output"] is None and failed[0]["failure"] == "input"  # never asked
        assert "audio file not found" in failed[0]["error"]
        preds = json.loads(out.read_text())  # a JSON list, as the suffix says
        assert "answer_prediction" not in preds[2]
        assert score_file(MMAR, out, n_resamples=50).summary["counts"]["without_prediction"] == 1
        tone_wav(root / "audio" / "tone02.wav", 660)
        res = predict(config(root, server.base_url, out))
        assert (res.asked_now, res.reused, res.answered) == (1, 3, 4)
        assert server.stats.audio_requests == 4


def test_server_errors_are_retried(tmp_path: Path) -> None:
    write_tone_set(tmp_path / "set", 3)
    with FakeMcqServer(FakeMcqConfig(fail_first=2)) as server:
        res = predict(config(tmp_path / "set", server.base_url, tmp_path / "p.jsonl", concurrency=1))
        assert res.answered == 3 and server.stats.requests == 5


def test_think_blocks_go_to_thinking_prediction(tmp_path: Path) -> None:
    write_tone_set(tmp_path / "set", 4)
    out = tmp_path / "p.jsonl"
    with FakeMcqServer(FakeMcqConfig(answer_style="think")) as server:
        predict(config(tmp_path / "set", server.base_url, out))
    preds = lines(out)
    assert all(p["answer_prediction"] == p["answer"] for p in preds)
    assert all(p["thinking_prediction"].startswith("Not ") for p in preds)
    assert score_file(MMAR, out, n_resamples=50).summary["overall"]["official"]["correct"] == 4


def test_letters_template_with_reasoning_is_read_by_the_robust_mode(tmp_path: Path) -> None:
    write_tone_set(tmp_path / "set", 8)
    out = tmp_path / "p.jsonl"
    with FakeMcqServer(FakeMcqConfig(answer_style="reasoning")) as server:
        predict(
            config(tmp_path / "set", server.base_url, out, template="mcq_letters", model_audio_part="input_audio")
        )
        assert server.stats.part_types == {"input_audio": 8}
    s = score_file(MMAR, out, n_resamples=50).summary
    assert s["overall"]["official"]["correct"] == 0  # mentions another option's frequency
    assert s["overall"]["robust"]["correct"] == 8
    assert s["robust"]["methods"] == {"answer_statement": 8}


def test_mmau_layout_and_cli(tmp_path: Path) -> None:
    root = tmp_path / "mmau"
    (root / "test-mini-audios").mkdir(parents=True)
    items = []
    for i, hz in enumerate((220, 880)):
        tone_wav(root / "test-mini-audios" / f"u{i}.wav", hz)
        items.append(
            {
                "id": f"u{i}",
                "audio_id": f"./test-mini-audios/u{i}.wav",
                "question": "Which tone?",
                "choices": ["220 Hz", "880 Hz"],
                "answer": f"{hz} Hz",
                "task": "sound",
                "difficulty": "easy",
                "sub-category": "Pitch",
                "split": "test-mini",
            }
        )
    (root / "mmau-test-mini.json").write_text(json.dumps(items))
    out = tmp_path / "mmau_preds.json"
    with FakeMcqServer() as server:
        res = runner.invoke(
            app,
            [
                "mcq",
                "predict",
                "--benchmark",
                "mmau",
                "--audio_root",
                str(root),
                "--base_urls",
                server.base_url,
                "--model",
                "fake-audio-lm",
                "--out",
                str(out),
                "--no-progress",
            ],
        )
        assert res.exit_code == 0, res.output
        assert "2/2 answered" in res.output
        res = runner.invoke(
            app,
            [
                "mcq",
                "predict",
                "--benchmark",
                "mmau",
                "--audio_root",
                str(root),
                "--base_urls",
                server.base_url,
                "--model",
                "another-model",
                "--out",
                str(out),
                "--no-progress",
            ],
        )
        assert (
            res.exit_code == 2 and "another-model" in res.output and "another output directory" in res.output
        )
    preds = json.loads(out.read_text())
    assert [p["model_output"] for p in preds] == ["220 Hz", "880 Hz"]
    assert score_file(MMAU, out, n_resamples=50).summary["overall"]["official"]["correct"] == 2


def test_templates_are_validated_and_strict(tmp_path: Path) -> None:
    t = load_template("mcq_choices")
    msgs = render(t, {"question": "Q?", "choices": ["a", "b"], "letters": ["A", "B"]}, AudioRef("x.wav"))
    assert [m.role for m in msgs] == ["user"]
    audio, text = msgs[0].parts
    assert isinstance(audio, AudioPart) and audio.audio.path == "x.wav"
    assert isinstance(text, TextPart)
    assert text.text == "Q?\nSelect one option from the provided choices:\na\nb"
    with pytest.raises(InputError, match="could not be rendered.*'question' is undefined"):
        render(t, {"choices": []})
    with pytest.raises(InputError, match="unknown key"):
        parse_template("name: x\nuser: hi\ncode: import os\n", "t.yaml")
    with pytest.raises(InputError, match="required"):
        parse_template("name: x\n", "t.yaml")
    with pytest.raises(InputError, match="syntax error"):
        parse_template("name: x\nuser: '{{ question '\n", "t.yaml")
    sandboxed = parse_template("name: x\nuser: '{{ q.__class__.__mro__ }}'\n", "t.yaml")
    with pytest.raises(InputError):
        render(sandboxed, {"q": "s"})
    with pytest.raises(InputError, match="no prompt template named 'nope'"):
        load_template("nope")


def test_custom_template_file_and_bad_template_exit_2(tmp_path: Path) -> None:
    write_tone_set(tmp_path / "set", 2)
    good = tmp_path / "mine.yaml"
    good.write_text(
        "name: mine-v1\naudio: after\nsystem: Be brief.\n"
        "user: |-\n  {{ question }}\n  Select one option from the provided choices:\n"
        "  {{ choices | join('\\n') }}\n"
    )
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nuser: '{{ nothing_here }}'\n")
    with FakeMcqServer() as server:
        res = predict(config(tmp_path / "set", server.base_url, tmp_path / "p.jsonl", template=str(good)))
        assert res.answered == 2
        cli = runner.invoke(
            app,
            [
                "mcq",
                "predict",
                "--benchmark",
                "mmar",
                "--audio_root",
                str(tmp_path / "set"),
                "--base_urls",
                server.base_url,
                "--model",
                "fake-audio-lm",
                "--out",
                str(tmp_path / "q.jsonl"),
                "--template",
                str(bad),
                "--no-progress",
            ],
        )
    assert cli.exit_code == 2 and "nothing_here" in cli.output


@pytest.mark.parametrize(
    ("change", "message", "field"),
    [
        ({"question": None}, "missing or non-string question", "question"),
        ({"audio_path": ""}, "missing or non-string audio path", "audio_path"),
        ({"choices": "220 Hz"}, "expected a non-empty list of strings", "choices"),
    ],
)
def test_bad_metadata_stops_before_any_call(
    tmp_path: Path, change: dict[str, Any], message: str, field: str
) -> None:
    root = tmp_path / "set"
    items = write_tone_set(root, 3)
    items[1].update(change)
    (root / "MMAR-meta.jsonl").write_text("".join(json.dumps(x) + "\n" for x in items))
    out = tmp_path / "p.jsonl"
    with FakeMcqServer() as server:
        with pytest.raises(InputError, match=message) as err:
            predict(config(root, server.base_url, out))
        assert server.stats.requests == 0
    assert (err.value.sample_id, err.value.field, err.value.line) == ("tone01", field, 2)
    assert not out.exists() and not (tmp_path / "p.jsonl.run").exists()


def test_sampling_settings_reach_the_engine_and_its_signature(tmp_path: Path) -> None:
    write_tone_set(tmp_path / "set", 2)
    out = tmp_path / "p.jsonl"
    with FakeMcqServer() as server:
        res = predict(
            config(tmp_path / "set", server.base_url, out, sample_rate=8000, temperature=0.0, max_tokens=64)
        )
        assert res.answered == 2
        bodies = server.stats.bodies
        assert len(bodies) == 2
        assert all(b.get("temperature") == 0.0 and b.get("max_tokens") == 64 for b in bodies)
    signature = json.loads((pair(res.run_dir) / "signature.json").read_text())
    assert signature["model"]["sample_rate"] == 8000
    assert signature["generation"]["temperature"] == 0.0 and signature["generation"]["max_tokens"] == 64
