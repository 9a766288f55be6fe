"""The two ends of `mcq predict`: one prompt per question, and the predictions file."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.benchmarks.mcq.loading import McqItem
from audioeval.benchmarks.mcq.run import write_jsonl_atomic
from audioeval.core.errors import InputError
from audioeval.core.messages import AudioRef, Message, TextPart
from audioeval.postprocess.options import LETTERS
from audioeval.postprocess.think_tags import split_think
from audioeval.prompts.templates import PromptTemplate, render
from audioeval.store.atomic import write_json_atomic


@dataclass(frozen=True)
class PromptJob:
    """One question to ask: its messages, its audio, and a hash of what the model is shown."""

    item: McqItem
    messages: list[Message]
    audio: AudioRef
    prompt_hash: str


def resolve_audio(root: Path, rel: str) -> Path:
    """`root/rel`; when that is missing but `root/<file name>` exists, the latter."""
    full = root / rel
    if not full.exists() and (root / Path(rel).name).exists():
        return root / Path(rel).name
    return full


def plan_prompts(
    items: Sequence[McqItem], bench: McqBenchmark, template: PromptTemplate, audio_root: Path, file: str
) -> list[PromptJob]:
    """Render every item; a missing question or audio path is bad input (file, line, id)."""
    jobs = []
    for item in items:
        where = {"file": file, "line": item.line, "sample_id": item.id}
        question = item.record.get("question")
        if not isinstance(question, str):
            raise InputError("missing or non-string question", field="question", **where)
        rel = item.record.get(bench.audio_field)
        if not isinstance(rel, str) or not rel:
            raise InputError("missing or non-string audio path", field=bench.audio_field, **where)
        audio = AudioRef(str(resolve_audio(audio_root, rel)))
        variables = {
            "question": question,
            "choices": list(item.choices),
            "letters": list(LETTERS[: len(item.choices)]),
            "item": item.record,
        }
        messages = render(template, variables, audio, sample_id=item.id)
        shown = "\x00".join(p.text for m in messages for p in m.parts if isinstance(p, TextPart))
        digest = hashlib.sha256(f"{template.digest}\x00{rel}\x00{shown}".encode()).hexdigest()[:16]
        jobs.append(PromptJob(item, messages, audio, digest))
    return jobs


def write_predictions(
    out: Path, items: Sequence[McqItem], bench: McqBenchmark, raw: Mapping[str, str], *, jsonl: bool
) -> None:
    """The metadata with each answer under the benchmark's first prediction key.

    The answer is the reply without `<think>` blocks; MMAR also gets the reasoning under
    `thinking_prediction`. Items without an answer get no prediction key.
    """
    key = bench.prediction_keys[0]
    rows = []
    for item in items:
        rec = {
            k: v for k, v in item.record.items() if k not in bench.prediction_keys and k != bench.thinking_key
        }
        if item.id in raw:
            answer, thinking = split_think(raw[item.id])
            rec[key] = answer
            if bench.thinking_key:
                rec[bench.thinking_key] = thinking
        rows.append(rec)
    if jsonl:
        write_jsonl_atomic(out, rows)
    else:
        write_json_atomic(out, rows)
