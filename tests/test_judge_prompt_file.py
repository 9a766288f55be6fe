"""`prompt_file` (`--judge-prompt`): every judged scorer takes its judge prompt from a template
file, checked once at load against the variables the scorer passes; the messages it sends (to a
judge on 127.0.0.1, over real HTTP) and its signature change with the file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from audioeval.adapters.openai_chat import build_chat_request
from audioeval.audio.clip_cache import EncodedClip
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.resolved import resolve, with_judge_prompt
from audioeval.benchmarks.spec import parse_spec
from audioeval.core.errors import InputError
from audioeval.core.messages import AudioRef
from audioeval.core.sample import Sample
from audioeval.engine.chat_client import ChatClient
from audioeval.scoring.base import Prediction
from audioeval.scoring.judged import BareJudge, JudgeFailed
from audioeval.scoring.scorer_registry import build_scorer
from tests.fakes.capture_judge import CaptureApp, capture_judge


@pytest.fixture(autouse=True, scope="module")
def _judged_scorers_registered() -> None:
    load_benchmarks()


CLIP = EncodedClip("UklGRiQAAABXQVZFZm10IBAAAAABAAEA+/9=", "a" * 64, 1.0, 16000)


def _wav(path: Path) -> str:
    sf.write(path, np.zeros(1600, dtype=np.float32), 16000)
    return str(path)


def _cases(tmp: Path) -> dict[str, dict[str, Any]]:
    """Per judged scorer: its args, a sample and prediction, a template using every variable
    it passes, the text that template renders to, and an answer the scorer reads."""
    out = _wav(tmp / "out.wav")
    rubric = [{"name": "steps", "scoring_point": "names the tone", "choices": [0, 1]}]
    return {
        "qa_judge": dict(
            sample=Sample("q", fields={"question": "2+2?", "answer": "4"}),
            prediction=Prediction("four", "four"),
            user="Q={{ question }} R={{ reference }} A={{ response }}",
            sent="Q=2+2? R=4 A=four",
            answer="yes",
        ),
        "voicebench_qa": dict(
            sample=Sample("q", fields={"instruction": "2+2?", "answer": "4"}),
            prediction=Prediction("four", "four"),
            user="Q={{ question }} R={{ reference }} A={{ response }}",
            sent="Q=2+2? R=4 A=four",
            answer="Yes",
        ),
        "chat_rating": dict(
            sample=Sample("c", fields={"instruction": "sing"}),
            prediction=Prediction("la la", "la la"),
            user="I={{ instruction }} A={{ response }}",
            sent="I=sing A=la la",
            answer="[[7]]",
        ),
        "voicebench_open": dict(
            sample=Sample("c", fields={"instruction": "sing"}),
            prediction=Prediction("la la", "la la"),
            user="I={{ instruction }} A={{ response }}",
            sent="I=sing A=la la",
            answer="4",
        ),
        "airbench_chat": dict(
            sample=Sample("a", fields={"question": "what?", "answer": "a dog", "audio_description": "barks"}),
            prediction=Prediction("a cat", "a cat"),
            user="D={{ description }} Q={{ question }} 1={{ first }} 2={{ second }}",
            sent="D=barks Q=what? 1=a dog 2=a cat",
            answer="8 7",
        ),
        "mmae_rubrics": dict(
            sample=Sample(
                "m",
                audio={"input1": AudioRef(_wav(tmp / "in.wav"))},
                fields={
                    "rubrics": [
                        {
                            "category": "Instruction Following",
                            "question": "Tone in <audio output>?",
                            "right_choice": "Yes",
                            "wrong_choices": ["No"],
                        }
                    ]
                },
            ),  # fmt: skip
            prediction=Prediction(None, None, out),
            user="Q={{ question }}|{{ labels | join(',') }}|{{ letters | join('') }}|{{ options | length }}\n{{ choices }}",
            sent="Q=Tone in <audio output>?|<audio output>|AB|2\nA. ",
            answer='{"reason": "r", "choice": "A"}',
        ),
        "mmar_rubrics": dict(
            sample=Sample(
                "r",
                fields={
                    "rubric": rubric,
                    "question": "which?",
                    "reference": "because",
                    "answer": "cat",
                    "choices": ["cat", "dog"],
                    "thinking": "hmm",
                },
            ),  # fmt: skip
            prediction=Prediction("cat", "cat"),
            user=(
                "Q={{ question }} A={{ answer }} R={{ reference }} T={{ thinking }} P={{ prediction }}"
                "{% for r in rubric %} [{{ r.name }}: {{ r.scoring_point }} ({{ r.choices | join('/') }})]{% endfor %}"
                " F={{ output_format }}"
            ),
            sent='Q=which? A=cat R=because T=hmm P=cat [steps: names the tone (0/1)] F=[{"name": "steps"',
            answer='[{"name": "steps", "score": 1, "justification": "ok"}]',
        ),
        "rubric_items": dict(
            sample=Sample(
                "i", fields={"rubric": [{"dimension": "tone", "question": "A tone?", "basis": "tone"}]}
            ),
            prediction=Prediction(None, None, out),
            user="judge: [{{ dimension }}] {{ question }} ({{ basis }})",
            sent="judge: [tone] A tone? (tone)",
            answer="yes",
        ),
        "rubric_decompose": dict(
            sample=Sample("d"),
            prediction=Prediction("a dog barks", "a dog barks"),
            user=(
                "{% if step == 'decompose' %}split ({{ domain }}): {{ caption }}"
                "{% else %}clean {{ caption }}:{% for i in items %} {{ i.id }}={{ i.dimension }}/{{ i.question }}"
                "{% endfor %}{% endif %}"
            ),
            sent="split (mix): a dog barks",
            answer='{"items": [{"dimension": "d", "question": "a dog?", "basis": "dog"}]}',
        ),
    }


SCORERS = [
    "qa_judge", "voicebench_qa", "chat_rating", "voicebench_open", "airbench_chat",
    "mmae_rubrics", "mmar_rubrics", "rubric_items", "rubric_decompose",
]  # fmt: skip


def _template(path: Path, user: str, audio: str = "before") -> str:
    path.write_text(
        json.dumps({"name": "official-copy", "system": "SYS {{ 'x' }}", "user": user, "audio": audio}),
        encoding="utf-8",
    )
    return str(path)


def _first_request(scorer: Any, case: dict[str, Any]) -> dict[str, Any]:
    app = CaptureApp(answer=lambda body: case["answer"])

    async def main(url: str) -> None:
        async with ChatClient([url], timeout_s=10, backoff_base_s=0.01) as client:

            async def generate(messages, attempt, accept=None, extra=None, *, logprobs=None):  # type: ignore[no-untyped-def]
                asked = {} if logprobs is None else {"logprobs": True, "top_logprobs": logprobs}
                body = build_chat_request(
                    messages, model="judge", clips=lambda ref: CLIP, sampling={**(extra or {}), **asked}
                )
                return await client.complete(body)

            try:
                await scorer.score_async(case["prediction"], case["sample"], BareJudge(generate))
            except JudgeFailed:
                pass  # what is checked here is the request

    with capture_judge(app) as server:
        asyncio.run(main(server.base_url))
    assert app.requests, "no request reached the judge"
    return app.requests[0]


def _texts(body: dict[str, Any]) -> list[str]:
    out = []
    for m in body["messages"]:
        content = m["content"]
        out += [content] if isinstance(content, str) else [p["text"] for p in content if p["type"] == "text"]
    return out


@pytest.mark.parametrize("name", SCORERS)
def test_a_prompt_file_changes_the_request_and_the_signature(name: str, tmp_path: Path) -> None:
    case = _cases(tmp_path)[name]
    ours = build_scorer(name, {}, where="test")
    path = _template(tmp_path / "prompt.yaml", case["user"])
    theirs = build_scorer(name, {"prompt_file": path}, where="test")

    sent = _first_request(theirs, case)
    texts = _texts(sent)
    assert sent["messages"][0] == {"role": "system", "content": "SYS x"}
    assert any(case["sent"] in t for t in texts), texts
    assert case["sent"] not in " ".join(_texts(_first_request(ours, case)))

    sig, base = theirs.signature(), ours.signature()
    assert sig != base and sig["prompt_version"] == "official-copy" and len(sig["prompt_digest"]) == 16
    assert {k: v for k, v in sig.items() if not k.startswith("prompt_")} == {
        k: v for k, v in base.items() if not k.startswith("prompt_")
    }
    other = build_scorer(name, {"prompt_file": _template(tmp_path / "b.yaml", case["user"] + " ")}, where="t")
    assert other.signature()["prompt_digest"] != sig["prompt_digest"]  # another text: other scores


def test_audio_goes_where_the_template_says(tmp_path: Path) -> None:
    case = _cases(tmp_path)["rubric_items"]
    for place, first in (("before", "audio_url"), ("after", "text")):
        scorer = build_scorer(
            "rubric_items",
            {"prompt_file": _template(tmp_path / f"{place}.yaml", case["user"], place)},
            where="t",
        )
        parts = _first_request(scorer, case)["messages"][-1]["content"]
        assert [p["type"] for p in parts][0] == first and len(parts) == 2
    mmae = _cases(tmp_path)["mmae_rubrics"]
    scorer = build_scorer(
        "mmae_rubrics", {"prompt_file": _template(tmp_path / "m.yaml", mmae["user"], "after")}, where="t"
    )
    parts = _first_request(scorer, mmae)["messages"][-1]["content"]
    assert [p["type"] for p in parts] == [
        "text",
        "text",
        "audio_url",
    ]  # the user text, then `<audio output>: ` + clip


@pytest.mark.parametrize("name", SCORERS)
def test_a_variable_the_scorer_does_not_pass_names_the_file_field_and_variable(
    name: str, tmp_path: Path
) -> None:
    path = _template(tmp_path / "bad.yaml", "ok {{ not_passed }}")
    with pytest.raises(InputError) as err:
        build_scorer(name, {"prompt_file": path}, where="spec.yaml")
    assert err.value.file == path and err.value.field == "user"
    assert "not_passed" in str(err.value)


def test_a_missing_or_malformed_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        build_scorer("qa_judge", {"prompt_file": str(tmp_path / "none.yaml")}, where="t")
    assert err.value.file == str(tmp_path / "none.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        build_scorer("qa_judge", {"prompt_file": str(bad)}, where="t")
    assert err.value.file == str(bad) and err.value.field == "user"
    with pytest.raises(InputError):  # a scorer that asks no judge takes no prompt file
        build_scorer("wer", {"prompt_file": str(bad)}, where="t")


def test_the_judge_must_hear_the_clips(tmp_path: Path) -> None:
    path = _template(tmp_path / "none.yaml", "{{ question }}", "none")
    for name in ("mmae_rubrics", "rubric_items"):
        with pytest.raises(InputError) as err:
            build_scorer(name, {"prompt_file": path}, where="t")
        assert err.value.field == "audio"


def test_judge_prompt_flag_reaches_every_judged_scorer_and_is_stored_in_the_spec(tmp_path: Path) -> None:
    case = _cases(tmp_path)["chat_rating"]
    path = Path(_template(tmp_path / "p.yaml", case["user"]))
    data = {"name": "b", "task": "audio_chat", "source": {"type": "jsonl", "path": "x.jsonl"},
            "scorers": ["chat_rating", "refusal"]}  # fmt: skip
    spec = parse_spec(data, "b.yaml")
    changed = with_judge_prompt(spec, path, "b.yaml")
    assert changed.scorers == [{"chat_rating": {"prompt_file": str(path.absolute())}}, "refusal"]
    bench = resolve(changed, "b.yaml")
    assert bench.scorers[0].signature()["prompt_version"] == "official-copy"
    again = resolve(
        parse_spec(json.loads(changed.model_dump_json()), "b.yaml"), "b.yaml"
    )  # run.json -> rescore
    assert again.signature() == bench.signature()
    assert with_judge_prompt(spec, None, "b.yaml") is spec


def test_a_relative_prompt_file_is_read_beside_the_spec(tmp_path: Path) -> None:
    case = _cases(tmp_path)["qa_judge"]
    (tmp_path / "specs").mkdir()
    _template(tmp_path / "specs" / "official.yaml", case["user"])
    where = tmp_path / "specs" / "b.yaml"
    where.write_text("", encoding="utf-8")
    data = {"name": "b", "task": "spoken_qa", "source": {"type": "jsonl", "path": "x.jsonl"},
            "scorers": [{"qa_judge": {"prompt_file": "official.yaml"}}]}  # fmt: skip
    bench = resolve(parse_spec(data, str(where)), str(where))
    assert bench.scorers[0].signature()["prompt_version"] == "official-copy"
