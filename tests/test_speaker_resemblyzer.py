"""The `resemblyzer` SIM backend, run for real (needs torch, which the `speech` extra leaves out).

Skipped unless torch and resemblyzer import; the install recipe is in INSTALL. The hint shown
when they are missing is tested in test_speech_models.py, which runs without torch.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from audioeval.audio.decode import Clip, resample
from audioeval.audio.tts_espeak import espeak_available, synthesize_espeak
from audioeval.core.errors import AudioError
from audioeval.core.messages import AudioRef
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction
from audioeval.scoring.scorer_registry import build_scorer
from audioeval.scoring.speech_models import runtime
from audioeval.scoring.speech_models._deps import dist_version
from audioeval.scoring.speech_models.speaker_sim import (
    cosine,
    load_speaker_embedder,
    speaker_similarity,
)

INSTALL = (
    "the resemblyzer SIM backend needs torch and resemblyzer: "
    "pip install torch==2.13.0 webrtcvad-wheels librosa && pip install --no-deps resemblyzer"
)
SR = 16000
SENTENCES = [
    "Please call Stella and ask her to bring these things with her from the store.",
    "The weather today is sunny with a light breeze from the west.",
    "We need to finish the report before the meeting on Monday morning.",
]
VOICES = ("en-us", "en-us+f3")  # espeak-ng male and female
DEMO = Path(__file__).resolve().parents[1] / "src" / "audioeval" / "benchmarks" / "demo" / "demo_data" / "speech"


@pytest.fixture(scope="module", autouse=True)
def _torch_and_resemblyzer() -> None:
    """The module's tests are skipped without them. Imported when its tests run, not at
    collection: every xdist worker collects every module, and torch costs each about 2 s."""
    pytest.importorskip("torch", reason=INSTALL)
    pytest.importorskip("resemblyzer", reason=INSTALL)


@pytest.fixture(scope="module", autouse=True)
def own_model_cache(_torch_and_resemblyzer):
    """Models loaded here are forgotten afterwards, so that the test of the missing-torch hint
    (test_speech_models.py) still sees no cached resemblyzer embedder in the same process."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(runtime, "_models", dict(runtime._models))
        yield


@pytest.fixture(scope="module")
def embedder(own_model_cache):
    return load_speaker_embedder("resemblyzer")


@pytest.fixture(scope="module")
def espeak() -> list[tuple[str, np.ndarray]]:
    if not espeak_available():
        pytest.skip("install the Debian package espeak-ng")
    return [(v, synthesize_espeak(s, voice=v)) for v in VOICES for s in SENTENCES]


