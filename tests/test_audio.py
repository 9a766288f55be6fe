import numpy as np
import pytest
import soundfile as sf

from audioeval.audio.clip_cache import ClipCache
from audioeval.audio.decode import load_clip, resample
from audioeval.audio.slicing import cut, parse_slice, slice_bounds
from audioeval.core.errors import AudioError
from audioeval.core.messages import AudioRef


@pytest.mark.parametrize(
    "text, expected",
    [
        ("4.0s:5.7s", (4.0, 5.7)),
        (":2.0s", (None, 2.0)),
        ("1.5s:", (1.5, None)),
        ("-2.5s:", (-2.5, None)),
        ("0.0s:3s", (0.0, 3.0)),
        ("1:3", (1.0, 3.0)),
        (":", (None, None)),
        (" 2.15s : 4.9s ", (2.15, 4.9)),
    ],
)
def test_parse_slice_forms(text, expected):
    assert parse_slice(text) == expected


@pytest.mark.parametrize("bad", ["abc", "1s-2s", "1s:2s:3s", "s:"])
def test_parse_slice_rejects_garbage(bad):
    with pytest.raises(ValueError, match="not a time slice"):
        parse_slice(bad)


@pytest.mark.parametrize(
    "start, end",
    [(None, None), (1.0, 2.0), (-1.0, None), (None, -0.5), (2.5, 10.0), (-10.0, 1.0), (2.0, 1.0)],
)
def test_slices_follow_python_semantics(start, end):
    rate, n = 10, 30  # 3 s at 10 Hz: one sample per 0.1 s
    samples = list(range(n))
    lo, hi = slice_bounds(n, rate, start, end)
    s = None if start is None else int(round(start * rate))
    e = None if end is None else int(round(end * rate))
    assert samples[lo:hi] == samples[s:e]


def test_load_stereo_downmixes_and_cut(tmp_path):
    rate = 8000
    left = np.full(rate * 2, 0.5, dtype=np.float32)
    right = np.zeros(rate * 2, dtype=np.float32)
    path = tmp_path / "st.wav"
    sf.write(path, np.stack([left, right], axis=1), rate, subtype="FLOAT")
    clip = load_clip(path)
    assert clip.sample_rate == rate and clip.samples.ndim == 1
    assert np.allclose(clip.samples, 0.25)
    assert cut(clip, -0.5, None).duration_s == pytest.approx(0.5)


def test_missing_and_unreadable_audio_name_the_file(tmp_path):
    with pytest.raises(AudioError, match="not found") as exc:
        load_clip(tmp_path / "nope.wav", sample_id="s1", field="output")
    assert "nope.wav" in str(exc.value) and "s1" in str(exc.value)
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"RIFF not really a wav")
    with pytest.raises(AudioError, match="could not be decoded"):
        load_clip(bad)


def test_resample_changes_rate_and_length():
    from audioeval.audio.decode import Clip

    clip = Clip(np.zeros(44100, dtype=np.float32), 44100)
    out = resample(clip, 16000)
    assert out.sample_rate == 16000 and abs(len(out.samples) - 16000) <= 1


def test_clip_cache_decodes_each_file_once(tmp_path):
    path = tmp_path / "a.wav"
    sf.write(path, np.random.default_rng(0).normal(0, 0.1, 22050).astype(np.float32), 22050)
    cache = ClipCache(target_rate=16000)
    whole = cache.get(AudioRef(str(path)))
    again = cache.get(AudioRef(str(path)))
    part = cache.get(AudioRef(str(path), 0.25, 0.75))
    assert whole is again
    assert cache.decodes == 1 and cache.encodes == 2
    assert whole.sample_rate == 16000 and whole.duration_s == pytest.approx(1.0 * 22050 / 22050, abs=1e-3)
    assert part.duration_s == pytest.approx(0.5, abs=1e-3)
    assert whole.sha256 != part.sha256
