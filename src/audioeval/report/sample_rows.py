"""What the sample browser shows of one record: a small index entry (drawn in the list, searched
and filtered) and the sample's details (loaded only when the sample is opened:
`report/sample_chunks.py`).

Details: the input (question, instruction, text), the reference or gold answer (for multiple
choice the gold letter and text), the model's raw and processed answer, the word-level diff
of reference and hypothesis after the scorer's normaliser (`report/word_diff.py`), the scores,
the clips (copied into the report folder: `report/clips.py`), and for a judged sample each
rubric's question and options as the judge saw them with one compact vote per row: the order
the options were shown in (their numbers in the rubric's own list), the judge's letter, the
verdict and its reason. No path of the machine that made the page is written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TypedDict

from audioeval.core.json_value import JsonValue
from audioeval.core.record import JudgeAnswers, SampleRecord, ScoreJson
from audioeval.core.redact import redact
from audioeval.report.clips import ClipCopier
from audioeval.report.units import SampleUnit, show_sample, unit_of
from audioeval.report.word_diff import WordDiff, diff_of_scores
from audioeval.store.bounded_json import loads

REASON_CHARS = 400
SHOWN_CHARS = 20_000
"""The most of one text (answer, prompt, input, reference) a page shows; past it the text is
cut with a note that the full text is in `records.jsonl` (a report page stays small however
long the answers: docs/reliability.md, "Bounds"). A word diff is drawn only when both its
texts fit."""
SHOWN_FIELDS = ("question", "instruction", "text", "context", "language")
REFERENCE_FIELDS = ("reference", "references", "target", "caption", "captions")

StoredPart = Mapping[str, JsonValue]
"""A part of a judge's stored answers the browser reads defensively (its layout is the scorer's)."""


class IndexEntry(TypedDict):
    """A sample in the browser's list: id, status (`ok`, `wrong`, `failed`), the headline value
    as stored (`sc`) and as shown in its unit (`t`), groups (`key=value`), search text (`q`)."""

    id: str
    st: str
    sc: float | None
    t: str | None
    g: list[str]
    q: str


class Gold(TypedDict):
    """A multiple-choice sample's gold letter and text, its options, and the model's pick."""

    letter: str | None
    text: str
    choices: list[str]
    pick: str | None
    pick_by: str | None


class RubricRow(TypedDict):
    """A rubric of a judged sample as the browser shows it, its votes as [order, letter,
    verdict, reason]."""

    scorer: str
    category: JsonValue
    question: JsonValue
    options: list[str]
    right: int | None
    score: JsonValue
    failed: JsonValue
    votes: list[list[JsonValue]]


class SampleDetails(TypedDict):
    """Everything the browser shows of an opened sample (`details`)."""

    id: str
    inputs: list[list[str]]
    prompt: str | None
    reference: JsonValue
    gold: Gold | None
    answer: str | None
    output_error: str | None
    processed: str | None
    outcome: str | None
    error: str | None
    scores: list[list[JsonValue]]
    diff: WordDiff | None
    rubrics: list[RubricRow]
    judge_other: list[list[str]]
    taxonomy: list[list[str]]
    audio: list[list[str | None]]


def _finite(v: JsonValue) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        return None
    return float(v)


def capped(text: JsonValue) -> JsonValue:
    """`text` as the page shows it: past `SHOWN_CHARS`, cut, with a note saying where the
    full text is."""
    if not isinstance(text, str) or len(text) <= SHOWN_CHARS:
        return text
    return (
        text[:SHOWN_CHARS]
        + f" … [cut at {SHOWN_CHARS:,} of {len(text):,} characters: the full text is in records.jsonl]"
    )


def _diff(scores: Mapping[str, ScoreJson]) -> WordDiff | None:
    for score in scores.values():
        detail = score.get("detail") if isinstance(score, dict) else None
        if isinstance(detail, dict) and any(
            len(str(detail.get(k) or "")) > SHOWN_CHARS for k in ("reference", "hypothesis")
        ):
            return None  # too long to draw (the texts are shown cut)
    return diff_of_scores(scores)


def primary_score(rec: SampleRecord, key: str | None) -> float | None:
    """The per-sample value the pair's headline is made of: None when the sample has it
    undefined (MMAE's IFR of a sample whose instruction rubric failed), never another value in
    its place; the first number scored only when no score has that key at all."""
    if not rec.scores:
        return None
    every = [(k, v) for s in rec.scores.values() for k, v in s.values.items()]
    for k, v in every:
        if key and k.lower() == key.lower():
            return _finite(v)
    values = [v for _, v in every if _finite(v) is not None]
    return float(values[0]) if values else None


def _pick(rec: SampleRecord, choices: list[str]) -> tuple[str | None, str | None]:
    """The option the model picked, as a letter, and what says so: a scorer that recorded the
    choice it read (`detail.choice`, e.g. `mcq_robust`), else a processed answer that is one
    option's text or letter; (None, None) when neither names exactly one option (nothing is
    marked: the answer is shown as it is)."""
    for name, score in (rec.scores or {}).items():
        letter = score.detail.get("choice") if isinstance(score.detail, dict) else None
        if isinstance(letter, str) and len(letter) == 1 and 0 <= ord(letter.upper()) - 65 < len(choices):
            return letter.upper(), name
    text = (rec.processed.text if rec.processed is not None else None) or ""
    text = text.strip()
    matches = [i for i, c in enumerate(choices) if c.strip() == text] if text else []
    if len(matches) == 1:
        return chr(65 + matches[0]), "the processed answer"
    if len(text) == 1 and text.isalpha() and 0 <= ord(text.upper()) - 65 < len(choices):
        return text.upper(), "the processed answer"
    return None, None


def _gold(fields: StoredPart, rec: SampleRecord) -> Gold | None:
    """A multiple-choice sample's gold letter and text, its options (shown lettered A, B, …),
    and the model's pick (`_pick`)."""
    choices, answer = fields.get("choices"), fields.get("answer")
    if not isinstance(choices, list) or answer is None:
        return None
    text = str(answer)
    letter = next((chr(65 + i) for i, c in enumerate(choices) if str(c) == text), None)
    if letter is None and len(text) == 1 and text.isalpha() and ord(text.upper()) - 65 < len(choices):
        letter, text = text.upper(), str(choices[ord(text.upper()) - 65])
    shown = [str(c) for c in choices]
    pick, pick_by = _pick(rec, shown)
    return {"letter": letter, "text": text, "choices": shown, "pick": pick, "pick_by": pick_by}