def demo_clips() -> list[tuple[str, np.ndarray, int]]:
    """The bundled Piper joe (male) and hibari heart (female) clips, 16 kHz."""
    with (DEMO / "manifest.jsonl").open(encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [(r["voice"], *sf.read(DEMO / r["audio"], dtype="float32")) for r in rows]


def same_and_different(voices: list[str], vecs: list[np.ndarray]) -> tuple[list[float], list[float]]:
    same, diff = [], []
    for i, j in itertools.combinations(range(len(vecs)), 2):
        (same if voices[i] == voices[j] else diff).append(cosine(vecs[i], vecs[j]))
    return same, diff


def reference_embedding(audio: np.ndarray, sr: int) -> np.ndarray:
    """resemblyzer's own usage, with an encoder of our own (not the cached one)."""
    from resemblyzer import VoiceEncoder, preprocess_wav

    encoder = reference_embedding.__dict__.setdefault("encoder", VoiceEncoder("cpu", verbose=False))
    return encoder.embed_utterance(preprocess_wav(audio, source_sr=sr))


def test_same_voice_is_more_similar_than_a_different_voice_espeak(embedder, espeak):
    """The 15 pairs' similarities from the 6 clips' embeddings, each clip embedded once (a
    `speaker_similarity` call per pair embedded each clip 5 times); `speaker_similarity` is the
    cosine of the two embeddings, checked on a same-voice and a different-voice pair."""
    voices = [v for v, _ in espeak]
    vecs = embedder.embed_batch([(x, SR) for _, x in espeak])
    same, diff = same_and_different(voices, vecs)
    assert len(same) == 6 and len(diff) == 9
    assert min(same) > max(diff) + 0.1, (same, diff)  # observed: 0.87 vs 0.69
    assert np.mean(same) > np.mean(diff) + 0.15, (same, diff)  # observed: 0.89 vs 0.64
    for i, j in ((0, 1), (0, 3)):  # en-us twice; en-us and en-us+f3
        result = speaker_similarity(espeak[i][1], SR, espeak[j][1], SR, backend="resemblyzer")
        assert result.backend == "resemblyzer"
        assert result.cosine == pytest.approx(cosine(vecs[i], vecs[j]), abs=1e-6)


def test_same_voice_is_more_similar_than_a_different_voice_neural_tts(embedder):
    clips = demo_clips()
    assert {v for v, _, _ in clips} == {"piper en_US-joe-medium", "hibari heart"}
    same, diff = same_and_different(
        [v for v, _, _ in clips], embedder.embed_batch([(x, sr) for _, x, sr in clips])
    )
    assert min(same) > max(diff), (same, diff)  # observed: 0.74 vs 0.50
    assert np.mean(same) > np.mean(diff) + 0.2, (same, diff)  # observed: 0.83 vs 0.43


def test_embedding_is_resemblyzers_reference_usage(embedder, espeak):
    """Ours equals `VoiceEncoder("cpu").embed_utterance(preprocess_wav(x, source_sr=sr))`,
    at 16 kHz and at rates that need resampling."""
    male = espeak[0][1]
    cases = [(male, SR), (espeak[4][1], SR)]
    cases += [(resample(Clip(male, SR), rate).samples, rate) for rate in (22050, 44100)]
    cases += [(x, sr) for _, x, sr in demo_clips()[:2]]
    for audio, sr in cases:
        ours, ref = embedder.embed(audio, sr), reference_embedding(audio, sr)
        assert ours.shape == (256,) and ours.dtype == np.float32
        assert np.linalg.norm(ours) == pytest.approx(1.0, abs=1e-5)
        assert np.abs(ours - ref).max() < 1e-6
    a, b = espeak[0][1], espeak[1][1]
    expected = float(np.dot(reference_embedding(a, SR), reference_embedding(b, SR)))
    assert speaker_similarity(a, SR, b, SR, backend="resemblyzer").cosine == pytest.approx(expected, abs=1e-6)


def test_the_model_loads_once_per_process(embedder, espeak):
    assert load_speaker_embedder("resemblyzer") is embedder
    assert ("speaker", "resemblyzer") in runtime.loaded_keys()
    before = embedder.stats.snapshot().calls
    speaker_similarity(espeak[0][1], SR, espeak[3][1], SR, backend="resemblyzer")
    assert embedder.stats.snapshot().calls == before + 2  # the call used the cached embedder


def test_sample_rate_and_channels_are_handled_like_the_dvector_backend(embedder, espeak):
    x = espeak[0][1]
    base = embedder.embed(x, SR)
    for rate in (24000, 44100, 48000):
        assert cosine(embedder.embed(resample(Clip(x, SR), rate).samples, rate), base) > 0.9999
    stereo = np.stack([x, x], axis=1)
    for backend in ("dvector", "resemblyzer"):
        with pytest.raises(ValueError, match="mono audio as a 1-D array"):
            load_speaker_embedder(backend).embed(stereo, SR)


def test_too_short_or_silent_clips_have_no_embedding(embedder):
    with pytest.raises(AudioError, match="at least 0.1 s"):
        embedder.embed(np.zeros(SR // 20, np.float32), SR)
    with pytest.raises(AudioError, match="found no speech"):
        embedder.embed(np.zeros(2 * SR, np.float32), SR)


def test_sim_scorer_reports_the_resemblyzer_backend(tmp_path, espeak):
    out, ref = tmp_path / "out.wav", tmp_path / "ref.wav"
    male = espeak[0][1]
    sf.write(out, np.stack([male, male], axis=1), SR)  # a stereo file is downmixed on load
    sf.write(ref, espeak[1][1], SR)
    scorer = build_scorer("sim", {"backend": "resemblyzer"}, where="test")
    assert scorer.signature()["backend"] == "resemblyzer"
    sample = Sample(id="s1", audio={"reference_voice": AudioRef(str(ref))})
    score = scorer.score(Prediction(None, None, audio_path=str(out)), sample)
    assert score.detail["backend"] == "resemblyzer"
    direct = speaker_similarity(
        sf.read(out, dtype="float32")[0].mean(axis=1),
        SR,
        sf.read(ref, dtype="float32")[0],
        SR,
        backend="resemblyzer",
    )
    assert score.values["sim"] == pytest.approx(direct.cosine, abs=1e-6)
    assert score.values["sim"] > 0.8  # same espeak voice
    assert direct.signature == f"resemblyzer {dist_version('resemblyzer')}:VoiceEncoder"
    assert dist_version("resemblyzer") != "unknown"
