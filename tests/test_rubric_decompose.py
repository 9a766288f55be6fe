"""`rubric decompose`: JSON repair, reading answers, cleaning, dedupe, cap, fallback, the
judged scorer with a scripted LLM, and the command end to end against a fake text LLM over
real HTTP (retries, failures and exit codes, resume with no call, rescore with no server)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.rubric_items.decompose import (
    RubricItem,
    cap,
    dedupe,
    fallback_item,
    question_key,
    read_cleaning,
    read_decomposition,
)
from audioeval.benchmarks.rubric_items.decompose_prompts import (
    PROMPT_VERSION,
    clean_messages,
    decompose_messages,
    decompose_system,
)
from audioeval.benchmarks.rubric_items.decompose_scorer import RubricDecomposeScorer
from audioeval.benchmarks.rubric_items.decompose_source import load_captions
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.core.generation import Generation
from audioeval.core.messages import Message, TextPart
from audioeval.core.sample import Sample
from audioeval.postprocess.json_in_text import repaired_json_values
from audioeval.scoring.base import Prediction
from audioeval.scoring.judged import JudgeFailed
from tests.fakes.text_llm_server import CJK_RE, FakeTextLlmConfig, FakeTextLlmServer, decompose_items

runner = CliRunner()


def first(text: str) -> tuple[Any, tuple[str, ...]] | None:
    return next(iter(repaired_json_values(text)), None)


# -- JSON repair (postprocess/json_in_text.py) ------------------------------------------------


def test_json_as_written_needs_no_repair_and_fences_are_read_first() -> None:
    text = 'Example: {"x": 1}\n```json\n{"items": [{"question": "Loud?"}]}\n```'
    assert first(text) == ({"items": [{"question": "Loud?"}]}, ())


@pytest.mark.parametrize(
    ("text", "value", "repairs"),
    [
        ('{"items": [{"question": "a?"},],}', {"items": [{"question": "a?"}]}, ("trailing_commas",)),
        ("{items: [{question: 'a?'}]}", {"items": [{"question": "a?"}]}, ("quotes", "bare_keys")),
        ("{维度: 'x'}", {"维度": "x"}, ("quotes", "bare_keys")),
        ("{“q”: “Is it loud?”}", {"q": "Is it loud?"}, ("quotes",)),
        ('{"q": "他说“你好”了吗？"}', {"q": "他说“你好”了吗？"}, ()),  # quotes of the text stay
        ("{“q”: “他说“你好”了吗？”}", {"q": "他说“你好”了吗？"}, ("quotes",)),
        ('{"q": "Does he say "hi" twice?"}', {"q": 'Does he say "hi" twice?'}, ("quotes",)),
        ("{'q': 'the speaker\\'s voice'}", {"q": "the speaker's voice"}, ("quotes", "escapes")),
        ('{"q": "two\nlines"}', {"q": "two\nlines"}, ("line_breaks",)),
        ('{"a": True, "b": None}', {"a": True, "b": None}, ("python_literals",)),
        (
            '```json\n{"items": [{"question": "a?"}, {"question": "b?"}, {"question": "c',
            {"items": [{"question": "a?"}, {"question": "b?"}]},
            ("truncated",),
        ),
        ('[{"id": 1, "judgment": "keep"}, {"id": 2, "judg', [{"id": 1, "judgment": "keep"}], ("truncated",)),
    ],
)
def test_json_repairs(text: str, value: Any, repairs: tuple[str, ...]) -> None:
    assert first(text) == (value, repairs)


@pytest.mark.parametrize(
    "text",
    [
        '{"domain": speech}',  # a bare word as a value: never guessed
        '{"items": [{"question": "cut before any complete item',
        '{"items": [}',
        "no JSON here",
    ],
)
def test_json_that_cannot_be_repaired_gives_nothing(text: str) -> None:
    assert first(text) is None


# -- reading answers (benchmarks/rubric_items/decompose.py) ---------------------------------------


ITEMS = [
    {"dimension": "pitch", "question": "Is the voice high?", "basis": "high voice"},
    {"dimension": "rate", "question": "Is the speech fast?", "basis": "speaks fast"},
]


def _official(items: list[dict[str, str]], **top: Any) -> str:
    """`items` under the English keys the official reader takes (official-rules.md §3.2)."""
    keys = {"dimension": "Dimension", "question": "Question", "basis": "Basis"}
    return json.dumps({**top, "Question_List": [{keys[k]: v for k, v in i.items()} for i in items]})


def test_decomposition_with_english_keys_chinese_keys_and_no_bare_list() -> None:
    english = read_decomposition(_official(ITEMS), "speech")
    assert english.usable and english.domain == "speech" and english.repairs == ()
    assert english.items == tuple(RubricItem(**i) for i in ITEMS)
    chinese = [{"维度": "音高", "题目": "声音是否很高？", "依据": "声音很高"}]
    read = read_decomposition(
        "```json\n" + json.dumps({"判断题列表": chinese}, ensure_ascii=False) + "\n```", "speech"
    )
    assert read.items == (RubricItem("音高", "声音是否很高？", "声音很高"),)
    assert not read_decomposition("<think>[1, 2]</think>" + json.dumps(ITEMS), "music").usable


def test_decomposition_keeps_items_without_a_question_as_the_official() -> None:
    read = read_decomposition(json.dumps({"Question_List": [{"Dimension": "x"}, "text"]}), "sound")
    assert read.usable and read.items == (RubricItem("x", "", ""),)


def test_decomposition_unusable_answers_say_why() -> None:
    assert read_decomposition("", "speech").error == "empty answer"
    assert read_decomposition(None, "speech").error == "empty answer"
    prose = read_decomposition("I cannot help.", "speech")
    assert prose.usable and prose.items == () and prose.unparsed  # the official's silent []
    assert read_decomposition('{"answer": "yes"}', "speech").items == ()


def test_an_empty_item_list_is_a_usable_answer() -> None:
    read = read_decomposition('{"Question_List": []}', "speech")
    assert read.usable and read.items == ()


def test_auto_needs_the_domain_the_model_named() -> None:
    named = read_decomposition(_official(ITEMS, domain="Music"), "auto")
    assert named.usable and named.domain == "music"
    assert read_decomposition(_official(ITEMS, domain="音乐"), "auto").domain == "music"
    missing = read_decomposition(_official(ITEMS), "auto")
    assert not missing.usable and "no domain named" in str(missing.error)
    assert not read_decomposition(_official(ITEMS, domain="noise"), "auto").usable
    assert not read_decomposition(json.dumps(ITEMS), "auto").usable


def test_cleaning_reads_as_the_official() -> None:
    answer = {"results": [{"id": 1, "judgment": "Remove"}, {"id": "0", "judgment": "remove"}]}
    assert read_cleaning(json.dumps(answer), 2).keep == (True, False)  # a string id is ignored
    assert read_cleaning('{"results": [{"id": 0, "judgment": "删除"}]}', 2).keep == (False, True)
    assert read_cleaning('[{"id": 0, "judgment": "keep"}]', 2).error  # not an object
    assert read_cleaning("", 2).error == "empty answer"


def test_dedupe_on_normalised_question_text_keeps_the_first() -> None:
    a = RubricItem("pitch", "Is the voice high?", "x")
    b = RubricItem("pitch 2", "is  the VOICE high", "y")
    c = RubricItem("rate", "Is it fast?", "z")
    assert question_key("Is the voice high?") == question_key("IS the voice, high ？")
    assert dedupe([a, b, c]) == ([a, c], 1)
    assert dedupe([RubricItem("", "声音高吗？", ""), RubricItem("", "声音高吗?", "")])[1] == 1


def test_cap_and_fallback_item() -> None:
    items = [RubricItem("d", f"q{i}?", "b") for i in range(5)]
    assert cap(items, 3) == (items[:3], 2)
    assert cap(items, 9) == (items, 0)
    assert fallback_item("A dog barks.") == RubricItem("整体", "A dog barks.", "A dog barks.")


# -- prompts --------------------------------------------------------------------------------


def test_prompts_state_the_principles_the_domain_and_the_language_rule() -> None:
    for domain in ("speech", "sound", "music", "mix"):
        system = decompose_system(domain)
        for needle in ("Atomic", "Verifiable by listening", "Faithful", "Complete", "Objective",
                       "'yes' means the audio matches the caption", "negated question", "Degree words",
                       "language of the caption", '"Question_List"'):  # fmt: skip
            assert needle in system, (domain, needle)
    assert "intonation" in decompose_system("speech") and "key or mode" in decompose_system("music")
    assert "quoted line" in decompose_system("mix") and "one speaker per item" in decompose_system("mix")
    assert '"domain": "speech|sound|music|mix"' in decompose_system("auto")
    system, user = decompose_messages("A dog barks.", "sound")
    assert system.role == "system" and user.parts == (TextPart("Caption:\nA dog barks."),)
    listed = clean_messages("cap", [("pitch", "High?"), ("", "Fast?")])[1].parts[0]
    assert isinstance(listed, TextPart) and listed.text.endswith("Questions:\n0. [pitch] High?\n1. Fast?")


# -- the judged scorer with a scripted LLM -------------------------------------------------


class Scripted:
    """A judge generate(): the n-th answer of each step (decompose / clean) by attempt index;
    None: the call fails (an HTTP error, no answer). Each call's step, attempt and decoding."""

    def __init__(self, decompose: list[str | None], clean: list[str | None]) -> None:
        self.answers = {"decompose": decompose, "clean": clean}
        self.calls: list[tuple[str, int]] = []
        self.decoding: list[Any] = []

    async def __call__(
        self, messages: list[Message], attempt: int, accept: Any = None, extra: Any = None
    ) -> Generation:
        part = messages[-1].parts[0]
        step = "clean" if isinstance(part, TextPart) and "\n\nQuestions:\n" in part.text else "decompose"
        self.calls.append((step, attempt))
        self.decoding.append(extra)
        answers = self.answers[step]
        answer = answers[attempt] if attempt < len(answers) else ""
        if answer is None:
            return Generation(None, error="HTTP 400: prompt too long")
        return Generation(answer)


