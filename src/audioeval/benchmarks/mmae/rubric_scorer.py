"""The MMAE rubric judge as a scorer of `audioeval run` (task `audio_edit`, scorer `mmae_rubrics`).

The same judging as `audioeval mmae score`: for each rubric, `RubricVoting` (3 valid votes,
at most 10 attempts, strict majority), options shuffled per (seed, id, rubric, attempt),
the `mcq-judge-v1` prompt (`benchmarks/mmae/judge_prompt.py`; or a `prompt_file`) with each referenced clip attached under
its label, and per-sample IFR / CR / EMR from `aggregate.per_sample_row`. The engine injects
the judge `generate(messages, attempt)`; every attempt is kept in the score's detail, so
rescoring re-parses and re-aggregates the stored answers without a judge call.

A sample with a failed rubric (fewer valid votes than needed after the last attempt) is a
failed sample: recorded with every attempt, counted, retried by a rerun. The failed rubric is
never scored; the sample's other rubrics score it (MMAE's rule, `aggregate.per_sample_row`:
IFR and CR of the rubrics scored, EM 0 when one scored 0, else undetermined), and the failed
record keeps that score (`JudgeFailed.partial`), so every figure of the pair counts it so.

Besides IFR, CR and EMR × 100 (`mean:ifr`, `mean:cr`, `mean:em`: macro over samples), the
stats hold each axis' rubrics passed and scored (`if_rubrics`, `cr_rubrics`: the micro
rates over rubrics, `micro:if_rubrics`, `micro:cr_rubrics`).

`early_stop` (off by default; `--early-stop`): a rubric stops once the votes still missing
could not change whether it passes (with 3 votes: 2 are asked, a third only when they
disagree); the votes not asked are recorded per rubric (`votes_not_asked`) and the
setting joins the signature only when on, so folders scored without it stay valid.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypedDict

from audioeval.benchmarks.mmae.aggregate import SampleResult, failed_output_row, per_sample_row
from audioeval.benchmarks.mmae.judge_prompt import (
    CLIP_ORDER,
    PROMPT_VERSION,
    PromptVariables,
    attachments,
    build_judge_messages,
    prompt_variables,
)
from audioeval.benchmarks.mmae.metrics import RATES
from audioeval.benchmarks.mmae.records import (
    MeasuredRubric,
    MmaeSample,
    RubricOutcome,
    RubricsDetail,
    is_instruction_following,
)
from audioeval.benchmarks.mmae.rubric_checks import VerifySignature, measure_rubrics, verifiers_signature
from audioeval.benchmarks.mmae.rubric_votes import AttemptDoc, ParsedAttempt, RubricVoting, rescore_attempts
from audioeval.benchmarks.mmae.source import mmae_item
from audioeval.benchmarks.mmae.verdict import parse_verdict
from audioeval.core.errors import AudioError, InputError
from audioeval.core.messages import AudioRef
from audioeval.core.sample import Sample
from audioeval.core.shorten import shorten_path
from audioeval.judge.audio_refs import find_mentions
from audioeval.judge.judged_items import JudgedItem, JudgeVote, MeasuredCheck
from audioeval.judge.option_shuffle import shuffle_options
from audioeval.judge.votes import EARLY_STOP_NAME, collect_votes, majority_to_decide
from audioeval.prompts.templates import PromptTemplate
from audioeval.scoring.base import Prediction, Score
from audioeval.scoring.judged import JudgedScorer, JudgeFailed, JudgeGenerate, prompt_signature

SCORER_NAME = "mmae_rubrics"
VERIFY_MODES = ("off", "audit", "first")
"""`off`: judge only (the published protocol); `audit`: judge, and measure every checkable
rubric beside it; `first`: a rubric a measurement answers is not asked of the judge."""


class RubricsSignature(TypedDict, total=False):
    """The rubric judge's signature (signature.json's scorer block): the prompt, the voting,
    the option shuffle, the clips' policy and order, and aggregation; `early_stop` and `verify` only when on."""

    name: str
    prompt_version: str | None
    prompt_digest: str
    votes_needed: int
    max_attempts: int
    majority: str
    option_shuffle_seed: int
    audio_policy: str
    clip_order: str  # the clips attached in this order (`judge_prompt.CLIP_ORDER`)
    aggregation: str
    early_stop: str
    verify: VerifySignature


