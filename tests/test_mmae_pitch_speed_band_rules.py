"""MMAE's question forms for pitch, speed / tempo and bandwidth edits, recognised by its check
rules and measured on generated clips at the edges of each threshold (1 semitone; a sounding
duration ratio outside 1 ± 0.05; the highest frequency within 60 dB of the peak at or below the
cutoff)."""

import json
import subprocess
import sys

import numpy as np
import pytest
import soundfile as sf

from audioeval.audio.verifiers.measurement import CANNOT_TELL, NO, YES, Audio
from audioeval.benchmarks.mmae.check_rules import MMAE_CHECK_RULES
from audioeval.judge.checkable import choice_for, measure, plan_check

R = 16000
AUDIOEVAL = [sys.executable, "-m", "audioeval.cli.main"]

# every new rule by name, with a question of its form and the check it stands for
FORMS = {
    "pitch_higher_than": ("Is the pitch of <audio output> higher than that of <audio input1>?", "pitch_higher(<audio output>, <audio input1>)"),
    "pitch_lower_than": ("Is the pitch of <audio output[1s:]> lower than <audio input1>?", "pitch_lower(<audio output[1s:]>, <audio input1>)"),
    "pitch_higher_in_pitch": ("Is <audio output> higher in pitch than <audio input1>?", "pitch_higher(<audio output>, <audio input1>)"),
    "pitch_lower_in_pitch": ("Is <audio output> pitched lower than <audio input1>?", "pitch_lower(<audio output>, <audio input1>)"),
    "pitch_higher_compared": ("Compared with <audio input1>, is the pitch of <audio output> higher?", "pitch_higher(<audio output>, <audio input1>)"),
    "pitch_lower_compared": ("Compared to <audio input1>, is the pitch of <audio output> lower?", "pitch_lower(<audio output>, <audio input1>)"),
    "pitch_higher_compared_in_pitch": ("Compared with <audio input1>, is <audio output> higher in pitch?", "pitch_higher(<audio output>, <audio input1>)"),
    "pitch_lower_compared_in_pitch": ("Compared with <audio input1>, is <audio output> lower in pitch?", "pitch_lower(<audio output>, <audio input1>)"),
    "pitch_higher_moved": ("Has the pitch of <audio output> been raised compared with <audio input1>?", "pitch_higher(<audio output>, <audio input1>)"),
    "pitch_lower_moved": ("Has the pitch of <audio output> been lowered relative to <audio input1>?", "pitch_lower(<audio output>, <audio input1>)"),
    "faster_than": ("Is <audio output> played faster than <audio input1>?", "faster(<audio output>, <audio input1>)"),
    "slower_than": ("Is <audio output> slower than <audio input1>?", "slower(<audio output>, <audio input1>)"),
    "faster_tempo_than": ("Is the tempo of <audio output> higher than that of <audio input1>?", "faster(<audio output>, <audio input1>)"),
    "slower_tempo_than": ("Is the speaking rate of <audio output> slower than <audio input1>?", "slower(<audio output>, <audio input1>)"),
    "faster_compared": ("Compared with <audio input1>, is <audio output> faster?", "faster(<audio output>, <audio input1>)"),
    "slower_compared": ("Compared with <audio input1>, is <audio output> played slower?", "slower(<audio output>, <audio input1>)"),
    "faster_tempo_compared": ("Compared with <audio input1>, is the tempo of <audio output> faster?", "faster(<audio output>, <audio input1>)"),
    "slower_tempo_compared": ("Compared to <audio input1>, is the speed of <audio output> lower?", "slower(<audio output>, <audio input1>)"),
    "faster_moved": ("Has <audio output> been sped up compared with <audio input1>?", "faster(<audio output>, <audio input1>)"),
    "slower_moved": ("Has <audio output> been slowed down relative to <audio input1>?", "slower(<audio output>, <audio input1>)"),
    "band_limited_hz": ("Is <audio output> band-limited to about 4000 Hz?", "band_limited(<audio output>, 4000)"),
    "band_limited_khz": ("Is <audio output> bandlimited below 4 kHz?", "band_limited(<audio output>, 4000)"),
    "band_limited_khz_decimal": ("Is <audio output> band-limited to 3.4 kHz?", "band_limited(<audio output>, 3400)"),
    "low_pass_hz": ("Has <audio output> been low-pass filtered at 2500 Hz?", "band_limited(<audio output>, 2500)"),
    "low_pass_khz": ("Has <audio output> been lowpassed to 8 kHz?", "band_limited(<audio output>, 8000)"),
    "low_pass_khz_decimal": ("Has <audio output[:2s]> been low-pass filtered below 5.5 kHz?", "band_limited(<audio output[:2s]>, 5500)"),
    "content_above_removed_hz": ("Is the high-frequency content above 3000 Hz removed from <audio output>?", "band_limited(<audio output>, 3000)"),
    "content_above_removed_khz": ("Is all energy above 6 kHz removed in <audio output>?", "band_limited(<audio output>, 6000)"),
    "content_above_removed_khz_decimal": ("Is the content above 3.5 kHz removed from <audio output>?", "band_limited(<audio output>, 3500)"),
    "content_above_heard_hz": ("In <audio output>, can any content above 4000 Hz still be heard?", "not band_limited(<audio output>, 4000)"),
    "content_above_heard_khz": ("In <audio output>, can frequencies above 4 kHz be heard?", "not band_limited(<audio output>, 4000)"),
    "content_above_heard_khz_decimal": ("In <audio output[1s:]>, can sound above 7.5 kHz still be heard?", "not band_limited(<audio output[1s:]>, 7500)"),
    "telephone_band": ("Does <audio output> sound like a telephone call?", "band_limited(<audio output>, 4000)"),
}  # fmt: skip

