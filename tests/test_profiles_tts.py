"""`profile: ultraeval` beyond ASR WER/CER: Seed-TTS-eval's TTS WER (`asr_wer`/`asr_cer`, the
mean of per-utterance rates), per-direction BLEU tokenizers with empty references dropped,
their prefix/exact/exist accuracy matching; and a manifest row's own `language`.

Every expected value below is derived by hand from those rules (texts written out). A speech
transcript comes from a stand-in transcriber keyed by clip length, so the numbers are known."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.benchmarks.ultraeval.tts_text import tts_text
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.metrics.corpus import aggregate
from audioeval.scoring.base import Prediction
from audioeval.scoring.scorer_registry import build_scorer
from tests.fakes.mcq_server import tone_wav
from tests.run_helpers import write_jsonl

load_benchmarks()  # registers the `ultraeval` profile

runner = CliRunner()

TTS_EN = [
    # ref: hello world it's a wellknown fact (6); hyp: hello world its a well known fact (7):
    # it's -> its, wellknown -> well + known: 2 substitutions, 1 insertion -> 3/6
    ("Hello, world! It's a well-known fact.", "hello world its a well known fact"),
    # go (1) vs no: 1 substitution -> 1/1
    ("Go!", "no"),
]
TTS_ZH = [
    # 今 天 天 气 很 好 (6); the transcript in traditional characters is converted first: 0
    ("今天天气很好。", "今天天氣很好"),
    # 你 好 世 界 (4) vs 你 好 世 街: 1/4
    ("你好，世界！", "你好世街"),
    # 用 i P h o n e 打 电 话 (10): Latin letters are characters, case kept: p vs P -> 1/10
    ("用iPhone打电话", "用iphone打电话"),
]


def sample(i: int, **fields: Any) -> Sample:
    return Sample(f"s{i}", fields=fields, source="refs.jsonl")


def scores(name: str, rows: list[dict[str, Any]], **args: Any) -> list[Any]:
    scorer = build_scorer(name, args, where="test")
    return [scorer.score(Prediction(r.pop("hyp"), None), sample(i, **r)) for i, r in enumerate(rows)]


def test_seed_tts_text_rules() -> None:
    assert tts_text("Hello, world! It's 3:30 — “fine”.", "en") == "hello world it's 330 fine"
    assert tts_text("你好，世界！iPhone", "zh") == "你 好 世 界 i P h o n e"


@pytest.mark.parametrize(
    ("language", "pairs", "rates"),
    [("en", TTS_EN, [3 / 6, 1.0]), ("zh", TTS_ZH, [0.0, 1 / 4, 1 / 10])],
)
def test_tts_wer_is_the_mean_of_utterance_rates(language: str, pairs: list, rates: list[float]) -> None:
    text = build_scorer("wer", {"language": language, "profile": "ultraeval", "tts": True}, where="test")
    assert text.metrics == ("mean_wer",)
    got = [text.score(Prediction(h, None), sample(i, reference=r)) for i, (r, h) in enumerate(pairs)]
    assert [s.values["wer"] for s in got] == pytest.approx(rates)
    assert [s.stats["wer"] for s in got] == pytest.approx(rates)
    stats = [s.stats for s in got]
    assert aggregate("mean_wer", stats, resamples=0).value == pytest.approx(sum(rates) / len(rates))
    edits = sum(s["substitutions"] + s["deletions"] + s["insertions"] for s in stats)
    corpus = edits / sum(s["ref_len"] for s in stats)  # en 4/7, zh 2/20: not the mean
    assert aggregate("wer", stats, resamples=0).value == pytest.approx(corpus)
    assert corpus != pytest.approx(sum(rates) / len(rates))


def test_tts_default_profile_is_unchanged() -> None:
    default = build_scorer("wer", {"language": "en", "tts": True}, where="test")
    plain = build_scorer("wer", {"language": "en"}, where="test")
    assert default.metrics == ("wer",) and default.signature() == plain.signature()
    got = default.score(Prediction("no", None), sample(0, reference="Go!"))
    assert "wer" not in got.stats and got.values["wer"] == 1.0


def test_tts_empty_reference_is_not_scored() -> None:
    scorer = build_scorer("wer", {"profile": "ultraeval", "tts": True}, where="test")
    with pytest.raises(InputError, match="empty after normalisation") as err:
        scorer.score(Prediction("hello", None), sample(7, reference="?!"))
    assert err.value.sample_id == "s7" and err.value.field == "reference"
    # every language is scored (UltraEval-Audio's CV3/MiniMax port): French as lower-cased words
    fr = scorer.score(Prediction("Bonjour", None), sample(0, reference="bonjour", language="fr"))
    assert fr.values["wer"] == 0.0


def test_asr_wer_and_cer_under_the_profile_name_it_and_feed_the_mean(tmp_path: Path) -> None:
    from audioeval.benchmarks.resolved import resolve
    from audioeval.benchmarks.spec import parse_spec

    data = {"name": "t", "task": "tts", "source": {"type": "jsonl", "path": "x.jsonl"}}
    for profile, headline in (("audioeval", "wer"), ("ultraeval", "mean_wer")):
        bench = resolve(parse_spec({**data, "profile": profile, "scorers": ["asr_wer"]}, "t.yaml"), "t.yaml")
        assert bench.headline == headline and [m.name for m in bench.metrics] == [headline]
    # the task's own scorers: the TTS headline is the mean of rates, and lower is better
    bench = resolve(parse_spec({**data, "profile": "ultraeval"}, "t.yaml"), "t.yaml")
    assert (
        bench.headline == "mean_wer"
        and not next(m for m in bench.metrics if m.name == "mean_wer").higher_is_better
    )
    zh = resolve(
        parse_spec(
            {**data, "language": "zh", "profile": "ultraeval", "scorers": [{"asr_cer": {"model": "m"}}]}, "t"
        ),
        "t",
    )
    assert zh.headline == "mean_cer"
    # a spec that names `wer` (metrics and headline) reports the profile's `mean_wer` in its place
    named = {**data, "scorers": ["asr_wer", "sim"], "metrics": ["wer", "mean:sim"], "headline": "wer"}
    for profile, headline in (("audioeval", "wer"), ("ultraeval", "mean_wer")):
        bench = resolve(parse_spec({**named, "profile": profile}, "t.yaml"), "t.yaml")
        assert bench.headline == headline and [m.name for m in bench.metrics] == [headline, "mean:sim"]


def test_bleu_tokenizer_follows_the_direction() -> None:
    ultra = build_scorer("bleu", {"profile": "ultraeval"}, where="test")
    zh = ultra.score(
        Prediction("今天 天气很好", None), sample(0, reference="今天天气很好", target_language="Chinese")
    )
    # zh tokens: each Hanzi is one, so 6 against 6 and every n-gram matches
    assert zh.stats == {"sys_len": 6, "ref_len": 6, "correct": [6, 5, 4, 3], "total": [6, 5, 4, 3]}
    assert zh.values["bleu"] == pytest.approx(100.0)
    en = ultra.score(
        Prediction("the cat sat", None), sample(1, reference="the cat sat down.", target_language="en")
    )
    # 13a: the cat sat down . (5); the cat sat (3): 3, 2, 1, 0 matches
    assert en.stats == {"sys_len": 3, "ref_len": 5, "correct": [3, 2, 1, 0], "total": [3, 2, 1, 0]}
    # our default keeps the spec's tokenizer (13a): two words against one
    default = build_scorer("bleu", {}, where="test")
    plain = default.score(
        Prediction("今天 天气很好", None), sample(0, reference="今天天气很好", target_language="zh")
    )
    assert (plain.stats["sys_len"], plain.stats["ref_len"]) == (2, 1)
    assert "profile" not in default.signature() and default.signature()["tokenize"] == "13a"
    assert ultra.signature()["profile"] == "ultraeval"


def test_bleu_target_language_it_cannot_read_is_an_error_not_13a() -> None:
    """A direction it cannot read ("中文", two languages) is an InputError naming the field,
    never silently 13a (a Chinese sentence would then be one or two words)."""
    ultra = build_scorer("bleu", {"profile": "ultraeval"}, where="test")
    for name in ("中文", "Chinese and English"):
        with pytest.raises(InputError, match="target_language") as err:
            ultra.score(
                Prediction("今天 天气很好", None), sample(0, reference="今天天气很好", target_language=name)
            )
        assert err.value.field == "target_language" and err.value.sample_id == "s0"
    # codes and the known names still choose the tokenizer
    for name in ("zh-CN", "Mandarin Chinese", "cmn", "Simplified Chinese"):
        ok = ultra.score(Prediction("今天", None), sample(0, reference="今天", target_language=name))
        assert ok.detail["tokenize"] == "zh"
    # the name of any other language is another language: 13a
    ok = ultra.score(Prediction("bonjour", None), sample(0, reference="bonjour", target_language="French"))
    assert ok.detail.get("tokenize", ultra.tokenize) == "13a"


def test_language_names_are_read_by_the_language_they_name() -> None:
    from audioeval.scoring.error_rate import language_code

    named = {"English (US)": "en", "Simplified Chinese": "zh", "Yue Chinese (Cantonese)": "yue"}
    named |= {"Japanese": "ja", "French": "other", "Swahili": "other", "zh_CN": "zh", "jp": "ja"}
    assert {name: language_code(name) for name in named} == named
    # a row in French is scored, not refused (the chain of a language other than en/zh/ja/ko/yue)
    wer = build_scorer("wer", {"language": "en"}, where="test")
    score = wer.score(Prediction("le chat", None), sample(0, reference="le chat noir", language="French"))
    assert score.stats["deletions"] == 1 and score.stats["ref_len"] == 3


def test_bleu_empty_reference_dropped_not_wrong() -> None:
    ultra = build_scorer("bleu", {"profile": "ultraeval"}, where="test")
    with pytest.raises(InputError, match="pair is not scored") as err:
        ultra.score(Prediction("hello", None), sample(3, reference="", target_language="en"))
    assert err.value.sample_id == "s3"
    # the default scores it: 1 hypothesis token against an empty reference
    default = build_scorer("bleu", {}, where="test").score(Prediction("hello", None), sample(3, reference=""))
    assert default.stats["ref_len"] == 0 and default.stats["sys_len"] == 1
    with pytest.raises(Exception, match="drop `normaliser` and `lowercase`"):
        build_scorer("bleu", {"profile": "ultraeval", "lowercase": True}, where="test")


ACC = [
    # (match, gold, prediction, hit, the prediction as they rewrite it)
    ("prefix", "yes", "  Yes, it is.", True, "yes"),
    ("prefix", "yes", "Maybe yes", False, "may"),
    ("exist", "Happy", "I think it is HAPPY.", True, "happy"),
    ("exist", "sad", "I think it is happy.", False, "i think it is happy."),
    ("exist", "", "anything", True, ""),  # an empty gold is in every prediction
    ("exact", "happy", " Happy ", False, "Happy"),  # case kept
    ("exact", "happy", " happy ", True, "happy"),
    ("exact", 3, "3.0", True, "3"),  # a numeric gold compares as a float
    ("exact", 3, "three", False, "three"),
]


@pytest.mark.parametrize(("match", "gold", "pred", "hit", "rewritten"), ACC)
def test_accuracy_matching_of_ultraeval(match: str, gold: Any, pred: str, hit: bool, rewritten: str) -> None:
    scorer = build_scorer("accuracy", {"profile": "ultraeval", "match": match}, where="test")
    got = scorer.score(Prediction(pred, None), sample(0, answer=gold))
    assert got.stats["correct"] == int(hit) and got.stats["pred"] == rewritten
    assert scorer.signature()["profile"] == "ultraeval" and scorer.signature()["match"] == match


def test_accuracy_corpus_and_default_profile() -> None:
    rows = [(m, g, p) for m, g, p, _, _ in ACC if m == "exact"]
    scorer = build_scorer("accuracy", {"profile": "ultraeval"}, where="test")  # exact by default
    stats = [scorer.score(Prediction(p, None), sample(i, answer=g)).stats for i, (_, g, p) in enumerate(rows)]
    assert aggregate("accuracy", stats, resamples=0).value == pytest.approx(2 / 4)
    # ours: stripped and case-folded, so " Happy " is right; "3.0" is not "3"
    default = build_scorer("accuracy", {}, where="test")
    assert default.signature() == {
        "scorer": "accuracy",
        "field": "answer",
        "normaliser": ["strip"],
        "ignore_case": True,
    }
    ours = [
        default.score(Prediction(p, None), sample(i, answer=g)).stats["correct"]
        for i, (_, g, p) in enumerate(rows)
    ]
    assert ours == [1, 1, 0, 0]
    prefix = build_scorer("accuracy", {"match": "prefix"}, where="test")
    assert prefix.score(Prediction("Yes, it is", None), sample(0, answer="yes")).stats["correct"] == 1
    assert prefix.signature()["match"] == "prefix"
    with pytest.raises(Exception, match="drop `normaliser` and `ignore_case`"):
        build_scorer("accuracy", {"profile": "ultraeval", "ignore_case": False}, where="test")


MIXED = [
    # en: 1 word of 6 substituted; zh (the row's language): 1 character of 6 substituted
    {"language": "en", "text": "the cat sat on the mat", "hyp": "the cat sat on a mat"},
    {"language": "zh", "text": "今天天气很好", "hyp": "今天天气很号"},
]


def test_row_language_picks_the_chain() -> None:
    rows = [{"language": r["language"], "reference": r["text"], "hyp": r["hyp"]} for r in MIXED]
    for profile in ("audioeval", "ultraeval"):
        got = scores("wer", [dict(r) for r in rows], language="en", profile=profile)
        assert [s.stats["ref_len"] for s in got] == [6, 6], profile  # words, then characters
    # without the row's language the zh row is one English "word"
    plain = scores("wer", [{"reference": r["reference"], "hyp": r["hyp"]} for r in rows], language="en")
    assert [s.stats["ref_len"] for s in plain] == [6, 1]
    # a language name as FLEURS writes it: Chinese, so 4 characters, not one English word
    named = scores("wer", [{"reference": "今天天气", "hyp": "今天天气", "language": "Mandarin Chinese"}])
    assert named[0].stats["ref_len"] == 4
    with pytest.raises(InputError, match="not a language code") as err:
        scores("wer", [{"reference": "x", "hyp": "x", "language": "普通话"}])
    assert err.value.field == "language" and err.value.sample_id == "s0"


def _mixed_manifest(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "data").mkdir()
    rows = []
    for i, row in enumerate(MIXED):
        tone_wav(tmp_path / "data" / f"c{i}.wav", 300 + 100 * i, seconds=0.3)
        rows.append({"id": f"c{i}", "audio": f"c{i}.wav", "text": row["text"], "language": row["language"]})
    refs = write_jsonl(tmp_path / "data" / "mixed.jsonl", rows)
    hyps = write_jsonl(
        tmp_path / "hyps.jsonl", [{"id": f"c{i}", "text": r["hyp"]} for i, r in enumerate(MIXED)]
    )
    return refs, hyps


def _run(*args: str) -> Any:
    extra = ["--no-progress"] if args[0] == "run" else []
    return runner.invoke(app, [*args, *extra, "--resamples", "20"], catch_exceptions=False)


@pytest.mark.parametrize("profile", ["audioeval", "ultraeval"])
def test_cli_mixed_manifest_per_row_language(tmp_path: Path, profile: str) -> None:
    refs, hyps = _mixed_manifest(tmp_path)
    out = tmp_path / "out"
    res = _run("run", "--model", f"predictions:{hyps}", "--task", "asr", "--benchmark", str(refs),
               "--profile", profile, "-o", str(out))  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    # the headline counts words of the en row and characters of the zh row: 2 edits / 12 tokens
    assert summary["wer"] == pytest.approx(2 / 12)
    # cer, ours: en characters with spaces (22; "the" -> "a": 3 edits) + zh 1/6 -> 4/28;
    # theirs: `cer` always takes the zh chain, where a Latin word stays one token -> 2/12
    assert summary["cer"] == pytest.approx(4 / 28 if profile == "audioeval" else 2 / 12)


class _Transcriber:
    """A stand-in ASR: the transcript of a clip is looked up by its length in seconds."""

    signature = "test transcripts by clip length"

    def __init__(self, by_length: dict[float, str]) -> None:
        self.by_length = by_length

    def transcribe(self, audio: np.ndarray, sr: int) -> str:
        return self.by_length[round(len(audio) / sr, 2)]


def _tts_bench(tmp_path: Path, pairs: list[tuple[str, str]], language: str) -> tuple[Path, dict[float, str]]:
    rows, by_length = [], {}
    (tmp_path / "data").mkdir()
    for i, (ref, hyp) in enumerate(pairs):
        seconds = 0.3 + 0.05 * i
        tone_wav(tmp_path / "data" / f"t{i}.wav", 300, seconds=seconds)
        rows.append({"id": f"t{i}", "audio": f"t{i}.wav", "text": ref})
        by_length[round(seconds, 2)] = hyp
    write_jsonl(tmp_path / "data" / "tts.jsonl", rows)
    scorer = "asr_wer" if language == "en" else "{asr_wer: {model: test-asr}}"
    spec = tmp_path / "data" / "tts.yaml"
    spec.write_text(
        f"name: tts-t\ntask: tts\nlanguage: {language}\nsource: {{type: jsonl, path: tts.jsonl}}\n"
        f"fields: {{reference: text}}\nscorers: [{scorer}]\n",
        encoding="utf-8",
    )
    return spec, by_length


@pytest.mark.parametrize(
    ("language", "pairs", "corpus", "mean"),
    [
        # ours, en: Whisper's normaliser: "it is a" vs "its a" (2 of 8), "go" vs "no" (1 of 1)
        ("en", TTS_EN, 3 / 9, (3 / 6 + 1) / 2),
        # ours, zh: whisper_basic then CJK split: 氣 stays (1 of 6), 街 (1 of 4), "iphone" one word (0 of 5)
        ("zh", TTS_ZH, 2 / 15, (0 + 1 / 4 + 1 / 10) / 3),
    ],
)
def test_cli_tts_rescore_gives_the_mean_of_rates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str, pairs: list, corpus: float, mean: float
) -> None:
    """A TTS run (the echo baseline speaks the input clip) scored by our corpus WER, then
    rescored under the profile: Seed-TTS-eval's mean of rates at the top, no model called."""
    from audioeval.scoring.speech_models import asr

    spec, by_length = _tts_bench(tmp_path, pairs, language)
    monkeypatch.setattr(asr, "load_asr", lambda config=None: _Transcriber(by_length))
    out = tmp_path / "out"
    res = _run("run", "--model", "echo", "--benchmark", str(spec), "-o", str(out))
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scores"]["tts-t"]["echo"].keys() == {"wer"}
    assert summary["wer"] == pytest.approx(corpus)
    res = _run("rescore", str(out), "--profile", "ultraeval")
    assert res.exit_code == 0, res.output
    assert json.loads((out / "summary.json").read_text())["wer"] == pytest.approx(corpus)  # as it was
    out = tmp_path / "out-ultraeval"  # the rescore under the profile, a folder of its own
    summary = json.loads((out / "summary.json").read_text())
    assert summary["mean_wer"] == pytest.approx(mean) and "wer" not in summary
    assert summary["results"][0]["headline"] == "mean_wer"
    (sig,) = out.glob("*/*/signature.json")
    (scorer,) = json.loads(sig.read_text())["benchmark"]["scorers"]
    assert scorer["profile"] == "ultraeval" and scorer["text"]["tts"] == "mean of per-utterance rates"
    records = [json.loads(x) for x in next(out.glob("*/*/records.jsonl")).read_text().splitlines()]
    rates = sorted(r["scores"]["asr_wer"]["stats"]["wer"] for r in records)
    assert sum(rates) / len(rates) == pytest.approx(mean) and len(rates) == len(pairs)
