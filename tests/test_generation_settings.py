"""Sampling stated (issue 24): every request carries the pair's generation settings (task
default, spec's `generation:`, the user's `--gen-kwargs` / `--system-prompt` / flags), and the
pair's signature records them, so a changed setting never reuses records made under another."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.adapters.base import GenerationConfig
from audioeval.benchmarks.tasks import ONE_RIGHT_REPLY, default_generation
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.engine.generation_settings import generation_of, pair_generation, parse_gen_kwargs
from tests.fakes.mcq_server import FakeMcqServer
from tests.run_helpers import tone_mcq_manifest

runner = CliRunner()


def run_cli(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["run", *args, "--no-progress"], catch_exceptions=False)


def _signature(out: Path) -> dict:
    (path,) = out.rglob("signature.json")
    return json.loads(path.read_text())


def test_one_right_reply_tasks_are_greedy_by_default(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=3)
    with FakeMcqServer() as server:
        res = run_cli("-m", f"fake-audio-lm@{server.base_url}", "--task", "mcq", "-b", str(manifest),
                      "-o", str(tmp_path / "out"))  # fmt: skip
        assert res.exit_code == 0, res.output
        bodies = server.stats.bodies
        assert len(bodies) == 3
        assert all(b["temperature"] == 0.0 for b in bodies), bodies
        assert all("top_p" not in b and "max_tokens" not in b for b in bodies)
        assert server.stats.systems == [None, None, None]
    assert _signature(tmp_path / "out")["generation"]["temperature"] == 0.0
    assert {"asr", "ast", "mcq", "classification"} <= set(ONE_RIGHT_REPLY)
    assert default_generation("spoken_chat") == {}


def test_gen_kwargs_and_system_prompt_are_sent_with_every_request(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=3)
    with FakeMcqServer() as server:
        res = run_cli("-m", f"fake-audio-lm@{server.base_url}", "--task", "mcq", "-b", str(manifest),
                      "-o", str(tmp_path / "out"),
                      "--gen-kwargs", "temperature=0.3,max_tokens=64,top_p=0.9,seed=7,repetition_penalty=1.1",
                      "--system-prompt", "Answer with the choice only.")  # fmt: skip
        assert res.exit_code == 0, res.output
        for body in server.stats.bodies:
            assert body["temperature"] == 0.3 and body["max_tokens"] == 64
            assert body["top_p"] == 0.9 and body["seed"] == 7 and body["repetition_penalty"] == 1.1
        assert server.stats.systems == ["Answer with the choice only."] * 3
    gen = _signature(tmp_path / "out")["generation"]
    assert gen["temperature"] == 0.3 and gen["top_p"] == 0.9 and gen["seed"] == 7
    assert gen["system_prompt"] == "Answer with the choice only."


def test_a_flag_beats_gen_kwargs_and_a_spec_beats_the_task_default(tmp_path: Path) -> None:
    user = generation_of({"temperature": 0.1}, "temperature=0.5,max_tokens=10", max_tokens=20)
    assert (user.temperature, user.max_tokens) == (0.5, 20)
    assert pair_generation("mcq", None, GenerationConfig()).temperature == 0.0
    assert pair_generation("mcq", {"temperature": 0.7, "top_p": 0.8}, GenerationConfig()).top_p == 0.8
    assert pair_generation("mcq", {"temperature": 0.7}, GenerationConfig(temperature=0.2)).temperature == 0.2
    assert pair_generation("spoken_chat", None, GenerationConfig()).sampling() == {}


def test_a_spec_can_set_its_generation(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=2)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        f"name: tones\ntask: mcq\nsource: {{type: jsonl, path: {manifest}}}\n"
        "generation: {temperature: 0.6, max_tokens: 32}\n"
    )
    with FakeMcqServer() as server:
        res = run_cli("-m", f"fake-audio-lm@{server.base_url}", "-b", str(spec), "-o", str(tmp_path / "out"))
        assert res.exit_code == 0, res.output
        assert [(b["temperature"], b["max_tokens"]) for b in server.stats.bodies] == [(0.6, 32)] * 2


@pytest.mark.parametrize("bad", ["temperature", "temperature=hot", "max_tokens=0", "top_p=-1", "=3"])
def test_bad_gen_kwargs_are_refused_naming_the_flag(tmp_path: Path, bad: str) -> None:
    with pytest.raises(InputError):
        generation_of({}, bad)
    res = run_cli("-m", "oracle", "--task", "mcq", "-b", str(tmp_path / "none.jsonl"), "--gen-kwargs", bad)
    assert res.exit_code == exit_codes.BAD_INPUT and "--gen-kwargs" in res.output


def test_parse_gen_kwargs_reads_numbers_and_words() -> None:
    assert parse_gen_kwargs("temperature=0, max_tokens=512,top_p=1,stop=END,do_sample=false") == {
        "temperature": 0, "max_tokens": 512, "top_p": 1, "stop": "END", "do_sample": False,
    }  # fmt: skip


def test_a_changed_setting_gets_a_new_default_folder_and_is_refused_in_an_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=2)
    monkeypatch.chdir(tmp_path)
    with FakeMcqServer() as server:
        model = f"fake-audio-lm@{server.base_url}"
        assert run_cli("-m", model, "--task", "mcq", "-b", str(manifest)).exit_code == 0
        assert run_cli("-m", model, "--task", "mcq", "-b", str(manifest), "--gen-kwargs", "top_p=0.5").exit_code == 0
        folders = sorted(p.name for p in (tmp_path / "runs").iterdir())
        assert len(folders) == 2, folders  # a new folder, not the old records
        assert server.stats.requests == 4
        old = tmp_path / "runs" / folders[0]
        refused = run_cli("-m", model, "--task", "mcq", "-b", str(manifest), "-o", str(old),
                          "--system-prompt", "Be brief.")  # fmt: skip
        assert refused.exit_code == exit_codes.BAD_INPUT, refused.output
        assert server.stats.requests == 4
