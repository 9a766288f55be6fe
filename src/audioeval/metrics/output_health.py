"""Audio-output health of a pair: each audio output the model gave measured once, when the
pair is summarised (`audio/verifiers/health.py`: silent, clipped, DC offset, and against the
sample's input clip where the output should be a version of it — truncated, padded, the input
returned unchanged), and each problem counted with the samples that have it.

An output with a problem is still scored as its benchmark says: the block lists it beside the
figures, so that a silent or unchanged output is never taken for a normal one unseen. An output
file that can no longer be read (a run folder moved without its audio) is counted in
`unreadable`, never as healthy."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from typing import TypedDict

from audioeval.audio.verifiers.health import output_health
from audioeval.audio.verifiers.measurement import load_audio
from audioeval.core.errors import AudioError
from audioeval.core.record import SampleRecord

HEALTH_ALONE = "output"
"""Measure each output alone (speech, sound or music made from text)."""
HEALTH_AGAINST_INPUT = "input"
"""Also measure each output against the sample's first input clip (a codec's round trip, an edit)."""


def _stamp(path: str) -> tuple[int, int] | None:
    """(size, mtime in ns) of a file, or None when it cannot be read: what the memo keys on."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


@functools.lru_cache(maxsize=65536)
def _problems(
    out_path: str, out_stamp: tuple[int, int] | None, in_path: str | None, in_stamp: tuple[int, int] | None
) -> tuple[str, ...] | None:
    """The health problems of one output (against its input when `in_path`), or None when the
    output cannot be read; measured once per process for the same files unchanged (a run's
    summaries and exports, a rescore, the viewer summarising a run as it grows)."""
    try:
        audio = load_audio(out_path, "output")
    except AudioError:
        return None
    ref = None
    if in_path is not None:
        try:
            ref = load_audio(in_path, "input")
        except AudioError:  # an input this reader cannot decode: the output is measured alone
            ref = None
    return tuple(output_health(audio, ref).problems)


class IdsCount(TypedDict):
    """How many samples, and which."""

    n: int
    ids: list[str]


class OutputHealth(TypedDict):
    """A pair summary's `output_health` block (`records_health`)."""

    n_checked: int
    n_with_problems: int
    problems: dict[str, IdsCount]
    unreadable: IdsCount
    against_input: bool


def records_health(latest: Iterable[SampleRecord], mode: str) -> OutputHealth | None:
    """`{n_checked, n_with_problems, problems: {name: {n, ids}}, unreadable: {n, ids}}` over the
    usable audio outputs of the given records (each sample's latest), or None when there is
    none. `mode`: `HEALTH_ALONE` or `HEALTH_AGAINST_INPUT`."""
    checked: list[tuple[str, list[str]]] = []
    unreadable: list[str] = []
    for rec in latest:
        out = rec.output
        if out is None or not out.ok or not out.audio_path:
            continue
        ref = next(iter(rec.sample.audio.values()), None) if mode == HEALTH_AGAINST_INPUT else None
        in_path = ref.path if ref is not None and ref.path else None
        found = _problems(
            out.audio_path, _stamp(out.audio_path), in_path, None if in_path is None else _stamp(in_path)
        )
        if found is None:
            unreadable.append(rec.id)
            continue
        checked.append((rec.id, list(found)))
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
