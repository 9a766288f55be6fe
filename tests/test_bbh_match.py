"""`bbh_match`: VoiceBench's BBH answer reading, rule by rule, quirks included."""

from __future__ import annotations

import pytest

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.voicebench.bbh_match import normalise, read_answer, task_of
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction
from audioeval.scoring.scorer_registry import build_scorer

load_benchmarks()  # registers the VoiceBench scorers


@pytest.mark.parametrize(
    ("reply", "norm"),
    [
        ("**Answer:** No.", "answer no"),
        ("<2> The answer is: (B).<|user|>", "the answer is (b)"),
        ('Yes, "it" - is.<|turn_end|>', "yes it is"),
        ("答案：  A", "答案 a"),
    ],
)
def test_normalisation(reply: str, norm: str) -> None:
    assert normalise(reply) == norm


@pytest.mark.parametrize(
    ("task", "reply", "answer"),
    [
        ("hyperbaton", "The answer is (A).", 0),
        ("hyperbaton", "Option B has the correct adjective order.", 1),
        ("hyperbaton", "a", 0),
        ("hyperbaton", "b", 0),  # sic: VoiceBench reads a bare "b" as (A)
        ("hyperbaton", "B) big old red car", 1),
        ("hyperbaton", "Sentence b, the one on cars, seems to have a more logical order", 1),
        ("navigate", "So the answer is yes.", 1),
        ("navigate", "You do not return to the starting point.", 0),
        ("navigate", "Following them, you return to the starting point", 1),
        ("navigate", "No.", 0),
        ("sports_understanding", "Yes, the sentence is plausible.", 1),
        ("sports_understanding", "The sentence is not plausible.", 0),
        ("sports_understanding", "I think the sentence about him is not plausible", 1),  # sic
        ("sports_understanding", "The answer is \\boxed{yes}", 1),
        ("web_of_lies", "So the answer is Delbert lies.", 0),
        ("web_of_lies", "Therefore Osvaldo must be lying.", 1),  # sic
        ("web_of_lies", "In conclusion: no", 0),
    ],
)
def test_answers_are_read_by_the_tasks_rules(task: str, reply: str, answer: int) -> None:
    assert read_answer(reply, task)[0] == answer


def test_rule_order_decides_and_no_rule_is_none() -> None:
    # the yes/no phrases come before the task's own: "answer is no" wins over "you return ..."
    found, rule = read_answer("The answer is no, you return to the starting point.", "navigate")
    assert found == 0 and rule == ("in", "answer is no", 0)
    assert read_answer("I cannot tell.", "web_of_lies") == (None, None)
    # a rule holding "." never fires: the normalisation turned it into a space
    assert read_answer("I would say that it is not a plausible sentence.", "sports_understanding")[1] != (
        "in",
        "i would say that it is not a plausible sentence.",
        0,
    )


def test_task_is_read_from_the_id_in_voicebench_order() -> None:
    assert task_of("bbh_navigate_12") == "navigate"
    assert task_of("web_of_lies_3") == "web_of_lies"
    assert task_of("boolean_expressions_1") is None


def _sample(sid: str, gold: str, **fields: object) -> Sample:
    return Sample(sid, {}, {"answer": gold, **fields}, {}, "bbh.jsonl")


def _stats(scorer: object, text: str | None, raw: str | None, sample: Sample) -> dict[str, float]:
    return dict(scorer.score(Prediction(text, raw), sample).stats)  # type: ignore[attr-defined]


def test_scorer_scores_counts_unparseable_and_never_guesses() -> None:
    scorer = build_scorer("bbh_match", {}, where="t.yaml")
    right = scorer.score(
        Prediction("The answer is (B).", "The answer is (B)."), _sample("hyperbaton_1", "(B)")
    )
    assert right.stats == {"official_accuracy": 1.0, "correct": 1, "unparseable": 0}
    assert right.values == {"bbh_match": 1.0} and right.detail["rule"] == ["in", "the answer is (b)"]
    wrong = _stats(scorer, "Yes.", "Yes.", _sample("navigate_2", "no"))
    assert wrong == {"official_accuracy": 0.0, "correct": 0, "unparseable": 0}
    unsure = scorer.score(Prediction("Hmm.", "Hmm."), _sample("navigate_3", "no"))
    # VoiceBench picks 0 or 1 at random: the official figure counts the pick's expectation, 1/2;
    # ours counts it wrong and unparseable
    assert unsure.stats == {"official_accuracy": 0.5, "correct": 0, "unparseable": 1}
    assert unsure.detail["answer"] is None and unsure.detail["official_answer"] is None
    missing = scorer.score(Prediction(None, None, outcome="no output"), _sample("navigate_4", "yes"))
    assert missing.stats == {"official_accuracy": 0.0, "correct": 0, "unparseable": 1}
    assert missing.detail["missing"] is True
    assert scorer.signature()["task_field"] == "id"


def test_official_reads_the_raw_reply_think_block_included_ours_the_answer() -> None:
    scorer = build_scorer("bbh_match", {}, where="t.yaml")
    raw = "<think>the answer is yes</think> No."
    stats = _stats(scorer, "No.", raw, _sample("navigate_5", "no"))
    # VoiceBench sees "the answer is yes" first (YES_NO table); the visible answer says no
    assert stats == {"official_accuracy": 0.0, "correct": 1, "unparseable": 0}
    empty_chain = _stats(scorer, None, "Yes.", _sample("navigate_6", "yes"))
    assert empty_chain == {"official_accuracy": 1.0, "correct": 0, "unparseable": 1}


@pytest.mark.parametrize(
    ("task_id", "reply", "official"),
    [  # official-rules.md §1.3 quirks table (official outcomes), as the official value for gold 1
        ("hyperbaton_1", "B", 0.0),  # bare "b" reads as (A)
        ("hyperbaton_1", "(B)", 0.5),  # random
        ("hyperbaton_1", "The answer is (B).", 1.0),
        ("sports_understanding_1", 'The sentence "Messi kicked" is not plausible.', 1.0),  # sic
        ("sports_understanding_1", "Not plausible", 0.0),
        ("navigate_1", "You haven't returned to the starting point.", 0.5),  # random
        ("web_of_lies_1", "So Alice lies.", 0.0),
    ],
)
def test_official_quirks_table(task_id: str, reply: str, official: float) -> None:
    scorer = build_scorer("bbh_match", {}, where="t.yaml")
    gold = "(B)" if task_id.startswith("hyperbaton") else "yes"
    assert _stats(scorer, reply, reply, _sample(task_id, gold))["official_accuracy"] == official


def test_scorer_reads_the_task_from_a_field_when_told() -> None:
    scorer = build_scorer("bbh_match", {"task_field": "task"}, where="t.yaml")
    sample = _sample("row-7", "yes", task="sports_understanding")
    assert scorer.score(Prediction("yes", "yes"), sample).stats["correct"] == 1


def test_unknown_task_and_bad_reference_are_input_errors_not_wrong_answers() -> None:
    scorer = build_scorer("bbh_match", {}, where="t.yaml")
    with pytest.raises(InputError) as info:
        scorer.score(Prediction("yes", "yes"), _sample("dyck_1", "yes"))
    assert (info.value.file, info.value.sample_id, info.value.field) == ("bbh.jsonl", "dyck_1", "id")
    with pytest.raises(InputError) as info:
        scorer.score(Prediction("yes", "yes"), _sample("navigate_1", "maybe"))
    assert info.value.field == "answer" and "maybe" in info.value.message
