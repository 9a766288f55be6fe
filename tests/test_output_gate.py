"""The output gate (`engine/output_gate.py`): every kind of model under test the code
registers (each `ModelConfig.type`, each API of an OpenAI-compatible model) is run through
`audioeval run` with the same faulty answers (`tests/fakes/faulty_answers.FAULTS`: 2.4 M
characters, empty, blank, an HTML error page, NaN where text is due). Each is a counted
`no output` / `bad output` failure: never scored, its text not stored, counted in
summary.json's `failure_kinds`, and asked again on a rerun (never answered from the cache)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

import pytest
from typer.testing import CliRunner

from audioeval.adapters.baselines import Constant
from audioeval.adapters.generators import CodecModel, EspeakTts
from audioeval.adapters.runtimes.spec import load_runtime_spec_file
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.model_output import ModelOutput
from audioeval.engine.model_specs import ModelConfig
from audioeval.engine.output_gate import MAX_ANSWER_CHARS, gate_output
from tests.fakes.faulty_answers import (
    FAULTS,
    HTML_PAGE,
    FaultyModel,
    FaultyModelServer,
    fault_audio,
    fault_text,
)
from tests.fakes.mcq_server import tone_wav
from tests.fakes.realtime_server import FakeRealtimeServer, FakeRealtimeState
from tests.run_helpers import write_jsonl

runner = CliRunner()
BAD, NO = "bad output", "no output"
TEXT_FAULTS = {"huge": BAD, "empty": NO, "blank": NO, "html": BAD, "nan": BAD}
AUDIO_FAULTS = dict.fromkeys(FAULTS, BAD)  # no audio, text, a page or NaN samples: none decodes


@dataclass
class Setup:
    """How one kind of model is run with a fault: the `-m` spec, the benchmark's arguments,
    and how many times the model was asked so far."""

    model: str | dict[str, Any]  # a `-m` spec, or a run config's model mapping
    bench: list[str]
    asked: Callable[[], int]

    def args(self, out: Path) -> list[str]:
        """The `audioeval run` arguments (a mapping goes through a run config)."""
        if isinstance(self.model, str):
            return ["run", *self.bench, "-m", self.model, "-o", str(out), "--no-progress", "--resamples", "0"]
        config = {
            "benchmarks": [self.bench[1]],
            "task": self.bench[3],
            "output_dir": str(out),
            "models": [self.model],
        }
        path = out.parent / "run.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        return ["run", str(path), "--no-progress", "--resamples", "0"]


@dataclass(frozen=True)
class Kind:
    expected: dict[str, str | None]  # fault -> failure kind (None: scored, the kind's answer)
    setup: Callable[[Path, str, pytest.MonkeyPatch, ExitStack], Setup]


def _asr(root: Path) -> list[str]:
    tone_wav(root / "a.wav", 440, seconds=0.2)
    return [
        "-b",
        str(write_jsonl(root / "m.jsonl", [{"id": "a", "audio": "a.wav", "text": "red green"}])),
        "--task",
        "asr",
    ]


def _ast(root: Path) -> list[str]:
    tone_wav(root / "a.wav", 440, seconds=0.2)
    row = {"id": "a", "audio": "a.wav", "text": "red green", "target_language": "English"}
    return ["-b", str(write_jsonl(root / "m.jsonl", [row])), "--task", "ast"]


def _audio_task(root: Path, task: str) -> list[str]:
    tone_wav(root / "a.wav", 440, seconds=0.2)
    row = {"id": "a", "audio": "a.wav", "text": "red green", "reference": "red green"}
    return ["-b", str(write_jsonl(root / "m.jsonl", [row])), "--task", task]


def _server(fault: str, stack: ExitStack) -> tuple[str, FaultyModel]:
    server = stack.enter_context(FaultyModelServer(FaultyModel(fault)))
    return server.base_url, server.app


def _openai(api: str, bench: Callable[[Path], list[str]]) -> Callable[..., Setup]:
    def setup(root: Path, fault: str, mp: pytest.MonkeyPatch, stack: ExitStack) -> Setup:
        url, fake = _server(fault, stack)
        prefix = "" if api == "chat" else f"{api}:"
        return Setup(f"{prefix}faulty@{url}", bench(root), lambda: fake.asked)

    return setup


def _realtime(root: Path, fault: str, mp: pytest.MonkeyPatch, stack: ExitStack) -> Setup:
    state = FakeRealtimeState(model="faulty", fault=fault)
    server = stack.enter_context(FakeRealtimeServer(state))
    return Setup(f"realtime:faulty@{server.base_url}", _asr(root), lambda: len(state.connections))


def _runtime(root: Path, fault: str, mp: pytest.MonkeyPatch, stack: ExitStack) -> Setup:
    count = root / "asked.txt"
    worker = Path(__file__).parent / "fakes" / "worker_faulty.py"
    spec = root / "faulty-worker.yaml"
    spec.write_text(
        f"name: faulty-worker\nworker: {worker}\ntasks: [asr]\noutput: text\n"
        f"worker_args: {json.dumps({'fault': fault, 'count_file': str(count)})}\n",
        encoding="utf-8",
    )
    mp.setenv(load_runtime_spec_file(spec).env_var_name, sys.executable)
    return Setup(str(spec), _asr(root), lambda: len(count.read_text().splitlines()) if count.exists() else 0)


def _counting(mp: pytest.MonkeyPatch, cls: type, answer: Callable[[Any], ModelOutput]) -> Callable[[], int]:
    calls: list[int] = []

    async def generate(self: Any, request: Any) -> ModelOutput:
        calls.append(1)
        return answer(request)

    async def start(self: Any) -> None:
        return None

    mp.setattr(cls, "generate", generate)
    mp.setattr(cls, "start", start)
    return lambda: len(calls)


def _writes_audio(fault: str) -> Callable[[Any], ModelOutput]:
    def answer(request: Any) -> ModelOutput:
        Path(request.audio_out).write_bytes(fault_audio(fault))
        return ModelOutput(audio_path=request.audio_out)

    return answer


def _generator(cls: type, model: str, task: str) -> Callable[..., Setup]:
    """An embedded generator (espeak-ng, a built-in codec) whose synthesis writes the faulty
    bytes as its audio: what its output file holds is the gate's to judge."""

    def setup(root: Path, fault: str, mp: pytest.MonkeyPatch, stack: ExitStack) -> Setup:
        return Setup(model, _audio_task(root, task), _counting(mp, cls, _writes_audio(fault)))

    return setup


