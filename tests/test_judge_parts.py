import asyncio
import json
from collections import Counter

import pytest

from audioeval.benchmarks.mmae.judge_prompt import attachments, build_judge_messages
from audioeval.benchmarks.mmae.rubric_votes import McqRubric, RubricVoting, rescore_attempts
from audioeval.benchmarks.mmae.verdict import parse_verdict
from audioeval.core.generation import Generation
from audioeval.core.messages import AudioPart, TextPart
from audioeval.judge.audio_refs import find_mentions
from audioeval.judge.option_shuffle import shuffle_options
from audioeval.judge.votes import REDUCERS, collect_votes


def test_mentions_distinct_in_order_with_slices():
    q = "Compare <audio output[2.15s:4.9s]> and <audio input1[4.35s:7.6s]>; is <audio output> louder than <audio output[2.15s:4.9s]>?"
    ms = find_mentions(q)
    assert [m.text for m in ms] == [
        "<audio output[2.15s:4.9s]>",
        "<audio input1[4.35s:7.6s]>",
        "<audio output>",
    ]
    assert (ms[0].start, ms[0].end) == (2.15, 4.9)
    with pytest.raises(ValueError, match="bad slice"):
        find_mentions("In <audio output[a:b]>?")
    with pytest.raises(ValueError, match="bad slice"):  # asked again: raised again, not remembered as none
        find_mentions("In <audio output[a:b]>?")


def test_a_question_is_read_once_and_its_mentions_cannot_be_changed_by_a_caller():
    """Loading, planning and every judge attempt ask for the same question's mentions: one
    reading is shared, so it is immutable (a caller appending to it would change every later
    attempt's clips)."""
    q = "Compared with <audio input1>, in <audio output[0.5s:]>, is the tone gone?"
    first = find_mentions(q)
    assert find_mentions(q) is first
    assert isinstance(first, tuple) and [m.label for m in first] == ["input1", "output"]
    with pytest.raises(AttributeError):
        first[0].label = "input2"  # type: ignore[misc]


def test_attachments_full_vs_sliced():
    ms = find_mentions("Compare <audio output[1s:2s]> with <audio input1> and <audio output[-1s:]>")
    paths = {"output": "/o.wav", "input1": "/i.wav"}
    full = attachments(ms, paths.__getitem__, slice_clips=False)
    assert [(lbl, r.path, r.start) for lbl, r in full] == [
        ("<audio output>", "/o.wav", None),
        ("<audio input1>", "/i.wav", None),
    ]
    cut = attachments(ms, paths.__getitem__, slice_clips=True)
    # output first, then the inputs: a sample's rubrics share their leading clips (prefix caching)
    assert [lbl for lbl, _ in cut] == ["<audio output[1s:2s]>", "<audio output[-1s:]>", "<audio input1>"]
    assert cut[1][1].start == -1.0


def test_judge_message_layout():
    opts = shuffle_options("Yes", ["No", "None of the above"], seed=3)
    ms = find_mentions("In <audio output>, vs <audio input1>?")
    msgs = build_judge_messages(
        "In <audio output>, vs <audio input1>?",
        opts,
        attachments(ms, {"output": "o", "input1": "i"}.__getitem__, slice_clips=False),
    )
    assert msgs[0].role == "system" and "Python-style" in msgs[0].parts[0].text
    parts = msgs[1].parts
    assert isinstance(parts[0], TextPart) and parts[0].text == "<audio output>: "
    assert isinstance(parts[1], AudioPart) and parts[1].audio.path == "o"
    assert parts[2].text == "\n<audio input1>: " and isinstance(parts[3], AudioPart)
    tail = parts[4].text
    assert '"reason" and "choice"' in tail and "Question: In <audio output>" in tail
    assert tail.endswith("Choices:\n" + opts.render())
    assert opts.render().splitlines()[0].startswith("A. ")


def test_shuffle_is_seeded_and_uses_every_position():
    a = shuffle_options("R", ["W1", "W2", "None of the above"], seed=11)
    b = shuffle_options("R", ["W1", "W2", "None of the above"], seed=11)
    assert a == b
    positions = Counter(
        shuffle_options("R", ["W1", "W2", "None of the above"], seed=s).right_letter for s in range(400)
    )
    assert set(positions) == {"A", "B", "C", "D"} and min(positions.values()) > 60
    last = Counter(shuffle_options("R", ["W1", "None of the above"], seed=s).texts[-1] for s in range(200))
    assert last["None of the above"] < 200  # shuffled with the rest