CAPTION = "A woman speaks fast in a high voice."
SAMPLE = Sample("s1", {}, {"reference": CAPTION}, {}, "captions.jsonl")
PRED = Prediction(text=CAPTION, raw=CAPTION)
CLEAN_REMOVE_SECOND = json.dumps({"results": [{"id": 1, "judgment": "remove"}]})  # id 0 missing: kept
HOLISTIC = {"dimension": "整体", "question": CAPTION, "basis": CAPTION}  # official §3.4


def score(scorer: RubricDecomposeScorer, llm: Scripted, sample: Sample = SAMPLE) -> Any:
    return asyncio.run(scorer.score_async(PRED, sample, llm))


def test_scorer_retries_an_unusable_answer_cleans_and_keeps_every_answer() -> None:
    # a failed call and an empty cleaning answer are asked again (the official has no retry);
    # the cleaning ids count from 0, a missing id keeps; duplicates dropped only with dedupe
    dup = {**ITEMS[0], "question": "is the voice HIGH"}
    llm = Scripted([None, _official([ITEMS[0], dup, ITEMS[1]])], ["", CLEAN_REMOVE_SECOND])
    scorer = RubricDecomposeScorer(domain="speech", dedupe=True)
    result = score(scorer, llm)
    assert llm.calls == [("decompose", 0), ("decompose", 1), ("clean", 0), ("clean", 1)]
    assert result.values == {"rubric_items": 1, "fallback": 0.0}
    d = result.detail
    assert d["rubric"] == [ITEMS[0]] and d["removed"] == [1] and d["duplicates"] == 1
    assert [a["usable"] for a in d["decompose"]] == [False, True] and d["decompose"][0]["raw"] is None
    assert d["decompose"][0]["error"] == "HTTP 400: prompt too long" and d["unparsed"] is False
    assert d["clean"][0]["error"] == "empty answer" and not d["fallback"]
    # rescoring reads the stored answers again: the same score, no call
    again = scorer.rescore(PRED, SAMPLE, json.loads(json.dumps(d)))
    assert again == result and len(llm.calls) == 4
    # without dedupe (the official), the duplicate stays and is judged by the cleaning pass
    kept = score(
        RubricDecomposeScorer(domain="speech"), Scripted([_official([ITEMS[0], dup])], ['{"results": []}'])
    )
    assert kept.detail["duplicates"] == 0 and kept.detail["rubric"] == [ITEMS[0], dup]


