"""Scoring profiles: `profile: ultraeval` reproduces UltraEval-Audio's WER/CER conventions
(English normaliser, SpeechIO-style Chinese normalisation, sacrebleu 13a/zh tokens, corpus
edits over reference tokens); the default profile's numbers and signatures stay as they were.

Every expected value below is derived by hand from those rules (tokens written out)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.ultraeval.wer_text import chinese_normalise, ultraeval_tokens
from audioeval.cli.main import app
from audioeval.scoring.base import Prediction
from audioeval.scoring.scorer_registry import build_scorer
from tests.run_helpers import tone_asr_manifest, write_jsonl

load_benchmarks()  # registers the `ultraeval` profile

runner = CliRunner()

EN = [
    # ref tokens (13a after Whisper's normaliser): it is $ 5.50 mister smith is color coded $ 10000
    (
        "It's $5.50, Mr. Smith's colour-coded ten thousand dollars!",
        "It is $5.50, Mister Smith's color coded $10,000.",
    ),
    # ref: we can not go to the well known theater at 3 30 pm (13); hyp: we cannot go to the well
    # known theater at 3 30 (11): can not -> cannot (1 sub + 1 del), pm deleted: 3 edits
    ("We can't go to the well-known theatre at 3:30 pm.", "we cannot go to the well known theater at 3 30"),
]
ZH = [
    # date (year digit by digit), decimal, percentage -> 25 Hanzi tokens, hypothesis identical
    ("2021年3月5日，温度是12.5度，增长了50%。", "二零二一年三月五日温度是十二点五度增长了百分之五十"),
    # mobile number digit by digit, a Latin word as one token, full-width parentheses around
    # Chinese kept (only Latin content is removed): 请 拨 打 一 三 八 零 零 一 三 八 零 零 零 用
    # iphone 打 电 话 备 注 (21); "i phone": 1 sub + 1 ins; 备 注 deleted: 4 edits
    ("请拨打13800138000，用iPhone打电话（备注）", "请拨打一三八零零一三八零零零用 I phone 打电话"),
]


def corpus(name: str, pairs: list[tuple[str, str]], **args: Any) -> tuple[float, list[dict[str, Any]]]:
    scorer = build_scorer(name, args, where="test")
    scores = [
        scorer.score(Prediction(hyp, hyp), {"id": str(i), "reference": ref})
        for i, (ref, hyp) in enumerate(pairs)
    ]  # type: ignore[arg-type]
    stats = [s.stats for s in scores]
    edits = sum(s["substitutions"] + s["deletions"] + s["insertions"] for s in stats)
    return edits / sum(s["ref_len"] for s in stats), stats


def test_english_tokens_follow_whisper_then_13a() -> None:
    assert ultraeval_tokens(EN[0][0], "en") == "it is $ 5.50 mister smith is color coded $ 10000".split()
    assert ultraeval_tokens(EN[1][0], "en") == "we can not go to the well known theater at 3 30 pm".split()


def test_english_wer_ultraeval_and_default() -> None:
    value, stats = corpus("wer", EN, language="en", profile="ultraeval")
    assert [s["ref_len"] for s in stats] == [11, 13]
    assert value == pytest.approx(3 / 24)
    # the default splits on spaces only: "$5.50" and "$10000" are one word each (9 + 13)
    default, stats = corpus("wer", EN, language="en")
    assert [s["ref_len"] for s in stats] == [9, 13]
    assert default == pytest.approx(3 / 22)


def test_chinese_chain_is_english_then_cn_then_zh_tokens() -> None:
    """Token streams of UltraEval-Audio's zh chain (EN, then CN, then sacrebleu zh tokens)."""
    assert chinese_normalise("2023年10月1日") == "二零二三年十月一日"
    streams = {
        "我在2019年3月15日出生。": "我 在 二 零 一 九 年 三 月 十 五 日 出 生",
        "iPhone 15 Pro": "iphone 十 五 pro",
        "Ｈｅｌｌｏ，世界": "hello 世 界",  # NFKD in EN: full-width Latin becomes ASCII
        "2.5%的人": "百 分 之 二 点 五 的 人",
        "1.5亿人": "one 五 亿 人",  # EN reads a standalone 1 as "one" before CN sees it
        "1/2": "one 二",  # EN removes "/", so CN's fraction rule never fires
    }
    assert {text: " ".join(ultraeval_tokens(text, "zh")) for text in streams} == streams


def test_chinese_cer_ultraeval() -> None:
    value, stats = corpus("cer", ZH, language="zh", profile="ultraeval")
    assert [s["ref_len"] for s in stats] == [25, 21]
    assert [s["substitutions"] + s["deletions"] + s["insertions"] for s in stats] == [0, 4]
    assert value == pytest.approx(4 / 46)


