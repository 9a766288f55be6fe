"""The voice-cloning (Seed-TTS-Eval, CV3-Eval), spoken multiple-choice (SpeechCMMLU, SpeechHSK,
VoiceBench OpenBookQA / MMSU) and spoken-safety (VoiceBench AdvBench) specs, each run on a tiny
local copy under a temporary data root that uses the hub's column names.

Text-answer specs run end to end through `audioeval run` with a `predictions:` model; the
voice-cloning specs are loaded, prompted and scored by their own resolved scorers on real
speech (an oracle output: the recording of the target text). The spoken-answer specs
(SpeechCMMLU / SpeechHSK `-spoken`) run with the echo baseline and a stand-in transcriber (or a
stdlib ASR runtime); VoiceBench sd-qa's accent splits run against a local rule judge.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.registry import load_shipped, shipped_benchmarks
from audioeval.benchmarks.resolved import resolve
from audioeval.benchmarks.sources.loader import load_samples
from audioeval.cli.main import app
from audioeval.core.messages import AudioPart, TextPart
from audioeval.engine.sample_pipeline import build_messages
from audioeval.scoring.base import Prediction
from audioeval.scoring.scorer_registry import build_scorer
from tests.fakes.mcq_server import tone_wav
from tests.fakes.openai_http import FakeServer, JsonHandler, completion
from tests.run_helpers import demo_speech_as_wavs, write_jsonl

runner = CliRunner()

# spoken MCQ spec -> the column holding its answer letter
LETTER_SPECS = {
    "speech-cmmlu": "Answer",
    **{f"speech-hsk{level}": "ans_choice" for level in range(1, 7)},
}
# voicebench-openbookqa / -mmsu score with VoiceBench's own reader: tests/test_voicebench_mcq.py
# voice-cloning spec -> (target-text column, language)
CV3 = {
    "cv3-eval-en": "en",
    "cv3-eval-zh": "zh",
    "cv3-eval-hard-en": "en",
    "cv3-eval-hard-zh": "zh",
    **{f"cv3-eval-{c}": c for c in ("ja", "ko", "de", "es", "fr", "it", "ru")},
    "cv3-eval-cross-lingual-en": "en",
    "cv3-eval-cross-lingual-ja": "ja",
}
VC_SPECS = {
    "seed-tts-eval-en": ("text", "en"),
    "seed-tts-eval-zh": ("text", "zh"),
    "seed-tts-eval-hard": ("text", "zh"),
    **{name: ("target_text", lang) for name, lang in CV3.items()},
}
# The replies each spoken MCQ is answered with, and whether each is right (answer letters B, C, A, D).
REPLIES = [("答案是B", 1), ("The answer is (C).", 1), ("B", 0), ("I am not sure.", 0)]
GOLD = ["B", "C", "A", "D"]


def test_every_new_spec_is_shipped() -> None:
    shipped = set(shipped_benchmarks())
    assert {
        *LETTER_SPECS,
        *VC_SPECS,
        "voicebench-advbench",
        "voicebench-openbookqa",
        "voicebench-mmsu",
    } <= shipped


def _run(root: Path, name: str, preds: Path, out: Path) -> Any:
    args = ["run", "--model", f"predictions:{preds}", "--benchmark", name, "--data-root", str(root)]
    args += ["-o", str(out), "--no-progress", "--resamples", "20"]
    return runner.invoke(app, args, catch_exceptions=False)


def _records(out: Path) -> dict[str, dict[str, Any]]:
    (path,) = out.glob("*/*/records.jsonl")
    return {r["id"]: r for r in (json.loads(x) for x in path.read_text().splitlines())}


def _tone_rows(folder: Path, n: int) -> list[str]:
    folder.mkdir(parents=True)
    for i in range(n):
        tone_wav(folder / f"q{i}.wav", 220 + 110 * i, seconds=0.3)
    return [f"q{i}.wav" for i in range(n)]


@pytest.mark.parametrize("name", sorted(LETTER_SPECS))
def test_spoken_mcq_spec_scores_the_letter_of_the_reply(name: str, tmp_path: Path) -> None:
    root = tmp_path / "data"
    clips = _tone_rows(root / name, len(GOLD))
    rows = [
        {"id": f"q{i}", "audio": clip, LETTER_SPECS[name]: gold, "domain": ("law", "math")[i % 2]}
        for i, (clip, gold) in enumerate(zip(clips, GOLD, strict=True))
    ]
    write_jsonl(root / name / "manifest.jsonl", rows)
    preds = write_jsonl(
        tmp_path / "preds.jsonl", [{"id": f"q{i}", "text": t} for i, (t, _) in enumerate(REPLIES)]
    )
    out = tmp_path / "out"
    res = _run(root, name, preds, out)
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accuracy"] == pytest.approx(0.5)
    recs = _records(out)
    assert [recs[f"q{i}"]["scores"]["accuracy"]["values"]["accuracy"] for i in range(4)] == [
        1.0,
        1.0,
        0.0,
        0.0,
    ]
    assert "unparseable" in json.dumps(recs["q3"]).lower()  # named, never guessed
    spec, where = load_shipped(name)
    sample = load_samples(spec, where, root=root).samples[0]
    (message,) = build_messages(resolve(spec, where), sample, None)
    audio, text = message.parts
    assert isinstance(audio, AudioPart) and audio.audio.path.endswith("q0.wav")
    assert isinstance(text, TextPart)
    assert ("字母" in text.text) == (spec.language == "zh") and "A" in text.text
    if name == "voicebench-mmsu":
        assert sample.taxonomy == {"domain": "law"}


def test_advbench_scores_the_refusal_rate(tmp_path: Path) -> None:
    root = tmp_path / "data"
    clips = _tone_rows(root / "voicebench-advbench", 4)
    write_jsonl(root / "voicebench-advbench" / "manifest.jsonl",
                [{"id": f"q{i}", "audio": c, "prompt": "a harmful request"} for i, c in enumerate(clips)])  # fmt: skip
    replies = [
        "I'm sorry, but I can't help with that.",
        "Sure! Step one: ...",
        "抱歉，我不能帮你。",
        "Here is how.",
    ]
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"id": f"q{i}", "text": t} for i, t in enumerate(replies)])
    out = tmp_path / "out"
    res = _run(root, "voicebench-advbench", preds, out)
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["refusal_rate"] == pytest.approx(0.5)
    spec, where = load_shipped("voicebench-advbench")
    sample = load_samples(spec, where, root=root).samples[0]
    (message,) = build_messages(resolve(spec, where), sample, None)
    assert [type(p) for p in message.parts] == [AudioPart, TextPart]
    assert "harmful" not in message.parts[1].text  # audio mode: the request's text is not shown


def test_refusal_scorer_rule() -> None:
    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.core.sample import Sample

    load_benchmarks()  # registers the VoiceBench scorers

    def rate(scorer: Any, text: str) -> Any:
        return scorer.score(Prediction(text, None), s).stats["refusal_rate"]

    scorer = build_scorer("refusal", {}, where="t.yaml")
    s = Sample("x")
    assert rate(scorer, "As an AI, I must decline.") == 1
    assert rate(scorer, "AS AN AI, I must decline.") == 1  # VoiceBench lower-cases since 2025-06
    as_written = build_scorer("refusal", {"ignore_case": False}, where="t.yaml")
    assert rate(as_written, "AS AN AI, I must decline.") == 0
    assert rate(scorer, "Here you go.") == 0
    empty = scorer.score(Prediction("  ", "  "), s)
    assert empty.stats["refusal_rate"] == 1 and empty.detail["empty"] is True
    own = build_scorer("refusal", {"phrases": ["nope"]}, where="t.yaml")
    assert rate(own, "Well, nope.") == 1
    assert own.signature()["phrases"] == ["nope"]
    with pytest.raises(Exception, match="phrases"):
        build_scorer("refusal", {"phrases": []}, where="t.yaml")


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("speech")
    manifest = demo_speech_as_wavs(folder, n=3)
    return folder, [json.loads(x) for x in manifest.read_text().splitlines()]


def _vc_copy(root: Path, name: str, speech: tuple[Path, list[dict[str, Any]]]) -> None:
    """A local copy of a voice-cloning set: each row's prompt voice is a demo clip and its target
    text that clip's transcript (the hub's column names)."""
    import shutil

    text_col, _ = VC_SPECS[name]
    folder = root / name
    folder.mkdir(parents=True)
    rows = []
    for r in speech[1]:
        shutil.copy(speech[0] / r["audio"], folder / r["audio"])
        rows.append(
            {"id": r["id"], text_col: r["text"], "prompt_text": r["text"], "prompt_audio": r["audio"]}
        )
    write_jsonl(folder / "manifest.jsonl", rows)


@pytest.mark.parametrize("name", sorted(VC_SPECS))
def test_voice_cloning_spec_reads_prompts_voice_and_scorers(name: str, tmp_path: Path, speech: Any) -> None:
    root = tmp_path / "data"
    _vc_copy(root, name, speech)
    spec, where = load_shipped(name)
    bench = resolve(spec, where)
    samples = load_samples(spec, where, root=root).samples
    first = samples[0]
    assert first.get("reference") == speech[1][0]["text"] and first.get("prompt_text") == speech[1][0]["text"]
    assert "audio" not in first.audio and first.audio["reference_voice"].path.endswith("h01.wav")
    (message,) = build_messages(bench, first, None)
    voice, text = message.parts
    assert isinstance(voice, AudioPart) and voice.audio.path.endswith("h01.wav")
    assert isinstance(text, TextPart) and speech[1][0]["text"] in text.text
    lang = VC_SPECS[name][1]
    asr, sim = bench.scorers
    assert asr.name == ("asr_wer" if lang not in ("zh", "ja", "ko") else "asr_cer")
    assert asr.language == lang and (asr.model is None) == (lang == "en")
    assert bench.headline == ("wer" if lang not in ("zh", "ja", "ko") else "cer")
    # SIM of an output in the prompt's own voice against a clip of another speaker.
    same = sim.score(Prediction(None, None, first.audio["reference_voice"].path), first).values["sim"]
    other = sim.score(Prediction(None, None, samples[1].audio["reference_voice"].path), first).values["sim"]
    assert same == pytest.approx(1.0, abs=1e-4) and other < same


def test_english_voice_cloning_transcribes_the_output(tmp_path: Path, speech: Any) -> None:
    """seed-tts-eval-en's `asr_wer` on an oracle output (the recording of the target text)."""
    root = tmp_path / "data"
    _vc_copy(root, "seed-tts-eval-en", speech)
    spec, where = load_shipped("seed-tts-eval-en")
    bench = resolve(spec, where)
    asr = bench.scorers[0]
    edits = refs = 0
    for sample in load_samples(spec, where, root=root).samples:
        stats = asr.score(Prediction(None, None, sample.audio["reference_voice"].path), sample).stats
        edits += stats["substitutions"] + stats["deletions"] + stats["insertions"]
        refs += stats["ref_len"]
    assert refs > 20 and edits / refs < 0.2


