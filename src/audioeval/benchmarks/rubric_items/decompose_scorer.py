"""Caption -> rubric as a judged scorer of the run engine (scorer `rubric_decompose`).

The text to decompose is the model's answer: in `rubric decompose` the `caption` model
echoes each caption (`decompose_source.py`); in a run spec it may be any model's caption.
The run's judge is the text LLM:

1. decomposition (`decompose_prompts.py`, or a `prompt_file` template for both steps),
   decoded as the AnyAudio-Judge decomposer does (`OFFICIAL_DECODING`: greedy, the domain's
   token budget; `temperature` / `max_tokens` override, named in the signature) and read by
   its reader (`decompose.read_decomposition`): an answer with no decodable JSON gives no
   item (`unparsed`), as there; a failed call or a JSON value that is not an object is
   asked again, at most `max_attempts` calls (`judge/votes.collect_votes`, one vote; each
   retry its own cache key). None usable: the sample fails (`JudgeFailed`: recorded with
   every answer, counted, asked again by a rerun);
2. duplicate questions removed (`decompose.dedupe`) only with `dedupe: true` (ours);
3. cleaning: the same LLM marks each item (ids from 0) keep or remove at temperature 0.2,
   1024 tokens, as the official; read as the official reads it (a missing id keeps, an
   unknown verdict removes); an answer with no `results` list is asked again;
4. the kept items capped at `max_items` only when set (ours); none left: the official's
   holistic item, the caption itself (`fallback: true`).

Only usable answers are cached. Every answer is kept in the score's detail, so `rescore`
reads the stored answers again with no call. Values: `rubric_items` (the rubric's length)
and `fallback` (1 when the caption stood in).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict

from audioeval.benchmarks.rubric_items.decompose import (
    RubricItem,
    cap,
    dedupe,
    fallback_item,
    read_cleaning,
    read_decomposition,
)
from audioeval.benchmarks.rubric_items.decompose_prompts import (
    AUTO,
    DOMAINS,
    PROMPT_VERSION,
    DecomposeVariables,
    clean_messages,
    clean_variables,
    decompose_messages,
    decompose_variables,
)
from audioeval.core.errors import InputError
from audioeval.core.messages import Message
from audioeval.core.sample import Sample
from audioeval.judge.votes import collect_votes
from audioeval.prompts.templates import PromptTemplate
from audioeval.scoring.base import Prediction, Score
from audioeval.scoring.judged import (
    JudgedScorer,
    JudgeFailed,
    JudgeGenerate,
    PromptSignature,
    prompt_signature,
)
from audioeval.scoring.scorer_hooks import ScorerSignature

SCORER_NAME = "rubric_decompose"
ITEMS = "rubric_items"
FALLBACK = "fallback"
Reader = Callable[[str | None], Any]  # an answer -> something with `usable`, `error`, `repairs`
DOMAIN_MAX_TOKENS = {"speech": 2048, "sound": 4096, "music": 4096, "mix": 6000, AUTO: 6000}
"""The official per-domain budgets (official-rules.md §3.1); `auto` (ours) gets mix's."""


class Decoding(TypedDict):
    """A request's sampling: temperature and token budget."""

    temperature: float
    max_tokens: int


CLEAN_DECODING = Decoding(temperature=0.2, max_tokens=1024)  # the official cleaning pass (§3.3)


class DecomposeArgs(TypedDict, total=False):
    """The scorer's arguments in a run spec (`rubric decompose`'s options)."""

    domain: str
    max_items: int | None
    max_attempts: int
    dedupe: bool
    temperature: float | None
    max_tokens: int | None


class CallReading(TypedDict):
    """Whether an answer (or a failed call) is usable, why not, the JSON repairs it needed."""

    usable: bool
    error: str | None
    repairs: list[str]


class DecomposeCall(CallReading):
    """One call, as stored: its index, the answer, the endpoint, a cache hit, its reading."""

    attempt: int
    raw: str | None
    endpoint: str | None
    cached: bool


class DecomposeJudgement(TypedDict, total=False):
    """The stored detail of `rubric_decompose` (`SampleRecord.judge["rubric_decompose"]`): the
    prompt, the domain asked and the one used, every decomposition and cleaning call, what the
    reader found (items parsed, unparsed answer, duplicates, repairs), the items, those the
    cleaning removed (ids from 0), how many the cap dropped, the fallback, the rubric."""

    prompt_version: str
    requested_domain: str
    decompose: list[DecomposeCall]
    clean: list[DecomposeCall]
    domain: str
    parsed: int
    unparsed: bool
    duplicates: int
    repairs: list[str]
    items: list[dict[str, str]]
    removed: list[int]
    capped: int
    fallback: bool
    rubric: list[dict[str, str]]


