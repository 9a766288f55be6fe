"""Acoustic verifiers on clips whose truth is known by construction, at the edges of thresholds."""

import numpy as np
import pytest

from audioeval.audio.tts_espeak import espeak_available, synthesize_espeak
from audioeval.audio.verifiers import compare, level, shape, spectrum, speech
from audioeval.audio.verifiers.measurement import CANNOT_TELL, NO, YES, Audio, SliceOutOfRange, take

R = 16000


def tone(freq, seconds=3.0, amp=0.25, rate=R):
    t = np.arange(int(seconds * rate)) / rate
    return amp * np.sin(2 * np.pi * freq * t)


def audio(x, rate=R, name="clip"):
    return Audio.of(np.asarray(x, dtype=np.float32), rate, name)


def noise(seconds=3.0, amp=0.1, seed=0):
    return np.random.default_rng(seed).standard_normal(int(seconds * R)) * amp


def amp_for_dbfs(dbfs):
    return 10 ** (dbfs / 20)


# --- slices --------------------------------------------------------------------------------


@pytest.mark.parametrize("start,end", [(4.0, 5.7), (2.5, 3.5), (-5.0, None), (None, 4.0), (1.0, 1.01)])
def test_a_slice_outside_the_clip_is_refused(start, end):
    with pytest.raises(SliceOutOfRange):
        take(audio(tone(440)), start, end)


def test_a_slice_inside_the_clip_is_cut_with_python_semantics():
    a = audio(tone(440))
    assert take(a, -1.0, None).duration_s == pytest.approx(1.0)
    assert take(a, 1.0, 3.0).duration_s == pytest.approx(2.0)
    assert take(a, None, 3.04).duration_s == pytest.approx(3.0)  # rounding slack of a written time


# --- tones and bands -----------------------------------------------------------------------


def test_tone_present_where_it_sounds_and_absent_elsewhere():
    x = tone(440) + np.where(np.arange(3 * R) >= R, tone(660), 0.0)
    a = audio(x)
    assert spectrum.tone_present(a, 440).answer == YES
    assert spectrum.tone_present(take(a, 1.0, None), 660).answer == YES
    assert spectrum.tone_present(take(a, None, 1.0), 660).answer == NO
    assert spectrum.tone_present(a, 880).answer == NO
    assert spectrum.tone_present(a, 450).answer == YES  # "near": within 3 %
    assert spectrum.tone_present(a, 470).answer == NO


def test_tone_level_threshold_edges():
    assert spectrum.tone_present(audio(tone(440, amp=amp_for_dbfs(-47))), 440).answer == YES
    assert spectrum.tone_present(audio(tone(440, amp=amp_for_dbfs(-53))), 440).answer == NO


def test_tone_in_half_the_frames_is_cannot_tell_not_yes_or_no():
    x = np.where(np.arange(3 * R) < 0.9 * R, tone(440), 0.0)  # 30 % of the clip
    m = spectrum.tone_present(audio(x), 440)
    assert m.answer == CANNOT_TELL and 0.1 < m.value < 0.5


def test_tone_in_noise_and_above_nyquist():
    assert spectrum.tone_present(audio(noise()), 440).answer == NO
    assert spectrum.tone_present(audio(tone(440) + noise(amp=0.01)), 440).answer == YES
    assert spectrum.tone_present(audio(tone(440)), 9000).answer == CANNOT_TELL


def test_band_presence_and_bandwidth():
    from scipy.signal import butter, sosfilt

    low = sosfilt(butter(16, 2000, fs=R, output="sos"), noise())  # ~96 dB down at 4 kHz
    assert spectrum.band_limited(audio(low), 4000).answer == YES
    assert spectrum.band_limited(audio(noise()), 4000).answer == NO
    assert spectrum.band_present(audio(low), 5000, 8000).answer == NO
    assert spectrum.band_present(audio(noise()), 5000, 8000).answer == YES
    assert spectrum.band_limited(audio(np.zeros(R)), 4000).answer == CANNOT_TELL


def test_pitch_shift_by_semitones():
    ref = audio(tone(440))
    up2 = audio(tone(440 * 2 ** (2 / 12)))
    up_half = audio(tone(440 * 2 ** (0.5 / 12)))
    m = spectrum.pitch_shift(up2, ref)
    assert m.answer == YES and m.value == pytest.approx(2.0, abs=0.2)
    assert spectrum.pitch_shift(up_half, ref).answer == NO
    assert spectrum.pitch_shift(audio(np.zeros(3 * R)), ref).answer == CANNOT_TELL


# --- level ---------------------------------------------------------------------------------


