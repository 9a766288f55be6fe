"""Caption -> rubric as a judged scorer of the run engine (scorer `rubric_decompose`).

The text to decompose is the model's answer: in `rubric decompose` the `caption` model
echoes each caption (`decompose_source.py`); in a run spec it may be any model's caption.
The run's judge is the text LLM:

1. decomposition (`decompose_prompts.py`): asked until one answer gives a usable item list,
   at most `max_attempts` calls (`judge/votes.collect_votes` with one vote needed; each
   retry has a new attempt index, so its own cache key). None usable: the sample fails
   (`JudgeFailed`: recorded with every answer, counted, asked again by a rerun);
2. duplicate questions removed (`decompose.dedupe`);
3. cleaning: the same LLM marks each item keep or remove, asked the same way (an answer that
   does not judge every item exactly once is not usable);
4. the kept items capped at `max_items`; none left: the caption itself is the single item
   (`fallback: true`).

Only usable answers are cached. Every answer is kept in the score's detail, so `rescore`
reads the stored answers again with no call. Values: `rubric_items` (the rubric's length)
and `fallback` (1 when the caption stood in).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

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
    clean_messages,
    decompose_messages,
)
from audioeval.core.errors import InputError
from audioeval.core.messages import Message
from audioeval.core.sample import Sample
from audioeval.judge.votes import collect_votes
from audioeval.scoring.base import Prediction, Score
from audioeval.scoring.judged import JudgeFailed, JudgeGenerate

SCORER_NAME = "rubric_decompose"
ITEMS = "rubric_items"
FALLBACK = "fallback"
Reader = Callable[[str | None], Any]  # an answer -> something with `usable`, `error`, `repairs`


class RubricDecomposeScorer:
    """A caption's atomic yes/no items, by a text LLM (the run's judge)."""

    needs_judge = True
    metrics = (f"mean:{ITEMS}", f"mean:{FALLBACK}")

    def __init__(self, *, domain: str = AUTO, max_items: int = 30, max_attempts: int = 3) -> None:
        if domain not in (AUTO, *DOMAINS):
            raise InputError(
                f"domain must be one of {', '.join((AUTO, *DOMAINS))}, not {domain!r}", field="scorers"
            )
        if max_items < 1 or max_attempts < 1:
            raise InputError("rubric_decompose: max_items and max_attempts must be ≥ 1", field="scorers")
        self.name = SCORER_NAME
        self.domain = domain
        self.max_items = max_items
        self.max_attempts = max_attempts

    def signature(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "prompt_version": PROMPT_VERSION,
            "domain": self.domain,
            "max_items": self.max_items,
            "max_attempts": self.max_attempts,
            "dedupe": "normalised question text",
            "fallback": "the caption as the single item",
        }

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
        detail: dict[str, Any] = {"prompt_version": PROMPT_VERSION, "requested_domain": domain}
        detail["decompose"] = await self._ask(
            generate, decompose_messages(caption, domain), lambda t: read_decomposition(t, domain)
        )
        items = self._items(detail, domain)
        if items:
            n = len(items)
            asked = clean_messages(caption, [(i.dimension, i.question) for i in items])
            detail["clean"] = await self._ask(generate, asked, lambda t: read_cleaning(t, n))
        return self._result(caption, detail)

    async def _ask(
        self, generate: JudgeGenerate, messages: list[Message], read: Reader
    ) -> list[dict[str, Any]]:
        """Calls until one usable answer (or `max_attempts`): every call, in attempt order."""
        attempts: list[dict[str, Any]] = []

        def usable(text: str) -> bool:
            return bool(read(text).usable)

        async def call(index: int) -> bool:
            gen = await generate(messages, index, usable)
            entry = {"attempt": index, "raw": gen.text if gen.ok else None, "endpoint": gen.endpoint,
                     "cached": gen.cached, **_reading(read, gen.text if gen.ok else None, gen.error)}  # fmt: skip
            attempts.append(entry)
            return entry["usable"]

        await collect_votes(call, votes_needed=1, max_attempts=self.max_attempts)
        return sorted(attempts, key=lambda a: a["attempt"])

    def _items(self, detail: dict[str, Any], domain: str) -> list[RubricItem]:
        """The first usable decomposition's items without duplicates (JudgeFailed: none usable)."""
        read = _first_usable(detail["decompose"], lambda t: read_decomposition(t, domain))
        if read is None:
            raise JudgeFailed(f"decomposition: {failure_reason(detail['decompose'])}", detail)
        items, duplicates = dedupe(read.items)
        detail.update(
            domain=read.domain,
            parsed=len(read.items),
            dropped_without_question=read.dropped,
            duplicates=duplicates,
            repairs=list(read.repairs),
            items=[i.to_json() for i in items],
        )
        return items

    def _result(self, caption: str, detail: dict[str, Any]) -> Score:
        items = [RubricItem(**i) for i in detail["items"]]
        kept = items
        if items:
            cleaning = _first_usable(detail.get("clean") or [], lambda t: read_cleaning(t, len(items)))
            if cleaning is None:
                why = failure_reason(detail.get("clean") or [])
                raise JudgeFailed(f"cleaning: {why}", detail)
            kept = [item for item, keep in zip(items, cleaning.keep, strict=True) if keep]
            detail["removed"] = [i + 1 for i, keep in enumerate(cleaning.keep) if not keep]
        rubric, capped = cap(kept, self.max_items)
        fallback = not rubric
        if fallback:
            rubric = [fallback_item(caption)]
        detail.update(capped=capped, fallback=fallback, rubric=[i.to_json() for i in rubric])
        values = {ITEMS: len(rubric), FALLBACK: float(fallback)}
        return Score(values, dict(values), detail)

    def rescore(self, prediction: Prediction, sample: Sample, stored: Mapping[str, Any]) -> Score:
        """The stored answers read again (decomposition, then cleaning); no call."""
        caption = self._caption(prediction, sample)
        domain = str(stored.get("requested_domain") or self._domain(sample))
        detail: dict[str, Any] = {"prompt_version": stored.get("prompt_version", PROMPT_VERSION)}
        detail["requested_domain"] = domain
        detail["decompose"] = _reread(stored.get("decompose"), lambda t: read_decomposition(t, domain))
        items = self._items(detail, domain)
        if "clean" in stored:
            detail["clean"] = _reread(stored.get("clean"), lambda t: read_cleaning(t, len(items)))
        if items and stored.get("items") != detail["items"]:
            raise JudgeFailed(
                "cleaning: no stored answer judges these items; run `audioeval rubric decompose` "
                "again to ask",
                detail,
            )
        return self._result(caption, detail)


