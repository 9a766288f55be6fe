"""Robust mode: every extraction form, unparseable as an outcome, and its place in results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audioeval.benchmarks.mcq.definitions import MMAU
from audioeval.postprocess.chain import ROBUST_MCQ
from audioeval.postprocess.choice_extraction import extract_choice
from audioeval.postprocess.markdown import strip_markdown
from audioeval.postprocess.think_tags import split_think, strip_think
from tests.run_helpers import mcq_score_file as score_file

PRESIDENTS = ["Richard Nixon", "Lyndon B. Johnson", "John F. Kennedy", "Gerald Ford"]


@pytest.mark.parametrize(
    ("text", "letter", "method"),
    [
        ("B", "B", "letter"),
        ("(B)", "B", "letter"),
        ("B.", "B", "letter"),
        ("b)", "B", "letter"),
        ("[C]", "C", "letter"),
        ("(B) Lyndon B. Johnson", "B", "letter"),
        ("D. Gerald Ford", "D", "letter"),
        ("Answer: B", "B", "answer_statement"),
        ("The answer is B.", "B", "answer_statement"),
        ("the answer is (C)", "C", "answer_statement"),
        ("The correct option is Gerald Ford.", "D", "answer_statement"),
        ("Final answer: John F. Kennedy", "C", "answer_statement"),
        ("I choose A", "A", "answer_statement"),
        ("\\boxed{D}", "D", "answer_statement"),
        ("**Answer:** D", "D", "answer_statement"),
        ("The answer is option B", "B", "answer_statement"),
        ("Richard Nixon", "A", "option_text"),
        ("richard nixon.", "A", "option_text"),
        ("  Gerald   Ford  ", "D", "option_text"),
        ("Gerald Ford, since he was not elected.", "D", "leading_option_text"),
        ("Thinking about the era of the recording...\nC", "C", "last_line"),
        ("Thinking about it.\n(B) Lyndon B. Johnson", "B", "last_line"),
        ("The speech sounds like John F. Kennedy to me", "C", "only_option_mentioned"),
    ],
)
def test_extraction_forms(text: str, letter: str, method: str) -> None:
    got = ROBUST_MCQ(text, PRESIDENTS)
    assert (got.letter, got.method) == (letter, method)


def test_last_stated_answer_wins_in_long_reasoning() -> None:
    text = (
        "Option A, Richard Nixon, resigned; Gerald Ford succeeded him. At first I thought "
        "the answer is Gerald Ford. Re-listening to the accent, the answer is B."
    )
    got = ROBUST_MCQ(text, PRESIDENTS)
    assert (got.letter, got.method) == ("B", "answer_statement")


def test_think_blocks_are_removed_before_reading() -> None:
    text = "<think>Could be Richard Nixon. The answer is A?</think>\nThe answer is Gerald Ford."
    assert ROBUST_MCQ(text, PRESIDENTS).letter == "D"
    assert ROBUST_MCQ("Reasoning without an opening tag</think>C", PRESIDENTS).letter == "C"
    assert strip_think("<think>cut off mid-reason") == ""
    assert split_think("<think>why</think> B") == ("B", "why")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty answer"),
        ("<think>The answer is A</think>", "empty answer"),
        ("I cannot tell from this audio.", "no option found"),
        ("E", "letter E is not an option (A-D)"),
        ("The answer is F.", "stated letter F is not an option (A-D)"),
        ("A. Lyndon B. Johnson", "letter A is followed by the text of another option"),
        ("Either Richard Nixon or Gerald Ford", "several options mentioned (A, D) and no stated answer"),
    ],
)
def test_unparseable_is_an_outcome_never_a_guess(text: str, reason: str) -> None:
    got = ROBUST_MCQ(text, PRESIDENTS)
    assert got.index is None and got.method == "unparseable" and got.reason == reason


def test_a_letter_that_is_also_another_options_text_is_ambiguous() -> None:
    notes = ["G", "D", "E", "C"]  # an MMAU item: options are note names
    for text in ("C", "Answer: C", "The answer is (C)"):
        got = extract_choice(text, notes)
        assert got.index is None
        assert got.reason == "'C' is both option letter C and the text of option D"
    assert extract_choice("G", notes).letter == "A"  # no option letter G: the text decides
    assert extract_choice("Answer: E", notes).letter == "C"
    assert extract_choice("(A)", notes).letter == "A"  # no option is named "A": the letter


@pytest.mark.parametrize(
    "text",
    [
        "The correct answer is: A woman",
        "The answer is A woman.",
        "Answer: A woman, because the voice is high",
        "I choose A woman",
        "the best option is (B) A woman",
        "Final answer: \\boxed{A woman}",
    ],
)
def test_a_stated_option_text_that_starts_with_a_letter_word_is_that_option(text: str) -> None:
    """An option's text beginning with "A" is no lone letter: no clash with option A."""
    assert extract_choice(text, ["A man", "A woman", "A child", "I don't know"]).letter == "B"


