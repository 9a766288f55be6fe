"""The record of one sample through one model: what `records.jsonl` holds, typed.

A `SampleRecord` is written once per finished sample (`to_json`, one JSON line) and read back
by resume, summaries, exports and rescoring (`from_json`). It holds everything re-scoring
needs without a model or a data source: the sample (fields, clips, taxonomy), the model's raw
output or its error, the processed answer, each scorer's `Score`, and every judge answer
(`judge`, by scorer), so that judged scores are re-aggregated without asking the judge.

A sample that could not be scored has an `error` (one line) and a `failure` kind: failures
are counted by kind, never scored as answers. `output_failed` marks the system's own failure
(no usable output); its `failure_scores` say what the sample counts for in the headline.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NotRequired, Required, TypedDict

from audioeval.core.errors import ErrorRecord
from audioeval.core.json_value import JsonValue
from audioeval.core.messages import AudioRef
from audioeval.core.model_output import ModelOutput, OutputRecord
from audioeval.core.sample import Sample, Taxonomy
from audioeval.core.usage import Usage, UsageRecord

ScoreValues = dict[str, float | None]
"""A sample's values for display, by name (a sentence BLEU, a 0/1 correct, MMAE's 0–1 IFR);
None where the sample has none (a rate without rubrics of its kind)."""
ScoreStats = dict[str, JsonValue]
"""A sample's sufficient statistics, by name: numbers, counts, token lists (JSON, as stored)."""
JudgeAnswers = dict[str, JsonValue]
"""One judged scorer's stored answers for a sample (its own layout, read by that scorer)."""


class ScoreJson(TypedDict):
    """A `Score` as a record stores it."""

    values: ScoreValues
    stats: ScoreStats
    detail: NotRequired[dict[str, JsonValue]]


class AnswerJson(TypedDict, total=False):
    """An `Answer` as a record stores it."""

    text: str | None
    outcome: str
    detail: JsonValue


class SampleJson(TypedDict, total=False):
    """What a record keeps of its sample: fields, clips (`[path, start, end]`), source."""

    fields: dict[str, JsonValue]
    audio: dict[str, list[str | float | None]]
    source: str


class RecordJson(TypedDict, total=False):
    """One line of `records.jsonl` (`SampleRecord.to_json`; read back by `from_json` after
    `store/records.py` checked it), with the stamp the engine adds as it appends the line.
    `judged_by`: a record of an earlier version, whose judge answers were its scores' detail."""

    id: Required[str]
    taxonomy: Taxonomy
    sample: SampleJson
    sample_sha256: str | None
    prompt_hash: str
    prompt: str | None
    output: OutputRecord | None
    processed: AnswerJson
    scores: dict[str, ScoreJson]
    error: str | None
    failure: str | None
    error_detail: ErrorRecord
    output_failed: bool
    failure_scores: dict[str, ScoreJson] | None
    judge: dict[str, JudgeAnswers]
    time: float
    judge_usage: UsageRecord
    judged_by: list[str]
    stamp: str  # the run's id and its pair signature's digest (`store/run_folder.pair_stamp`)


class FailureKind(StrEnum):
    """Why a sample has no score (the keys of a summary's `failure_kinds`)."""

    PROMPT = "prompt"  # the prompt could not be rendered from the sample: the input's fault
    INPUT = "input"  # one of the sample's own clips cannot be read: the input's fault
    MODEL = "model"  # the model call failed (HTTP error, timeout, worker crash, no stored output)
    NO_OUTPUT = "no output"  # the model answered with neither text nor audio, or said nothing
    BAD_OUTPUT = "bad output"  # the model answered with what is not an answer (engine/output_gate.py)
    CANNOT_SCORE = "cannot score"  # a scorer could not score the sample (a field, the output audio)
    JUDGE = "judge"  # the judge gave too few valid answers

    @classmethod
    def of_error(cls, error: str, output: ModelOutput | None) -> FailureKind:
        """The kind of a record written before kinds were stored, from its error text."""
        if output is not None and output.fault is not None:
            return cls(output.fault.value)
        for kind in (cls.PROMPT, cls.INPUT, cls.CANNOT_SCORE, cls.JUDGE):
            if error.startswith(kind.value):
                return kind
        if output is not None and output.error is None:
            return cls.NO_OUTPUT if not output.ok else cls.JUDGE
        return cls.MODEL