YES_NO = ["Yes", "No", "None of the above"]


def test_every_pitch_speed_and_bandwidth_rule_has_its_form_recognised():
    """The rules are enumerated from the code: each one of these operations is exercised."""
    names = {r.name for r in MMAE_CHECK_RULES}
    new = {n for n in names if n.split("_")[0] in ("pitch", "faster", "slower", "band", "low", "content", "telephone")}
    assert new == set(FORMS)
    for name, (question, expression) in FORMS.items():
        check = plan_check({"question": question}, MMAE_CHECK_RULES)
        assert check is not None, question
        assert (check.source, check.expression) == (f"rule:{name}", expression)


@pytest.mark.parametrize(
    "question",
    [
        "Is the pitch of <audio output> more pleasant than that of <audio input1>?",
        "Is <audio output> faster paced in mood than <audio input1>?",
        "Is <audio output> band-limited?",  # no cutoff: nothing to measure against
        "Does <audio output> sound like a telephone ringing?",
        "Has the pitch of <audio output> been raised?",  # no reference clip
    ],
)
def test_near_misses_are_left_to_the_judge(question):
    assert plan_check({"question": question}, MMAE_CHECK_RULES) is None


def _tone(freq, seconds, rate=R):
    t = np.arange(int(seconds * rate)) / rate
    return 0.3 * np.sin(2 * np.pi * freq * t) + 0.1 * np.sin(4 * np.pi * freq * t)


def _padded(x, rate=R):
    gap = np.zeros(int(0.5 * rate))
    return np.concatenate([gap, x, gap])


def _lowpassed_noise(cutoff, seconds=3.0, rate=R, seed=0):
    x = np.random.default_rng(seed).standard_normal(int(seconds * rate)) * 0.1
    spec = np.fft.rfft(x)
    spec[np.fft.rfftfreq(len(x), 1 / rate) > cutoff] = 0
    return np.fft.irfft(spec, len(x))


def _answer(question, output, input1):
    clips = {"output": Audio.of(np.float32(output), R, "output"), "input1": Audio.of(np.float32(input1), R, "input1")}
    check = plan_check({"question": question}, MMAE_CHECK_RULES)
    return measure(check, clips.__getitem__)


@pytest.mark.parametrize(
    "semitones,higher,lower",
    [(1.3, YES, NO), (0.7, NO, NO), (0.0, NO, NO), (-0.7, NO, NO), (-1.3, NO, YES)],
)
def test_pitch_at_the_one_semitone_edge(semitones, higher, lower):
    ref = _tone(220, 2.0)
    out = _tone(220 * 2 ** (semitones / 12), 2.0)
    m = _answer(FORMS["pitch_higher_than"][0], out, ref)
    assert m.answer == higher and m.value == pytest.approx(semitones, abs=0.1)
    assert _answer(FORMS["pitch_lower_moved"][0], out, ref).answer == lower


def test_pitch_of_unpitched_audio_cannot_tell():
    m = _answer(FORMS["pitch_higher_than"][0], _lowpassed_noise(8000), _tone(220, 2.0))
    assert m.answer == CANNOT_TELL