def test_a_lone_letter_still_clashes_after_a_statement() -> None:
    sizes = ["B", "A", "C", "D"]  # option B's whole text is the letter A
    got = extract_choice("The correct answer is: A", sizes)
    assert got.index is None and "both option letter A and the text of option B" in (got.reason or "")
    assert extract_choice("The answer is A man", ["A man", "A woman"]).letter == "A"


def test_word_order_matters_in_robust_mode() -> None:
    choices = ["From far to near", "From near to far"]
    assert ROBUST_MCQ("From near to far", choices).letter == "B"


def test_longest_option_wins_over_an_option_inside_it() -> None:
    choices = ["Dog", "Dog barking", "Cat"]
    assert ROBUST_MCQ("I hear a dog barking loudly", choices).letter == "B"
    assert ROBUST_MCQ("The answer is Dog barking", choices).letter == "B"


def test_repeated_choices_are_one_answer() -> None:
    choices = ["thirteen", "twenty", "thirteen", "five"]
    assert ROBUST_MCQ("thirteen", choices).letter == "A"
    assert ROBUST_MCQ("(C) thirteen", choices).letter == "C"
    assert ROBUST_MCQ("I counted thirteen beeps", choices).letter == "A"


def test_markdown_step() -> None:
    assert strip_markdown("## **B**") == "B"
    assert ROBUST_MCQ.describe() == {
        "name": "mcq-robust-v1",
        "steps": ["strip_think", "strip_markdown", "extract_choice"],
    }


def _mmau_item(i: int, pred: str | None, choices: list[str], answer: str) -> dict:
    item = {
        "id": f"q{i}",
        "question": "?",
        "choices": choices,
        "answer": answer,
        "task": "sound",
        "difficulty": "easy",
        "sub-category": "Counting",
    }
    if pred is not None:
        item["model_output"] = pred
    return item


def test_unparseable_counted_and_disagreements_listed(tmp_path: Path) -> None:
    ch = ["Dog", "Cat", "Bird", "Cow"]
    items = [
        _mmau_item(0, "Dog", ch, "Dog"),  # both right
        _mmau_item(1, "B", ch, "Cat"),  # robust only
        _mmau_item(2, "Not a cat: the answer is Dog.", ch, "Dog"),  # robust only
        _mmau_item(3, "I have no idea", ch, "Bird"),  # unparseable
        _mmau_item(4, "", ch, "Bird"),  # unparseable (empty)
        _mmau_item(5, None, ch, "Cow"),  # no prediction
    ]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(items))
    result = score_file(MMAU, path, n_resamples=50)
    s = result.summary
    assert s["overall"]["n"] == 5
    assert s["overall"]["official"]["correct"] == 1
    assert s["overall"]["robust"]["correct"] == 3
    assert s["overall"]["robust"]["unparseable"] == 2
    assert s["overall"]["robust"]["unparseable_rate"] == 40.0
    assert s["disagreements"]["ids"] == ["q1", "q2"]
    assert s["disagreements"]["robust_only"] == 2 and s["disagreements"]["official_only"] == 0
    assert s["robust"]["methods"] == {"answer_statement": 1, "letter": 1, "option_text": 1, "unparseable": 2}
    first = result.disagreements[0]
    assert first["prediction"] == "B" and first["robust_choice"] == "B"
    assert first["official_reason"] == "answer_tokens_missing"
    rows = {r["id"]: r for r in result.rows}
    assert rows["q3"]["robust_reason"] == "no option found" and rows["q3"]["robust"] == 0
    assert rows["q5"]["official"] is None and rows["q5"]["robust"] is None