def _reason(raw: JsonValue) -> str:
    text = raw if isinstance(raw, str) else json.dumps(raw, ensure_ascii=False, default=str)
    try:
        parsed = loads(text)
    except (ValueError, TypeError):
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("reason"), str):
        text = parsed["reason"]
    text = redact(text)
    return text if len(text) <= REASON_CHARS else text[: REASON_CHARS - 1] + "…"


def _rubric_options(entry: StoredPart, source: StoredPart) -> list[str]:
    right, wrong = source.get("right_choice"), source.get("wrong_choices")
    if isinstance(right, str) and isinstance(wrong, list):
        return [right, *map(str, wrong)]
    first = next((a.get("options") for a in entry.get("attempts") or [] if a.get("options")), None)
    return [str(o) for o in first or []]


def _verdict(attempt: StoredPart) -> str:
    if attempt.get("error") or attempt.get("valid") is False:
        return "invalid"
    correct = attempt.get("correct", attempt.get("verdict"))
    return "right" if correct is True else "wrong" if correct is False else str(correct)


def rubric_rows(judge: Mapping[str, JudgeAnswers], fields: StoredPart) -> list[RubricRow]:
    """Each rubric of a judged sample: question, options (the rubric's own order, the right one
    marked), score, and its votes as [order, letter, verdict, reason]."""
    sources = fields.get("rubrics") if isinstance(fields.get("rubrics"), list) else []
    out = []
    for scorer, block in judge.items():
        rubrics = block.get("rubrics") if isinstance(block, dict) else None
        if not isinstance(rubrics, list):
            continue
        for i, entry in enumerate(r for r in rubrics if isinstance(r, dict)):
            index = entry.get("rubric_index", i)
            src = sources[index] if isinstance(index, int) and 0 <= index < len(sources) else {}
            src = src if isinstance(src, dict) else {}
            options = _rubric_options(entry, src)
            votes = []
            for a in entry.get("attempts") or []:
                shown = [str(o) for o in a.get("options") or []]
                order = " ".join(str(options.index(o) + 1) if o in options else "?" for o in shown)
                votes.append(
                    [
                        order,
                        a.get("letter") or "–",
                        _verdict(a),
                        _reason(a.get("raw") or a.get("error") or ""),
                    ]
                )
            out.append(
                {
                    "scorer": scorer,
                    "category": entry.get("category") or src.get("category"),
                    "question": entry.get("question") or src.get("question") or f"rubric {index}",
                    "options": options,
                    "right": 1 if src.get("right_choice") else None,
                    "score": entry.get("score"),
                    "failed": entry.get("failure") if entry.get("failed") else None,
                    "votes": votes,
                }
            )
    return out


