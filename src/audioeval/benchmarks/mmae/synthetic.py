"""A synthetic MMAE-format set built from tones, for the demo, tests and benchmarks.

Every complexity level and modality label appears. Each input is a mixture of sine tones;
each edit adds, removes or replaces tones; every rubric asks whether a tone near some
frequency can be heard in a (sliced) clip, so a judge that really listens can answer it.
`oracle` predictions hold the correctly edited audio.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from audioeval.benchmarks.mmae.records import (
    COMPLEXITIES,
    AudioPart,
    MetadataItem,
    PredictionItem,
    RubricDoc,
    TextPart,
    Turn,
)
from audioeval.store.atomic import write_json_atomic
from audioeval.store.run_lock import prepare_output_dir

MODALITIES = ("sound", "music", "speech", "sound-music", "sound-speech", "music-speech", "sound-music-speech")
RATES = (16000, 22050, 44100)
DURATION = 3.0

Tone = tuple[float, float, float]  # frequency Hz, start s, end s


def render(tones: Sequence[Tone], rate: int, duration: float = DURATION, channels: int = 1) -> np.ndarray:
    t = np.arange(int(duration * rate)) / rate
    sig = np.zeros_like(t)
    for freq, start, end in tones:
        mask = (t >= start) & (t < end)
        sig[mask] += 0.25 * np.sin(2 * np.pi * freq * t[mask])
    sig = sig.astype(np.float32)
    return np.stack([sig] * channels, axis=1) if channels > 1 else sig


def _q(clip: str, freq: int, present: bool, category: str) -> RubricDoc:
    yes, no = f"Yes, a tone near {freq} Hz can be heard", f"No, no tone near {freq} Hz can be heard"
    return {
        "category": category,
        "question": f"In {clip}, can a steady tone near {freq} Hz be heard?",
        "right_choice": yes if present else no,
        "wrong_choices": [no if present else yes, "None of the above"],
    }


IF, CON = "Instruction Following", "Consistency"
BASE: list[Tone] = [(440, 0.0, 3.0), (660, 1.0, 3.0)]


@dataclass(frozen=True)
class _Case:
    turns: list[str]
    ops: list[tuple[str, str]]
    oracle: list[Tone]
    rubrics: list[RubricDoc]
    extra_input: list[Tone] | None = None


def _case(complexity: str, variant: int) -> _Case:
    removed = [(440.0, 0.0, 3.0)]
    if complexity == "single":
        return _Case(
            ["Remove the 660 Hz tone."],
            [("local", "removal")],
            removed,
            [
                _q("<audio output[1.0s:]>", 660, False, IF),
                _q("<audio output>", 440, True, CON),
                _q("<audio output[:1s]>", 440, True, CON),
            ],
        )
    if complexity == "multi-part":
        return _Case(
            ["Remove the 660 Hz tone and add an 880 Hz tone during the first second."],
            [("local", "removal"), ("local", "addition")],
            removed + [(880.0, 0.0, 1.0)],
            [
                _q("<audio output[1s:]>", 660, False, IF),
                _q("<audio output[:1.0s]>", 880, True, IF),
                _q("<audio output>", 440, True, CON),
            ],
        )
    if complexity == "multi-instruction":
        return _Case(
            ["Replace the 660 Hz tone with a 990 Hz tone. Keep everything else as it is."],
            [("local", "replacement")],
            removed + [(990.0, 1.0, 3.0)],
            [
                _q("<audio output[1.0s:3.0s]>", 660, False, IF),
                _q("<audio output[1.0s:]>", 990, True, IF),
                _q("<audio output[-1s:]>", 440, True, CON),
            ],
        )
    if complexity == "multi-audio":
        return _Case(
            ["Mix the tone of the second clip into the first clip as a background."],
            [("global", "background change")],
            BASE + [(880.0, 0.0, 3.0)],
            [
                {
                    **_q("<audio output>", 880, True, IF),
                    "question": "Compared with <audio input2>, can a steady tone near 880 Hz be heard in <audio output>?",
                },
                _q("<audio output[1s:]>", 660, True, CON),
                _q("<audio output>", 440, True, CON),
            ],
            extra_input=[(880.0, 0.0, 3.0)],
        )
    if complexity == "multi-round":
        return _Case(
            ["Remove the 660 Hz tone.", "Now add a 550 Hz tone over the whole clip."],
            [("local", "removal"), ("global", "alteration")],
            removed + [(550.0, 0.0, 3.0)],
            [
                _q("<audio output[1s:]>", 660, False, IF),
                _q("<audio output>", 550, True, IF),
                {
                    **_q("<audio output>", 440, True, CON),
                    "question": "Compared with <audio input1>, can a steady tone near 440 Hz still be heard in <audio output>?",
                },
            ],
        )
    if variant % 2:  # multi-hop, extraction: no consistency rubric at all
        return _Case(
            ["Keep only the lower of the two tones."],
            [("local", "extraction")],
            removed,
            [_q("<audio output[1s:]>", 660, False, IF), _q("<audio output>", 440, True, IF)],
        )
    return _Case(
        ["Remove whichever tone starts later."],
        [("local", "removal")],
        removed,
        [_q("<audio output[1s:]>", 660, False, IF), _q("<audio output[:-2s]>", 440, True, CON)],
    )


@dataclass(frozen=True)
class SyntheticSet:
    root: Path
    metadata: Path
    oracle_predictions: Path


def write_synthetic_set(root: str | Path, n_samples: int = 42, *, oracle: bool = True) -> SyntheticSet:
    """Write `MMAE-meta.json`, `wav/<id>/audioN.wav` and oracle predictions under `root`."""
    import soundfile as sf

    out = prepare_output_dir(Path(root))
    meta: list[MetadataItem] = []
    preds: list[PredictionItem] = []
    for k in range(n_samples):
        complexity = COMPLEXITIES[k % len(COMPLEXITIES)]
        modality = MODALITIES[k % len(MODALITIES)]
        case = _case(complexity, k // len(COMPLEXITIES))
        sid = f"syn{k:05d}"
        rate = RATES[k % len(RATES)]
        channels = 2 if k % 4 == 0 else 1
        inputs = [BASE] + ([case.extra_input] if case.extra_input else [])
        rel_paths = []
        for n, tones in enumerate(inputs, start=1):
            rel = f"wav/{sid}/audio{n}.wav"
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            sf.write(str(out / rel), render(tones, rate, channels=channels), rate, subtype="PCM_16")
            rel_paths.append(rel)
        messages: list[Turn] = []
        for t, text in enumerate(case.turns):
            content: list[TextPart | AudioPart] = [{"type": "text", "text": text}]
            if t == 0:
                content += [AudioPart(type="audio", audio_url=p) for p in rel_paths]
            messages.append({"role": "user", "content": content})
        granularity = sorted({g for g, _ in case.ops})
        meta.append(
            {
                "id": sid,
                "complexity": complexity,
                "modality": modality,
                "granularity": granularity,
                "operations": [{"granularity": g, "operation": o} for g, o in case.ops],
                "messages": messages,
                "tags": [["synthetic tones"]],
                "rubrics": case.rubrics,
            }
        )
        if oracle:
            rel = f"oracle/{sid}.wav"
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            sf.write(str(out / rel), render(case.oracle, rate), rate, subtype="PCM_16")
            preds.append(
                {
                    "id": sid,
                    "messages": messages
                    + [{"role": "assistant", "content": [{"type": "audio", "audio_url": rel}]}],
                }
            )
    write_json_atomic(out / "MMAE-meta.json", meta)
    write_json_atomic(out / "predictions-oracle.json", preds)
    return SyntheticSet(out, out / "MMAE-meta.json", out / "predictions-oracle.json")