def test_scorer_caps_and_falls_back_to_the_caption() -> None:
    many = [{"dimension": "d", "question": f"Is feature {i} there?", "basis": "b"} for i in range(35)]
    keep_all = json.dumps({"results": [{"id": i, "judgment": "keep"} for i in range(35)]})
    uncapped = score(RubricDecomposeScorer(domain="sound"), Scripted([_official(many)], [keep_all]))
    assert len(uncapped.detail["rubric"]) == 35 and uncapped.detail["capped"] == 0  # no cap: official
    capped = score(
        RubricDecomposeScorer(domain="sound", max_items=3), Scripted([_official(many)], [keep_all])
    )
    assert len(capped.detail["rubric"]) == 3 and capped.detail["capped"] == 32
    remove_all = json.dumps({"results": [{"id": i, "judgment": "remove"} for i in (0, 1)]})
    fell = score(RubricDecomposeScorer(domain="speech"), Scripted([_official(ITEMS)], [remove_all]))
    assert fell.values == {"rubric_items": 1, "fallback": 1.0}
    assert fell.detail["rubric"] == [HOLISTIC] and fell.detail["removed"] == [0, 1]
    empty = Scripted(['{"Question_List": []}'], [])
    assert score(RubricDecomposeScorer(domain="speech"), empty).detail["rubric"] == [HOLISTIC]
    assert empty.calls == [("decompose", 0)]  # nothing to clean: no cleaning call (official)
    # an answer with no decodable JSON: no item, as the official reads it, then the caption;
    # not asked again, counted as unparsed
    prose = Scripted(["I cannot break this caption into questions."], [])
    got = score(RubricDecomposeScorer(domain="speech"), prose)
    assert prose.calls == [("decompose", 0)] and got.values == {"rubric_items": 1, "fallback": 1.0}
    assert got.detail["unparsed"] is True and got.detail["rubric"] == [HOLISTIC]