class MmaeRubricScorer(JudgedScorer):
    """IFR / CR / EMR of one edited clip, judged rubric by rubric."""

    reports_reliability = True
    # the rates declared in `metrics.py` (percentages), then the micro rates over rubrics (shares)
    metrics = (*(rate.name for rate in RATES), "micro:if_rubrics", "micro:cr_rubrics")

    def __init__(
        self,
        *,
        seed: int = 0,
        votes: int = 3,
        max_attempts: int = 10,
        slice_clips: bool = False,
        early_stop: bool = False,
        verify: str = "off",
    ) -> None:
        if votes < 1 or max_attempts < votes:
            raise ValueError("votes must be ≥ 1 and max_attempts ≥ votes")
        if not isinstance(early_stop, bool):
            raise ValueError(f"early_stop must be true or false, not {early_stop!r}")
        if verify not in VERIFY_MODES:
            raise ValueError(f"verify must be one of {', '.join(VERIFY_MODES)}, not {verify!r}")
        self.verify = verify
        self.name = SCORER_NAME
        self.seed = seed
        self.votes = votes
        self.max_attempts = max_attempts
        self.slice_clips = slice_clips
        self.early_stop = early_stop
        self.template: PromptTemplate | None = None  # a prompt file (`prompt_file`), else ours

    def use_prompt(self, template: PromptTemplate) -> None:
        """Judge with a prompt template file (`judge_prompt.py` says what it is given)."""
        if template.audio == "none":
            raise InputError(
                "mmae_rubrics: the judge must hear the clips: set `audio: before` or `after`",
                file=template.source,
                field="audio",
            )
        self.template = template

    def prompt_examples(self) -> list[PromptVariables]:
        options = shuffle_options("<right option>", ["<wrong option>", "<other option>"], seed=0)
        return [prompt_variables("<question>", options, ["<audio output>", "<audio input1>"])]

    def signature(self) -> RubricsSignature:
        sig: RubricsSignature = {
            "name": self.name,
            **prompt_signature(self.template, PROMPT_VERSION),
            "votes_needed": self.votes,
            "max_attempts": self.max_attempts,
            "majority": "strict majority of valid votes",
            "option_shuffle_seed": self.seed,
            "audio_policy": "slice-clips" if self.slice_clips else "full-clips",
            "clip_order": CLIP_ORDER,
            "aggregation": "per sample: IFR, CR means of scored rubrics; EM; failed rubric -> failed sample",
        }
        if self.early_stop:  # only when on: folders scored without it keep their signature
            sig["early_stop"] = EARLY_STOP_NAME
        if self.verify != "off":  # likewise: measurement beside (audit) or before (first) the judge
            sig["verify"] = {"mode": self.verify, **verifiers_signature()}
        return sig

    def planned_calls(self, sample: Sample) -> int:
        """Judge calls a sample's first round needs (the engine's admission): every vote, or
        with early stop the votes that could decide each rubric."""
        rubrics = sample.fields.get("rubrics")
        first = majority_to_decide([], self.votes) if self.early_stop else self.votes
        return first * (len(rubrics) if isinstance(rubrics, list) else 1)

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        raise InputError(
            "the MMAE rubric judge needs a judge (--judge URL --judge-model NAME)",
            sample_id=sample.id,
            field="scorers",
        )

    # -- judging ---------------------------------------------------------------------------

    def _resolver(self, prediction: Prediction, sample: Sample) -> Callable[[str], str]:
        output = prediction.audio_path
        if not output:
            raise InputError("the model returned no edited audio", sample_id=sample.id, field="output")
        if not Path(output).is_file():
            raise AudioError(
                f"audio file not found: {shorten_path(output)}", sample_id=sample.id, field="output"
            )

        def resolve(label: str) -> str:
            if label == "output":
                return str(output)
            key = "input1" if label == "input" else label
            ref: AudioRef | None = sample.audio.get(key)
            if ref is None:
                raise InputError(f"the sample has no clip {label!r}", sample_id=sample.id, field="audio")
            return ref.path

        return resolve

    async def score_async(self, prediction: Prediction, sample: Sample, generate: JudgeGenerate) -> Score:
        ms = mmae_item(sample)
        resolve = self._resolver(prediction, sample)
        try:
            clips = [
                attachments(find_mentions(r.question), resolve, slice_clips=self.slice_clips)
                for r in ms.rubrics
            ]
        except ValueError as exc:
            raise InputError(str(exc), sample_id=sample.id, field="rubrics") from None
        # every clip read before any is sent: an unreadable one asks nothing
        await generate.prepare(sorted({ref for c in clips for _, ref in c}, key=_ref_order))
        measured: dict[int, MeasuredRubric] = {}
        if self.verify != "off":  # measuring reads the audio: off the event loop
            measured = await asyncio.to_thread(measure_rubrics, ms, resolve)

        async def one(i: int, c: list[tuple[str, AudioRef]]) -> RubricOutcome:
            m = measured.get(i)
            if self.verify == "first" and m is not None and m.get("score") is not None:
                return _measured_outcome(ms, i, m)  # answered by measurement: no judge call
            outcome = await self._rubric(ms, i, c, generate)
            return {**outcome, "audit": m} if m is not None and self.verify == "audit" else outcome

        # the rubric sending the most clips first: the sample's first request (the engine's
        # judge sends it alone, `engine/run_judge.SampleJudge`) then holds the longest prefix
        order = sorted(range(len(clips)), key=lambda i: -len(clips[i]))
        outcomes = await asyncio.gather(*(one(i, clips[i]) for i in order))
        return self._result(ms, sorted(outcomes, key=lambda o: int(o["rubric_index"])))

    async def _rubric(
        self, ms: MmaeSample, index: int, clips: list[tuple[str, AudioRef]], generate: JudgeGenerate
    ) -> RubricOutcome:
        rubric = ms.rubrics[index]
        voting = RubricVoting(
            rubric,
            ms.id,
            index,
            seed=self.seed,
            votes_needed=self.votes,
            max_attempts=self.max_attempts,
            early_stop=self.early_stop,
        )

        async def attempt(a: int) -> bool:
            options = voting.options_for(a)
            messages = build_judge_messages(rubric.question, options, clips, self.template)
            gen = await generate(messages, a, voting.accepts(options))
            return voting.record(a, options, gen).valid

        to_decide = voting.to_decide if self.early_stop else None
        await collect_votes(
            attempt, votes_needed=self.votes, max_attempts=self.max_attempts, to_decide=to_decide
        )
        return {
            "rubric_index": index,
            "category": rubric.category,
            "axis": "IF" if is_instruction_following(rubric.category) else "CR",
            **voting.outcome(),
        }

    # -- aggregation -----------------------------------------------------------------------

    def _result(self, ms: MmaeSample, outcomes: list[RubricOutcome]) -> Score:
        results = {int(o["rubric_index"]): o for o in outcomes}
        done = per_sample_row(ms, results)
        detail: RubricsDetail = {"rubrics": outcomes, "rubric_scores": done.row["rubric_scores"]}
        failed = [o for o in outcomes if o.get("failed")]
        if failed or len(results) < len(ms.rubrics):
            first: RubricOutcome = failed[0] if failed else {}
            why = first.get("failure") or "no judgement"  # names the last attempt's error
            scored = done.if_scores or done.cr_scores
            raise JudgeFailed(
                f"judge: {len(failed)} of {len(ms.rubrics)} rubric(s) failed"
                f" (rubric {first.get('rubric_index')}: {why})",
                detail,
                partial=_row_score(done, None) if scored else None,  # MMAE scores what was judged
            )
        return _row_score(done, detail)

    def failed_output_score(self, sample: Sample, output_kind: str = "text") -> Score:
        """No usable edited audio: every rubric 0 (IFR = CR = EM = 0), as `mmae score` counts it."""
        done = failed_output_row(mmae_item(sample), "no usable output")
        return _row_score(done, failed_output_detail(done))

    def rescore(self, prediction: Prediction, sample: Sample, stored: Mapping[str, Any]) -> Score:
        """Re-parse every stored judge answer and aggregate again; no judge call."""
        ms = mmae_item(sample)
        outcomes: list[RubricOutcome] = []
        for o in stored_rubrics(stored):
            if o.get("measured") is not None:  # answered by measurement (`verify: first`): kept
                outcomes.append(RubricOutcome(**o))
                continue
            again = rescore_attempts(list(o.get("attempts") or []), self.votes, self.early_stop)
            outcomes.append({**o, **again, "failure": None if not again["failed"] else o.get("failure")})
        return self._result(ms, outcomes)

    def reliability_items(self, stored: Mapping[str, Any]) -> list[JudgedItem]:
        """Each judged rubric with its votes (`metrics/judge_reliability.py`): the option chosen
        (`right`, or `wrong N`: the wrong options numbered in the order of their texts), its
        position as shown and the order the options were shown in; raw answers parsed again,
        as a rescore does."""
        return [
            JudgedItem(
                [_vote(a) for a in r.get("attempts") or [] if isinstance(a, Mapping)], measured=_audited(r)
            )
            for r in stored_rubrics(stored)
            if r.get("measured") is None  # measured: no judge votes
        ]