def other_judge(judge: Mapping[str, JudgeAnswers]) -> list[list[str]]:
    """A judge answer that is not rubric votes: [scorer, its JSON, shown on demand]."""
    out = []
    for scorer, block in judge.items():
        if isinstance(block, dict) and isinstance(block.get("rubrics"), list):
            continue
        text = json.dumps(block, ensure_ascii=False, indent=1, default=str)
        out.append([scorer, redact(text[:20000])])
    return out


def index_entry(
    rec: SampleRecord, score: float | None, wrong: bool | None, unit: SampleUnit | None = None
) -> IndexEntry:
    """What the list draws and filters on: id, status, the headline value (`sc`, as stored) and
    its text in the metric's unit (`t`: `10.00 %`, MMAE's IFR 0.5 `50.00 %`), groups, search
    text."""
    out = rec.output
    answer = None if out is None else out.text
    groups = []
    for k, v in rec.sample.taxonomy.items():
        for item in v if isinstance(v, list) else [v]:
            groups.append(f"{k}={item}")
    status = "failed" if rec.error else ("wrong" if wrong else "ok")
    words = [rec.id, answer or "", rec.error or "", str(rec.sample.fields.get("reference") or "")]
    text = None if score is None else show_sample(score, unit)
    return {
        "id": rec.id,
        "st": status,
        "sc": score,
        "t": text,
        "g": groups,
        "q": " ".join(words).lower()[:400],
    }


def _score_rows(scores: Mapping[str, ScoreJson], units: dict[str, SampleUnit]) -> list[list[JsonValue]]:
    """[scorer, key, value as stored, value as shown in its metric's unit]."""
    rows = []
    for n, s in scores.items():
        for k, v in s["values"].items():
            number = isinstance(v, int | float) and not isinstance(v, bool)
            rows.append([n, k, v, show_sample(v, unit_of(k, units)) if number else str(v)])
    return rows


def details(
    rec: SampleRecord, clips: ClipCopier, units: dict[str, SampleUnit] | None = None
) -> SampleDetails:
    """Everything the browser shows of an opened sample (see the module doc); `units`: how
    each per-sample value key is shown (`units.sample_units` of the pair's metrics)."""
    fields = dict(rec.sample.fields)
    out = rec.output
    scores = {n: s.to_json() for n, s in (rec.scores or {}).items()}
    shown_inputs = [
        [k, capped(str(fields[k]))] for k in SHOWN_FIELDS if isinstance(fields.get(k), str | int | float)
    ]
    reference = next((fields[k] for k in REFERENCE_FIELDS if fields.get(k) not in (None, "", [])), None)
    audio = []
    for name, ref in rec.sample.audio.items():
        if name == "audio" and any(r.path == ref.path and n != name for n, r in rec.sample.audio.items()):
            continue  # the same clip under a second name
        link = clips.link(ref.path)
        label = name if not ref.is_slice else f"{name} [{ref.start}:{ref.end}]"
        if link and ref.is_slice:
            link += f"#t={ref.start or 0},{ref.end if ref.end is not None else ''}".rstrip(",")
        audio.append([label, link])
    if out is not None and out.audio_path:
        audio.append(["output", clips.link(out.audio_path)])
    for key in ("reference_audio", "reference_voice"):
        if isinstance(fields.get(key), str):
            audio.append([key.replace("_", " "), clips.link(fields[key])])
    return {
        "id": rec.id,
        "inputs": shown_inputs,
        "prompt": capped(rec.prompt),
        "reference": capped(reference),
        "gold": _gold(fields, rec),
        "answer": None if out is None else capped(out.text),
        "output_error": None if out is None or out.error is None else capped(redact(out.error)),
        "processed": None if rec.processed is None else capped(rec.processed.text),
        "outcome": None if rec.processed is None else rec.processed.outcome,
        "error": None if rec.error is None else capped(f"{rec.failure or ''}: {redact(rec.error)}"),
        "scores": _score_rows(scores, units or {}),
        "diff": _diff(scores),
        "rubrics": rubric_rows(rec.judge or {}, fields),
        "judge_other": other_judge(rec.judge or {}),
        "taxonomy": [
            [k, ", ".join(map(str, v)) if isinstance(v, list) else str(v)]
            for k, v in rec.sample.taxonomy.items()
        ],
        "audio": audio,
    }