def test_scorer_fails_after_max_attempts_with_every_answer() -> None:
    llm = Scripted([None, "", None], [])
    with pytest.raises(JudgeFailed) as failed:
        score(RubricDecomposeScorer(domain="speech", max_attempts=3), llm)
    assert llm.calls == [("decompose", 0), ("decompose", 1), ("decompose", 2)]
    message = failed.value.message
    assert "decomposition: no usable answer after 3 call(s) (last: HTTP 400: prompt too long)" in message
    assert [a["raw"] for a in failed.value.detail["decompose"]] == [None, "", None]
    # a top-level JSON list: the official raises; here asked again, then a counted failure
    as_list = Scripted([json.dumps(ITEMS)] * 2, [])
    with pytest.raises(JudgeFailed, match="a JSON list, not an object"):
        score(RubricDecomposeScorer(domain="speech", max_attempts=2), as_list)
    # a cleaning answer without a results list: the official raises "please retry"
    with pytest.raises(JudgeFailed, match="cleaning: no usable answer after 2 call"):
        score(
            RubricDecomposeScorer(domain="speech", max_attempts=2), Scripted([_official(ITEMS)], ["?", "?"])
        )


def test_scorer_domain_of_the_sample_and_signature() -> None:
    scorer = RubricDecomposeScorer()
    sig = scorer.signature()
    assert sig["prompt_version"] == PROMPT_VERSION and sig["domain"] == "mix"  # the official default
    assert sig["clean_decoding"] == {"temperature": 0.2, "max_tokens": 1024}
    llm = Scripted([_official(ITEMS)], [CLEAN_REMOVE_SECOND])
    own = Sample("s2", {}, {"reference": CAPTION, "domain": "speech"}, {}, "")
    assert score(scorer, llm, own).detail["domain"] == "speech"  # no domain asked of the model
    assert llm.decoding == [
        {"temperature": 0.0, "max_tokens": 2048},
        {"temperature": 0.2, "max_tokens": 1024},
    ]
    mix = Scripted([_official(ITEMS)], [CLEAN_REMOVE_SECOND])
    assert score(scorer, mix).detail["domain"] == "mix"
    assert mix.decoding[0] == {"temperature": 0.0, "max_tokens": 6000}
    with pytest.raises(InputError, match="domain must be one of"):
        RubricDecomposeScorer(domain="noise")
    with pytest.raises(InputError, match="domain must be one of") as bad:
        score(scorer, llm, Sample("s3", {}, {"reference": CAPTION, "domain": "noise"}, {}, ""))
    assert bad.value.field == "domain" and bad.value.sample_id == "s3"