def _replay(root: Path, fault: str, mp: pytest.MonkeyPatch, stack: ExitStack) -> Setup:
    folder = root / "stored"
    folder.mkdir()
    line = json.dumps({"id": "a", "output": {"text": fault_text(fault), "error": None}})  # NaN: the literal
    (folder / "records.jsonl").write_text(line + "\n", encoding="utf-8")
    return Setup(f"replay:{folder}", _asr(root), _calls_of("audioeval.adapters.replay.Replay", mp))


def _predictions(root: Path, fault: str, mp: pytest.MonkeyPatch, stack: ExitStack) -> Setup:
    hyps = root / "hyps.jsonl"
    hyps.write_text(json.dumps({"id": "a", "text": fault_text(fault)}) + "\n", encoding="utf-8")
    return Setup(
        f"predictions:{hyps}", _asr(root), _calls_of("audioeval.adapters.predictions.PredictionsFile", mp)
    )


def _baseline(root: Path, fault: str, mp: pytest.MonkeyPatch, stack: ExitStack) -> Setup:
    # a run config's mapping: a 2.4 M-character `constant:TEXT` on the command line is refused
    # by the naming rule before any model is built
    model = {"name": "const", "type": "baseline", "baseline": f"constant:{fault_text(fault)}"}
    return Setup(model, _asr(root), _calls_of("audioeval.adapters.baselines.Constant", mp))


def _calls_of(path: str, mp: pytest.MonkeyPatch) -> Callable[[], int]:
    """How many times the adapter class at `path` was asked (its own `generate`, counted)."""
    module, _, name = path.rpartition(".")
    cls = getattr(__import__(module, fromlist=[name]), name)
    real = cls.generate
    calls: list[int] = []

    async def generate(self: Any, request: Any) -> ModelOutput:
        calls.append(1)
        return await real(self, request)

    mp.setattr(cls, "generate", generate)
    return lambda: len(calls)