def stored_rubrics(stored: Mapping[str, Any]) -> list[RubricOutcome]:
    """The rubric outcomes of a record's stored answers (a score's detail, `RubricsDetail`, as
    records.jsonl holds it): each an object (`rubric_index` checked where it is used)."""
    rubrics = stored.get("rubrics")
    return [r for r in rubrics if isinstance(r, dict)] if isinstance(rubrics, list) else []


def failed_output_detail(done: SampleResult) -> RubricsDetail:
    """The detail of a sample without a usable output: no rubric asked, every one at 0."""
    return {"rubric_scores": done.row["rubric_scores"], "failed_output": True}


def _audited(outcome: RubricOutcome) -> MeasuredCheck | None:
    """`verify: audit`: a rubric both judged and measured, the two verdicts side by side."""
    audit = outcome.get("audit")
    if not isinstance(audit, Mapping) or audit.get("score") is None or outcome.get("score") is None:
        return None
    return MeasuredCheck(
        judge=int(outcome["score"]),
        measured=int(audit["score"]),
        groups={"axis": str(outcome.get("axis"))},
        detail={
            "rubric_index": outcome.get("rubric_index"),
            "check": audit.get("check"),
            "measurement": audit.get("measurement"),
        },
    )


def _measured_outcome(ms: MmaeSample, index: int, measured: MeasuredRubric) -> RubricOutcome:
    """A rubric answered by measurement: its score, no votes, the measurement kept."""
    category = ms.rubrics[index].category
    return {
        "rubric_index": index,
        "category": category,
        "axis": "IF" if is_instruction_following(category) else "CR",
        "score": measured["score"],
        "failed": False,
        "measured": MeasuredRubric(**measured),
    }