@dataclass(frozen=True, slots=True)
class Score:
    """One scorer's result for one sample.

    `values`: per-sample numbers for display (a sentence BLEU, a 0/1 correct);
    `stats`: the sufficient statistics corpus metrics sum (JSON-able);
    `detail`: what explains the score (normalised texts, why an answer did not match; for a
    judged scorer, every judge answer, kept in the record's `judge`).
    """

    values: ScoreValues
    stats: ScoreStats
    detail: dict[str, JsonValue] = field(default_factory=dict)

    def to_json(self) -> ScoreJson:
        return {"values": self.values, "stats": self.stats, "detail": self.detail}

    @classmethod
    def from_json(cls, data: ScoreJson) -> Score:
        return cls(dict(data["values"]), dict(data["stats"]), dict(data.get("detail") or {}))


def scores_to_json(scores: Mapping[str, Score] | None) -> dict[str, ScoreJson] | None:
    return None if scores is None else {name: s.to_json() for name, s in scores.items()}


def scores_from_json(data: Mapping[str, ScoreJson] | None) -> dict[str, Score] | None:
    return None if data is None else {str(name): Score.from_json(s) for name, s in data.items()}


@dataclass(frozen=True, slots=True)
class Answer:
    """The model's answer after post-processing: `text` None when no answer was found
    (`outcome` says why, e.g. "unparseable"); `detail` explains the extraction."""

    text: str | None
    outcome: str = "ok"
    detail: JsonValue = None

    def to_json(self) -> AnswerJson:
        return {"text": self.text, "outcome": self.outcome, "detail": self.detail}

    @classmethod
    def from_json(cls, data: AnswerJson) -> Answer:
        return cls(data.get("text"), str(data.get("outcome") or "ok"), data.get("detail"))


def _sample_to_json(sample: Sample) -> SampleJson:
    audio: dict[str, list[str | float | None]] = (
        {k: [a.path, a.start, a.end] for k, a in sample.audio.items()} if sample.audio else {}
    )
    return {"fields": dict(sample.fields), "audio": audio, "source": sample.source}


def _audio_ref(value: JsonValue) -> AudioRef:
    """A stored clip: [path, start, end]."""
    if not isinstance(value, list) or len(value) != 3 or not isinstance(value[0], str):
        raise ValueError(f"a clip is [path, start, end], not {value!r}")
    if any(v is not None and (isinstance(v, bool) or not isinstance(v, int | float)) for v in value[1:]):
        raise ValueError(f"a clip's start and end are seconds or null, not {value[1:]!r}")
    return AudioRef(value[0], value[1], value[2])


def _sample_from_json(sid: str, taxonomy: Taxonomy, data: SampleJson) -> Sample:
    audio = {str(k): _audio_ref(v) for k, v in (data.get("audio") or {}).items()}
    return Sample(sid, audio, dict(data.get("fields") or {}), dict(taxonomy), str(data.get("source") or ""))