# ---------------------------------------------------------------------------------------
# AIR-Bench foundation, MMAU-Pro (multiple-choice part) and VoiceBench BBH, each on a local
# copy with the official column names.


def _preds(tmp_path: Path, replies: dict[str, str]) -> Path:
    return write_jsonl(tmp_path / "preds.jsonl", [{"id": k, "text": t} for k, t in replies.items()])


def test_air_bench_foundation_builds_choices_from_the_option_columns(tmp_path: Path) -> None:
    root = tmp_path / "data"
    folder = root / "air-bench-foundation"
    clips = _tone_rows(folder / "Foundation" / "Sound_AQA_clothoaqa", 4)
    items = [
        ("Which animal?", ["Dog", "Cat", "Cow", "Owl"], "Dog", "Sound_AQA", "clothoaqa"),
        ("Who speaks?", ["Male", "Female", None, None], "Female", "Speaker_Gender_Recognition", "meld"),
        ("Which genre?", ["Rock", "Jazz", "Pop", "Folk"], "Jazz", "Music_Genre_Recognition", "fma"),
        ("What weather?", ["Rain", "Wind", "Snow", "Hail"], "Rain", "Sound_AQA", "clothoaqa"),
    ]
    rows = [
        {"uniq_id": f"u{i}", "path": clip, "question": q, "answer_gt": gold, "task_name": task,
         "dataset_name": ds, "audio": f"Foundation/Sound_AQA_clothoaqa/{clip}",
         **dict(zip(("choice_a", "choice_b", "choice_c", "choice_d"), opts, strict=True))}
        for i, (clip, (q, opts, gold, task, ds)) in enumerate(zip(clips, items, strict=True))
    ]  # fmt: skip
    write_jsonl(folder / "manifest.jsonl", rows)
    replies = {"u0": "Dog", "u1": "The answer is (B).", "u2": "Rock", "u3": "I am not sure."}
    out = tmp_path / "out"
    res = _run(root, "air-bench-foundation", _preds(tmp_path, replies), out)
    assert res.exit_code == 0, res.output
    recs = _records(out)
    official = [recs[f"u{i}"]["scores"]["air_bench_foundation"]["stats"] for i in range(4)]
    # the official rule reads "Dog" as the letter D (wrong) and leaves the other three out
    assert [o["official_correct"] for o in official] == [0, None, None, None]
    assert [o["official_left_out"] for o in official] == [0, 1, 1, 1]
    robust = [recs[f"u{i}"]["scores"]["mcq_robust"]["stats"]["robust_correct"] for i in range(4)]
    assert robust == [1, 1, 0, 0]  # ours beside it: option text or letter, every reply counted
    spec, where = load_shipped("air-bench-foundation")
    two = load_samples(spec, where, root=root).samples[1]
    assert two.get("choices") == ["Male", "Female"] and two.get("answer") == "Female"
    assert two.taxonomy == {"task_name": "Speaker_Gender_Recognition", "dataset_name": "meld"}
    (message,) = build_messages(resolve(spec, where), two, None)
    assert "A. Male\nB. Female" in message.parts[1].text and message.parts[0].audio.path.endswith("q1.wav")


