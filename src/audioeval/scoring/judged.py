"""Scorers that ask a judge model: the `JudgedScorer` base class (the async side of `Scorer`).

A judged scorer is handed a judge `generate(messages, attempt) -> Generation` callable by
the engine (it never builds or imports a client itself). Every judge answer it relies on is
returned in the score's `detail`, so that rescoring re-aggregates the stored answers with no
judge call: the engine passes them back as `stored` (see `JudgedScorer.rescore`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypedDict, TypeGuard

from audioeval.adapters.chat_wire import SamplingFields
from audioeval.core.errors import AudioevalError, InputError
from audioeval.core.generation import AnswerCheck, Generation
from audioeval.core.messages import AudioRef, Message
from audioeval.core.record import Score
from audioeval.core.sample import Sample
from audioeval.scoring.hook_guard import call_hook
from audioeval.scoring.prediction import Prediction
from audioeval.scoring.scorer_hooks import DetailT, Scorer


class JudgeGenerate(Protocol):
    """One judge call: the messages, the attempt index (part of the cache key), optionally
    the check an answer must pass to be cached (e.g. it parses as a verdict), and request
    fields that override the judge's sampling for this call (`extra`, part of the cache key;
    only settings a request may carry: `core/request_settings.py`). `logprobs=N` asks for the
    first token's top N logprobs, and the answer's text is then the JSON of `{"text",
    "top_logprobs"}`: [token, logprob] pairs, or null when the server sent none
    (`adapters/openai_chat.reply_first_token`)."""

    def __call__(
        self,
        messages: list[Message],
        attempt: int,
        accept: AnswerCheck | None = None,
        extra: SamplingFields | None = None,
        *,
        logprobs: int | None = None,
    ) -> Awaitable[Generation]: ...

    async def prepare(self, refs: list[AudioRef]) -> None:
        """Read (decode, encode) these clips before any call sends one: a scorer that needs
        several clips per sample calls it first, so an unreadable clip (AudioError) asks
        nothing. The engine's judge does; `BareJudge` reads each clip when it is sent."""


class BareJudge:
    """A `JudgeGenerate` made of a bare judge call (a test's, a tool's): nothing to prepare,
    each clip is read when a call sends it."""

    def __init__(self, call: Callable[..., Awaitable[Generation]]) -> None:
        self.call = call

    def __call__(
        self,
        messages: list[Message],
        attempt: int,
        accept: AnswerCheck | None = None,
        extra: SamplingFields | None = None,
        *,
        logprobs: int | None = None,
    ) -> Awaitable[Generation]:
        if logprobs is None:  # a bare call need not take `logprobs`
            return self.call(messages, attempt, accept, extra)
        return self.call(messages, attempt, accept, extra, logprobs=logprobs)

    async def prepare(self, refs: list[AudioRef]) -> None:
        return None