def _reading(read: Reader, text: str | None, call_error: str | None) -> dict[str, Any]:
    """Whether an answer (or a failed call) is usable, why not, and the JSON repairs it needed."""
    if text is None:
        return {"usable": False, "error": call_error or "no answer", "repairs": []}
    got = read(text)
    return {"usable": bool(got.usable), "error": got.error, "repairs": list(got.repairs)}


def _reread(stored: Any, read: Reader) -> list[dict[str, Any]]:
    """Stored attempts read again by today's reader."""
    out = []
    for a in stored or []:
        if not isinstance(a, Mapping):
            continue
        raw = a.get("raw")
        out.append({**a, **_reading(read, raw if isinstance(raw, str) else None, a.get("error"))})
    return out


def _first_usable(attempts: Sequence[Mapping[str, Any]], read: Reader) -> Any:
    """The reading of the first usable answer, in attempt order (None: none)."""
    for a in attempts:
        if a.get("usable") and isinstance(a.get("raw"), str):
            got = read(a["raw"])
            if got.usable:
                return got
    return None


def failure_reason(attempts: Sequence[Mapping[str, Any]]) -> str:
    """How many calls gave no usable answer, and the last reason."""
    last = next((str(a["error"]) for a in reversed(attempts) if a.get("error")), None)
    text = f"no usable answer after {len(attempts)} call(s)"
    return text + (f" (last: {last})" if last else "")