def test_loudness_of_a_full_scale_sine_is_minus_three_lufs():
    for rate in (16000, 44100, 48000):
        m = level.loudness(audio(tone(1000, 5, 1.0, rate), rate))
        assert m.value == pytest.approx(-3.01, abs=0.1)
    assert level.loudness(audio(tone(1000, 0.3))).answer == CANNOT_TELL


def test_louder_edges():
    ref = audio(tone(1000))
    assert level.louder(audio(tone(1000, amp=0.25 * 10 ** (1.5 / 20))), ref).answer == YES
    assert level.louder(audio(tone(1000, amp=0.25 * 10 ** (0.5 / 20))), ref).answer == NO
    assert level.quieter(audio(tone(1000, amp=0.1)), ref).answer == YES
    assert level.louder(audio(np.zeros(3 * R)), ref).answer == CANNOT_TELL


def test_clipping_edges():
    assert level.clipped(audio(np.clip(tone(440, amp=2.0), -1, 1))).answer == YES
    assert level.clipped(audio(tone(440, amp=0.99))).answer == NO
    single = tone(440, amp=0.5)
    single[100] = 1.0  # one full-scale sample is a peak, not a clip
    assert level.clipped(audio(single)).answer == NO
    assert level.peak(audio(single)).value == pytest.approx(0.0, abs=0.01)