def _vote(attempt: AttemptDoc) -> JudgeVote:
    """One stored attempt as a reliability vote (invalid: no answer, or no choice in it)."""
    options = attempt.get("options") or []
    n = len(options)
    right = attempt.get("right_letter")
    raw = attempt.get("raw")
    right_index = ord(right) - ord("A") if isinstance(right, str) and len(right) == 1 else -1
    letter = None
    if isinstance(raw, str) and 0 <= right_index < n:
        # parsed when it was recorded, by this very parser (`ParsedAttempt`), or parsed now
        letter = attempt["letter"] if type(attempt) is ParsedAttempt else _letter_of(raw, n)
    if letter is None:
        return _invalid_vote(n)
    return _valid_vote(tuple(map(str, options)), right_index, ord(letter) - ord("A"))


# Memos of pure functions, bounded: a judge repeats its short answers and a rubric's options
# come back in a few orders, so the reliability block (every stored answer read again) often
# looks one up instead of parsing again; a miss costs what no memo would.
@functools.lru_cache(maxsize=4096)
def _letter_of(raw: str, n_options: int) -> str | None:
    """The letter a stored answer chose (`parse_verdict`), None when it is not a vote."""
    return parse_verdict(raw, n_options).letter


@functools.lru_cache(maxsize=64)
def _invalid_vote(n_options: int) -> JudgeVote:
    return JudgeVote(False, n_options=n_options or None)


@functools.lru_cache(maxsize=4096)
def _valid_vote(options: tuple[str, ...], right_index: int, position: int) -> JudgeVote:
    """The vote for the option at `position` of these options shown (votes are frozen: equal
    ones are shared)."""
    order = _shown_order(options, right_index)
    return JudgeVote(True, order[position], position, len(options), order)


def _shown_order(options: tuple[str, ...], right_index: int) -> tuple[str, ...]:
    """What each option shown is: `right`, or `wrong N` (wrong options by the order of their texts)."""
    wrong = sorted(t for i, t in enumerate(options) if i != right_index)
    names = {t: f"wrong {k + 1}" for k, t in enumerate(wrong)} | {options[right_index]: "right"}
    return tuple(names[t] for t in options)


def _ref_order(ref: AudioRef) -> tuple[str, float, float]:
    return (ref.path, ref.start or 0.0, ref.end or 0.0)


def _row_score(done: SampleResult, detail: RubricsDetail | None) -> Score:
    """A per-sample row as values (0–1 rates) and stats (each rate on its metric's declared
    scale: × 100, what `mean:ifr|cr|em` average; `metrics.py`), with the rubrics passed and
    scored on each axis; `detail` None: none (a failed sample's partial score)."""
    row = done.row
    values: dict[str, float | None] = {}
    stats: dict[str, float | list[int] | None] = {}
    for rate in RATES:
        assert rate.per_sample is not None
        value = row[rate.per_sample.key]  # IFR, CR, EMR
        values[rate.per_sample.key] = value
        stats[rate.key] = None if value is None else rate.per_sample.scale * value
    stats.update(n_rubrics=row["n_rubrics"], n_if=row["n_if"], n_cr=row["n_cr"])
    stats["if_rubrics"] = [sum(done.if_scores), len(done.if_scores)]  # passed, scored
    stats["cr_rubrics"] = [sum(done.cr_scores), len(done.cr_scores)]
    return Score(values, stats, {} if detail is None else detail)
