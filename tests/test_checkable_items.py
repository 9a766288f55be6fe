"""Rubric items answered by measurement: check expressions, MMAE's question rules, and the
mapping of a measurement onto the item's Yes / No choice."""

import json

import numpy as np
import pytest

from audioeval.audio.verifiers.measurement import CANNOT_TELL, NO, YES, Audio
from audioeval.benchmarks.mmae.check_rules import MMAE_CHECK_RULES
from audioeval.benchmarks.mmae.synthetic import BASE, render, write_synthetic_set
from audioeval.judge.checkable import CHECKS, choice_for, measure, parse_check, plan_check


def _clips(**named):
    return lambda label: named[label]


def test_every_question_form_of_the_synthetic_set_is_recognised(tmp_path):
    data = write_synthetic_set(tmp_path / "set", 42, oracle=False)
    meta = json.loads(data.metadata.read_text())
    questions = [r["question"] for s in meta for r in s["rubrics"]]
    unrecognised = [q for q in questions if plan_check({"question": q}, MMAE_CHECK_RULES) is None]
    assert not unrecognised


@pytest.mark.parametrize(
    "question,expected",
    [
        (
            "In <audio output[1.0s:]>, can a steady tone near 660 Hz be heard?",
            "tone_present(<audio output[1.0s:]>, 660)",
        ),
        (
            "Compared with <audio input1>, can a steady tone near 440 Hz still be heard in <audio output>?",
            "tone_present(<audio output>, 440)",
        ),
        ("Is there speech in <audio output[4.0s:5.7s]>?", "speech_present(<audio output[4.0s:5.7s]>)"),
        ("Is <audio output> louder than <audio input1>?", "louder(<audio output>, <audio input1>)"),
        ("Is <audio output> the reverse of <audio input1>?", "reversed_of(<audio output>, <audio input1>)"),
        ("Does <audio output> fade out at the end?", "fade_out(<audio output>, 1.0)"),
        ("Is <audio output> panned to the left?", "panned(<audio output>, left)"),
    ],
)
def test_rules_turn_question_forms_into_checks(question, expected):
    check = plan_check({"question": question}, MMAE_CHECK_RULES)
    assert check is not None and check.expression == expected and check.source.startswith("rule:")


def test_unrecognised_questions_are_left_to_the_judge():
    for q in ("Does the singer sound happier?", "Is the dog barking replaced by a cat meowing?", ""):
        assert plan_check({"question": q}, MMAE_CHECK_RULES) is None


def test_a_declared_check_wins_over_rules_and_bad_ones_are_named():
    item = {"question": "Is there speech in <audio output>?", "check": "not silent(output[:1s])"}
    check = plan_check(item, MMAE_CHECK_RULES)
    assert check.source == "metadata" and check.negated and check.clip.end == 1.0
    for bad, says in [
        ("loud(output)", "unknown check"),
        ("tone_present(output)", "takes a clip and 1"),
        ("tone_present(output, high)", "should be a number"),
        ("louder(output, 3)", "should be a clip"),
        ("tone_present output 3", "expected"),
    ]:
        with pytest.raises(ValueError, match=says):
            plan_check({"question": "q", "check": bad}, ())
    with pytest.raises(ValueError, match="non-empty"):
        plan_check({"question": "q", "check": ""}, ())


def test_every_check_runs_on_real_audio():
    rate = 16000
    tone = Audio.of(render(BASE, rate), rate, "output")
    stereo = Audio.of(render(BASE, rate, channels=2), rate, "input1")
    sample_args = {"number": "1", "clip": "input1", "word": "left"}
    special = {
        "tone_present": ["440"],
        "band_present": ["300", "700"],
        "band_limited": ["4000"],
        "channels": ["1"],
    }
    for name, (_, kinds) in CHECKS.items():
        args = special.get(name) or [sample_args[k] for k in kinds]
        m = measure(
            parse_check(f"{name}(output, {', '.join(args)})" if args else f"{name}(output)"),
            _clips(output=tone, input1=stereo),
        )
        assert m.answer in (YES, NO, CANNOT_TELL), name


def test_measurement_answers_and_slices_outside_the_clip_cannot_tell():
    rate = 16000
    out = Audio.of(render([(440.0, 0.0, 3.0)], rate), rate, "output")
    load = _clips(output=out)
    assert measure(parse_check("tone_present(output, 440)"), load).answer == YES
    assert measure(parse_check("not tone_present(output, 440)"), load).answer == NO
    assert measure(parse_check("tone_present(output[1s:], 660)"), load).answer == NO
    outside = measure(parse_check("tone_present(output[4.0s:5.7s], 660)"), load)
    assert outside.answer == CANNOT_TELL and "outside" in outside.reason
    assert measure(parse_check("not tone_present(output[4.0s:5.7s], 660)"), load).answer == CANNOT_TELL
    missing = measure(parse_check("same_as(output, input2)"), load)
    assert missing.answer == CANNOT_TELL and "input2" in missing.reason


def test_choice_for_picks_the_single_yes_or_no_option():
    opts = [
        "Yes, a tone near 440 Hz can be heard",
        "No, no tone near 440 Hz can be heard",
        "None of the above",
    ]
    assert choice_for(YES, opts) == opts[0]
    assert choice_for(NO, opts) == opts[1]
    assert choice_for(CANNOT_TELL, opts) is None
    assert choice_for(YES, ["A dog", "A cat"]) is None
    assert choice_for(NO, ["No.", "Not at all", "No, never"]) is None  # two "No" options: ambiguous


def test_measured_choice_matches_the_oracle_edit_of_the_synthetic_set(tmp_path):
    from audioeval.audio.verifiers.measurement import load_audio

    data = write_synthetic_set(tmp_path / "set", 14)
    meta = json.loads(data.metadata.read_text())
    right = wrong = 0
    for s in meta:
        clips = {"output": load_audio(data.root / "oracle" / f"{s['id']}.wav", "output")}
        for n in (1, 2):
            p = data.root / "wav" / s["id"] / f"audio{n}.wav"
            if p.is_file():
                clips[f"input{n}"] = load_audio(p, f"input{n}")
        for r in s["rubrics"]:
            m = measure(plan_check(r, MMAE_CHECK_RULES), _clips(**clips))
            picked = choice_for(m.answer, [r["right_choice"], *r["wrong_choices"]])
            right += picked == r["right_choice"]
            wrong += picked is not None and picked != r["right_choice"]
    assert wrong == 0 and right >= 0.95 * sum(len(s["rubrics"]) for s in meta)


def test_stereo_is_kept_for_panning(tmp_path):
    import soundfile as sf

    from audioeval.audio.verifiers.measurement import load_audio

    x = render(BASE, 16000)
    sf.write(tmp_path / "p.wav", np.stack([x, 0.2 * x], axis=1), 16000)
    m = measure(parse_check("panned(output, left)"), _clips(output=load_audio(tmp_path / "p.wav")))
    assert m.answer == YES
