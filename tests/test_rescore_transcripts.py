"""`audioeval rescore` of speech output reuses the stored ASR transcripts: no ASR call while
the transcriber's signature and the output audio's bytes are those that made each transcript,
and a new transcript when either changed or when a record does not say what made its own.

The model under test is the echo baseline (it speaks the input clip back); the ASR is a
stand-in keyed by clip length that counts its calls, so the transcripts and numbers are known."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from audioeval.cli.main import app
from tests.fakes.mcq_server import tone_wav
from tests.run_helpers import write_jsonl

runner = CliRunner()

# reference, and the transcript of the clip of each length (0.3 s, 0.35 s, 0.4 s)
PAIRS = [("the cat sat", "the cat sat"), ("go home now", "go home"), ("a b c d", "a x c d")]
WER = 2 / 10  # 1 deletion + 1 substitution over 3 + 3 + 4 words


class CountingAsr:
    """A stand-in ASR: a transcript by clip length; its signature names the configured model."""

    def __init__(self, model: str | None, by_length: dict[float, str], calls: list[str]) -> None:
        self.signature = f"stand-in asr:{model or 'default'}"
        self.by_length, self.calls = by_length, calls

    def transcribe(self, audio: np.ndarray, sr: int) -> str:
        self.calls.append(self.signature)
        return self.by_length[round(len(audio) / sr, 2)]


@pytest.fixture
def asr_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The signature of the transcriber of every ASR call made in the test."""
    from audioeval.scoring.speech_models import asr

    calls: list[str] = []
    by_length = {round(0.3 + 0.05 * i, 2): hyp for i, (_, hyp) in enumerate(PAIRS)}
    by_length[0.5] = "a b c d"  # the clip a test writes over an output
    monkeypatch.setattr(asr, "load_asr", lambda config=None: CountingAsr(config.model, by_length, calls))
    return calls


def _tts_run(tmp_path: Path) -> Path:
    """A finished echo run of a three-sample TTS benchmark scored by asr_wer."""
    data = tmp_path / "data"
    data.mkdir()
    rows = []
    for i, (ref, _) in enumerate(PAIRS):
        tone_wav(data / f"t{i}.wav", 300, seconds=0.3 + 0.05 * i)
        rows.append({"id": f"t{i}", "audio": f"t{i}.wav", "text": ref})
    write_jsonl(data / "tts.jsonl", rows)
    spec = data / "tts.yaml"
    spec.write_text(
        "name: tts-t\ntask: tts\nsource: {type: jsonl, path: tts.jsonl}\nfields: {reference: text}\n"
        "scorers: [asr_wer]\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    res = runner.invoke(
        app, ["run", "-m", "echo", "-b", str(spec), "-o", str(out), "--no-progress", "--resamples", "0"]
    )
    assert res.exit_code == 0, res.output
    return out


def _rescore(out: Path) -> str:
    res = runner.invoke(app, ["rescore", str(out), "--resamples", "0"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return " ".join(res.output.split())


def _records_path(out: Path) -> Path:
    return out / "tts-t" / "echo" / "records.jsonl"


def _records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in _records_path(out).read_text(encoding="utf-8").splitlines()]


def _wer(out: Path) -> float:
    return float(json.loads((out / "summary.json").read_text(encoding="utf-8"))["wer"])


def test_rescore_reuses_the_transcripts_with_no_asr_call(tmp_path: Path, asr_calls: list[str]) -> None:
    out = _tts_run(tmp_path)
    assert len(asr_calls) == 3 and _wer(out) == pytest.approx(WER)
    before = _records(out)
    detail = before[0]["scores"]["asr_wer"]["detail"]
    assert detail["transcript"] and len(detail["asr_signature"]) == 16 and len(detail["audio_sha256"]) == 64
    text = _rescore(out)
    assert len(asr_calls) == 3  # no transcript made again
    assert "rescored 3 sample(s); 0 changed" in text
    assert _wer(out) == pytest.approx(WER)
    after = _records(out)
    assert [r["scores"] for r in after] == [r["scores"] for r in before]


def test_another_asr_model_in_the_spec_transcribes_again(tmp_path: Path, asr_calls: list[str]) -> None:
    out = _tts_run(tmp_path)
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    (bench,) = run["benchmarks"]
    bench["spec"]["scorers"] = [{"asr_wer": {"model": "other-whisper"}}]
    (out / "run.json").write_text(json.dumps(run), encoding="utf-8")
    _rescore(out)
    assert asr_calls[3:] == ["stand-in asr:other-whisper"] * 3
    _rescore(out)  # the new transcripts are those of the new model: reused from now on
    assert len(asr_calls) == 6 and _wer(out) == pytest.approx(WER)


def test_an_output_audio_changed_is_transcribed_again(tmp_path: Path, asr_calls: list[str]) -> None:
    out = _tts_run(tmp_path)
    first = next(r for r in _records(out) if r["id"] == "t1")
    tone_wav(first["output"]["audio_path"], 300, seconds=0.5)  # now heard as "a b c d"
    _rescore(out)
    assert len(asr_calls) == 4  # that clip only
    again = next(r for r in _records(out) if r["id"] == "t1")["scores"]["asr_wer"]
    assert again["detail"]["transcript"] == "a b c d" and again["stats"]["substitutions"] == 3
    assert again["detail"]["audio_sha256"] != first["scores"]["asr_wer"]["detail"]["audio_sha256"]


def test_a_record_that_does_not_say_what_made_its_transcript_is_transcribed_again(
    tmp_path: Path, asr_calls: list[str]
) -> None:
    """Records of an earlier audioeval keep the transcript alone: never trusted, made again."""
    out = _tts_run(tmp_path)
    records = _records(out)
    for rec in records:
        detail = rec["scores"]["asr_wer"]["detail"]
        del detail["asr_signature"], detail["audio_sha256"]
        detail["transcript"] = "stale words"
    _records_path(out).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    _rescore(out)
    assert len(asr_calls) == 6 and _wer(out) == pytest.approx(WER)
    assert all(r["scores"]["asr_wer"]["detail"]["asr_signature"] for r in _records(out))


def test_rescore_under_another_profile_scores_the_stored_transcripts(
    tmp_path: Path, asr_calls: list[str]
) -> None:
    """`rescore --profile ultraeval` changes only the text scoring: no transcript made again."""
    out = _tts_run(tmp_path)
    res = runner.invoke(app, ["rescore", str(out), "--profile", "ultraeval", "--resamples", "0"])
    assert res.exit_code == 0, res.output
    assert len(asr_calls) == 3 and "metric models" not in res.output
    summary = json.loads((out.parent / f"{out.name}-ultraeval" / "summary.json").read_text(encoding="utf-8"))
    assert summary["mean_wer"] == pytest.approx((0 + 1 / 3 + 1 / 4) / 3)