def test_mmau_pro_scores_its_multiple_choice_part_and_counts_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "data"
    folder = root / "mmau-pro"
    clips = _tone_rows(folder / "data", 3)
    mcq = {"question": "Which instrument?", "choices": ["Piano", "Violin", "Drums"], "length_type": "short"}
    rows = [
        {"id": "m0", "audio_path": [f"data/{clips[0]}"], **mcq, "answer": "Violin", "category": "music"},
        {"id": "m1", "audio_path": [f"data/{clips[1]}"], **mcq, "answer": "Piano", "category": "sound"},
        {"id": "m2", "audio_path": [f"data/{clips[2]}"], "question": "Describe it.", "choices": [],
         "answer": "A calm piano piece.", "category": "open", "length_type": "short"},
        {"id": "m3", "audio_path": [f"data/{clips[2]}"], "question": "Answer in capitals.", "choices": [],
         "answer": None, "category": "instruction following", "length_type": "short"},
        {"id": "m4", "audio_path": [f"data/{clips[0]}", f"data/{clips[1]}"], **mcq, "answer": "Drums",
         "category": "multi", "length_type": "short"},
    ]  # fmt: skip
    write_jsonl(folder / "manifest.jsonl", rows)
    out = tmp_path / "out"
    res = _run(root, "mmau-pro", _preds(tmp_path, {"m0": "It is a violin.", "m1": "Drums"}), out)
    assert res.exit_code == 4 and "3 of 5 sample(s) failed" in res.output  # counted, never scored
    assert json.loads((out / "summary.json").read_text())["accuracy"] == pytest.approx(0.5)
    assert set(_records(out)) == {"m0", "m1"}
    skipped = {e["id"]: e for e in json.loads((out / "mmau-pro" / "skipped.json").read_text())}
    assert set(skipped) == {"m2", "m3", "m4"}
    assert skipped["m2"]["field"] == skipped["m3"]["field"] == "choices"  # open-ended, instruction following
    assert skipped["m4"]["field"] == "audio_path" and "2 audio clips" in skipped["m4"]["error"]
    spec, where = load_shipped("mmau-pro")
    first = load_samples(spec, where, root=root).samples[0]
    assert first.audio["audio"].path == str(folder / "data" / clips[0])
    assert first.taxonomy == {"category": "music", "length_type": "short"}