@pytest.mark.parametrize(
    "ratio,faster,slower",
    [(1.10, YES, NO), (1.03, NO, NO), (1.0, NO, NO), (0.97, NO, NO), (0.90, NO, YES)],
)
def test_speed_at_the_five_percent_edge(ratio, faster, slower):
    ref = _padded(_tone(330, 2.0))
    out = _padded(_tone(330, 2.0 / ratio))  # the same sound, played `ratio` times as fast
    m = _answer(FORMS["faster_than"][0], out, ref)
    assert m.answer == faster and m.value == pytest.approx(ratio, abs=0.02)
    assert _answer(FORMS["slower_tempo_than"][0], out, ref).answer == slower
    assert _answer(FORMS["faster_moved"][0], out, ref).answer == faster


def test_speed_of_a_silent_output_cannot_tell():
    assert _answer(FORMS["faster_than"][0], np.zeros(2 * R), _padded(_tone(330, 2.0))).answer == CANNOT_TELL


@pytest.mark.parametrize("cutoff,limited", [(3700, YES), (3950, YES), (4300, NO), (8000, NO)])
def test_bandwidth_at_the_cutoff_edge(cutoff, limited):
    out = _lowpassed_noise(cutoff)
    m = _answer(FORMS["band_limited_khz"][0], out, out)
    assert m.answer == limited
    heard = _answer(FORMS["content_above_heard_hz"][0], out, out).answer
    assert heard == (NO if limited == YES else YES)
    assert choice_for(heard, YES_NO) == ("No" if limited == YES else "Yes")


def test_bandwidth_of_silence_and_slices_outside_cannot_tell():
    assert _answer(FORMS["telephone_band"][0], np.zeros(2 * R), np.zeros(2 * R)).answer == CANNOT_TELL
    short = _lowpassed_noise(3000, seconds=0.5)
    assert _answer(FORMS["content_above_heard_khz_decimal"][0], short, short).answer == CANNOT_TELL


def test_the_forms_are_answered_end_to_end_by_mmae_verifiers(tmp_path):
    """`mmae score --judge verifiers` on files: a pitch, a speed and a bandwidth edit, each
    output right for its rubrics."""
    cases = {
        "pitch": (_tone(220, 2.0), _tone(220 * 2 ** (3 / 12), 2.0), "Raise the pitch by three semitones.",
                  [(FORMS["pitch_higher_than"][0], True), (FORMS["pitch_lower_compared"][0], False)]),
        "speed": (_padded(_tone(330, 2.0)), _padded(_tone(330, 1.6)), "Play it a quarter faster.",
                  [(FORMS["faster_compared"][0], True), (FORMS["slower_moved"][0], False)]),
        "band": (_lowpassed_noise(7900), _lowpassed_noise(3000), "Make it sound like a phone call.",
                 [(FORMS["telephone_band"][0], True), (FORMS["content_above_heard_khz"][0], False)]),
    }  # fmt: skip
    meta, preds = [], []
    for sid, (inp, out, instruction, rubrics) in cases.items():
        (tmp_path / sid).mkdir()
        sf.write(tmp_path / sid / "in.wav", inp, R, subtype="PCM_16")
        sf.write(tmp_path / sid / "out.wav", out, R, subtype="PCM_16")
        user = {"role": "user", "content": [{"type": "text", "text": instruction}, {"type": "audio", "audio_url": f"{sid}/in.wav"}]}
        meta.append({
            "id": sid, "complexity": "single", "modality": "sound", "granularity": ["global"],
            "operations": [{"granularity": "global", "operation": "alteration"}], "messages": [user],
            "rubrics": [{"category": "Instruction Following", "question": q, "right_choice": "Yes" if yes else "No",
                         "wrong_choices": ["No" if yes else "Yes", "None of the above"]} for q, yes in rubrics],
        })  # fmt: skip
        preds.append({"id": sid, "messages": [user, {"role": "assistant", "content": [{"type": "audio", "audio_url": f"{sid}/out.wav"}]}]})
    (tmp_path / "meta.json").write_text(json.dumps(meta))
    (tmp_path / "preds.json").write_text(json.dumps(preds))
    p = subprocess.run(
        [*AUDIOEVAL, "mmae", "score", "--predictions", str(tmp_path / "preds.json"), "--metadata",
         str(tmp_path / "meta.json"), "--audio_root", str(tmp_path), "--judge", "verifiers", "--output_dir",
         str(tmp_path / "out")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr[-2000:]
    lines = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert len(lines) == 6 and all(x["score"] == 1 and x["check_source"].startswith("rule:") for x in lines)
    assert json.loads((tmp_path / "out" / "taxonomy.json").read_text())["overall"]["IFR"] == 100.0
