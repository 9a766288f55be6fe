"""The documents at the boundary with models and judges hold what their declared types say.

Each wire format is declared once as a TypedDict (the chat completion request and answer in
`adapters/chat_wire.py`, the Realtime events in `adapters/realtime_events.py`, the worker
protocol in `adapters/runtimes/workers/worker_protocol.py`, the model block of a signature in
`adapters/base.py`, each scorer's signature and detail beside the scorer). These tests take
the documents the code really writes, enumerating the paths from the code (every style of
audio part, every kind of model a reference can name, every registered scorer), and check
each against its declaration: no key that is not declared, every required key present, every
value of its declared type.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import types
import typing
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints, is_typeddict

import pytest

from audioeval.adapters.base import GenerationConfig, ModelSignature
from audioeval.adapters.chat_wire import ChatRequest, ChatResponse, SpeechRequest
from audioeval.adapters.openai_chat import AudioPartStyle, audio_output_fields, build_speech_request
from audioeval.adapters.realtime_events import ClientEvent, response_create, session_update, user_item
from audioeval.adapters.runtimes.workers import worker_protocol
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.core.errors import AudioevalError
from audioeval.core.generation import Generation
from audioeval.core.messages import AudioPart, AudioRef, Message, TextPart
from audioeval.core.sample import Sample
from audioeval.engine.endpoint_pool import Endpoint, EndpointStats
from audioeval.engine.model_factory import build_adapter
from audioeval.engine.model_specs import API_PREFIXES, known_model_names, parse_model_ref
from audioeval.engine.run_judge import JudgeSettings, JudgeSignature, RunJudge
from audioeval.judge.answer_judge import AnswerDetail
from audioeval.judge.qa_judge import QaJudgeScorer
from audioeval.judge.rubric_items import RubricDetail, RubricItemsScorer
from audioeval.scoring import error_rate, match, runtime_metric
from audioeval.scoring.judged import BareJudge, JudgeFailed
from audioeval.scoring.prediction import Prediction
from audioeval.scoring.scorer_registry import SCORERS, build_scorer
from tests.fakes.capture_judge import CaptureApp, capture_judge
from tests.fakes.mcq_server import tone_wav
from tests.fakes.openai_http import completion

# Names a module imports for its annotations only (under TYPE_CHECKING).
_ANNOTATION_NAMES = {
    "ErrorRateSignature": error_rate.ErrorRateSignature,
    "MatchSignature": match.MatchSignature,
    "RuntimeMetricSignature": runtime_metric.RuntimeMetricSignature,
    "WorkerInfo": worker_protocol.WorkerInfo,
    "WorkerReply": worker_protocol.WorkerReply,
    "WorkerRequest": worker_protocol.WorkerRequest,
}


def problems(value: Any, tp: Any, path: str = "$") -> list[str]:
    """Where `value` is not of type `tp` (a TypedDict checked key by key, recursively)."""
    if tp is Any or tp is object:
        return []
    if is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: expected an object ({tp.__name__}), got {type(value).__name__}"]
        hints = get_type_hints(tp, localns=_ANNOTATION_NAMES)
        out = [f"{path}.{k}: not a key of {tp.__name__}" for k in value if k not in hints]
        out += [f"{path}.{k}: missing ({tp.__name__})" for k in sorted(tp.__required_keys__) if k not in value]
        for k, v in value.items():
            if k in hints:
                out += problems(v, hints[k], f"{path}.{k}")
        return out
    origin, args = get_origin(tp), get_args(tp)
    if origin in (Union, types.UnionType):
        tried = [problems(value, a, path) for a in args]
        return [] if any(not p for p in tried) else [f"{path}: {value!r:.80} is none of {tp}"]
    if origin is Literal:
        return [] if value in args else [f"{path}: {value!r} is not one of {args}"]
    if origin is list:
        if not isinstance(value, list):
            return [f"{path}: expected a list, got {type(value).__name__}"]
        return [p for i, v in enumerate(value) for p in problems(v, args[0], f"{path}[{i}]")]
    if origin is dict:
        if not isinstance(value, dict):
            return [f"{path}: expected an object, got {type(value).__name__}"]
        return [p for k, v in value.items() for p in problems(k, args[0], path) + problems(v, args[1], f"{path}.{k}")]
    if tp is type(None) or tp is None:
        return [] if value is None else [f"{path}: expected null, got {value!r:.80}"]
    if tp is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"{path}: expected a number, got {value!r:.80}"]
    if tp is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{path}: expected a whole number, got {value!r:.80}"]
    return [] if isinstance(value, tp) else [f"{path}: expected {tp.__name__}, got {value!r:.80}"]


def test_the_check_refuses_an_undeclared_key_a_missing_one_and_a_wrong_type() -> None:
    good = {"model": "m", "input": "hi", "response_format": "wav"}
    assert problems(good, SpeechRequest) == []
    assert problems({**good, "speed": 1.5}, SpeechRequest) == ["$.speed: not a key of SpeechRequest"]
    assert problems({"token": "yes"}, worker_protocol.Pong) == [
        "$.token: not a key of Pong",
        "$.pong: missing (Pong)",
    ]
    assert problems({"id": 3, "text": None, "audio_path": None, "error": None}, worker_protocol.WorkerReply)
    assert problems({"url": "u", "requests": True, "failures": 0, "down": False}, EndpointStats)


def _messages(wav: str) -> list[Message]:
    return [
        Message.text("system", "You grade answers."),
        Message("user", (AudioPart(AudioRef(wav)), TextPart("Is the tone there? yes or no"))),
    ]


@pytest.mark.parametrize("style", get_args(AudioPartStyle))
def test_every_chat_request_sent_over_http_is_a_chat_request(style: str, tmp_path: Path) -> None:
    """A judge's requests, as the server receives them: plain, with request settings of the
    scorer, with the judge's logprobs request; and the answers the fake server sends are
    chat completion answers."""
    wav = str(tmp_path / "tone.wav")
    tone_wav(wav, 440)
    app = CaptureApp()

    async def main(url: str) -> None:
        judge = RunJudge(JudgeSettings(urls=[url], audio_part=style, seed=3, api_key_env="NO_SUCH_KEY"), None)
        try:
            await judge.generate(_messages(wav), 0)
            await judge.generate(_messages(wav), 1, None, {"temperature": 0.5, "top_p": 0.9})
            await judge.generate(_messages(wav), 2, None, {"max_tokens": 1}, logprobs=5)
        finally:
            await judge.aclose()

    with capture_judge(app) as server:
        asyncio.run(main(server.base_url))
    assert len(app.requests) == 3
    for body in app.requests:
        assert problems(body, ChatRequest) == []
        assert problems(completion(1, body["model"], "yes"), ChatResponse) == []
    assert {p["type"] for m in app.requests[0]["messages"][1:] for p in m["content"]} == {style, "text"}


def test_speech_requests_and_audio_output_fields_are_declared() -> None:
    for voice in (None, "alloy"):
        assert problems(build_speech_request("hi", model="tts", voice=voice), SpeechRequest) == []
        assert problems({"model": "m", "messages": [], **audio_output_fields(voice)}, ChatRequest) == []


def test_realtime_client_events_are_declared() -> None:
    events = [
        session_update(modalities=["audio", "text"], instructions="Be brief.", voice="alloy", temperature=0.7),
        session_update(modalities=["text"], instructions=None, voice=None, temperature=None),
        user_item([("audio", "AAAA"), ("text", "what is it?")]),
        response_create(["text"]),
    ]
    for event in events:
        assert problems(event, ClientEvent) == []


def test_worker_protocol_lines_are_declared() -> None:
    req: worker_protocol.WorkerRequest = {"id": "s1#ab", "task": "asr", "audio": None, "text": "hi", "audio_out": None}
    assert problems(req, worker_protocol.WorkerRequest) == []
    for reply in (
        worker_protocol.reply(req, text="hello"),
        worker_protocol.reply(req, audio_path="/x.wav"),
        worker_protocol.reply({}, error="bad request line"),
    ):
        assert problems(reply, worker_protocol.WorkerReply) == []
    assert problems(Endpoint("http://127.0.0.1:1/v1").stats(), EndpointStats) == []


def _model_refs(tmp_path: Path) -> list[str]:
    """A reference of every kind of model `known_model_names` lists, placeholders filled."""
    predictions = tmp_path / "hyps.jsonl"
    predictions.write_text(json.dumps({"id": "a", "text": "yes"}) + "\n", encoding="utf-8")
    replay = tmp_path / "run"
    replay.mkdir()
    filled = {
        "replay:PATH": [f"replay:{replay}"],
        "predictions:FILE": [f"predictions:{predictions}"],
        "NAME@URL": ["qwen@http://127.0.0.1:9/v1"],
        "API:NAME@URL": [f"{api}:m@http://127.0.0.1:9/v1" for api in API_PREFIXES],
        "NAME=SPEC": ["mine=constant:yes"],
        "gemini:MODEL": ["gemini:gemini-2.0-flash"],
    }
    refs = []
    for name in known_model_names():
        if name == "espeak-ng" and shutil.which("espeak-ng") is None:
            continue  # its signature names the installed espeak-ng's version
        refs += filled.get(name, [name.replace("…", "8k")])
    return refs


def test_every_kind_of_model_signs_with_declared_keys(tmp_path: Path) -> None:
    checked = []
    for ref in _model_refs(tmp_path):
        adapter = build_adapter(parse_model_ref(ref), config=GenerationConfig(temperature=0.0))
        try:
            signature = adapter.signature()
        except AudioevalError as exc:  # a replay folder without runs: nothing to sign
            assert ref.startswith("replay:"), f"{ref}: {exc}"
            continue
        assert problems(signature, ModelSignature) == [], ref
        checked.append(type(adapter).__name__)
    assert {"Constant", "OpenAIChatModel", "RealtimeModel", "LocalRuntimeAdapter", "PredictionsFile"} <= set(
        checked
    ), checked


def test_judge_settings_sign_with_declared_keys() -> None:
    for seed in (None, 7):
        settings = JudgeSettings(urls=["http://127.0.0.1:9/v1"], seed=seed)
        assert problems(settings.signature(), JudgeSignature) == []


def test_every_registered_scorer_signs_as_its_type_declares() -> None:
    """Every scorer that builds with its defaults here: its signature against the type its
    `signature` declares (a TypedDict for every scorer of `scoring/` and `judge/`)."""
    load_benchmarks()
    checked = []
    for name in SCORERS.names():
        try:
            scorer = build_scorer(name, {}, where="test")
            signature = scorer.signature()
        except (AudioevalError, ImportError, OSError):
            continue  # needs arguments, a metric model or a tool not here
        module = type(scorer).__module__
        hint = typing.get_type_hints(type(scorer).signature, localns=_ANNOTATION_NAMES)["return"]
        if module.startswith(("audioeval.scoring", "audioeval.judge")):
            assert is_typeddict(hint), f"{name}: signature() -> {hint}"
        assert problems(signature, hint) == [], name
        checked.append(name)
    assert {"wer", "cer", "accuracy", "includes", "qa_judge", "rubric_items", "bleu", "mcq_match"} <= set(
        checked
    ), checked


def test_judged_details_hold_their_declared_records(tmp_path: Path) -> None:
    """What an answer judge and `rubric_items` keep in a score's detail, scored and failed."""
    sample = Sample("q", fields={"question": "2+2?", "answer": "4"})

    async def yes(messages: list[Message], attempt: int, accept: Any = None, extra: Any = None, **kw: Any) -> Generation:
        if kw.get("logprobs"):
            return Generation(json.dumps({"text": "yes", "top_logprobs": [["yes", -0.1], ["no", -2.4]]}))
        return Generation("yes" if attempt == 0 else None, error=None if attempt == 0 else "HTTP 500")

    qa = QaJudgeScorer(votes=1)
    score = asyncio.run(qa.score_async(Prediction("four", "four"), sample, BareJudge(yes)))
    assert problems(score.detail, AnswerDetail) == []
    assert problems(qa.rescore(Prediction("four", "four"), sample, score.detail).detail, AnswerDetail) == []

    rubric = Sample("r", fields={"rubric": [{"dimension": "pitch", "question": "Is there a tone?", "label": "yes"}]})
    out = Prediction(None, None, audio_path=str(tmp_path / "out.wav"))
    for mode in ("per_item", "all_at_once"):
        scorer = RubricItemsScorer(mode=mode)
        try:
            detail = asyncio.run(scorer.score_async(out, rubric, BareJudge(yes))).detail
        except JudgeFailed as exc:  # all at once: "yes" is no JSON list, so the judge failed
            detail = exc.detail
        assert problems(detail, RubricDetail) == [], mode