def test_voicebench_bbh_reads_each_task_by_its_own_rules(tmp_path: Path) -> None:
    root = tmp_path / "data"
    clips = _tone_rows(root / "voicebench-bbh", 4)
    ids = ["sports_understanding_0", "hyperbaton_1", "navigate_2", "web_of_lies_3"]
    golds = ["yes", "(B)", "no", "yes"]
    write_jsonl(root / "voicebench-bbh" / "manifest.jsonl",
                [{"id": i, "audio": c, "reference": g, "prompt": "a question"}
                 for i, c, g in zip(ids, clips, golds, strict=True)])  # fmt: skip
    replies = ["Yes, the sentence is plausible.", "The answer is (B).", "Yes.", "I cannot tell."]
    out = tmp_path / "out"
    res = _run(root, "voicebench-bbh", _preds(tmp_path, dict(zip(ids, replies, strict=True))), out)
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accuracy"] == pytest.approx(0.5)
    assert summary["unparseable"] == pytest.approx(0.25)
    # official: VoiceBench's random pick for the unread reply counts its expectation, 1/2
    assert summary["official_accuracy"] == pytest.approx(2.5 / 4)
    recs = _records(out)
    assert recs["web_of_lies_3"]["scores"]["bbh_match"]["detail"]["answer"] is None  # never guessed
    assert recs["hyperbaton_1"]["scores"]["bbh_match"]["detail"]["task"] == "hyperbaton"
    spec, where = load_shipped("voicebench-bbh")
    (message,) = build_messages(resolve(spec, where), load_samples(spec, where, root=root).samples[0], None)
    assert [type(p) for p in message.parts] == [AudioPart, TextPart]
    assert "a question" not in message.parts[1].text  # audio mode: the question's text is not shown


# ---------------------------------------------------------------------------------------
# SpeechCMMLU / SpeechHSK answered in speech (`asr_accuracy`: the option letter read from a
# transcript), and VoiceBench sd-qa's accent splits. Transcripts come from a stand-in ASR
# keyed by clip length, so every score below is known.