def test_cantonese_traditional_to_simplified_first() -> None:
    pairs = [("我們說廣東話。", "我们说广东话")]
    assert corpus("cer", pairs, language="yue", profile="ultraeval")[0] == 0.0
    # the default compares characters as written: 們 說 廣 東 話 are 5 substitutions of 6
    assert corpus("cer", pairs, language="yue")[0] == pytest.approx(5 / 6)


def test_default_profile_is_unchanged() -> None:
    plain = build_scorer("cer", {"language": "zh"}, where="test")
    named = build_scorer("cer", {"language": "zh", "profile": "audioeval"}, where="test")
    assert plain.signature() == named.signature() and "profile" not in plain.signature()
    ultra = build_scorer("cer", {"language": "zh", "profile": "ultraeval"}, where="test").signature()
    assert ultra["profile"] == "ultraeval" and "cn_tn" in ultra["normaliser"]["zh"]["steps"]
    # the default CER of the zh pairs: whisper_basic, spaces removed, characters compared
    assert corpus("cer", [("今天天气很好。", "今天天气很号")], language="zh")[0] == pytest.approx(1 / 6)


def test_profile_with_a_normaliser_is_refused() -> None:
    with pytest.raises(Exception, match="drop `normaliser`"):
        build_scorer("wer", {"profile": "ultraeval", "normaliser": ["strip"]}, where="test")


def _run(*args: str) -> Any:
    return runner.invoke(app, ["run", *args, "--no-progress", "--resamples", "20"], catch_exceptions=False)


def _manifest(tmp_path: Path, pairs: list[tuple[str, str]]) -> tuple[Path, Path]:
    refs = tone_asr_manifest(tmp_path / "data", n=len(pairs))
    rows = [json.loads(x) for x in refs.read_text().splitlines()]
    for row, (ref, _) in zip(rows, pairs, strict=True):
        row["text"] = ref
    write_jsonl(refs, rows)
    hyps = write_jsonl(
        tmp_path / "hyps.jsonl", [{"id": r["id"], "text": h} for r, (_, h) in zip(rows, pairs, strict=True)]
    )
    return refs, hyps


@pytest.mark.parametrize(
    ("language", "pairs", "metric", "expected"), [("zh", ZH, "cer", 4 / 46), ("en", EN, "wer", 3 / 24)]
)
def test_cli_profile_puts_their_number_at_the_top(
    tmp_path: Path, language: str, pairs: list[tuple[str, str]], metric: str, expected: float
) -> None:
    refs, hyps = _manifest(tmp_path, pairs)
    out = tmp_path / "out"
    res = _run("--model", f"predictions:{hyps}", "--task", "asr", "--benchmark", str(refs), "--language", language,
               "--profile", "ultraeval", "--output_dir", str(out))  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary[metric] == pytest.approx(expected)
    (sig,) = out.glob("*/*/signature.json")
    scorers = json.loads(sig.read_text())["benchmark"]["scorers"]
    assert {s["profile"] for s in scorers} == {"ultraeval"}


def _folder_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_rescore_profile_writes_a_new_folder_and_again_changes_nothing(tmp_path: Path) -> None:
    """`rescore --profile ultraeval RUN` scores into RUN-ultraeval with its scores, spec and
    signatures, leaving RUN byte for byte as it was; the same command again writes nothing (it
    rewrote RUN in place, and a second call was refused with the signature's whole difference)."""
    refs, hyps = _manifest(tmp_path, EN)
    out = tmp_path / "out"
    args = ("--model", f"predictions:{hyps}", "--task", "asr", "--benchmark", str(refs), "-o", str(out))
    assert _run(*args).exit_code == 0
    assert json.loads((out / "summary.json").read_text())["wer"] == pytest.approx(3 / 22)
    before = _folder_bytes(out)
    rescore = ["rescore", str(out), "--resamples", "20", "--profile", "ultraeval"]
    res = runner.invoke(app, rescore, catch_exceptions=False)
    assert res.exit_code == 0, res.output
    new = tmp_path / "out-ultraeval"
    assert f"{new}: written" in res.output.replace("\n", "")
    assert _folder_bytes(out) == before  # the original as it was
    assert json.loads((new / "summary.json").read_text())["wer"] == pytest.approx(3 / 24)
    assert json.loads((new / "run.json").read_text())["benchmarks"][0]["spec"]["profile"] == "ultraeval"
    written = _folder_bytes(new)
    again = runner.invoke(app, rescore, catch_exceptions=False)
    assert again.exit_code == 0, again.output
    assert "already holds this rescore; nothing written" in again.output.replace("\n", "")
    assert _folder_bytes(new) == written and _folder_bytes(out) == before
    # the original resumes as run, with nothing to ask
    rerun = _run(*args)
    assert rerun.exit_code == 0 and "asked 0, reused" in rerun.output
    # the new folder resumes only under its profile: without it the pair's signature differs
    new_args = (*args[:-1], str(new))
    refused = _run(*new_args)
    assert refused.exit_code != 0 and "profile" in refused.output
    resumed = _run(*new_args, "--profile", "ultraeval")
    assert resumed.exit_code == 0, resumed.output
    assert json.loads((new / "summary.json").read_text())["wer"] == pytest.approx(3 / 24)
    # another --output holds its own copy; a folder that is no rescore of the run is refused
    other = tmp_path / "elsewhere"
    res = runner.invoke(app, [*rescore, "--output", str(other)], catch_exceptions=False)
    assert res.exit_code == 0 and json.loads((other / "summary.json").read_text())["wer"] == pytest.approx(3 / 24)
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    res = runner.invoke(app, [*rescore, "--output", str(taken)], catch_exceptions=False)
    assert res.exit_code == 2 and "is not a rescore of" in res.output
    assert (taken / "notes.txt").read_text() == "mine"
    res = runner.invoke(app, [*rescore, "--output", str(out / "inside")], catch_exceptions=False)
    assert res.exit_code == 2 and "lies inside it" in res.output and not (out / "inside").exists()


