"""Generation settings typed: one declaration (`core/request_settings.py`) of which settings a
model request may carry and their types, passed by every way settings are given (the run
command's `--gen-kwargs` and flags, the Python API's `gen_kwargs`, a run config's and a spec's
`generation:`, a preset's settings, a judged scorer's `sampling`, a judge call's overrides).
Settings that would change what is asked or what comes back are refused naming the setting and
why, or routed to the one API that reads them; a judge's logprobs request is a typed setting of
the judge call, never read from the model's settings."""

from __future__ import annotations

import ast
import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import audioeval
from audioeval.adapters.base import GenerationConfig
from audioeval.audio.clip_cache import ClipCache
from audioeval.benchmarks.spec import load_spec_file
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.core.messages import AudioPart, AudioRef, Message, TextPart
from audioeval.core.request_settings import REFUSED, SETTINGS, checked_settings
from audioeval.engine.cached_judge import CachedJudge
from audioeval.engine.chat_client import ChatClient
from audioeval.engine.generation_settings import generation_of, parse_gen_kwargs
from audioeval.engine.run_config import load_run_config
from audioeval.judge.chat_rating import ChatRatingScorer
from tests.fakes.mcq_server import FakeMcqServer, tone_wav
from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer
from tests.run_helpers import tone_mcq_manifest

runner = CliRunner()
SRC = Path(__file__).resolve().parents[1] / "src" / "audioeval"

BAD = {
    "logprobs": True,
    "top_logprobs": 5,
    "model": "other",
    "n": 2,
    "stream": True,
    "modalities": "audio",
    "temperature": "warm",  # a number given as text (the API's "0.5": the declaration's test)
    "skip_special_tokens": "False",  # a switch given as text
    "max_tokens": 0,
    "no_such_setting": 1,
}
"""The same bad settings, fed to every entry point."""


def _run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, ["run", *args, "--no-progress"], catch_exceptions=False)


# -- the examples -------------------------------------------------------------------------------


@pytest.mark.parametrize("given", ["logprobs=true", "logprobs=false", "model=other", "n=3", "stream=true"])
def test_a_setting_that_changes_what_is_asked_or_returned_is_refused_before_any_request(
    tmp_path: Path, given: str
) -> None:
    """`--gen-kwargs logprobs=true` stored `{"text": …, "top_logprobs": null}` as the answer (exit
    0); `model=other` asked another model under the first one's name."""
    manifest = tone_mcq_manifest(tmp_path / "set", n=2)
    with FakeMcqServer() as server:
        res = _run("-m", f"fake-audio-lm@{server.base_url}", "--task", "mcq", "-b", str(manifest),
                   "-o", str(tmp_path / "out"), "--gen-kwargs", given)  # fmt: skip
        assert server.stats.requests == 0
    key = given.split("=")[0]
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    assert f"--gen-kwargs.{key}" in res.output and f"'{key}' is refused" in res.output
    assert REFUSED[key].split(" (")[0][:30] in " ".join(res.output.split())


def test_the_api_refuses_logprobs_whatever_its_value(tmp_path: Path) -> None:
    """`gen_kwargs={"logprobs": False}` became the text "False", a truthy logprobs request."""
    manifest = tone_mcq_manifest(tmp_path / "set", n=2)
    with FakeMcqServer() as server:
        for value in (False, True):
            with pytest.raises(InputError, match="'logprobs' is refused"):
                audioeval.evaluate([f"fake-audio-lm@{server.base_url}"], [manifest], task="mcq",
                                   output_dir=tmp_path / "out", gen_kwargs={"logprobs": value})  # fmt: skip
        assert server.stats.requests == 0


def test_the_api_sends_a_mappings_values_with_their_json_types(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=2)
    settings = {
        "skip_special_tokens": False,
        "top_k": 5,
        "stop": ["\n\n"],
        "chat_template_kwargs": {"think": False},
    }
    with FakeMcqServer() as server:
        result = audioeval.evaluate([f"fake-audio-lm@{server.base_url}"], [manifest], task="mcq",
                                    output_dir=tmp_path / "out", gen_kwargs=settings, resamples=10)  # fmt: skip
        bodies = server.stats.bodies
    assert result.asked == 2 and len(bodies) == 2
    for body in bodies:
        assert {k: body[k] for k in settings} == settings  # false, not "False"; 5, not "5"
    (sig,) = (tmp_path / "out").rglob("signature.json")
    assert json.loads(sig.read_text())["generation"]["skip_special_tokens"] is False


