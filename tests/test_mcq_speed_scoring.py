"""The scoring, record and export fast paths of `mcq score` pinned to the general ones: each
fast path gives what the general code gives (the same values, the same errors), on the inputs
it takes and on those it hands back to the general code."""

from __future__ import annotations

import json
import math
import os
import random
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from audioeval.benchmarks.mcq.definitions import MMAR
from audioeval.benchmarks.mcq.export import McqScoreResult, item_row
from audioeval.benchmarks.mcq.loading import load_mcq_file
from audioeval.core.checks import non_finite_field
from audioeval.core.errors import InputError
from audioeval.core.record import SampleRecord
from audioeval.core.sample import Sample
from audioeval.engine.sample_pipeline import _plainly_finite
from audioeval.metrics import bootstrap
from audioeval.postprocess import choice_extraction
from audioeval.postprocess.choice_extraction import extract_choice
from audioeval.postprocess.markdown import strip_markdown
from audioeval.postprocess.options import Options, words
from audioeval.postprocess.think_tags import split_think
from audioeval.scoring.fields import text_list
from audioeval.scoring.mcq_fields import question
from audioeval.scoring.mcq_official import distractor_tokens, official_match, tokens
from audioeval.scoring.mcq_robust import answer_index
from audioeval.store.jsonl import JsonlAppender
from audioeval.store.records import _block_problem, _number_problem, record_problem

FIELD_VALUES: list[Any] = [
    "Cat",
    "",
    3,
    2.5,
    True,
    None,
    ["Dog", "Cat"],
    ["Dog", 3, 2.5],
    [],
    ["Dog", None],
    ("Dog", "Cat"),
    {"a": "Dog"},
    [["Dog"]],
]


def _general(sample: Sample, scorer: str) -> tuple[str, tuple[str, ...]] | str:
    try:
        return text_list(sample, "answer", scorer)[0], tuple(text_list(sample, "choices", scorer))
    except InputError as exc:
        return str(exc)


def _fast(sample: Sample, scorer: str) -> tuple[str, tuple[str, ...]] | str:
    try:
        return question(sample, "answer", "choices", scorer)
    except InputError as exc:
        return str(exc)


@pytest.mark.parametrize("answer", FIELD_VALUES)
@pytest.mark.parametrize("choices", FIELD_VALUES)
def test_question_fields_are_what_text_list_reads(answer: Any, choices: Any) -> None:
    fields = {k: v for k, v in (("answer", answer), ("choices", choices)) if v is not None}
    sample = Sample("s1", fields=fields, source="preds.jsonl")
    assert _fast(sample, "mcq_match") == _general(sample, "mcq_match")


def _official_reference(answer: str, prediction: str, choices: list[str]) -> tuple[Any, ...]:
    """`official_match` with nothing kept between calls."""
    p = tokens(prediction)
    if not p:
        return (False, "empty_prediction", (), ())
    a = tokens(answer)
    missing, conflicts = a - p, p & distractor_tokens(answer, choices)
    if missing:
        return (False, "answer_tokens_missing", tuple(sorted(missing)), tuple(sorted(conflicts)))
    if conflicts:
        return (False, "distractor_tokens", (), tuple(sorted(conflicts)))
    return (True, "match", (), ())


def test_the_kept_question_tokens_are_those_of_each_call() -> None:
    rng = random.Random(3)
    vocab = ["near", "far", "to", "from", "dog", "cat", "big", "Big", "the", "2", "é"]
    for _ in range(3000):  # few distinct questions: most calls reuse the kept tokens
        choices = [" ".join(rng.choices(vocab[:6], k=rng.randint(1, 3))) for _ in range(rng.randint(2, 4))]
        answer = rng.choice([*choices, "from near to far"])
        prediction = " ".join(rng.choices(vocab, k=rng.randint(0, 5)))
        m = official_match(answer, prediction, choices)
        assert (m.correct, m.reason, m.missing, m.conflicts) == _official_reference(
            answer, prediction, choices
        )