# -- captions files ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ['{"id": "a", "caption": "x"}', '{"id": "a", "caption": "y"}'],
            "captions.jsonl:2, id 'a', field 'id': id repeated (first on line 1)",
        ),
        (['{"id": "", "caption": "x"}'], "captions.jsonl:1, field 'id': missing, empty or non-string id"),
        (
            ['{"id": "a", "caption": " "}'],
            "captions.jsonl:1, id 'a', field 'caption': missing, empty or non-string caption",
        ),
        (
            ['{"id": "a", "caption": "x", "domain": "noise"}'],
            "captions.jsonl:1, id 'a', field 'domain': domain must be one of auto, speech",
        ),
        (['{"id": "a", "caption": "x"}', "[1]"], "captions.jsonl:2: row is a list, not an object"),
        (['{"id": "a", "caption": "x"}', "{oops"], "captions.jsonl:2: malformed JSON line"),
    ],
)
def test_bad_captions_name_file_line_id_and_field(tmp_path: Path, lines: list[str], message: str) -> None:
    path = tmp_path / "captions.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as err:
        load_captions(path)
    assert message in err.value.describe()


# -- the command end to end -------------------------------------------------------------------

ROWS = [
    {"id": "dog", "caption": "A dog barks twice, then a car passes slowly."},
    {"id": "voice", "caption": "一位女士用欢快的语气说话，语速很快。", "domain": "speech"},
    {"id": 7, "caption": "Rain falls on a tin roof."},
    {"id": "odd", "caption": "Quiet static, faint hum."},
]