def test_the_cli_reads_values_as_json_where_they_are_valid() -> None:
    given = (
        'skip_special_tokens=false,top_k=5,stop=END,seed=null,chat_template_kwargs={"enable_thinking":false}'
    )
    assert parse_gen_kwargs(given) == {
        "skip_special_tokens": False, "top_k": 5, "stop": "END", "seed": None,
        "chat_template_kwargs": {"enable_thinking": False},
    }  # fmt: skip
    assert generation_of({}, given).extra == {
        "skip_special_tokens": False,
        "top_k": 5,
        "stop": "END",
        "chat_template_kwargs": {"enable_thinking": False},
    }


def test_a_judge_request_never_carries_a_routed_setting() -> None:
    with pytest.raises(InputError, match="'response_format' is read only by models with api: transcription"):
        _judge_call(Path("."), "response_format", "json_object")


def test_response_format_is_routed_to_the_transcription_api_only(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=2)
    with FakeMcqServer() as server:
        res = _run("-m", f"fake-audio-lm@{server.base_url}", "--task", "mcq", "-b", str(manifest),
                   "-o", str(tmp_path / "out"), "--gen-kwargs", "response_format=text")  # fmt: skip
        assert server.stats.requests == 0
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    flat = " ".join(res.output.split())
    assert "'response_format' is read only by models with api: transcription or api: translation" in flat
    assert "model 'fake-audio-lm'" in flat


# -- every entry point, the same bad settings ---------------------------------------------------


def _cli(tmp: Path, key: str, value: Any) -> None:
    res = _run("-m", "oracle", "--task", "mcq", "-b", str(tone_mcq_manifest(tmp / "set", n=1)),
               "-o", str(tmp / "out"), "--gen-kwargs", f"{key}={json.dumps(value) if not isinstance(value, str) else value}")  # fmt: skip
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    raise InputError(" ".join(res.output.split()))


def _api(tmp: Path, key: str, value: Any) -> None:
    audioeval.evaluate(["oracle"], [tone_mcq_manifest(tmp / "set", n=1)], task="mcq", output_dir=tmp / "out",
                       gen_kwargs={key: value})  # fmt: skip


def _run_config(tmp: Path, key: str, value: Any) -> None:
    cfg = tmp / "run.yaml"
    cfg.write_text(json.dumps({"benchmarks": ["x.jsonl"], "models": ["oracle"], "generation": {key: value}}))
    load_run_config(cfg)


def _spec(tmp: Path, key: str, value: Any) -> None:
    spec = tmp / "spec.yaml"
    manifest = tone_mcq_manifest(tmp / "set", n=1)
    spec.write_text(json.dumps({"name": "s", "task": "mcq", "source": {"type": "jsonl", "path": str(manifest)},
                                "generation": {key: value}}))  # fmt: skip
    load_spec_file(spec)


def _judge_config(tmp: Path, key: str, value: Any) -> None:
    """The run judge's settings in a run config (`judge:`), typed by `JudgeSettings`."""
    cfg = tmp / "run.yaml"
    judge = {"urls": ["http://127.0.0.1:9/v1"], key: value}
    cfg.write_text(json.dumps({"benchmarks": ["x.jsonl"], "models": ["oracle"], "judge": judge}))
    load_run_config(cfg)


def _config(tmp: Path, key: str, value: Any) -> None:
    """What a preset (and any code) builds: the GenerationConfig itself."""
    GenerationConfig(extra={key: value})


def _judged_scorer(tmp: Path, key: str, value: Any) -> None:
    ChatRatingScorer(sampling={key: value})


def _judge_call(tmp: Path, key: str, value: Any) -> None:
    judge = CachedJudge(ChatClient(["http://127.0.0.1:9/v1"]), ClipCache(), model="j")
    asyncio.run(judge([Message.text("user", "hi")], 0, extra={key: value}))