def test_the_kept_options_are_those_of_each_question(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(5)
    vocab = ["A", "B", "yes", "no", "dog", "Dog", "cat", "the", "answer", "is", ":", "(C)", "\n"]
    cases = []
    for _ in range(2000):  # few distinct questions: most calls reuse the kept options
        choices = [" ".join(rng.choices(vocab[:8], k=rng.randint(1, 2))) for _ in range(rng.randint(2, 4))]
        cases.append((" ".join(rng.choices(vocab, k=rng.randint(0, 8))), choices))
    kept = [extract_choice(text, choices) for text, choices in cases]
    monkeypatch.setattr(choice_extraction, "_options", Options)  # prepared anew at every call
    read_anew = choice_extraction._extract.__wrapped__  # and every answer read anew
    assert kept == [read_anew(text, tuple(choices)) for text, choices in cases]


BLOCKS: list[dict[str, Any]] = [
    {"correct": 0, "mcq_match": 0.0},
    {"correct": 1, "x": 1e300, "flag": True, "none": None, "why": "text"},
    {"correct": 2},
    {"correct": -1},
    {"correct": 1.5},
    {"correct": True},
    {"ifr": 100.0, "cr": 100.5},
    {"em": -0.0},
    {"x": math.nan},
    {"x": math.inf, "y": math.nan},
    {"x": -math.inf},
    {"x": np.float64(0.5), "correct": np.float64(2.0)},
    {"x": np.int64(3)},
    {"correct": [0, 1, 2]},
    {"x": [1.0, math.nan]},
    {"x": {"correct": 2}},
    {"x": {"y": [math.inf]}},
    {"x": 1, "y": "a", "z": math.nan},
    {"x": object()},
    {"x": complex(1, 1)},
    {},
]


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("part", ["values", "stats"])
def test_a_score_block_is_checked_as_the_general_check_does(block: dict[str, Any], part: str) -> None:
    def outcome(check: Any) -> str | None:
        try:
            return check()
        except (TypeError, OverflowError) as exc:
            return f"raises {type(exc).__name__}"

    assert outcome(lambda: _block_problem(block)) == outcome(lambda: _number_problem(part, block))


def test_a_huge_integer_still_raises_as_in_the_general_check() -> None:
    huge = {"x": 10**400}
    with pytest.raises(OverflowError):
        _number_problem("stats", huge)
    with pytest.raises(OverflowError):
        _block_problem(huge)


def test_record_problem_names_the_first_bad_number() -> None:
    rec = {"id": "s1", "error": None, "scores": {"m": {"values": {"m": 0.0}, "stats": {"correct": 3}}}}
    assert record_problem(rec) == "id 's1': scores.m.stats: correct 3 is outside 0–1"
    rec["scores"]["m"]["values"] = {"m": math.nan}
    assert record_problem(rec) == "id 's1': scores.m.values: m nan is not a finite number"


@pytest.mark.parametrize("block", BLOCKS)
def test_a_plainly_finite_block_has_no_non_finite_field(block: dict[str, Any]) -> None:
    if _plainly_finite(block):
        assert non_finite_field({"values": block, "stats": block}) is None
    plain = all(
        type(v) in (int, bool, str) or v is None or (type(v) is float and math.isfinite(v))
        for v in block.values()
    )
    assert _plainly_finite(block) == plain


@pytest.mark.parametrize(
    "record",
    [
        {"id": "s1", "text": "Dög “quoted” \n\t\\ \u2028", "x": 0.1, "y": -0.0, "z": 1e16, "n": None},
        {"id": "s2", "scores": {"m": {"values": {"m": 1.0}, "stats": {"correct": 1}}}, "list": [1, "a", {}]},
    ],
)
def test_an_appended_line_is_json_dumps_of_the_record(tmp_path: Path, record: dict[str, Any]) -> None:
    with JsonlAppender(tmp_path / "r.jsonl") as writer:
        assert writer.append(record)
    expected = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    assert (tmp_path / "r.jsonl").read_bytes() == expected


def _rows(n: int, *, rubric: bool) -> list[dict[str, Any]]:
    rng = random.Random(n)
    rows = []
    for i in range(n):
        row: dict[str, Any] = {
            "id": f"q{i}",
            "modality": rng.choice(["sound", "music", ["sound", "speech"], None]),
            "category": rng.choice(["Signal Layer", "Semantic Layer"]),
            "sub-category": rng.choice(["Counting", "Emotion", 7]),
            "official": rng.choice([0, 1, None]),
            "robust": rng.choice([0, 1]),
            "unparseable": rng.choice([0, 0, 1]),
        }
        if rubric and i % 3 == 0:
            row["rubric_score"] = rng.choice([None, 0.25, 0.75])
        rows.append(row)
    return rows


def test_an_mcq_result_repr_leaves_out_its_rows() -> None:
    rows = [{"id": f"q{i}", "answer": "x" * 100} for i in range(1000)]
    result = McqScoreResult(MMAR, rows, {"counts": rows}, rows, None)
    assert "x" * 100 not in repr(result) and len(repr(result)) < 2000


def test_a_file_read_again_is_parsed_again_when_its_bytes_differ(tmp_path: Path) -> None:
    path = tmp_path / "preds.jsonl"
    item = {"id": "q1", "question": "Which?", "choices": ["Dog", "Cat"], "answer": "Cat", "modality": "sound"}
    item.update({"category": "Signal Layer", "sub-category": "Counting"})
    path.write_text(json.dumps({**item, "answer_prediction": "Dog"}) + "\n", encoding="utf-8")
    first = load_mcq_file(path, MMAR)
    assert load_mcq_file(path, MMAR).items == first.items  # the same bytes: the same items
    stat = path.stat()
    path.write_text(json.dumps({**item, "answer_prediction": "Cow"}) + "\n", encoding="utf-8")  # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size
    assert load_mcq_file(path, MMAR).items[0].prediction == "Cow"
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(path.read_bytes())
    assert load_mcq_file(copy, MMAR).path == copy  # a hit under another name names its own file


STATEMENT = re.compile(
    r"\b(?:final\s+answer|(?:correct|right|best|final)\s+(?:answer|option|choice)|answer)"
    r"(?:\s*(?:is|would\s+be|should\s+be|will\s+be)\s*:?|\s*[:=])\s*"
    r"|\bI(?:\s+would|'d|\s+will)?\s+(?:choose|select|pick)\s+|\\boxed\{",
    re.IGNORECASE,
)  # the answer statement as first written: `choice_extraction._STATEMENT_RE` finds the same


def _texts(rng: random.Random, parts: list[str], n: int) -> list[str]:
    return ["".join(rng.choices(parts, k=rng.randint(0, 12))) for _ in range(n)]


STATEMENT_PARTS = [
    "answer", "Answer", "ANSWER", "final", "Final answer", "correct option", "right choice", "best",
    "I", "i", "İ", "ı", "ſ", "K", " ", "\n", "\t", ":", "=", " is ", " would be", "'d", " will",
    " choose ", " select ", "pick", "\\boxed{", "\\", "{", "B", "(C)", "x", "é", "_", "-", "3",
    "anſwer", "fınal", "rİght", "chooſe",
]  # fmt: skip


def test_the_answer_statements_found_are_those_of_the_statement_as_written() -> None:
    rng = random.Random(11)
    for text in _texts(rng, STATEMENT_PARTS, 20000):
        found = [(m.start(), m.end()) for m in choice_extraction._STATEMENT_RE.finditer(text)]
        assert found == [(m.start(), m.end()) for m in STATEMENT.finditer(text)], text


def test_the_statement_starts_with_every_character_that_can_start_one() -> None:
    """The leading set holds each character that is one of f, c, r, b, a, i ignoring case (as
    this Python's regex engine folds case), and the backslash."""
    firsts = {chr(c) for c in range(sys.maxunicode + 1) if re.fullmatch(r"(?i)[fcrbai]", chr(c))}
    lead = re.compile(
        choice_extraction._STATEMENT_RE.pattern[: choice_extraction._STATEMENT_RE.pattern.index("]") + 1]
    )
    assert {chr(c) for c in range(sys.maxunicode + 1) if lead.fullmatch(chr(c))} == firsts | {"\\"}


WORD_PARTS = [
    "Dog",
    "dög",
    "İ",
    "ß",
    "ǅ",
    "_x",
    "3.5",
    " ",
    "-",
    "'",
    "\n",
    "ﬁ",
    "Ⅻ",
    "٣",
    "a\u0301",
    "\u200d",
    "K",
]


def test_the_official_tokens_are_the_word_matches_as_written() -> None:
    rng = random.Random(13)
    for text in _texts(rng, WORD_PARTS, 5000):
        assert tokens(text) == frozenset(re.findall(r"\b\w+\b", text.lower())), text


def test_words_of_an_ascii_text_are_its_word_matches() -> None:
    rng = random.Random(23)
    ascii_chars = [chr(c) for c in range(128)]
    for _ in range(20000):
        text = "".join(rng.choices(ascii_chars, k=rng.randint(0, 30)))
        assert words.__wrapped__(text) == tuple(re.findall(r"\w+", text.lower())), repr(text)


THINK_PARTS = [
    "<think>",
    "</think>",
    "<THINK>",
    "<",
    ">",
    "x",
    " ",
    "\n",
    "**",
    "__",
    "_",
    "*",
    "`",
    "$",
    "#",
    "> ",
    "B",
]


def test_text_steps_without_their_marks_are_only_stripped() -> None:
    rng = random.Random(17)
    for text in _texts(rng, THINK_PARTS, 20000):
        assert split_think(text) == _split_think_as_written(text)
        assert strip_markdown(text) == MARKDOWN_LINE.sub("", MARKDOWN_MARKS.sub("", text)).strip()


MARKDOWN_MARKS = re.compile(r"\*\*|__|`+|\$")
MARKDOWN_LINE = re.compile(r"^[ \t]*(?:#+|>+)[ \t]*", re.MULTILINE)


def _split_think_as_written(text: str) -> tuple[str, str]:
    """`think_tags.split_think` without its fast path for a reply holding no "<"."""
    block = re.compile(r"<think>(.*?)</think>", re.DOTALL | re.IGNORECASE)
    close, open_ = re.compile("</think>", re.IGNORECASE), re.compile("<think>", re.IGNORECASE)
    reasoning = [m.group(1) for m in block.finditer(text)]
    rest = block.sub(" ", text)
    closes = list(close.finditer(rest))
    if closes:
        reasoning.append(rest[: closes[-1].start()])
        rest = rest[closes[-1].end() :]
    opened = open_.search(rest)
    if opened:
        reasoning.append(rest[opened.end() :])
        rest = rest[: opened.start()]
    return rest.strip(), "\n".join(r.strip() for r in reasoning if r.strip())


def test_an_exact_option_is_the_first_with_those_words_and_a_prefix_the_longest() -> None:
    rng = random.Random(19)
    vocab = ["Dog", "dog", "Cat", "the cat", "", "!", "Cat."]
    for _ in range(2000):
        opts = Options(rng.choices(vocab, k=rng.randint(1, 5)))
        for ws in [*opts.words, *((*w, "x") for w in opts.words), (), ("cat",), ("zebra",)]:
            first = next((i for i, w in enumerate(opts.words) if w == ws), None) if ws else None
            assert opts.exact(ws) == first
            hits = [i for i, w in enumerate(opts.words) if w and ws[: len(w)] == w]
            assert opts.prefix(ws) == (max(hits, key=lambda i: (len(opts.words[i]), -i)) if hits else None)
        assert opts.canon == [opts.words.index(w) for w in opts.words]


@pytest.mark.parametrize("n", [1, 2, 7, 999, 1000, 1001, 4001])
@pytest.mark.parametrize("resamples", [1, 9, 1000])
def test_resample_counts_per_row_are_those_of_one_bincount(
    n: int, resamples: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    def chunks(row_min: int) -> list[np.ndarray]:
        monkeypatch.setattr(bootstrap, "ROW_BINCOUNT_MIN", row_min)
        return [
            c.copy() for c in bootstrap.resample_counts(n, n_resamples=resamples, seed=3, max_cells=40_000)
        ]

    per_row, flat = chunks(1), chunks(10**9)
    assert len(per_row) == len(flat)
    assert all(a.shape == b.shape and (a == b).all() for a, b in zip(per_row, flat, strict=True))


def _item_row_as_written(rec: SampleRecord) -> dict[str, Any]:
    fields = rec.sample.fields
    row: dict[str, Any] = {"id": rec.id, "line": fields.get("line"), **rec.taxonomy}
    row.update(answer=fields["answer"], prediction=fields.get("prediction"))
    ai = answer_index(fields["answer"], fields["choices"])
    row["answer_letter"] = None if ai is None else "ABCDEF"[ai]
    return row


@pytest.mark.parametrize(
    "taxonomy",
    [{}, {"modality": "sound"}, {"answer": "x", "id": "y", "answer_letter": "z", "line": 9, "modality": "m"}],
)
def test_an_item_row_keeps_the_order_of_its_keys(taxonomy: dict[str, Any]) -> None:
    fields = {"choices": ["Dog", "Cat"], "answer": "Cat", "line": 3, "prediction": None}
    rec = SampleRecord("q1", Sample("q1", fields=fields, taxonomy=taxonomy))
    row = item_row(rec)
    written = _item_row_as_written(rec)
    assert list(row.items())[: len(written)] == list(written.items())
