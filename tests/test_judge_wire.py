"""The judge's hot path: request bytes, cache keys, batched cache writes, attempt records."""

import asyncio
import dataclasses
import json
import sqlite3
import time

import pytest

from audioeval.adapters.openai_chat import build_chat_request, encode_chat_request, request_identity
from audioeval.audio.clip_cache import EncodedClip
from audioeval.benchmarks.mmae.judge_prompt import build_judge_messages
from audioeval.benchmarks.mmae.rubric_votes import McqRubric, RubricVoting
from audioeval.core.generation import Generation
from audioeval.core.messages import AudioPart, AudioRef, Message, TextPart
from audioeval.engine.chat_client import ChatClient
from audioeval.judge.option_shuffle import shuffle_options
from audioeval.store.response_cache import ResponseCache, request_key
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer

CLIPS = {
    "/a.wav": EncodedClip("UklGRiQAAABXQVZFZm10IBAAAAABAAEA+/9=", "a" * 64, 1.0, 16000),
    "/b.wav": EncodedClip("AAAA", "b" * 64, 0.5, 16000),
    # not plain base64: must still come out exactly as json.dumps writes it
    "/odd.wav": EncodedClip('ab"c\\\n\u00e9\u2028', "c" * 64, 0.1, 16000),
}


def _clip(ref: AudioRef) -> EncodedClip:
    return CLIPS[ref.path]


def _messages() -> list[Message]:
    options = shuffle_options("Yes, ünï “quoted”", ["No", "None of the above"], seed=3)
    clips = [("<audio input1>", AudioRef("/b.wav")), ("<audio output>", AudioRef("/a.wav"))]
    return build_judge_messages(
        'Is a tone near 440 Hz heard in <audio output[0.5s:]>? "\t\x01', options, clips
    )


@pytest.mark.parametrize("style", ["audio_url", "input_audio"])
@pytest.mark.parametrize(
    "sampling",
    [
        None,
        {},
        {"temperature": None, "max_tokens": 1024},
        {"temperature": 0.7, "seed": 3, "stop": ["a", "é"], "extra": {"x": [1, None]}},
        {"model": "override"},
        {"messages": []},
        {1: "int key"},
    ],
)
def test_encoded_body_is_byte_identical_to_json_dumps(style, sampling):
    odd = [
        Message.text("system", 'sys é "q" \n'),
        Message("user", (TextPart("<audio x>: "), AudioPart(AudioRef("/odd.wav")), TextPart("\u2028"))),
        Message("assistant", ()),
        Message("system", (AudioPart(AudioRef("/b.wav")),)),
    ]
    for messages in (_messages(), odd):
        fast = encode_chat_request(messages, model="Qwen é", clips=_clip, style=style, sampling=sampling)
        body = build_chat_request(messages, model="Qwen é", clips=_clip, style=style, sampling=sampling)
        assert fast == json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def test_cache_key_of_a_request_is_stable():
    """Resume finds answers cached by earlier versions only while this key never changes."""
    ident = request_identity(
        _messages(),
        model="Qwen3Omni-Instruct",
        clips=_clip,
        sampling={"temperature": None, "max_tokens": 1024},
    )
    key = request_key({"request": ident, "attempt": 2})
    assert key == "59036c9e89d3ec1a886be861ce797721f402dfa5591228cdcfd5632f20f25463"


def test_chat_client_sends_bytes_or_dict_bodies():
    messages = [Message.text("user", "Question: x\n\nChoices:\nA. Yes\nB. No")]
    body = build_chat_request(messages, model="Qwen3Omni-Instruct", clips=_clip)
    raw = encode_chat_request(messages, model="Qwen3Omni-Instruct", clips=_clip)

    async def go(url: str) -> list[Generation]:
        async with ChatClient([url]) as client:
            return [await client.complete(b) for b in (raw, lambda: raw, body, lambda: body)]

    with FakeJudgeServer(FakeJudgeConfig()) as server:
        gens = asyncio.run(go(server.base_url))
    assert all(g.ok and json.loads(g.text or "")["choice"] in "AB" for g in gens)
    assert server.stats.requests == 4