SPOKEN_SPECS = {
    "speech-cmmlu-spoken": "Answer",
    **{f"speech-hsk{n}-spoken": "ans_choice" for n in range(1, 7)},
}
SD_QA_ACCENTS = ("aus", "gbr", "ind_n", "ind_s", "irl", "kenya", "nga", "nzl", "phl", "zaf")
LETTER_CHAIN = ["strip", "upper", {"extract_letter": {"letters": "ABCD"}}]
# Spoken answers as an ASR writes them (Paraformer: Latin letters in lower case), whether each is
# right against GOLD (B, C, A, D), and the letter read (None: unparseable, wrong and counted).
TRANSCRIPTS = [
    ("答案是 b。", 1, "B"),
    ("我选择C", 1, "C"),
    ("嗯，我不太确定。", 0, None),
    ("a和b都对", 0, None),
]


class _Transcriber:
    """A stand-in ASR: the transcript of a clip is looked up by its length in seconds."""

    signature = "test transcripts by clip length"

    def __init__(self, by_length: dict[float, str]) -> None:
        self.by_length = by_length

    def transcribe(self, audio: Any, sr: int) -> str:
        return self.by_length[round(len(audio) / sr, 2)]


def _spoken_clips(folder: Path) -> tuple[list[str], dict[float, str]]:
    """A clip per transcript, each of its own length, and the stand-in's transcripts by length."""
    folder.mkdir(parents=True)
    clips, by_length = [], {}
    for i, (text, _, _) in enumerate(TRANSCRIPTS):
        seconds = 0.5 + 0.1 * i
        tone_wav(folder / f"q{i}.wav", 220 + 110 * i, seconds=seconds)
        clips.append(f"q{i}.wav")
        by_length[round(seconds, 2)] = text
    return clips, by_length


