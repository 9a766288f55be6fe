"""Measuring an MMAE sample's rubrics (`judge/checkable.py` with MMAE's rules), shared by
`--judge verifiers` (`verifier_scorer.py`) and the `--verify audit|first` modes of the rubric
judge (`rubric_scorer.py`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

from audioeval.audio.verifiers.measurement import CANNOT_TELL, Audio, load_audio
from audioeval.benchmarks.mmae.check_rules import MMAE_CHECK_RULES
from audioeval.benchmarks.mmae.records import MeasuredRubric, MmaeSample
from audioeval.core.errors import InputError
from audioeval.judge.checkable import VERIFIERS_VERSION, choice_for, measure, plan_check


class VerifiersSignature(TypedDict):
    """The verifiers' part of a scorer's signature."""

    verifiers_version: str
    check_rules: list[str]


class VerifySignature(VerifiersSignature):
    """`verify` of the rubric judge's signature: the mode and what moves a measured answer."""

    mode: str


def verifiers_signature() -> VerifiersSignature:
    """What moves a measured answer: the verifiers' version and the rules that pick checks."""
    return {"verifiers_version": VERIFIERS_VERSION, "check_rules": [r.name for r in MMAE_CHECK_RULES]}


def clip_loader(resolve: Callable[[str], str]) -> Callable[[str], Audio]:
    """Clips by label (`output`, `input1`), each decoded once; KeyError for a label the
    sample lacks (the check then cannot tell)."""
    loaded: dict[str, Audio] = {}

    def load(label: str) -> Audio:
        if label not in loaded:
            try:
                path = resolve(label)
            except InputError:
                raise KeyError(label) from None
            loaded[label] = load_audio(path, label)
        return loaded[label]

    return load


def measure_rubric(ms: MmaeSample, index: int, load: Callable[[str], Audio]) -> MeasuredRubric | None:
    """The measured answer of one rubric: None when no check recognises it; else its check,
    where the check came from, the measurement, and `score` (1: the measured Yes / No is the
    right choice, 0: it is not; None with `not_judged` when the measurement cannot answer)."""
    rubric = ms.rubrics[index]
    try:
        check = plan_check({"question": rubric.question, "check": rubric.check}, MMAE_CHECK_RULES)
    except ValueError as exc:
        raise InputError(f"rubric {index}: {exc}", sample_id=ms.id, field="rubrics") from None
    if check is None:
        return None
    m = measure(check, load)
    picked = choice_for(m.answer, [rubric.right_choice, *rubric.wrong_choices])
    out: MeasuredRubric = {
        "check": check.expression,
        "check_source": check.source,
        "measurement": m.to_dict(),
    }
    if picked is None:
        why = m.reason if m.answer == CANNOT_TELL else "no single Yes / No option to map the measurement onto"
        return {**out, "score": None, "not_judged": f"{m.answer}: {why}"}
    return {**out, "score": int(picked == rubric.right_choice)}


def measure_rubrics(ms: MmaeSample, resolve: Callable[[str], str]) -> dict[int, MeasuredRubric]:
    """The measured answers of a sample's checkable rubrics, by rubric index. (The edited
    output's health is measured once for every MMAE pair, when it is summarised:
    `metrics/output_health.py`.)"""
    load = clip_loader(resolve)
    out = {}
    for i in range(len(ms.rubrics)):
        m = measure_rubric(ms, i, load)
        if m is not None:
            out[i] = m
    return out