def test_cache_commits_each_answer_and_checkpoints_in_the_background(tmp_path):
    path = tmp_path / "c.sqlite"
    cache = ResponseCache(path, checkpoint_interval_s=0.05)
    cache.put("k1", "one")
    with sqlite3.connect(path) as other:  # committed at once: a killed run keeps it
        assert other.execute("SELECT text FROM responses WHERE key = 'k1'").fetchone() == ("one",)
    assert cache.get("k1") == "one" and cache.get("k2") is None and (cache.hits, cache.misses) == (1, 1)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the main database file (WAL ignored) gets it too
        main_file = sqlite3.connect(f"file:{path}?immutable=1", uri=True)
        try:
            if main_file.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == 1:
                break
        except sqlite3.DatabaseError:  # not even the table is there yet, or read mid-checkpoint
            pass  # (an immutable read of a file being written may see a torn page: poll again)
        finally:
            main_file.close()
        time.sleep(0.02)
    else:
        pytest.fail("the WAL was never checkpointed")
    cache.close()
    cache.close()
    with pytest.raises(sqlite3.ProgrammingError):
        cache.put("k3", "three")


def test_attempt_record_equals_asdict():
    rubric = McqRubric("Consistency", "Is it <audio output>?", "Yes", ("No", "None of the above"))
    voting = RubricVoting(rubric, "s1", 0)
    for a in range(voting.votes_needed):
        gen = (
            Generation('{"choice": "A"}', endpoint="http://x", latency_s=0.5)
            if a
            else Generation(None, "boom")
        )
        voting.record(a, voting.options_for(a), gen)
    for rec in voting.attempts:
        assert rec.as_record() == dataclasses.asdict(rec)
        assert list(rec.as_record()) == [f.name for f in dataclasses.fields(rec)]


def test_memoizing_fake_judge_answers_alike_and_keeps_bounded_memos(small_synthetic_set, tmp_path):
    from tests.fakes import judge_server
    from tests.mmae_helpers import config, run_mmae

    with FakeJudgeServer(FakeJudgeConfig(memoize_audio=True, latency_s=0.005)) as s:
        r = run_mmae(
            config(
                small_synthetic_set.oracle_predictions,
                small_synthetic_set.metadata,
                tmp_path / "o",
                [s.base_url],
                concurrency=4,  # few slots: samples are admitted as attempts finish
            )
        )
        memo = s.judge
    assert r.taxonomy["overall"]["EMR"] == 100.0 and r.taxonomy["overall"]["n_rubrics_failed"] == 0
    assert 0 < len(memo._decoded) <= min(judge_server.MEMO_SIZE, r.encodes)
    assert 0 < len(memo._verdicts) <= judge_server.MEMO_SIZE


def test_an_unexpected_error_in_one_sample_stops_the_run(synthetic_set, judge_server, tmp_path, monkeypatch):
    from audioeval.engine.cached_judge import CachedJudge
    from tests.mmae_helpers import config, run_mmae

    real = CachedJudge.__call__
    calls = []

    async def flaky(self, messages, attempt, accept=None, extra=None, **kwargs):
        calls.append(attempt)
        if len(calls) == 20:
            raise RuntimeError("judge bug")
        return await real(self, messages, attempt, accept, extra, **kwargs)

    monkeypatch.setattr(CachedJudge, "__call__", flaky)
    with pytest.raises(RuntimeError, match="judge bug"):
        run_mmae(
            config(
                synthetic_set.oracle_predictions,
                synthetic_set.metadata,
                tmp_path / "o",
                [judge_server.base_url],
                concurrency=4,
            )
        )
    assert len(calls) < 3 * 119  # it stopped admitting samples
