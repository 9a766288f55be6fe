"""AnyAudio-Judge parity, built from the rules (shared/reference/official-rules.md §3.2, §3.3,
§3.6-3.7): each input is crafted to hit one rule; the expected outcome is the official one,
worked out by hand from the rule's description."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from audioeval.benchmarks.anyaudio_bench.cleaning_reader import keep_flags
from audioeval.benchmarks.anyaudio_bench.decomposition_reader import fix_json, read_items
from audioeval.benchmarks.anyaudio_bench.generate_reader import OFFICIAL_READER, generate_answers
from audioeval.benchmarks.anyaudio_bench.items_scorer import AnyAudioItemsScorer
from audioeval.benchmarks.anyaudio_bench.summary import JudgeEvalRow, default_threshold
from audioeval.benchmarks.rubric_items.decompose import fallback_item, read_decomposition
from audioeval.benchmarks.rubric_items.decompose_scorer import DOMAIN_MAX_TOKENS, RubricDecomposeScorer
from audioeval.core.errors import InputError
from audioeval.core.generation import Generation
from audioeval.core.messages import Message, TextPart
from audioeval.core.sample import Sample
from audioeval.judge.rubric_items import RubricItemsScorer
from audioeval.scoring.base import Prediction
from audioeval.scoring.judged import JudgeFailed
from tests.judge_eval_helpers import rows_summary

Q = "\u9898\u76ee"  # 题目
D = "\u7ef4\u5ea6"  # 维度
B = "\u4f9d\u636e"  # 依据
LIST = "\u5224\u65ad\u9898\u5217\u8868"  # 判断题列表


def _item(dim: str, question: str, basis: str = "") -> str:
    return f'        {{\n            "{D}": "{dim}",\n            "{Q}": "{question}",\n            "{B}": "{basis}"\n        }}'


def _answer(*items: str) -> str:
    return f'{{\n    "{LIST}": [\n' + ",\n".join(items) + "\n    ]\n}"


def _questions(raw: str) -> list[str] | None:
    read = read_items(raw)
    return None if read.items is None else [i["question"] for i in read.items]


# -- §3.2 the decomposition reader ---------------------------------------------------------


def test_fenced_answer_is_parsed() -> None:
    assert _questions("```json\n" + _answer(_item("a", "q1?")) + "\n```") == ["q1?"]


def test_curly_quotes_inside_a_value_become_straight_quotes() -> None:
    raw = _answer(_item("情绪", "是否\u201c平静\u201d？"))
    assert _questions(raw) == ['是否"平静"？']


def test_curly_quotes_as_delimiters_fail_to_no_item() -> None:
    read = read_items("{\u201c" + LIST + "\u201d: []}")
    assert read.items == () and not read.parsed


def test_key_missing_its_opening_quote_is_repaired_by_step_2() -> None:
    raw = _answer(_item("性别", "是否男声？")).replace(f'\n            "{D}":', f'\n            {D}":')
    assert fix_json(raw)[1] == "keys"
    assert read_items(raw).items == ({"dimension": "性别", "question": "是否男声？", "basis": ""},)


def test_unescaped_inner_quotes_are_repaired_by_step_3() -> None:
    raw = _answer(_item("音色", "X").replace('"X"', '"声音是否"沙哑"？"'))
    assert fix_json(raw)[1] == "lines"
    assert _questions(raw) == ['声音是否"沙哑"？']


def test_trailing_comma_is_removed_by_step_4() -> None:
    raw = _answer(_item("a", "q1?")).replace("\n    ]", ",\n    ]")
    assert fix_json(raw)[1] == "commas"
    assert _questions(raw) == ["q1?"]


def test_answer_cut_inside_the_second_item_keeps_the_first_by_step_5() -> None:
    full = _answer(_item("a", "q1?"), _item("b", "q2?"))
    cut = full[: full.index("q2?")]
    assert fix_json(cut)[1] == "truncation"
    assert _questions(cut) == ["q1?"]


def test_english_keys_and_list_key_are_read() -> None:
    raw = '{"Question_List":[{"Dimension":"d","Question":"q?","Basis":"b"}]}'
    assert read_items(raw).items == ({"dimension": "d", "question": "q?", "basis": "b"},)


def test_lower_case_item_keys_give_one_item_with_empty_fields() -> None:
    raw = '{"question_list":[{"dimension":"x","question":"y?"}]}'
    assert read_items(raw).items == ({"dimension": "", "question": "", "basis": ""},)


def test_top_level_list_is_an_error_and_prose_is_no_item() -> None:
    assert read_items(f'[{{"{D}":"a","{Q}":"b"}}]').items is None  # the official raises
    prose = read_items("I cannot help with that.")
    assert prose.items == () and not prose.parsed


def test_unparsed_decomposition_gives_no_item_then_the_holistic_fallback() -> None:
    read = read_decomposition("sorry, no JSON here", "mix")
    assert read.usable and read.items == () and read.unparsed
    assert fallback_item("A dog barks.").to_json() == {
        "dimension": "整体", "question": "A dog barks.", "basis": "A dog barks."
    }  # fmt: skip


# -- §3.3 the cleaning reader ----------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "n", "flags"),
    [
        ('{"results":[{"id":0,"judgment":"keep"},{"id":1,"judgment":"remove"}]}', 3, (True, False, True)),
        (
            '{"results":[{"id":0,"judgment":" KEEP "},{"id":1,"judgment":"Remove"},'
            '{"id":2,"judgment":"maybe"}]}',
            3,
            (True, False, False),
        ),
        (
            '{"results":[{"id":5,"judgment":"remove"},{"id":"1","judgment":"remove"},'
            '{"id":-1,"judgment":"remove"}]}',
            3,
            (True, True, True),
        ),  # fmt: skip
        ('Here: {"results":[{"id":0,"judgment":"remove"}]} done', 2, (False, True)),
        ('{"results":[{"id":true,"judgment":"remove"}]}', 2, (True, False)),
        ('{"results":[{"id":0,"judgment":"remove"},{"id":0,"judgment":"keep"}]}', 1, (True,)),
    ],
)
def test_cleaning_missing_ids_keep_unknown_verdicts_remove(raw: str, n: int, flags: tuple[bool, ...]) -> None:
    assert keep_flags(raw, n) == (flags, None)


@pytest.mark.parametrize("raw", ['{"res":[]}', '{"results":[{"id":0,', "```\nno json\n```"])
def test_cleaning_without_a_results_list_is_unusable(raw: str) -> None:
    keep, error = keep_flags(raw, 2)
    assert keep is None and error


# -- §3.1 decoding and domain --------------------------------------------------------------


def test_decomposition_decodes_greedy_with_mix_and_the_domain_budget() -> None:
    scorer = RubricDecomposeScorer()
    assert scorer.domain == "mix" and scorer.max_items is None and not scorer.dedupe
    assert scorer.decoding("mix") == {"temperature": 0.0, "max_tokens": 6000}
    assert scorer.decoding("speech") == {"temperature": 0.0, "max_tokens": 2048}
    assert DOMAIN_MAX_TOKENS["sound"] == DOMAIN_MAX_TOKENS["music"] == 4096
    assert RubricDecomposeScorer(temperature=0.3, max_tokens=99).decoding("mix") == {
        "temperature": 0.3, "max_tokens": 99
    }  # fmt: skip


# -- §3.6-3.7 thresholds per mode, pooled and macro ------------------------------------------


def test_threshold_per_mode() -> None:
    assert default_threshold("all_at_once")[0] == 0.8
    assert default_threshold("per_item")[0] == 0.5


def test_pooled_overall_and_macro_by_hand() -> None:
    rows = [
        # speech: 3 rows, 2 correct at 0.8 (0.9 yes ✓, 0.85 no ✗, 0.1 no ✓)
        JudgeEvalRow("a", "speech", "pos", "yes", 0.9),
        JudgeEvalRow("b", "speech", "neg_swap", "no", 0.85),
        JudgeEvalRow("c", "speech", "neg_swap", "no", 0.1),
        # sound: 1 row, correct (0.8 ≥ 0.8 → yes)
        JudgeEvalRow("d", "sound", "pos", "yes", 0.8),
        JudgeEvalRow("e", "sound", "pos", "yes", None),  # empty rubric: excluded, but in n_samples
    ]
    s = rows_summary(rows, threshold=0.8, n_resamples=0, mode="all_at_once")
    official = s["official"]
    assert official["per_subset_acc"] == {"speech": pytest.approx(200 / 3), "sound": 100.0}
    assert official["overall_acc"] == 75.0  # pooled: 3 of 4 rows, not (66.7 + 100) / 2
    assert official["overall_mean_score"] == pytest.approx((0.9 + 0.85 + 0.1 + 0.8) / 4)
    assert official["per_subset_mean_score"]["speech"] == pytest.approx((0.9 + 0.85 + 0.1) / 3)
    assert official["n_samples"] == 5
    assert s["overall"]["accuracy_pooled"] == 75.0
    assert s["overall"]["accuracy_macro"] == round((200 / 3 + 100) / 2, 2)
    assert (
        rows_summary(rows, threshold=0.5, n_resamples=0, mode="per_item")["official"]["overall_acc"]
        is None
    )  # the official logits mode computes no accuracy


# -- §3.6 the generate-mode reader (our all_at_once) -----------------------------------------


@pytest.mark.parametrize(
    ("raw", "n", "answers"),
    [
        # a list: by id; a missing id stays unparsed; the answer case-folded and stripped
        ('[{"id":0,"answer":"yes"},{"id":1,"answer":" No "}]', 3, ["yes", "no", None]),
        # fences and a trailing comma removed before decoding
        ('```json\n[{"id":0,"answer":"yes"},]\n```', 2, ["yes", None]),
        # an answer other than yes / no: unparsed
        ('[{"id":0,"answer":"maybe"},{"id":1,"answer":"yes"}]', 2, [None, "yes"]),
        # a string id is not an id
        ('[{"id":"0","answer":"yes"}]', 1, [None]),
        # a duplicate id: the last wins, even when it is unparsed
        ('[{"id":0,"answer":"yes"},{"id":0,"answer":"no"}]', 1, ["no"]),
        ('[{"id":0,"answer":"yes"},{"id":0,"answer":"unsure"}]', 1, [None]),
        # true counts as id 1; out-of-range ids and non-objects are skipped
        ('[{"id":true,"answer":"yes"},{"id":5,"answer":"no"},{"id":-1,"answer":"no"},"x"]', 2, [None, "yes"]),
        # a list read by id is final: no fallback by position even when nothing is parsed
        ('[{"answer":"yes"},{"answer":"no"}]', 2, [None, None]),
        # broken JSON: the raw text's answers by position, ids ignored
        ('[{"id":1,"answer":"YES"}, {"id":0,"answer":"no"', 2, ["yes", "no"]),
        # JSON that is not a list: by position too; extra answers ignored, missing ones unparsed
        ('{"results": [{"answer": "no"}, {"answer": "yes"}, {"answer": "yes"}]}', 2, ["no", "yes"]),
        ('Item 0: "answer": "yes" and then nothing', 3, ["yes", None, None]),
        # ids from 0: an id equal to n is out of range
        ('[{"id":1,"answer":"yes"},{"id":2,"answer":"yes"}]', 2, [None, "yes"]),
    ],
)
def test_generate_answers_as_the_official(raw: str, n: int, answers: list[str | None]) -> None:
    assert generate_answers(raw, n) == answers


def test_the_official_hook_is_unusable_only_when_nothing_is_parsed() -> None:
    assert OFFICIAL_READER.first_id == 0
    assert OFFICIAL_READER.read(None, 2) is None
    assert OFFICIAL_READER.read("no JSON, no answer", 2) is None  # official: NaN; here asked again
    assert OFFICIAL_READER.read('[{"id":1,"answer":"no"}]', 2) == [None, "no"]


class _Judge:
    """A judge generate(): the scripted answers in turn; each call's user text kept."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []
        self.system: list[str] = []

    async def __call__(
        self, messages: list[Message], attempt: int, accept: Any = None, extra: Any = None
    ) -> Generation:
        self.system.append("".join(p.text for p in messages[0].parts if isinstance(p, TextPart)))
        self.asked.append("".join(p.text for p in messages[-1].parts if isinstance(p, TextPart)))
        return Generation(self.answers[attempt] if attempt < len(self.answers) else "")