class DecomposeSignature(ScorerSignature, PromptSignature, total=False):
    """What moves a decomposition: the prompt, the domain, the cap, the calls at most, the
    dedupe, the fallback, the reader, each step's decoding."""

    domain: str
    max_items: int | None
    max_attempts: int
    dedupe: str | None
    fallback: str
    reader: str
    decompose_decoding: Decoding | str
    clean_decoding: Decoding


class RubricDecomposeScorer(JudgedScorer[DecomposeJudgement]):
    """A caption's atomic yes/no items, by a text LLM (the run's judge)."""

    metrics = (f"mean:{ITEMS}", f"mean:{FALLBACK}")

    def __init__(
        self,
        *,
        domain: str = "mix",
        max_items: int | None = None,
        max_attempts: int = 3,
        dedupe: bool = False,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> None:
        if domain not in (AUTO, *DOMAINS):
            raise InputError(
                f"domain must be one of {', '.join((AUTO, *DOMAINS))}, not {domain!r}", field="scorers"
            )
        if (max_items is not None and max_items < 1) or max_attempts < 1:
            raise InputError("rubric_decompose: max_items and max_attempts must be ≥ 1", field="scorers")
        if (temperature is not None and temperature < 0) or (max_tokens is not None and max_tokens < 1):
            raise InputError("rubric_decompose: temperature ≥ 0 and max_tokens ≥ 1", field="scorers")
        self.name = SCORER_NAME
        self.domain = domain
        self.max_items = max_items
        self.max_attempts = max_attempts
        self.dedupe = dedupe
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.template: PromptTemplate | None = None  # a prompt file (`prompt_file`), else ours

    def use_prompt(self, template: PromptTemplate) -> None:
        """Ask with a prompt template file, one for both steps (`decompose_prompts.py`)."""
        self.template = template

    def prompt_examples(self) -> list[DecomposeVariables]:
        return [
            *(decompose_variables("<caption>", d) for d in (AUTO, *DOMAINS)),
            clean_variables("<caption>", [("<dimension>", "<question>"), ("", "<question>")]),
        ]

    @property
    def prompt_version(self) -> str:
        return PROMPT_VERSION if self.template is None else self.template.name

    def signature(self) -> DecomposeSignature:
        return {
            "name": self.name,
            **prompt_signature(self.template, PROMPT_VERSION),
            "domain": self.domain,
            "max_items": self.max_items,
            "max_attempts": self.max_attempts,
            "dedupe": "normalised question text" if self.dedupe else None,
            "fallback": "the caption as the single item",
            "reader": "anyaudio-judge-official",
            "decompose_decoding": {"temperature": self.temperature, "max_tokens": self.max_tokens}
            if self.temperature is not None or self.max_tokens is not None
            else "official (greedy, the domain's budget)",
            "clean_decoding": CLEAN_DECODING,
        }

    def decoding(self, domain: str) -> Decoding:
        """The decomposition request's sampling: the official's unless overridden."""
        temperature = 0.0 if self.temperature is None else self.temperature
        return {"temperature": temperature, "max_tokens": self.max_tokens or DOMAIN_MAX_TOKENS[domain]}

    def planned_calls(self, sample: Sample) -> int:
        """Decomposition and cleaning: what a sample reserves of the judge's load."""
        return 2

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        raise InputError(
            "rubric_decompose needs a text LLM (the run's judge)", sample_id=sample.id, field="scorers"
        )

    def _caption(self, prediction: Prediction, sample: Sample) -> str:
        if not prediction.text or not prediction.text.strip():
            raise InputError("no caption text to decompose", sample_id=sample.id, field="output")
        return prediction.text.strip()

    def _domain(self, sample: Sample) -> str:
        """The sample's own domain (a `domain` field), else the scorer's."""
        own = sample.get("domain")
        if own is None:
            return self.domain
        if own not in (AUTO, *DOMAINS):
            choices = ", ".join((AUTO, *DOMAINS))
            raise InputError(
                f"domain must be one of {choices}, not {own!r}", sample_id=sample.id, field="domain"
            )
        return str(own)

    async def score_async(self, prediction: Prediction, sample: Sample, generate: JudgeGenerate) -> Score:
        caption = self._caption(prediction, sample)
        domain = self._domain(sample)
        detail = DecomposeJudgement(prompt_version=self.prompt_version, requested_domain=domain)
        detail["decompose"] = await self._ask(
            generate,
            decompose_messages(caption, domain, self.template),
            lambda t: read_decomposition(t, domain),
            self.decoding(domain),
        )
        items = self._items(detail, domain)
        if items:
            n = len(items)
            asked = clean_messages(caption, [(i.dimension, i.question) for i in items], self.template)
            detail["clean"] = await self._ask(generate, asked, lambda t: read_cleaning(t, n), CLEAN_DECODING)
        return self._result(caption, detail)

    async def _ask(
        self, generate: JudgeGenerate, messages: list[Message], read: Reader, decoding: Decoding
    ) -> list[DecomposeCall]:
        """Calls until one usable answer (or `max_attempts`): every call, in attempt order."""
        attempts: list[DecomposeCall] = []

        def usable(text: str) -> bool:
            return bool(read(text).usable)

        async def call(index: int) -> bool:
            gen = await generate(messages, index, usable, dict(decoding))
            entry = DecomposeCall(attempt=index, raw=gen.text if gen.ok else None, endpoint=gen.endpoint,
                                  cached=gen.cached, **_reading(read, gen.text if gen.ok else None, gen.error))  # fmt: skip
            attempts.append(entry)
            return entry["usable"]

        await collect_votes(call, votes_needed=1, max_attempts=self.max_attempts)
        return sorted(attempts, key=lambda a: a["attempt"])

    def _items(self, detail: DecomposeJudgement, domain: str) -> list[RubricItem]:
        """The first usable decomposition's items, without duplicates with `dedupe` (JudgeFailed:
        none usable)."""
        read = _first_usable(detail["decompose"], lambda t: read_decomposition(t, domain))
        if read is None:
            raise JudgeFailed(f"decomposition: {failure_reason(detail['decompose'])}", dict(detail))
        items, duplicates = dedupe(read.items) if self.dedupe else (list(read.items), 0)
        detail.update(
            domain=read.domain,
            parsed=len(read.items),
            unparsed=read.unparsed,
            duplicates=duplicates,
            repairs=list(read.repairs),
            items=[i.to_json() for i in items],
        )
        return items

    def _result(self, caption: str, detail: DecomposeJudgement) -> Score:
        items = [RubricItem(**i) for i in detail["items"]]
        kept = items
        if items:
            cleaning = _first_usable(detail.get("clean") or [], lambda t: read_cleaning(t, len(items)))
            if cleaning is None:
                why = failure_reason(detail.get("clean") or [])
                raise JudgeFailed(f"cleaning: {why}", dict(detail))
            kept = [item for item, keep in zip(items, cleaning.keep, strict=True) if keep]
            detail["removed"] = [i for i, keep in enumerate(cleaning.keep) if not keep]  # ids from 0
        rubric, capped = (kept, 0) if self.max_items is None else cap(kept, self.max_items)
        fallback = not rubric
        if fallback:
            rubric = [fallback_item(caption)]
        detail.update(capped=capped, fallback=fallback, rubric=[i.to_json() for i in rubric])
        values = {ITEMS: len(rubric), FALLBACK: float(fallback)}
        return Score(values, dict(values), dict(detail))

    def rescore(self, prediction: Prediction, sample: Sample, stored: DecomposeJudgement) -> Score:
        """The stored answers read again (decomposition, then cleaning); no call."""
        caption = self._caption(prediction, sample)
        domain = str(stored.get("requested_domain") or self._domain(sample))
        detail = DecomposeJudgement(prompt_version=stored.get("prompt_version", self.prompt_version))
        detail["requested_domain"] = domain
        detail["decompose"] = _reread(stored.get("decompose"), lambda t: read_decomposition(t, domain))
        items = self._items(detail, domain)
        if "clean" in stored:
            detail["clean"] = _reread(stored.get("clean"), lambda t: read_cleaning(t, len(items)))
        if items and stored.get("items") != detail["items"]:
            raise JudgeFailed(
                "cleaning: no stored answer judges these items; run `audioeval rubric decompose` "
                "again to ask",
                dict(detail),
            )
        return self._result(caption, detail)


def _reading(read: Reader, text: str | None, call_error: str | None) -> CallReading:
    """Whether an answer (or a failed call) is usable, why not, and the JSON repairs it needed."""
    if text is None:
        return {"usable": False, "error": call_error or "no answer", "repairs": []}
    got = read(text)
    return {"usable": bool(got.usable), "error": got.error, "repairs": list(got.repairs)}


def _reread(stored: Any, read: Reader) -> list[DecomposeCall]:
    """Stored attempts read again by today's reader."""
    out = []
    for a in stored or []:
        if not isinstance(a, Mapping):
            continue
        raw = a.get("raw")
        out.append(DecomposeCall(**{**a, **_reading(read, raw if isinstance(raw, str) else None, a.get("error"))}))
    return out


def _first_usable(attempts: Sequence[DecomposeCall], read: Reader) -> Any:
    """The reading of the first usable answer, in attempt order (None: none)."""
    for a in attempts:
        if a.get("usable") and isinstance(a.get("raw"), str):
            got = read(a["raw"])
            if got.usable:
                return got
    return None


def failure_reason(attempts: Sequence[DecomposeCall]) -> str:
    """How many calls gave no usable answer, and the last reason."""
    last = next((str(a["error"]) for a in reversed(attempts) if a.get("error")), None)
    text = f"no usable answer after {len(attempts)} call(s)"
    return text + (f" (last: {last})" if last else "")