KINDS: dict[str, Kind] = {
    "openai/chat": Kind(TEXT_FAULTS, _openai("chat", _asr)),
    "openai/chat (speech out)": Kind(AUDIO_FAULTS, _openai("chat", lambda r: _audio_task(r, "tts"))),
    "openai/speech": Kind(AUDIO_FAULTS, _openai("speech", lambda r: _audio_task(r, "tts"))),
    "openai/transcription": Kind(TEXT_FAULTS, _openai("transcription", _asr)),
    "openai/translation": Kind(TEXT_FAULTS, _openai("translation", _ast)),
    "openai/realtime": Kind(TEXT_FAULTS, _realtime),
    "runtime": Kind(TEXT_FAULTS, _runtime),
    "replay": Kind(TEXT_FAULTS, _replay),
    # a file's empty answer is the system's answer (official MCQ scripts count it wrong)
    "predictions": Kind({**TEXT_FAULTS, "empty": None, "blank": None}, _predictions),
    # `constant` declares an empty text its answer (the system that says nothing); its text is
    # always text ("nan" is a word): what it cannot be is over the bound or a web page.
    "baseline": Kind({"huge": BAD, "empty": None, "blank": None, "html": BAD, "nan": None}, _baseline),
    "tts": Kind(AUDIO_FAULTS, _generator(EspeakTts, "espeak-ng", "tts")),
    "codec": Kind(AUDIO_FAULTS, _generator(CodecModel, "mulaw", "codec")),
}


def test_every_registered_kind_of_model_has_a_case() -> None:
    """A new `ModelConfig.type`, or a new API of an OpenAI-compatible model, needs its case."""
    types = get_args(ModelConfig.model_fields["type"].annotation)
    apis = get_args(ModelConfig.model_fields["api"].annotation)
    registered = {t for t in types if t != "openai"} | {f"openai/{api}" for api in apis}
    assert registered <= {k.split(" (")[0] for k in KINDS}, registered - set(KINDS)
    assert all(set(kind.expected) == set(FAULTS) for kind in KINDS.values())