def write_captions(tmp_path: Path, rows: list[dict[str, Any]] = ROWS) -> Path:
    path = tmp_path / "captions.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def decompose_cli(captions: Path, out: Path, url: str, *extra: str) -> Any:
    args = ["rubric", "decompose", "--captions", str(captions), "--llm", url, "--llm-model", "fake-text-llm",
            "--output", str(out), "--no-progress", *extra]  # fmt: skip
    return runner.invoke(app, args)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def expected_line(
    row: dict[str, Any], domain: str, rubric: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    return {
        "id": str(row["id"]),
        "caption": row["caption"],
        "domain": domain,
        "rubric": rubric or cleaned_items(row["caption"]),
        "fallback": False,
        "prompt_version": PROMPT_VERSION,
    }


def cleaned_items(caption: str) -> list[dict[str, str]]:
    """The fake's items after its cleaning: the invented item removed; the duplicate of the
    first item (upper-cased) removed too in English, but a Chinese one reads the same, is kept
    by the cleaning and, with no dedupe (the official), stays."""
    items = decompose_items(caption)
    return [*items, items[0]] if CJK_RE.search(caption) else items


def holistic(caption: str) -> list[dict[str, str]]:
    return [{"dimension": "整体", "question": caption, "basis": caption}]


def test_decompose_writes_rubrics_retries_and_resumes_without_calls(tmp_path: Path) -> None:
    captions = write_captions(tmp_path)
    out = tmp_path / "rubrics.jsonl"
    config = FakeTextLlmConfig(http_error_first=1, empty_first=1, remove_all_when="static")
    with FakeTextLlmServer(config) as server:
        res = decompose_cli(captions, out, server.base_url)
        assert res.exit_code == 0, res.output
        assert "4/4 caption(s) decomposed (1 by fallback, 0 unparsed, 0 failed)" in res.output
        # one decomposition and one cleaning per caption, plus a failed call and an empty answer asked again
        assert (server.stats.decompose_requests, server.stats.clean_requests) == (4 + 2, 4)
        # greedy decomposition with the domain's budget (mix 6000, speech 2048); cleaning 0.2 / 1024
        decoding = {(b["temperature"], b["max_tokens"]) for b in server.stats.bodies}
        assert decoding == {(0.0, 6000), (0.0, 2048), (0.2, 1024)}
        got = lines(out)
        assert got[:3] == [expected_line(ROWS[0], "mix"), expected_line(ROWS[1], "speech"),
                           expected_line(ROWS[2], "mix")]  # fmt: skip
        assert got[3]["fallback"] is True and got[3]["rubric"] == holistic(ROWS[3]["caption"])
        summary = json.loads((tmp_path / "rubrics.jsonl.run" / "decompose_summary.json").read_text())
        assert summary["counts"] == {
            "captions": 4, "decomposed": 4, "fallback": 1, "unparsed": 0, "failed": 0, "items": 7
        }  # fmt: skip
        assert summary["fallback_ids"] == ["odd"] and summary["prompt_version"] == PROMPT_VERSION
        assert summary["domains"] == {"mix": 3, "speech": 1} and summary["llm_calls"] == 10
        # items per caption: the engine's figure in summary.json, shown (not computed) in the export
        pair = next((tmp_path / "rubrics.jsonl.run").glob("*/*/summary.json"))
        engine = json.loads(pair.read_text())["metrics"]["mean:rubric_items"]["value"]
        assert summary["mean_items"] == engine == 7 / 4
        before = out.read_text(encoding="utf-8")
        calls = server.stats.requests
        again = decompose_cli(captions, out, server.base_url)
        assert again.exit_code == 0, again.output
        assert server.stats.requests == calls  # resumed: nothing asked, not even the endpoint check
        assert "decomposed now 0, reused 4, LLM calls 0" in again.output
        assert out.read_text(encoding="utf-8") == before
    out.unlink()
    rescored = runner.invoke(app, ["rescore", str(tmp_path / "rubrics.jsonl.run")])  # no server now
    assert rescored.exit_code == 0, rescored.output
    assert out.read_text(encoding="utf-8") == before


def test_failed_captions_are_recorded_counted_and_asked_again(tmp_path: Path) -> None:
    captions = write_captions(tmp_path, ROWS[:3])
    out = tmp_path / "rubrics.jsonl"
    run_dir = tmp_path / "run"
    with FakeTextLlmServer(FakeTextLlmConfig(http_error_when="Rain")) as server:
        res = decompose_cli(
            captions, out, server.base_url, "--output_dir", str(run_dir), "--max-attempts", "4"
        )
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        assert "1 of 3 caption(s) failed" in res.output
        assert "decomposition: no usable answer after 4 call(s)" in res.output
        assert server.stats.captions.count(ROWS[2]["caption"]) == 4
    assert [x["id"] for x in lines(out)] == ["dog", "voice"]
    summary = json.loads((run_dir / "decompose_summary.json").read_text())
    assert summary["counts"]["failed"] == 1 and summary["failed"][0]["id"] == "7"
    assert "HTTP 400" in summary["failed"][0]["error"]
    with FakeTextLlmServer(FakeTextLlmConfig(http_error_when="Rain")) as server:
        accepted = decompose_cli(captions, out, server.base_url, "--output_dir", str(run_dir),
                                 "--max-attempts", "4", "--max-failed", "1")  # fmt: skip
        assert accepted.exit_code == 0, accepted.output
        assert (
            server.stats.decompose_requests == 4
        )  # only the failed caption, and failed calls are not cached
    with FakeTextLlmServer(FakeTextLlmConfig()) as server:
        fixed = decompose_cli(
            captions, out, server.base_url, "--output_dir", str(run_dir), "--max-attempts", "4"
        )
        assert fixed.exit_code == 0, fixed.output
        assert (server.stats.decompose_requests, server.stats.clean_requests) == (1, 1)
    assert [x["id"] for x in lines(out)] == ["dog", "voice", "7"]


def test_nothing_decomposed_exits_4(tmp_path: Path) -> None:
    captions = write_captions(tmp_path, ROWS[:2])
    out = tmp_path / "rubrics.jsonl"
    with FakeTextLlmServer(FakeTextLlmConfig(http_error=True)) as server:
        res = decompose_cli(captions, out, server.base_url, "--max-attempts", "2", "--max-failed", "100%")
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        assert "nothing was scored (2 caption(s), 2 failed)" in res.output
        assert server.stats.decompose_requests == 4 and server.stats.clean_requests == 0
    assert out.read_text() == ""


def test_answers_without_json_give_the_caption_as_the_item_counted_unparsed(tmp_path: Path) -> None:
    # the official reads an answer with no decodable JSON as no item (silently) and the
    # caption stands in: no retry, no cleaning call; here the count says how many
    captions = write_captions(tmp_path, ROWS[:2])
    out = tmp_path / "rubrics.jsonl"
    with FakeTextLlmServer(FakeTextLlmConfig(garbage=True)) as server:
        res = decompose_cli(captions, out, server.base_url)
        assert res.exit_code == 0, res.output
        assert "2/2 caption(s) decomposed (2 by fallback, 2 unparsed, 0 failed)" in res.output
        assert server.stats.decompose_requests == 2 and server.stats.clean_requests == 0
    assert [x["rubric"] for x in lines(out)] == [holistic(r["caption"]) for r in ROWS[:2]]
    summary = json.loads((tmp_path / "rubrics.jsonl.run" / "decompose_summary.json").read_text())
    assert summary["counts"]["unparsed"] == 2 and summary["unparsed_ids"] == ["dog", "voice"]
    assert summary["counts"]["failed"] == 0 and summary["fallback_ids"] == ["dog", "voice"]


def test_messy_and_cut_off_json_is_repaired_not_retried(tmp_path: Path) -> None:
    captions = write_captions(tmp_path, ROWS[:2])
    with FakeTextLlmServer(FakeTextLlmConfig(messy=True)) as server:
        res = decompose_cli(captions, tmp_path / "messy.jsonl", server.base_url)
        assert res.exit_code == 0, res.output
        assert server.stats.decompose_requests == 2
    # curly quotes inside a value become straight quotes, as the official reader makes them
    straight = [
        {**i, "question": i["question"].replace("Is it true that", 'Is it "true" that')}
        for i in decompose_items(ROWS[0]["caption"])
    ]
    assert lines(tmp_path / "messy.jsonl") == [
        expected_line(ROWS[0], "mix", straight),
        expected_line(ROWS[1], "speech"),
    ]
    records = tmp_path / "messy.jsonl.run" / "rubric_decompose" / "caption" / "records.jsonl"
    repairs = {r["id"]: r["judge"]["rubric_decompose"]["repairs"] for r in lines(records)}
    assert repairs == {"dog": ["commas"], "voice": ["commas"]}  # the trailing comma: step 4
    with FakeTextLlmServer(FakeTextLlmConfig(cut_after_two=True)) as server:
        res = decompose_cli(write_captions(tmp_path, [ROWS[0]]), tmp_path / "cut.jsonl", server.base_url)
        assert res.exit_code == 0, res.output
        assert server.stats.decompose_requests == 1
    # the answer cut in its third item: the two complete items kept (step 5)
    assert lines(tmp_path / "cut.jsonl")[0]["rubric"] == decompose_items(ROWS[0]["caption"])[:2]


def test_edited_captions_are_asked_again_and_other_settings_refused(tmp_path: Path) -> None:
    captions = write_captions(tmp_path, ROWS[:3])
    out = tmp_path / "rubrics.jsonl"
    with FakeTextLlmServer(FakeTextLlmConfig()) as server:
        assert decompose_cli(captions, out, server.base_url).exit_code == 0
        rows = [*ROWS[:2], {"id": 7, "caption": "Heavy rain falls on a tin roof."}]
        write_captions(tmp_path, rows)
        before = server.stats.decompose_requests
        res = decompose_cli(captions, out, server.base_url)
        assert res.exit_code == 0, res.output
        assert server.stats.decompose_requests == before + 1
        assert lines(out)[2]["caption"] == "Heavy rain falls on a tin roof."
        refused = decompose_cli(captions, out, server.base_url, "--max-items", "5")
        assert refused.exit_code == exit_codes.BAD_INPUT and "other settings" in refused.output


def test_bad_input_exits_2_before_any_call(tmp_path: Path) -> None:
    captions = write_captions(tmp_path, [ROWS[0], ROWS[0]])
    with FakeTextLlmServer(FakeTextLlmConfig()) as server:
        res = decompose_cli(captions, tmp_path / "r.jsonl", server.base_url)
        assert res.exit_code == exit_codes.BAD_INPUT and "id repeated" in res.output
        assert server.stats.requests == 0
        bad_url = decompose_cli(write_captions(tmp_path), tmp_path / "r.jsonl", "gpu:8000")
        assert bad_url.exit_code == exit_codes.BAD_INPUT and "--llm" in bad_url.output
        same = decompose_cli(captions, captions, server.base_url)
        assert same.exit_code == exit_codes.BAD_INPUT and "would replace the captions file" in same.output
        assert server.stats.requests == 0
    assert not (tmp_path / "r.jsonl.run").exists()
