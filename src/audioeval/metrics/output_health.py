"""Audio-output health of a pair: each audio output the model gave measured once, when the
pair is summarised (`audio/verifiers/health.py`: silent, clipped, DC offset, and against the
sample's input clip where the output should be a version of it — truncated, padded, the input
returned unchanged), and each problem counted with the samples that have it.

An output with a problem is still scored as its benchmark says: the block lists it beside the
figures, so that a silent or unchanged output is never taken for a normal one unseen. An output
file that can no longer be read (a run folder moved without its audio) is counted in
`unreadable`, never as healthy."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from audioeval.audio.verifiers.health import output_health
from audioeval.audio.verifiers.measurement import Audio, load_audio
from audioeval.core.errors import AudioError
from audioeval.core.record import SampleRecord

HEALTH_ALONE = "output"
"""Measure each output alone (speech, sound or music made from text)."""
HEALTH_AGAINST_INPUT = "input"
"""Also measure each output against the sample's first input clip (a codec's round trip, an edit)."""


def _input_clip(rec: SampleRecord) -> Audio | None:
    ref = next(iter(rec.sample.audio.values()), None)
    if ref is None or not ref.path:
        return None
    try:
        return load_audio(ref.path, "input")
    except AudioError:  # an input this reader cannot decode: the output is measured alone
        return None


def records_health(latest: Iterable[SampleRecord], mode: str) -> dict[str, Any] | None:
    """`{n_checked, n_with_problems, problems: {name: {n, ids}}, unreadable: {n, ids}}` over the
    usable audio outputs of the given records (each sample's latest), or None when there is
    none. `mode`: `HEALTH_ALONE` or `HEALTH_AGAINST_INPUT`."""
    checked: list[tuple[str, list[str]]] = []
    unreadable: list[str] = []
    for rec in latest:
        out = rec.output
        if out is None or not out.ok or not out.audio_path:
            continue
        try:
            audio = load_audio(out.audio_path, "output")
        except AudioError:
            unreadable.append(rec.id)
            continue
        ref = _input_clip(rec) if mode == HEALTH_AGAINST_INPUT else None
        checked.append((rec.id, output_health(audio, ref).problems))
    if not checked and not unreadable:
        return None
    problems: dict[str, list[str]] = {}
    for sid, names in checked:
        for name in names:
            problems.setdefault(name, []).append(sid)
    return {
        "n_checked": len(checked),
        "n_with_problems": sum(1 for _, names in checked if names),
        "problems": {k: {"n": len(v), "ids": v} for k, v in sorted(problems.items())},
        "unreadable": {"n": len(unreadable), "ids": unreadable},
        "against_input": mode == HEALTH_AGAINST_INPUT,
    }