ENTRY_POINTS: dict[str, Callable[[Path, str, Any], None]] = {
    "run --gen-kwargs": _cli,
    "evaluate(gen_kwargs=…)": _api,
    "run config generation:": _run_config,
    "spec generation:": _spec,
    "GenerationConfig (presets, code)": _config,
    "run config judge:": _judge_config,
    "judged scorer sampling:": _judged_scorer,
    "judge call extra": _judge_call,
}


OWN = {("run config judge:", "model")}
"""A judge's served model is its own setting (`judge.model`), as a model's is (`served_model`)."""


@pytest.mark.parametrize(
    ("entry", "key"), [(e, k) for e in sorted(ENTRY_POINTS) for k in sorted(BAD) if (e, k) not in OWN]
)
def test_every_entry_point_refuses_the_same_bad_settings_naming_them(
    tmp_path: Path, entry: str, key: str
) -> None:
    with pytest.raises((InputError, ValueError)) as caught:
        ENTRY_POINTS[entry](tmp_path, key, BAD[key])
    assert key in str(caught.value), (entry, key, str(caught.value))


def test_the_entry_points_are_every_place_settings_enter() -> None:
    """Every call in the package that builds a GenerationConfig, checks settings or sends a
    judge's sampling overrides is one of the entry points tested above (or the gate itself)."""
    gates = {"GenerationConfig", "checked_settings", "to_config", "generation_of"}
    found = set()
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
                if name in gates:
                    found.add(f"{path.relative_to(SRC)}:{name}")
    assert found == {
        "adapters/base.py:checked_settings",  # GenerationConfig: presets, code
        "adapters/base.py:GenerationConfig",  # ModelRequest's default: no settings
        "api.py:generation_of",  # evaluate(gen_kwargs=…)
        "cli/run_commands.py:generation_of",  # run --gen-kwargs, flags, run config
        "cli/run_commands.py:GenerationConfig",  # runtime check: no settings
        "engine/generation_settings.py:to_config",  # generation_of, pair_generation
        "engine/generation_settings.py:checked_settings",
        "engine/generation_settings.py:GenerationConfig",
        "engine/run_config.py:checked_settings",  # run config generation:
        "benchmarks/spec.py:checked_settings",  # spec generation:
        "presets/preset_run.py:GenerationConfig",  # presets
        "judge/answer_judge.py:checked_settings",  # judged scorer sampling:
        "engine/cached_judge.py:checked_settings",  # judge call extra
    }, sorted(found)


# -- the judge's logprobs request is its own, typed ---------------------------------------------


def test_a_judges_logprobs_request_is_a_typed_setting_of_the_call(tmp_path: Path) -> None:
    with YesNoJudgeServer(YesNoJudgeConfig(model="j")) as server:

        async def ask() -> tuple[str | None, str | None]:
            client = ChatClient([server.base_url])
            judge = CachedJudge(client, ClipCache(), model="j", sampling={"temperature": 0})
            tone_wav(tmp_path / "t.wav", 440)
            audio = AudioPart(AudioRef(str(tmp_path / "t.wav")))
            messages = [Message("user", (audio, TextPart("Is it a tone? Answer yes or no.")))]
            plain = await judge(messages, 0, extra={"max_tokens": 1})
            first = await judge(messages, 0, extra={"max_tokens": 1}, logprobs=20)
            await client.aclose()
            return plain.text, first.text

        plain, first = asyncio.run(ask())
    assert plain is not None and not plain.startswith("{")  # the text, never the logprobs JSON
    assert first is not None and set(json.loads(first)) == {"text", "top_logprobs"}
    assert (server.stats.logprob_requests, server.stats.sampled_requests) == (1, 1)


def test_the_declaration_types_every_setting() -> None:
    assert not set(SETTINGS) & (set(REFUSED) - {"response_format"})
    assert SETTINGS["response_format"].routed_by == ("transcription", "translation")
    assert checked_settings({"max_tokens": 512.0, "seed": None}, field="f") == {"max_tokens": 512}
    for bad in (
        {"temperature": "0.5"},
        {"temperature": float("nan")},
        {"top_p": 2},
        {"stop": [1]},
        {"logit_bias": [1]},
    ):
        with pytest.raises(InputError):
            checked_settings(bad, field="f")