def test_silence_and_silent_stretches():
    assert level.silent(audio(np.zeros(R))).answer == YES
    assert level.silent(audio(tone(440, amp=amp_for_dbfs(-55)))).answer == NO
    assert level.silent(audio(tone(440, amp=amp_for_dbfs(-65)))).answer == YES
    x = tone(440)
    x[R : R + R // 2] = 0.0  # 0.5 s gap
    runs = level.silent_stretches(audio(x), 0.3)
    assert (
        len(runs) == 1
        and runs[0][0] == pytest.approx(1.0, abs=0.03)
        and runs[0][1] == pytest.approx(1.5, abs=0.03)
    )
    assert level.has_silence(audio(x), 0.6).answer == NO


def test_noise_floor_dc_and_duration():
    assert level.noise_floor(audio(noise(amp=0.01))).value == pytest.approx(-40, abs=1.5)
    assert level.dc_offset(audio(tone(440) + 0.02)).answer == YES
    assert level.dc_offset(audio(tone(440) + 0.005)).answer == NO
    assert level.duration_is(audio(tone(440, 2.95)), 3.0).answer == YES
    assert level.duration_is(audio(tone(440, 2.8)), 3.0).answer == NO
    assert level.shorter(audio(tone(440, 2.0)), audio(tone(440))).answer == YES


# --- speech --------------------------------------------------------------------------------


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")
def test_speech_present_in_espeak_speech_only():
    words = synthesize_espeak("The quick brown fox jumps over the lazy dog near the river bank.")
    assert speech.speech_present(audio(words)).answer == YES
    padded = np.concatenate([np.zeros(3 * R), words])
    assert speech.speech_present(take(audio(padded), None, 2.5)).answer == NO
    assert speech.speech_present(take(audio(padded), 3.0, None)).answer == YES


@pytest.mark.parametrize("name", ["tone", "noise", "silence"])
def test_no_speech_in_tones_noise_or_silence(name):
    x = {"tone": tone(440) + tone(660), "noise": noise(), "silence": np.zeros(3 * R)}[name]
    assert speech.speech_present(audio(x)).answer == NO


# --- against the input ---------------------------------------------------------------------


def test_sameness_with_the_input():
    x = tone(440) + noise(amp=0.05)
    ref = audio(x)
    assert compare.same_as(audio(x), ref).answer == YES
    assert compare.same_as(audio(x + noise(amp=0.001, seed=1)), ref).answer == YES  # ~ -50 dB residual
    assert compare.same_as(audio(x + noise(amp=0.01, seed=1)), ref).answer == NO
    assert compare.same_as(audio(x[: 2 * R]), ref).answer == NO
    assert compare.same_as(audio(np.concatenate([np.zeros(160), x[:-160]])), ref).answer == YES  # 10 ms late


@pytest.mark.parametrize("rate", [16000, 22050, 44100])
def test_periodic_audio_is_the_same_as_itself_not_a_shifted_copy(rate):
    from audioeval.benchmarks.mmae.synthetic import BASE, render

    x = render(BASE, rate)  # periodic tones: other lags match almost as well as 0
    m = compare.same_as(audio(x, rate), audio(x, rate))
    assert m.answer == YES and "lag 0 ms" in m.reason


@pytest.mark.skipif(not espeak_available(), reason="espeak-ng is not installed")
def test_reversal():
    words = synthesize_espeak("Reverse this sentence please, then check it.")
    ref = audio(words)
    assert compare.reversed_of(audio(words[::-1]), ref).answer == YES
    assert compare.reversed_of(audio(words), ref).answer == NO
    assert compare.reversed_of(audio(tone(440)), audio(tone(440))).answer == CANNOT_TELL  # symmetric


def test_reversal_of_tones_tells_pitch_apart_not_only_loudness():
    from audioeval.benchmarks.mmae.synthetic import BASE, render

    ref = audio(render(BASE, 44100), 44100)  # 440 Hz throughout, 660 Hz from 1 s
    backwards = audio(render([(440, 0.0, 3.0), (660, 0.0, 2.0)], 44100), 44100)
    other_edit = audio(render([(440, 0.0, 3.0), (880, 0.0, 1.0)], 44100), 44100)  # loud early, other pitch
    assert compare.reversed_of(backwards, ref).answer == YES
    assert compare.reversed_of(other_edit, ref).answer == NO
    assert compare.reversed_of(audio(noise(), 16000), audio(render(BASE, 16000))).answer == NO


def test_speed_against_the_input():
    ref = audio(np.concatenate([tone(440, 2.0), np.zeros(R // 2)]))
    assert compare.speed_ratio(audio(tone(440, 1.0)), ref).answer == YES
    assert compare.speed_ratio(audio(tone(440, 1.0)), ref).value == pytest.approx(2.0, abs=0.05)
    assert compare.speed_ratio(audio(tone(440, 1.96)), ref).answer == NO  # padding is not speed
    assert compare.speed_ratio(audio(np.zeros(R)), ref).answer == CANNOT_TELL


# --- shape ---------------------------------------------------------------------------------


def test_fades():
    t = np.arange(3 * R) / R
    out_fade = tone(440) * np.clip(3.0 - t, 0, 1) ** 2
    in_fade = tone(440) * np.clip(t, 0, 1) ** 2
    assert shape.fade(audio(out_fade), "out").answer == YES
    assert shape.fade(audio(out_fade), "in").answer == NO
    assert shape.fade(audio(in_fade), "in").answer == YES
    assert shape.fade(audio(tone(440)), "out").answer == NO
    gentle = tone(440) * np.clip(1 - 0.5 * np.clip(t - 2.0, 0, 1), 0, 1)  # -6 dB: between
    assert shape.fade(audio(gentle), "out").answer == CANNOT_TELL
    assert shape.fade(audio(tone(440, 0.5)), "out", 1.0).answer == CANNOT_TELL


def test_channels_and_panning():
    x = tone(440)
    left = audio(np.stack([x, 0.25 * x], axis=1))  # +12 dB left
    centre = audio(np.stack([x, x], axis=1))
    assert shape.channel_count(left, 2).answer == YES and shape.channel_count(audio(x), 2).answer == NO
    assert shape.panned(left, "left").answer == YES
    assert shape.panned(left, "right").answer == NO
    assert shape.panned(centre, "centre").answer == YES
    assert shape.panned(audio(np.stack([x, 0.6 * x], axis=1)), "left").answer == CANNOT_TELL  # 4.4 dB
    assert shape.panned(audio(x), "left").answer == CANNOT_TELL  # mono


# --- output health -------------------------------------------------------------------------


def test_output_health_names_each_problem_and_only_it():
    from audioeval.audio.verifiers.health import output_health

    ref = audio(tone(440) + noise(amp=0.02))
    edited = audio(tone(660) + noise(amp=0.02, seed=3))
    assert output_health(edited, ref, R).problems == []
    cases = {
        "silent": audio(np.zeros(3 * R)),
        "clipped": audio(np.clip(tone(660, amp=3.0), -1, 1)),
        "truncated": audio(tone(660, 2.0)),
        "padded": audio(np.concatenate([tone(660), np.zeros(R)])),
        "dc_offset": audio(tone(660) + 0.05),
        "identical_to_input": ref,
    }
    for problem, out in cases.items():
        assert output_health(out, ref, R).problems == [problem], problem
    assert output_health(audio(tone(660, rate=22050), 22050), ref, R).problems == ["wrong_rate"]
    assert "identical_to_input" not in output_health(edited).checks  # no input given: not asked
    assert output_health(audio(tone(660, 2.85)), ref).problems == []  # within the length slack


def test_sameness_with_an_inverted_input_is_no_not_a_crash():
    """Every lag correlating negatively (the output is the input upside down): no lag is best by
    a positive margin, and the answer is still a measurement."""
    from audioeval.audio.verifiers import compare

    level_in = np.full(3 * R, 0.1)  # a constant: every lag's correlation is negative
    m = compare.same_as(audio(-level_in), audio(level_in))
    assert m.answer == NO and m.value is not None
    assert compare.same_as(audio(-noise()), audio(noise())).answer == NO
