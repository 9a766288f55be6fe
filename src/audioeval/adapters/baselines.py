"""Baseline models: they answer without listening, to anchor every leaderboard.

- `constant[:TEXT]`: always the same text (empty by default);
- `random-choice[:SEED]`: a choice drawn per sample, reproducible from (seed, sample id);
- `first-choice` / `longest-choice`: text-only heuristics over the choices;
- `echo`: the input back (the audio for audio-output tasks, the question text otherwise);
- `oracle`: the reference answer (an upper bound that checks the scoring end to end).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass, field
from typing import ClassVar, TypedDict

from audioeval.adapters.base import AdapterHooks, ModelRequest, ModelSignature
from audioeval.core.model_output import ModelOutput
from audioeval.core.registry import Registry


class BaselineArgs(TypedDict, total=False):
    """The argument after a baseline's colon: `constant:TEXT`, `random-choice:SEED`."""

    text: str
    seed: int


@dataclass
class Baseline(AdapterHooks):
    """Common plumbing: no start-up, no connections, unlimited concurrency."""

    name: str
    kind: str
    args: BaselineArgs = field(default_factory=lambda: BaselineArgs())
    max_concurrency: int = 64
    tasks: ClassVar[tuple[str, ...] | None] = None  # None: every task

    def signature(self) -> ModelSignature:
        return {"model": self.name, "type": "baseline", "baseline": self.kind, **self.args}

    async def start(self) -> None:
        return None

    async def aclose(self) -> None:
        return None

    async def generate(self, request: ModelRequest) -> ModelOutput:
        try:
            return self.answer(request)
        except (KeyError, ValueError, OSError) as exc:
            return ModelOutput(error=f"{self.kind} baseline: {exc}")

    def answer(self, request: ModelRequest) -> ModelOutput:  # pragma: no cover - overridden
        raise NotImplementedError


CHOICE_TASKS = ("mcq", "classification")
TEXT_TASKS = ("asr", "ast", "classification", "captioning", "spoken_qa", "mcq")


def _choices(request: ModelRequest) -> list[str]:
    choices = request.sample.get("choices")
    if not choices:
        raise ValueError(f"sample {request.sample.id!r} has no choices")
    return [str(c) for c in choices]


class Constant(Baseline):
    tasks = TEXT_TASKS
    blank_is_an_answer = True  # `constant` (empty): the system that says nothing

    def answer(self, request: ModelRequest) -> ModelOutput:
        return ModelOutput(text=str(self.args.get("text", "")))


class RandomChoice(Baseline):
    tasks = CHOICE_TASKS

    def answer(self, request: ModelRequest) -> ModelOutput:
        choices = _choices(request)
        seed = self.args.get("seed", 0)
        digest = hashlib.sha256(f"{seed}\x00{request.sample.id}".encode()).digest()
        return ModelOutput(text=choices[int.from_bytes(digest[:8], "big") % len(choices)])


class FirstChoice(Baseline):
    tasks = CHOICE_TASKS

    def answer(self, request: ModelRequest) -> ModelOutput:
        return ModelOutput(text=_choices(request)[0])


class LongestChoice(Baseline):
    tasks = CHOICE_TASKS

    def answer(self, request: ModelRequest) -> ModelOutput:
        return ModelOutput(text=max(_choices(request), key=len))


class Echo(Baseline):
    def answer(self, request: ModelRequest) -> ModelOutput:
        audio = request.sample.audio.get("audio")
        if request.audio_out and audio is not None and not audio.is_slice:
            _link_or_copy(audio.path, request.audio_out)
            return ModelOutput(audio_path=request.audio_out)
        return ModelOutput(text=str(request.sample.get("question") or request.sample.get("reference") or ""))


def _link_or_copy(source: str, target: str) -> None:
    """A hard link where the file system allows one (a judged bench is not copied whole). A
    sample asked again (a rerun after a stop: `--max-calls`, an interrupted run) finds its
    earlier output there: the same file is kept, another one replaced."""
    if os.path.exists(target):
        if os.path.samefile(source, target):
            return
        os.unlink(target)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


class Oracle(Baseline):
    tasks = TEXT_TASKS

    def answer(self, request: ModelRequest) -> ModelOutput:
        s = request.sample
        for key in ("answer", "reference"):
            if s.get(key) is not None:
                return ModelOutput(text=str(s.get(key)))
        refs = s.get("references")
        if refs:
            return ModelOutput(text=str(refs[0]))
        raise ValueError(f"sample {s.id!r} has no answer or reference")


BASELINES: Registry[tuple[type[Baseline], str | None]] = Registry(
    "baseline",
    [
        ("constant", (Constant, "text")),
        ("random-choice", (RandomChoice, "seed")),
        ("first-choice", (FirstChoice, None)),
        ("longest-choice", (LongestChoice, None)),
        ("echo", (Echo, None)),
        ("oracle", (Oracle, None)),
    ],
)
"""Each baseline kind: its class and the name of the argument after a colon, if any."""


def make_baseline(ref: str, *, name: str | None = None) -> Baseline:
    """`constant:yes`, `random-choice:7`, `longest-choice`, … (InputError for unknown kinds)."""
    kind, _, value = ref.partition(":")
    cls, arg = BASELINES.get(kind, field="model")
    args: BaselineArgs = {}
    if arg == "seed" and value:
        args["seed"] = int(value)
    elif arg == "text" and value:
        args["text"] = value
    elif arg == "seed":
        args["seed"] = 0
    return cls(name or ref, kind, args)