@dataclass(slots=True)
class SampleRecord:
    """One line of `records.jsonl` (see the module doc)."""

    id: str
    sample: Sample  # what rescoring needs of the sample: fields, clips, taxonomy, source
    sample_sha256: str | None = None  # content hash of the sample (resume refuses other inputs)
    prompt_hash: str | None = None  # None: the prompt could not be rendered
    prompt: str | None = None  # the prompt's text parts
    output: ModelOutput | None = None  # None: the model was not asked
    processed: Answer | None = None
    scores: dict[str, Score] | None = None
    error: str | None = None
    failure: FailureKind | None = None
    error_detail: ErrorRecord | None = None  # file, id, field, line of the error, when known
    output_failed: bool = False  # the system's failure: no usable output
    failure_scores: dict[str, Score] | None = None  # what a failed output counts for
    judge: dict[str, JudgeAnswers] = field(default_factory=dict)  # judge answers by scorer
    time: float | None = None
    # What the judge's requests for this sample used (`core/usage.py`); None: no judge asked,
    # or a record written before usage was recorded. The model's is `output.usage`.
    judge_usage: Usage | None = None

    @property
    def taxonomy(self) -> Taxonomy:
        return self.sample.taxonomy

    @property
    def ok(self) -> bool:
        """Scored: no error and scores."""
        return self.error is None and self.scores is not None

    def failed(self, error: str, kind: FailureKind, detail: ErrorRecord | None = None) -> SampleRecord:
        """This record as a failure (`error` one line; `detail`: file, id, field)."""
        self.error, self.failure, self.scores, self.processed = error, kind, None, None
        if detail is not None:
            self.error_detail = detail
        return self

    def unscored(self) -> SampleRecord:
        """A copy without the outcome of scoring (answer, scores, failure), to score again."""
        return SampleRecord(
            self.id,
            self.sample,
            self.sample_sha256,
            self.prompt_hash,
            self.prompt,
            self.output,
            judge=dict(self.judge),
            time=self.time,
            judge_usage=self.judge_usage,
        )

    def to_json(self) -> RecordJson:
        out: RecordJson = {
            "id": self.id,
            "taxonomy": dict(self.sample.taxonomy),
            "sample": _sample_to_json(self.sample),
            "sample_sha256": self.sample_sha256,
        }
        if self.prompt_hash is not None:
            out["prompt_hash"] = self.prompt_hash
            out["prompt"] = self.prompt
        out["output"] = None if self.output is None else self.output.to_record()
        if self.processed is not None:
            out["processed"] = self.processed.to_json()
        if self.scores is not None:
            out["scores"] = scores_to_json(self.scores)
        out["error"] = self.error
        out["failure"] = None if self.failure is None else self.failure.value
        if self.error_detail is not None:
            out["error_detail"] = self.error_detail
        if self.output_failed:
            out["output_failed"] = True
            out["failure_scores"] = scores_to_json(self.failure_scores)
        if self.judge:
            out["judge"] = self.judge
        if self.time is not None:
            out["time"] = self.time
        if self.judge_usage is not None:
            out["judge_usage"] = self.judge_usage.to_record()
        return out

    @classmethod
    def from_json(cls, data: RecordJson) -> SampleRecord:
        """The record of a line `to_json` wrote (checked first: `store/records.py`). A record
        of an earlier version (judge answers in the score's detail, no failure kind) is read
        as its equivalent."""
        sid = str(data["id"])
        output = data.get("output")
        out = ModelOutput.from_record(output) if isinstance(output, Mapping) else None
        processed = data.get("processed")
        scores = scores_from_json(data.get("scores"))
        judge = {str(k): dict(v) for k, v in (data.get("judge") or {}).items()}
        for name in data.get("judged_by") or ():  # earlier: judge answers were the score's detail
            if scores is not None and name in scores and name not in judge:
                judge[name] = scores[name].detail
                scores[name] = Score(scores[name].values, scores[name].stats)
        error = data.get("error")
        kind = data.get("failure")
        failure = FailureKind(kind) if kind else None
        if error is not None and failure is None:
            failure = FailureKind.of_error(str(error), out)
        return cls(
            sid,
            _sample_from_json(sid, data.get("taxonomy") or {}, data.get("sample") or {}),
            data.get("sample_sha256"),
            data.get("prompt_hash"),
            data.get("prompt"),
            out,
            Answer.from_json(processed) if isinstance(processed, Mapping) else None,
            scores,
            None if error is None else str(error),
            failure,
            data.get("error_detail"),
            bool(data.get("output_failed")),
            scores_from_json(data.get("failure_scores")),
            judge,
            data.get("time"),
            Usage.from_record(data["judge_usage"]) if "judge_usage" in data else None,
        )


def latest_records(records: Iterable[SampleRecord]) -> dict[str, SampleRecord]:
    """The latest record of each sample id (a rerun appends a new record for a sample)."""
    return {rec.id: rec for rec in records}


def in_order(records: Iterable[SampleRecord], ids: Sequence[str]) -> list[SampleRecord]:
    """The latest record of each id, in the benchmark's order (ids without a record are left out)."""
    latest = latest_records(records)
    return [latest[i] for i in ids if i in latest]