class JudgeFailed(AudioevalError):
    """The judge gave too few usable answers to score the sample: counted as failed (a rerun
    judges it again). `detail` holds every attempt made, for the record.

    `partial`: what the judgements that did succeed score, where the benchmark's own rule
    scores a sample from them (MMAE: a failed rubric is counted, never scored, and the
    sample's other rubrics score it); the failed record keeps it as the scorer's score, so
    the metrics count it (`metrics/pair_summary.py`). None: the sample enters no metric."""

    def __init__(
        self, message: str, detail: Mapping[str, Any] | None = None, partial: Score | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.detail = dict(detail or {})
        self.partial = partial


class JudgedScorer(Scorer[DetailT]):
    """A scorer that asks a judge: `score_async` is handed the engine's judge `generate`,
    keeps every judge answer it relied on in its score's `detail`, and `rescore`
    re-aggregates those stored answers with no judge call. The judged hooks and their
    defaults are listed in `scoring/scorer_hooks.py`."""

    needs_judge: ClassVar[bool] = True
    reports_reliability: ClassVar[bool] = False
    """Whether `reliability_items` reads the stored answers (the summary then holds a
    reliability block for this scorer: `metrics/judge_reliability.py`)."""
    early_stop: bool = False
    """Whether a sample stops once the votes still missing could not change its verdict."""

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        """Without a judge the sample cannot be scored."""
        raise InputError(
            f"{self.name} needs a judge (--judge URL --judge-model NAME)",
            sample_id=sample.id,
            field="scorers",
        )

    async def score_async(self, prediction: Prediction, sample: Sample, generate: JudgeGenerate) -> Score:
        """A `Score` whose detail holds the judge answers; JudgeFailed when the judge gave too
        few usable answers; InputError when the sample cannot be judged."""
        raise NotImplementedError(f"{type(self).__name__} defines no score_async()")

    def rescore(self, prediction: Prediction, sample: Sample, stored: DetailT) -> Score:
        """A `Score` from the `detail` of an earlier score (or failure); no judge call."""
        raise NotImplementedError(f"{type(self).__name__} defines no rescore()")

    def failed_output_score(self, sample: Sample, output_kind: str = "text") -> Score | None:
        """No usable output: by default not judged and not scored (counted)."""
        return None

    def planned_calls(self, sample: Sample) -> int:
        """Judge calls the sample's first round needs (what it reserves of the judge's load)."""
        return 1

    def reliability_items(self, stored: DetailT) -> list[Any]:
        """The `judge/judged_items.JudgedItem`s of a sample's stored judge answers (read when
        `reports_reliability`)."""
        return []

    def use_prompt(self, template: Any) -> None:
        """Judge with a prompt template file (`prompt_file`, a `PromptTemplate`) in place of
        the built-in prompt; by default a scorer takes none."""
        raise InputError(
            f"{self.name} takes no judge prompt file", field=f"scorers.{self.name}.{PROMPT_FILE}"
        )

    def prompt_examples(self) -> list[dict[str, Any]]:
        """The variables the scorer passes its prompt, one mapping per kind of request (what
        a prompt file is checked with when loaded)."""
        return []


def is_judged(scorer: Scorer) -> TypeGuard[JudgedScorer]:
    """Whether the scorer asks a judge."""
    return isinstance(scorer, JudgedScorer)


PROMPT_FILE = "prompt_file"
"""The scorer argument of every judged scorer that puts its judge prompt in a template file
(`--judge-prompt FILE` sets it on every judged scorer of a run)."""


def takes_prompt_file(factory: object) -> bool:
    """Whether a registered scorer factory is a judged scorer class (each takes `prompt_file`)."""
    return isinstance(factory, type) and issubclass(factory, JudgedScorer)


def load_judge_prompt(path: str, scorer: JudgedScorer) -> Any:
    """The template of `path` checked against what the scorer passes: rendered once with each
    of its `prompt_examples()`; a variable it does not pass is an error naming the file, the
    field (`system` or `user`) and the variable. Returns the `PromptTemplate`."""
    from audioeval.prompts.templates import parse_template, render_text
    from audioeval.store.text_input import read_text_input

    if not isinstance(path, str) or not path.strip():
        raise InputError("give the path of a prompt template file", field=f"{scorer.name}.{PROMPT_FILE}")
    template = parse_template(read_text_input(Path(path), "prompt template"), path)
    examples: list[dict[str, Any]] = call_hook(scorer, "prompt_examples")
    passed = sorted({k for e in examples for k in e})
    for name in ("system", "user"):
        text = getattr(template, name)
        if not text:
            continue
        for variables in examples:
            problem = render_text(text, variables)
            if problem is not None:
                raise InputError(
                    f"{scorer.name}: the prompt template cannot be rendered with the variables "
                    f"this scorer passes ({problem}); it passes: {', '.join(passed)}",
                    file=template.source,
                    field=name,
                ) from None
    return template


class PromptSignature(TypedDict, total=False):
    """The prompt keys of a judged scorer's signature."""

    prompt_version: str | None
    prompt_digest: str


def prompt_signature(template: Any, built_in: str | None) -> PromptSignature:
    """The prompt keys of a judged scorer's signature: the built-in prompt's version, or the
    template file's name and digest (so scores made with another prompt are never reused)."""
    if template is None:
        return {"prompt_version": built_in}
    return {"prompt_version": template.name, "prompt_digest": template.digest}