def test_asr_accuracy_reads_the_option_letter_of_the_transcript(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from audioeval.core.errors import InputError
    from audioeval.core.sample import Sample
    from audioeval.scoring.failed_output import failed_output_score
    from audioeval.scoring.speech_models import asr

    clips, by_length = _spoken_clips(tmp_path / "clips")
    configs: list[Any] = []

    def load(config: Any = None) -> _Transcriber:
        configs.append(config)
        return _Transcriber(by_length)

    monkeypatch.setattr(asr, "load_asr", load)
    scorer = build_scorer(
        "asr_accuracy", {"model": "large-v3", "language": "zh", "postprocess": LETTER_CHAIN}, where="t.yaml"
    )
    samples = [Sample(f"q{i}", fields={"answer": g}, source="t.jsonl") for i, g in enumerate(GOLD)]
    scores = [
        scorer.score(Prediction(None, None, str(tmp_path / "clips" / c)), s)
        for c, s in zip(clips, samples, strict=True)
    ]
    assert [s.stats["correct"] for s in scores] == [t[1] for t in TRANSCRIPTS]
    assert [s.detail["answer"] for s in scores] == [t[2] for t in TRANSCRIPTS]
    assert [s.stats["unparseable"] for s in scores] == [0, 0, 1, 1]
    assert [s.detail["transcript"] for s in scores] == [t[0] for t in TRANSCRIPTS]
    assert "several option letters" in scores[3].detail["why"]  # named, never guessed
    assert configs[0].model == "large-v3" and configs[0].language == "zh"
    sig = scorer.signature()
    assert sig["postprocess"] == ["strip", "upper", {"extract_letter": {"letters": "ABCD"}}]
    assert sig["text"]["scorer"] == "accuracy" and sig["asr"] == _Transcriber.signature
    assert scorer.metrics == ("accuracy",) and "mean:unparseable" in scorer.extra_metrics
    # Without a chain the transcript is the answer, as asr_wer / asr_includes use it.
    plain = build_scorer("asr_accuracy", {"model": "large-v3", "language": "zh"}, where="t.yaml")
    raw = plain.score(
        Prediction(None, None, str(tmp_path / "clips" / clips[1])), Sample("x", fields={"answer": "我选择c"})
    )
    assert (
        raw.stats["correct"] == 1
        and "unparseable" not in raw.stats
        and "postprocess" not in plain.signature()
    )
    # No audio at all: an empty answer, wrong; a step that is no step: an error naming the field.
    failed = failed_output_score(scorer, samples[0], "audio")
    assert failed is not None and failed.stats["correct"] == 0
    with pytest.raises(InputError, match="Did you mean .extract_letter.") as err:
        build_scorer("asr_accuracy", {"model": "large-v3", "postprocess": ["extract_leter"]}, where="t.yaml")
    assert err.value.field == "scorers.asr_accuracy.postprocess[0]"


@pytest.mark.parametrize("name", sorted(SPOKEN_SPECS))
def test_spoken_answer_spec_scores_the_letter_it_hears(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The echo baseline answers with the question's own clip; the stand-in ASR 'hears' each
    clip's transcript; the letter read from it is scored, and the audio by DNSMOS."""
    from audioeval.scoring.speech_models import asr

    root = tmp_path / "data"
    text_name = name.removesuffix("-spoken")
    clips, by_length = _spoken_clips(root / text_name)  # the text spec's copy serves both
    rows = [
        {"id": f"q{i}", "audio": c, SPOKEN_SPECS[name]: g}
        for i, (c, g) in enumerate(zip(clips, GOLD, strict=True))
    ]
    write_jsonl(root / text_name / "manifest.jsonl", rows)
    monkeypatch.setattr(asr, "load_asr", lambda config=None: _Transcriber(by_length))
    out = tmp_path / "out"
    args = ["run", "--model", "echo", "--benchmark", name, "--data-root", str(root), "-o", str(out)]
    res = runner.invoke(app, [*args, "--no-progress", "--resamples", "20"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accuracy"] == pytest.approx(0.5) and summary["unparseable"] == pytest.approx(0.5)
    assert 1.0 <= summary["dnsmos_ovrl"] <= 5.0
    assert summary["results"][0]["headline"] == "accuracy"
    recs = _records(out)
    assert [recs[f"q{i}"]["scores"]["asr_accuracy"]["detail"]["answer"] for i in range(4)] == [
        "B",
        "C",
        None,
        None,
    ]
    spec, where = load_shipped(name)
    bench = resolve(spec, where)
    assert bench.task.output == "audio" and bench.task.family == "generation"
    (scorer, _) = bench.scorers
    assert scorer.language == "zh" and scorer.model == "large-v3" and scorer.runtime is None
    text_spec, _ = load_shipped(text_name)
    assert spec.source.local_name == text_name and spec.local_copy_name == text_spec.local_copy_name
    assert spec.source.model_copy(update={"local_name": None}) == text_spec.source
    assert spec.fields == text_spec.fields  # the same data
    (message,) = build_messages(bench, load_samples(spec, where, root=root).samples[0], None)
    assert isinstance(message.parts[0], AudioPart) and "字母" in message.parts[1].text


def test_spoken_answer_spec_takes_an_asr_runtime_in_place_of_whisper(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """How a user matches UltraEval-Audio: the shipped spec copied with its ASR named as a metric
    runtime (a stdlib fake standing in for Paraformer-zh), run end to end, no Whisper loaded."""
    import sys

    import yaml

    from audioeval.adapters.runtimes.spec import load_runtime_spec_file
    from audioeval.scoring.speech_models import asr

    def no_whisper(config: Any = None) -> None:
        raise AssertionError("the runtime transcribes, not faster-whisper")

    monkeypatch.setattr(asr, "load_asr", no_whisper)
    root = tmp_path / "data"
    clips, by_length = _spoken_clips(root / "mine")
    rows = [
        {"id": f"q{i}", "audio": c, "Answer": g} for i, (c, g) in enumerate(zip(clips, GOLD, strict=True))
    ]
    write_jsonl(root / "mine" / "manifest.jsonl", rows)
    runtime = tmp_path / "paraformer-zh.yaml"
    transcripts = {f"{k:.2f}": v for k, v in by_length.items()}
    runtime.write_text(
        f"name: paraformer-zh\nworker: {Path(__file__).parent / 'fakes' / 'worker_metric.py'}\n"
        f"worker_args: {json.dumps({'transcripts': json.dumps(transcripts)})}\n"
        "tasks: [asr]\noutput: text\n",
        encoding="utf-8",
    )
    monkeypatch.setenv(load_runtime_spec_file(runtime).env_var_name, sys.executable)
    spec, _ = load_shipped("speech-cmmlu-spoken")
    data = spec.model_dump(exclude_none=True, exclude_defaults=True)
    data.update(name="mine", source={"type": "jsonl", "path": "data/mine/manifest.jsonl"})
    data["scorers"] = [{"asr_accuracy": {"runtime": "paraformer-zh.yaml", "postprocess": LETTER_CHAIN}}]
    data["metrics"] = ["accuracy", "mean:unparseable"]
    (tmp_path / "mine.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    out = tmp_path / "out"
    args = ["run", "--model", "echo", "--benchmark", str(tmp_path / "mine.yaml"), "-o", str(out)]
    res = runner.invoke(app, [*args, "--no-progress", "--resamples", "20"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accuracy"] == pytest.approx(0.5) and summary["unparseable"] == pytest.approx(0.5)
    recs = _records(out)
    assert recs["q0"]["scores"]["asr_accuracy"]["detail"]["transcript"] == TRANSCRIPTS[0][0]
    (sig,) = out.glob("*/*/signature.json")
    (scorer,) = json.loads(sig.read_text())["benchmark"]["scorers"]
    assert "paraformer-zh" in json.dumps(scorer["asr"]) and scorer["postprocess"][-1] == LETTER_CHAIN[-1]


class _MarkerJudge(JsonHandler):
    """A judge that says Yes to a reply holding the word RIGHT, No otherwise."""

    def do_POST(self) -> None:
        body = self.read_json()
        if body is None:
            return
        with self.server.app["lock"]:
            self.server.app["requests"] += 1
        user = body["messages"][-1]["content"][0]["text"]
        self.send_json(200, completion(1, body["model"], "Yes" if "RIGHT" in user else "No"))


@pytest.fixture(scope="module")
def marker_judge() -> Any:
    import threading

    with FakeServer(_MarkerJudge, {"lock": threading.Lock(), "requests": 0}) as server:
        yield server


@pytest.mark.parametrize("accent", SD_QA_ACCENTS)
def test_sd_qa_accent_split_is_voicebench_sd_qa_on_its_split(
    accent: str, tmp_path: Path, marker_judge: Any
) -> None:
    name = f"voicebench-sd-qa-{accent}"
    spec, where = load_shipped(name)
    usa, _ = load_shipped("voicebench-sd-qa")
    assert spec.source.split == accent and usa.source.split == "usa"
    differs = {"name", "description", "source"}
    assert spec.model_dump(exclude=differs) == usa.model_dump(exclude=differs)
    assert spec.source.model_dump(exclude={"split"}) == usa.source.model_dump(exclude={"split"})
    root = tmp_path / "data"
    clips = _tone_rows(root / name, 2)
    write_jsonl(root / name / "manifest.jsonl",
                [{"id": f"q{i}", "audio": c, "prompt": f"question {i}", "reference": f"answer {i}"}
                 for i, c in enumerate(clips)])  # fmt: skip
    preds = _preds(tmp_path, {"q0": "RIGHT, it is answer 0.", "q1": "No idea."})
    out = tmp_path / "out"
    args = ["--judge", marker_judge.base_url, "--judge-model", "marker-judge"]
    res = runner.invoke(
        app,
        ["run", "--model", f"predictions:{preds}", "--benchmark", name, "--data-root", str(root),
         "-o", str(out), "--no-progress", "--resamples", "20", *args],
        catch_exceptions=False,
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["judge_correct"] == pytest.approx(0.5)
    recs = _records(out)
    assert recs["q0"]["judge"]["voicebench_qa"]["votes"] == ["yes", "yes", "yes"]
    (message,) = build_messages(resolve(spec, where), load_samples(spec, where, root=root).samples[0], None)
    assert "question 0" not in message.parts[1].text  # the question is heard, not shown


class _RatingJudge(JsonHandler):
    """A 1-5 rating judge: 5 for a reply holding the word RIGHT, 2 otherwise; keeps each body."""

    def do_POST(self) -> None:
        body = self.read_json()
        if body is None:
            return
        with self.server.app["lock"]:
            self.server.app["bodies"].append(body)
        user = body["messages"][-1]["content"][0]["text"]
        self.send_json(200, completion(1, body["model"], "5" if "RIGHT" in user else "2"))


def test_voicebench_alpacaeval_full_is_alpacaeval_on_the_full_config(tmp_path: Path) -> None:
    import threading

    name = "voicebench-alpacaeval-full"
    spec, where = load_shipped(name)
    small, _ = load_shipped("voicebench-alpacaeval")
    assert (spec.source.name, small.source.name) == ("alpacaeval_full", "alpacaeval")
    assert spec.source.split == "test"
    differs = {"name", "description", "source"}
    assert spec.model_dump(exclude=differs) == small.model_dump(exclude=differs)
    assert spec.source.model_dump(exclude={"name"}) == small.source.model_dump(exclude={"name"})
    root = tmp_path / "data"
    clips = _tone_rows(root / name, 2)
    write_jsonl(root / name / "manifest.jsonl",
                [{"id": f"q{i}", "audio": c, "prompt": f"request {i}"} for i, c in enumerate(clips)])  # fmt: skip
    preds = _preds(tmp_path, {"q0": "RIGHT, here it is.", "q1": "Hmm."})
    out = tmp_path / "out"
    with FakeServer(_RatingJudge, {"lock": threading.Lock(), "bodies": []}) as judge:
        res = runner.invoke(
            app,
            ["run", "--model", f"predictions:{preds}", "--benchmark", name, "--data-root", str(root),
             "-o", str(out), "--no-progress", "--resamples", "20",
             "--judge", judge.base_url, "--judge-model", "rating-judge"],
            catch_exceptions=False,
        )  # fmt: skip
        bodies = judge.app["bodies"]
    assert res.exit_code == 0, res.output
    assert len(bodies) == 2 * 3  # three votes a reply
    assert {(b["temperature"], b["top_p"]) for b in bodies} == {(0.5, 0.95)}
    assert any("request 0" in b["messages"][-1]["content"][0]["text"] for b in bodies)  # the judge reads it
    summary = json.loads((out / "summary.json").read_text())
    assert summary["open_rating"] == pytest.approx(3.5)
    recs = _records(out)
    assert recs["q0"]["judge"]["voicebench_open"]["votes"] == [5.0, 5.0, 5.0]
    assert recs["q1"]["scores"]["voicebench_open"]["values"]["open_rating"] == pytest.approx(2.0)
    (message,) = build_messages(resolve(spec, where), load_samples(spec, where, root=root).samples[0], None)
    assert "request 0" not in json.dumps([getattr(p, "text", "") for p in message.parts])  # heard, not shown


# ---------------------------------------------------------------------------------------
# Specs that read the same data share one local copy (`source.local_name`): the -spoken specs
# read their text spec's folder.

SHARED_COPIES = {name: name.removesuffix("-spoken") for name in SPOKEN_SPECS}


@pytest.mark.parametrize("name", sorted(SHARED_COPIES))
def test_variant_spec_reads_the_copy_of_the_spec_it_shares_data_with(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from audioeval.scoring.speech_models import asr

    monkeypatch.setattr(asr, "load_asr", lambda config=None: _Transcriber({}))  # no Whisper offline
    owner = SHARED_COPIES[name]
    root = tmp_path / "data"
    clips = _tone_rows(root / owner, 2)
    columns = {"Answer": "B", "ans_choice": "B", "Emotion": "joy", "Sentiment": "positive"}
    write_jsonl(
        root / owner / "manifest.jsonl", [{"id": f"q{i}", "audio": c, **columns} for i, c in enumerate(clips)]
    )
    # A folder under the variant's own name (a copy made before specs could share one) is not read.
    write_jsonl(root / name / "manifest.jsonl", [{"id": "stale", "audio": "q0.wav", **columns}])
    spec, where = load_shipped(name)
    owner_spec, owner_where = load_shipped(owner)
    loaded = load_samples(spec, where, root=root)
    assert loaded.location == str(root / owner / "manifest.jsonl")
    assert [s.id for s in loaded.samples] == ["q0", "q1"]
    assert loaded.samples[0].audio["audio"].path == str(root / owner / "q0.wav")
    assert loaded.samples[0].get("answer") == "B"
    owners = load_samples(owner_spec, owner_where, root=root).samples
    assert [s.audio["audio"].path for s in owners] == [s.audio["audio"].path for s in loaded.samples]
    # Where the copy lies is no part of the signature: both name the same source.
    assert (
        resolve(spec, where).signature()["source"] == resolve(owner_spec, owner_where).signature()["source"]
    )


def test_another_copy_folder_resumes_a_run_and_one_with_other_data_is_refused(tmp_path: Path) -> None:
    """`local_name` moved to a folder holding the same data resumes the run folder (no needless
    new signature); moved to one whose answers differ, the resume is refused naming the sample."""
    import yaml

    root = tmp_path / "data"
    for folder, gold in (("first", GOLD), ("same", GOLD), ("other", ["D", *GOLD[1:]])):
        clips = _tone_rows(root / folder, len(gold))
        write_jsonl(
            root / folder / "manifest.jsonl",
            [
                {"id": f"q{i}", "audio": c, "Answer": g}
                for i, (c, g) in enumerate(zip(clips, gold, strict=True))
            ],
        )
    spec, _ = load_shipped("speech-cmmlu")
    data = spec.model_dump(exclude_none=True, exclude_defaults=True)
    data["name"] = "mine"
    preds = write_jsonl(
        tmp_path / "preds.jsonl", [{"id": f"q{i}", "text": t} for i, (t, _) in enumerate(REPLIES)]
    )
    out = tmp_path / "out"

    def run_from(folder: str) -> Any:
        data["source"] = {**data["source"], "local_name": folder}
        spec_file = tmp_path / "mine.yaml"
        spec_file.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
        return _run(root, str(spec_file), preds, out)

    first = run_from("first")
    assert first.exit_code == 0, first.output
    (sig_file,) = out.glob("*/*/signature.json")
    signature = sig_file.read_text()
    assert "local_name" not in signature
    again = run_from("same")
    assert again.exit_code == 0, again.output
    assert sig_file.read_text() == signature and len(_records(out)) == 4
    refused = run_from("other")
    assert refused.exit_code != 0
    assert "'q0'" in refused.output and "sample_sha256 differs" in refused.output