def _records(out: Path) -> list[dict[str, Any]]:
    (path,) = out.glob("*/*/records.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture()
def stack() -> Iterator[ExitStack]:
    with ExitStack() as s:
        yield s


@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("kind", list(KINDS))
def test_every_kind_of_model_passes_the_output_gate(
    kind: str, fault: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, stack: ExitStack
) -> None:
    case = KINDS[kind]
    expected = case.expected[fault]
    setup = case.setup(tmp_path, fault, monkeypatch, stack)
    out = tmp_path / "out"
    args = setup.args(out)
    res = runner.invoke(app, args)
    if expected is None:  # the kind's own answer: scored
        assert res.exit_code == exit_codes.OK, res.output
        assert _records(out)[-1]["scores"]
        return
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    (rec,) = _records(out)
    assert rec["failure"] == expected and rec["output_failed"] is True and not rec.get("scores"), rec
    assert rec["output"]["fault"] == expected, rec["output"]
    if expected == BAD:  # never stored as an answer
        assert rec["output"]["text"] is None and rec["output"]["audio_path"] is None, rec["output"]
    assert len(json.dumps(rec)) < 20_000
    summary = json.loads((out / "summary.json").read_text())
    (result,) = summary["results"]
    assert result["failure_kinds"] == {expected: 1}, result
    asked = setup.asked()
    assert asked >= 1
    again = runner.invoke(app, args)  # asked again (nothing cached), failed again
    assert again.exit_code == exit_codes.TOO_MANY_FAILURES, again.output
    assert "asked 1, reused 0" in again.output, again.output
    assert setup.asked() > asked
    assert _records(out)[-1]["failure"] == expected


# --- the examples that were scored before the gate -------------------------------------------


def test_a_huge_transcription_is_a_bad_output_not_a_wer_of_200000(tmp_path: Path, stack: ExitStack) -> None:
    url, fake = _server("huge", stack)
    args = [
        "run",
        *_asr(tmp_path),
        "-m",
        f"transcription:faulty@{url}",
        "-o",
        str(tmp_path / "o"),
        "--no-progress",
    ]
    res = runner.invoke(app, args)
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    assert f"over the bound of {MAX_ANSWER_CHARS:,} on a stored answer" in res.output
    (rec,) = _records(tmp_path / "o")
    assert rec["failure"] == BAD and not rec.get("scores")


def test_a_200_html_error_page_is_a_bad_output_not_a_transcript(tmp_path: Path, stack: ExitStack) -> None:
    url, fake = _server("html", stack)
    args = ["run", *_asr(tmp_path), "-m", f"transcription:faulty@{url}", "-o", str(tmp_path / "o"), "--no-progress",
            "--gen-kwargs", "response_format=text"]  # fmt: skip
    res = runner.invoke(app, args)
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    (rec,) = _records(tmp_path / "o")
    assert rec["failure"] == BAD and "web page (text/html)" in rec["error"] and not rec.get("scores")


@pytest.mark.parametrize("api_fault", [("transcription", "empty"), ("realtime", "blank")])
def test_an_empty_transcript_or_blank_realtime_delta_is_asked_again(
    api_fault: tuple[str, str], tmp_path: Path, stack: ExitStack
) -> None:
    api, fault = api_fault
    if api == "realtime":
        state = FakeRealtimeState(model="faulty", fault=fault)
        url = stack.enter_context(FakeRealtimeServer(state)).base_url
    else:
        url, _ = _server(fault, stack)
    args = ["run", *_asr(tmp_path), "-m", f"{api}:faulty@{url}", "-o", str(tmp_path / "o"), "--no-progress"]
    first = runner.invoke(app, args)
    assert first.exit_code == exit_codes.TOO_MANY_FAILURES, first.output
    again = runner.invoke(app, args)
    assert "asked 1, reused 0" in again.output, again.output
    assert _records(tmp_path / "o")[-1]["failure"] == NO


def test_the_gate_keeps_a_blank_answer_and_drops_a_bad_one() -> None:
    blank = gate_output(ModelOutput(text="  "), "text", source="m", sample_id="a")
    assert blank.fault == NO and blank.text == "  " and not blank.ok
    page = gate_output(ModelOutput(text=HTML_PAGE), "text", source="m", sample_id="a")
    assert page.fault == BAD and page.text is None and page.error_detail["field"] == "output.text"
    nan = gate_output(ModelOutput(text=math.nan), "text", source="m", sample_id="a")  # type: ignore[arg-type]
    assert nan.fault == BAD and "not finite" in (nan.error or "")
    late = gate_output(ModelOutput(text="ok", latency_s=math.inf), "text", source="m", sample_id="a")
    assert late.fault == BAD and late.latency_s is None
    assert gate_output(ModelOutput(text="red green"), "text", source="m", sample_id="a").ok
    assert gate_output(ModelOutput(text=""), "text", source="m", sample_id="a", blank_is_an_answer=True).ok
    assert Constant.blank_is_an_answer


@pytest.mark.parametrize("stored", ["huge", "html", "blank"])
def test_a_bad_answer_in_the_response_cache_is_never_reused(
    stored: str, tmp_path: Path, stack: ExitStack
) -> None:
    """A cache written before the gate (or by hand) holding a bad answer: asked again."""
    import sqlite3

    url, fake = _server("ok", stack)
    out = tmp_path / "o"
    args = ["run", *_asr(tmp_path), "-m", f"transcription:faulty@{url}", "-o", str(out), "--no-progress"]
    assert runner.invoke(app, args).exit_code == exit_codes.OK
    (cache,) = out.rglob("*.sqlite")
    with sqlite3.connect(cache) as db:
        assert db.execute("UPDATE responses SET text = ?", (fault_text(stored),)).rowcount == 1
    (records,) = out.glob("*/*/records.jsonl")
    records.unlink()
    again = runner.invoke(app, args)
    assert again.exit_code == exit_codes.OK, again.output
    assert fake.asked == 2  # the stored answer was refused and the model asked again
    assert _records(out)[-1]["output"]["text"] == "red green"