ROW_ITEMS = [
    {"dimension": "pitch", "question": "Is it high?", "basis": ""},
    {"dimension": "tempo", "question": "", "basis": ""},  # an empty question: judged, as the official
    {"dimension": "", "question": "Is it loud?", "basis": ""},
]
ROW = Sample("r1", {}, {"rubric": ROW_ITEMS}, {}, "bench.jsonl")
AUDIO = Prediction(text=None, raw=None, audio_path="clip.wav")


def _judged(scorer: RubricItemsScorer, judge: _Judge) -> Any:
    return asyncio.run(scorer.score_async(AUDIO, ROW, judge))


def test_all_at_once_scores_the_parsed_items_lists_from_0_and_judges_empty_questions() -> None:
    judge = _Judge('[{"id":0,"answer":"yes"},{"id":2,"answer":"no"}]')  # item 1 left out
    got = _judged(AnyAudioItemsScorer(mode="all_at_once"), judge)
    assert len(judge.asked) == 1  # a partial answer is scored, not asked again
    assert judge.asked[0] == "Questions:\n0. [pitch] Is it high?\n1. [tempo] \n2. Is it loud?"
    assert '"id": 0,' in judge.system[0]
    assert [i["p_yes"] for i in got.detail["items"]] == [1.0, None, 0.0]
    assert got.values["rubric_score"] == 0.5  # #yes / #parsed
    assert got.detail["without_value"] == 1 and "no yes/no" in got.detail["items"][1]["why"]
    again = AnyAudioItemsScorer(mode="all_at_once").rescore(AUDIO, ROW, got.detail)
    assert again.values == got.values  # the stored answer read again, no call


def test_all_at_once_with_nothing_parsed_is_asked_again_then_a_counted_failure() -> None:
    judge = _Judge("I cannot tell.", "Still no JSON.")
    with pytest.raises(JudgeFailed):
        _judged(AnyAudioItemsScorer(mode="all_at_once", max_attempts=2), judge)
    assert len(judge.asked) == 2


def test_the_generic_scorer_keeps_its_own_strict_reader_and_refuses_empty_questions() -> None:
    generic = RubricItemsScorer(mode="all_at_once")
    assert "reader" not in generic.signature()
    official = AnyAudioItemsScorer(mode="all_at_once").signature()
    assert official["reader"] == OFFICIAL_READER.name and official["name"] == "anyaudio_items"
    with pytest.raises(InputError, match="item without a question"):
        _judged(generic, _Judge("[]"))