def test_spec_and_run_config_profile_fields(tmp_path: Path) -> None:
    from audioeval.benchmarks.resolved import resolve, with_profile
    from audioeval.benchmarks.spec import parse_spec
    from audioeval.core.errors import InputError
    from audioeval.engine.run_config import load_run_config

    data = {"name": "x", "task": "asr", "language": "zh", "source": {"type": "jsonl", "path": "x.jsonl"}}
    spec = parse_spec({**data, "profile": "ultraeval"}, "x.yaml")
    assert [s.signature().get("profile") for s in resolve(spec, "x.yaml").scorers] == ["ultraeval"]
    assert [
        s.signature().get("profile") for s in resolve(with_profile(spec, "audioeval"), "x.yaml").scorers
    ] == [None]
    with pytest.raises(InputError, match="unknown scoring profile 'ultra'") as refused:
        resolve(parse_spec({**data, "profile": "ultra"}, "x.yaml"), "x.yaml")
    assert (refused.value.file, refused.value.field) == ("x.yaml", "profile")
    cfg = tmp_path / "run.yaml"
    cfg.write_text("benchmarks: [demo-speech-en]\nmodels: [oracle]\nprofile: ultraeval\n", encoding="utf-8")
    assert load_run_config(cfg).profile == "ultraeval"


@pytest.mark.parametrize("symbols", ["…", "$", "%"])
def test_english_asr_keeps_the_wer_of_a_reference_the_chinese_chain_empties(
    tmp_path: Path, symbols: str
) -> None:
    """UltraEval-Audio's English ASR runs only its WER evaluator: a reference of symbols alone
    has English tokens ("…" -> ". .", "$" stays) and is in their corpus WER. Our `cer` beside it
    (their zh chain) leaves that sample out of the CER alone, never out of the WER."""
    pairs = [("the cat sat", "the cat sat"), (symbols, "dollar"), ("a b c d", "a b")]
    refs, hyps = _manifest(tmp_path, pairs)
    out = tmp_path / "out"
    res = _run("--model", f"predictions:{hyps}", "--task", "asr", "--benchmark", str(refs), "--language", "en",
               "--profile", "ultraeval", "--output_dir", str(out))  # fmt: skip
    assert res.exit_code == 0, res.output
    (pair,) = json.loads((out / "summary.json").read_text())["results"]
    assert pair["failed"] == 0 and pair["scored"] == 3
    expected, _ = corpus("wer", pairs, profile="ultraeval", language="en")
    assert pair["metrics"]["wer"]["value"] == pytest.approx(expected)
    assert pair["metrics"]["wer"]["n"] == 3 and pair["metrics"]["cer"]["n"] == 2
    lines = [json.loads(x) for x in next(out.glob("*/*/records.jsonl")).read_text().splitlines()]
    left_out = [r for r in lines if not r["scores"]["cer"]["values"]]
    assert [r["scores"]["cer"]["detail"]["not_scored"] for r in left_out] == [
        "the reference is empty after normalisation; under profile ultraeval the sample is not scored"
    ]


def test_chinese_asr_still_fails_a_sample_whose_reference_its_chain_empties(tmp_path: Path) -> None:
    """The headline's scorer: their per-sample CER raises on it, and the sample is dropped
    (fail_rate): here it fails, counted."""
    refs, hyps = _manifest(tmp_path, [("你好世界", "你好世界"), ("，。", "你好")])
    out = tmp_path / "out"
    res = _run("--model", f"predictions:{hyps}", "--task", "asr", "--benchmark", str(refs), "--language", "zh",
               "--profile", "ultraeval", "--output_dir", str(out), "--max-failed", "1")  # fmt: skip
    assert res.exit_code == 0, res.output
    (pair,) = json.loads((out / "summary.json").read_text())["results"]
    assert pair["failed"] == 1 and pair["metrics"]["cer"]["value"] == 0.0