@pytest.mark.parametrize(
    "raw, letter",
    [
        ('{"reason": "x", "choice": "B"}', "B"),
        ('```json\n{"reason": "x", "choice": "C"}\n```', "C"),
        ('Sure! {"reason": "x", "choice": "a"} hope this helps', "A"),
        ('{"reason": "x", "choice": "(b)"}', "B"),
        ('{"reason": "x", "choice": "B. Yes, it can"}', "B"),
        ('<think>{"choice": "D"}</think>{"reason": "x", "choice": "A"}', "A"),
        ('{"reason": "has {braces}", "choice": "C"}', "C"),
        ('{"reason": "cut off", "choice": "B"', "B"),
    ],
)
def test_verdict_accepts_robust_forms(raw, letter):
    v = parse_verdict(raw, 3)
    assert v.valid and v.letter == letter


@pytest.mark.parametrize(
    "raw, why",
    [
        ('{"reason": "x", "choice": "D"}', "out of range"),
        ("The answer is B", "no JSON"),
        ('{"reason": "x"}', "no JSON"),
        ('{"reason": "x", "choice": "Yes"}', "not a single option letter"),
        ('{"choice": "A"} {"choice": "B"}', "conflicting"),
        ("", "empty"),
        ('{"reason": "x", "choice": 2}', "not a single option letter"),
    ],
)
def test_verdict_never_guesses(raw, why):
    v = parse_verdict(raw, 3)
    assert not v.valid and why in (v.error or "")


def _answer(opts, correct: bool) -> str:
    letter = opts.right_letter if correct else next(lt for lt in opts.letters if lt != opts.right_letter)
    return json.dumps({"reason": "r", "choice": letter})


def _vote(v: RubricVoting, answer) -> list[list[int]]:
    """Drive `v` with the one vote collector; `answer(attempt, options)` gives the Generation.
    Returns the batches of attempts launched."""
    batches: list[list[int]] = []
    in_flight = [0]

    async def ask(a: int) -> bool:
        if in_flight[0] == 0:  # nothing outstanding: the collector launched a new round
            batches.append([])
        batches[-1].append(a)
        in_flight[0] += 1
        await asyncio.sleep(0)
        in_flight[0] -= 1
        opts = v.options_for(a)
        return v.record(a, opts, answer(a, opts)).valid

    asyncio.run(collect_votes(ask, votes_needed=v.votes_needed, max_attempts=v.max_attempts))
    return batches


def test_voting_majority_and_attempt_records():
    rubric = McqRubric("Instruction Following", "In <audio output>?", "Yes", ("No", "None of the above"))
    v = RubricVoting(rubric, "s", 0, votes_needed=3, max_attempts=10)
    batches = _vote(v, lambda a, opts: Generation(_answer(opts, a != 1)))
    assert batches == [[0, 1, 2]]
    out = v.outcome()
    assert out["votes"] == [True, False, True] and out["score"] == 1 and not out["failed"]
    assert [a["attempt"] for a in out["attempts"]] == [0, 1, 2]
    assert rescore_attempts(out["attempts"], 3)["score"] == 1


def test_voting_asks_again_after_invalid_and_fails_when_out_of_attempts():
    rubric = McqRubric("Consistency", "In <audio output>?", "Yes", ("No",))
    v = RubricVoting(rubric, "s", 1, votes_needed=3, max_attempts=5)
    batches = _vote(
        v,
        lambda a, opts: (
            Generation(_answer(opts, True)) if a in (0, 3) else Generation(None, error="HTTP 500")
        ),
    )
    assert batches == [[0, 1, 2], [3, 4]]
    out = v.outcome()
    assert out["failed"] and out["score"] is None and "2 valid votes of 3 after 5 attempts" in out["failure"]


def test_vote_collector_launches_only_what_is_missing():
    launched: list[int] = []

    async def ask(a: int) -> bool:
        launched.append(a)
        return a != 1  # attempt 1 gives an invalid vote

    assert asyncio.run(collect_votes(ask, votes_needed=3, max_attempts=10)) == 4
    assert launched == [0, 1, 2, 3]
    with pytest.raises(ValueError):
        asyncio.run(collect_votes(ask, votes_needed=5, max_attempts=3))


def test_named_reducers():
    assert REDUCERS["strict_majority"]([True, False, True]) == 1.0
    assert REDUCERS["strict_majority"]([True, False]) == 0.0  # a tie fails
    assert REDUCERS["trimmed_mean"]([0.0, 0.5, 1.0, 0.5, 0.25]) == pytest.approx(5 / 12)
    assert REDUCERS["mean"]([0.2, 0.4]) == pytest.approx(0.3)


def test_two_of_three_wrong_scores_zero():
    rubric = McqRubric("Consistency", "In <audio output>?", "Yes", ("No", "Maybe"))
    v = RubricVoting(rubric, "s", 2)
    _vote(v, lambda a, opts: Generation(_answer(opts, a == 0)))
    assert v.outcome()["score"] == 0
