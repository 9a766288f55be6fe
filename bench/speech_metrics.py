"""Benchmark: throughput of the embedded speech metric models on this machine (CPU).

Run: `.venv/bin/python bench/speech_metrics.py` — synthesises ~90 s of espeak-ng speech (two
voices, 3–5 s sentences), then measures, as multiples of real time (audio s ÷ wall s):
DNSMOS (our fast path and the `speechmos` reference, on the short clips and on the same audio
joined into 30 s clips), speaker-embedding SIM (ONNX d-vector), Whisper tiny.en ASR, and the
codec round-trips; then the quality each built-in codec leaves (PESQ-WB, STOI, SIM, DNSMOS,
WER) on 6 of the clips. Writes the "## Speech metric models" section of docs/performance.md
and leaves the other sections alone.
"""

from __future__ import annotations

import os
import platform
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from audioeval.adapters.codecs import parse_codec_spec  # noqa: E402
from audioeval.audio.tts_espeak import synthesize_espeak  # noqa: E402
from audioeval.scoring.speech_models.asr import load_asr  # noqa: E402
from audioeval.scoring.speech_models.dnsmos import load_dnsmos  # noqa: E402
from audioeval.scoring.speech_models.reference_quality import reference_quality  # noqa: E402
from audioeval.scoring.speech_models.speaker_sim import cosine, load_speaker_embedder  # noqa: E402

DOC = ROOT / "docs" / "performance.md"
SECTION = "## Speech metric models"
SR = 16000
SENTENCES = [
    "Please call Stella and ask her to bring these things with her from the store.",
    "The weather today is sunny with a light breeze from the west.",
    "We need to finish the report before the meeting on Monday morning.",
    "My favorite season is autumn because the leaves change color.",
    "The train to the city leaves every hour from the main station.",
    "A rainbow is a division of white light into many beautiful colors.",
    "The birch canoe slid on the smooth planks of the old wooden dock.",
    "Glue the sheet to the dark blue background and let it dry overnight.",
    "It is easy to tell the depth of a well by dropping a small stone.",
    "These days a chicken leg is a rare dish in the little village.",
    "Rice is often served in round bowls with a pair of wooden sticks.",
    "The juice of lemons makes fine punch on a hot summer afternoon.",
]
VOICES = ("en-us", "en-us+f3")
FAST = 5  # repeats of the quick measurements


def corpus() -> list[np.ndarray]:
    return [synthesize_espeak(s, voice=v) for s in SENTENCES for v in VOICES]


def joined(clips: list[np.ndarray], seconds: float = 30.0) -> list[np.ndarray]:
    audio = np.concatenate(clips)
    n = int(seconds * SR)
    return [audio[i : i + n] for i in range(0, len(audio) - n + 1, n)]


def seconds(clips: list[np.ndarray]) -> float:
    return sum(len(c) for c in clips) / SR


def timed(fn: Callable[[], object], repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def row(name: str, clips: list[np.ndarray], fn: Callable[[], object], repeats: int) -> dict[str, object]:
    audio = seconds(clips)
    times = timed(fn, repeats)
    med, best = statistics.median(times), min(times)
    print(
        f"{name}: {audio:.1f} s audio, median {med:.2f} s ({audio / med:.1f}x), best {best:.2f} s ({audio / best:.1f}x)"
    )
    return {
        "name": name,
        "audio": audio,
        "clips": len(clips),
        "median": med,
        "best": best,
        "repeats": repeats,
    }


def measure() -> tuple[list[dict[str, object]], dict[str, float], dict[str, float]]:
    from speechmos import dnsmos as reference

    short = corpus()
    long = joined(short)
    batch = lambda clips: [(c, SR) for c in clips]  # noqa: E731
    t0 = time.perf_counter()
    dnsmos = load_dnsmos()
    load = {"dnsmos": time.perf_counter() - t0}
    dnsmos.score(short[0], SR)  # warm-up (librosa's first call)
    windows = lambda clips: sum(s.windows for s in dnsmos.score_batch(batch(clips)))  # noqa: E731
    info = {
        "windows_short": windows(short),
        "windows_long": windows(long),
        "front_ms": front_ms_per_frame(dnsmos),
    }
    info["input_short"] = info["windows_short"] * 9.01 / seconds(short)
    info["input_long"] = info["windows_long"] * 9.01 / seconds(long)
    print(info)
    reference.run(short[0], SR)
    plan: list[tuple[str, list[np.ndarray], Callable[[], object], int]] = [
        ("DNSMOS fast path, 3–5 s clips, one batch", short, lambda: dnsmos.score_batch(batch(short)), FAST),
        (
            "DNSMOS fast path, 3–5 s clips, one call each",
            short,
            lambda: [dnsmos.score(c, SR) for c in short],
            FAST,
        ),
        ("DNSMOS fast path, 30 s clips", long, lambda: dnsmos.score_batch(batch(long)), FAST),
        (
            "DNSMOS `speechmos.dnsmos.run`, 3–5 s clips",
            short,
            lambda: [reference.run(c, SR) for c in short],
            1,
        ),
        ("DNSMOS `speechmos.dnsmos.run`, 30 s clips", long, lambda: [reference.run(c, SR) for c in long], 2),
    ]
    rows = [row(*item) for item in plan]
    t0 = time.perf_counter()
    sim = load_speaker_embedder()
    load["sim"] = time.perf_counter() - t0
    sim.embed(short[0], SR)
    rows.append(row("SIM d-vector (ONNX), 3–5 s clips", short, lambda: sim.embed_batch(batch(short)), FAST))
    t0 = time.perf_counter()
    asr = load_asr()
    load["asr"] = time.perf_counter() - t0
    asr.transcribe(short[0], SR)
    name = "ASR Whisper tiny.en (int8, beam 5), 3–5 s clips"
    rows.append(row(name, short, lambda: asr.transcribe_batch(batch(short)), 2))
    for spec in ("opus:12k", "codec2:3200"):
        codec = parse_codec_spec(spec)
        codec.roundtrip(short[0], SR)
        rows.append(
            row(f"codec round-trip {spec}", short, lambda c=codec: [c.roundtrip(x, SR) for x in short], FAST)
        )
    return rows, load, info


def front_ms_per_frame(dnsmos: object) -> float:
    """Best-of-5 time of the shared P.835 layers on a 520-frame chunk, per frame."""
    from audioeval.scoring.speech_models.dnsmos_graph import FRAMES_IN

    frames = (np.random.default_rng(0).standard_normal((1, 520, 320)) * 0.1).astype(np.float32)
    front = dnsmos.sessions.front  # type: ignore[attr-defined]
    front.run(None, {FRAMES_IN: frames})
    return min(timed(lambda: front.run(None, {FRAMES_IN: frames}), 5)) / 520 * 1000


CODECS = ("opus:6k", "opus:12k", "opus:24k", "codec2:3200", "codec2:1300", "mulaw")


def _words(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9' ]", " ", text.lower()).split())


def codec_quality() -> list[tuple[str, float, float, float, float, float, float]]:
    """(codec, kbit/s, PESQ-WB, STOI, SIM, DNSMOS OVRL, WER) means over 3 sentences × 2 voices."""
    import jiwer

    keys = [(i, v) for i in range(3) for v in VOICES]
    clean = [synthesize_espeak(SENTENCES[i], voice=v) for i, v in keys]
    refs = [_words(SENTENCES[i]) for i, _ in keys]
    dnsmos, sim, asr = load_dnsmos(), load_speaker_embedder(), load_asr()
    ref_emb = sim.embed_batch([(x, SR) for x in clean])
    rows = []
    for spec in ("original", *CODECS):
        if spec == "original":
            out, kbps = clean, 256.0
        else:
            codec = parse_codec_spec(spec)
            out = [codec.roundtrip(x, SR)[0] for x in clean]
            kbps = float(np.mean([codec.encode(x, SR).bitrate_bps for x in clean])) / 1000
        q = [reference_quality(x, y, SR) for x, y in zip(clean, out, strict=True)]
        sims = [cosine(a, b) for a, b in zip(ref_emb, sim.embed_batch([(y, SR) for y in out]), strict=True)]
        ovrl = [d.ovrl for d in dnsmos.score_batch([(y, SR) for y in out])]
        wer = jiwer.wer(refs, [_words(h) for h in asr.transcribe_batch([(y, SR) for y in out])])
        rows.append(
            (
                spec,
                kbps,
                np.mean([r.pesq_wb for r in q]),
                np.mean([r.stoi for r in q]),
                np.mean(sims),
                np.mean(ovrl),
                wer,
            )
        )
        print(spec, [round(float(v), 3) for v in rows[-1][1:]])
    return rows


def update_doc(text: str) -> None:
    old = DOC.read_text(encoding="utf-8") if DOC.exists() else "# Performance\n"
    pattern = re.compile(rf"^{re.escape(SECTION)}\n.*?(?=^## |\Z)", re.S | re.M)
    new = pattern.sub(lambda _: text, old) if pattern.search(old) else old.rstrip("\n") + "\n\n" + text
    DOC.write_text(new, encoding="utf-8")


def reading(rows: list[dict[str, object]], info: dict[str, float]) -> str:
    rt = {str(r["name"]): float(r["audio"]) / float(r["best"]) for r in rows}
    short, long = rt["DNSMOS fast path, 3–5 s clips, one batch"], rt["DNSMOS fast path, 30 s clips"]
    ref_short = rt["DNSMOS `speechmos.dnsmos.run`, 3–5 s clips"]
    ref_long = rt["DNSMOS `speechmos.dnsmos.run`, 30 s clips"]
    verdict = lambda x: "met" if x >= 50 else "not met"  # noqa: E731
    head = (
        f"Reading: the fast path gives speechmos's numbers (tests: within 1e-3, observed < 1e-6) "
        f"{short / ref_short:.1f}× faster than `speechmos.dnsmos.run` on 3–5 s clips and "
        f"{long / ref_long:.1f}× faster on 30 s clips. The goal, DNSMOS ≥ 50× real time on 2 cores, "
        f"is {verdict(long)} on 30 s clips ({long:.0f}×) and {verdict(short)} on 3–5 s clips ({short:.0f}×). "
    )
    gap = (
        f"The gap is DNSMOS's own recipe: it doubles a short clip until it is 9.01 s long and scores "
        f"9.01 s windows every second, so the 3–5 s clips cost {info['windows_short']:.0f} windows "
        f"({info['input_short']:.1f} s of network input per second of audio) where the same audio in 30 s "
        f"clips costs {info['windows_long']:.0f} windows ({info['input_long']:.1f} s per second). The shared "
        f"full-resolution layers of the P.835 network, the bulk of the work, run at "
        f"{info['front_ms']:.3f} ms per 10 ms frame here (about 42 MFLOP a frame, i.e. "
        f"{42e6 / (info['front_ms'] * 1e-3) / 1e9:.0f} GFLOP/s of fp32 on 2 cores), so only fewer windows "
        "(a different recipe, not DNSMOS's numbers) or lower precision could close it."
    )
    return head + (gap if short < 50 else "") + "\n"


def render(
    rows: list[dict[str, object]],
    load: dict[str, float],
    info: dict[str, float],
    loadavg: float,
    quality: list,
) -> str:
    lines = [
        f"{SECTION}\n",
        f"`python bench/speech_metrics.py`, measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores "
        f"({platform.processor() or platform.machine()}, Python {platform.python_version()}, CPU only; "
        f"load average {loadavg:.1f} at the start). Audio: {len(SENTENCES)} sentences × {len(VOICES)} espeak-ng "
        "voices (3–5 s clips, 16 kHz), and the same audio joined into 30 s clips. "
        "Throughput = audio seconds ÷ wall seconds, after a warm-up call (models loaded once); "
        "the machine is shared, so the best of the repeats is the least disturbed figure.\n",
        "| model | clips | audio s | repeats | best wall s | × real time (best) | × real time (median) |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        audio, med, best = float(r["audio"]), float(r["median"]), float(r["best"])
        lines.append(
            f"| {r['name']} | {r['clips']} | {audio:.1f} | {r['repeats']} | {best:.2f} "
            f"| {audio / best:.1f} | {audio / med:.1f} |"
        )
    lines.append("")
    lines.append(
        "Loading (first use in a process): " + ", ".join(f"{k} {v:.2f} s" for k, v in load.items()) + ".\n"
    )
    lines.append(reading(rows, info))
    lines += [
        "Quality left by each built-in codec (means over 3 sentences × 2 espeak-ng voices, 16 kHz; "
        "SIM = ONNX d-vector cosine to the original; WER = Whisper tiny.en, lower-cased, punctuation stripped):\n",
        "| codec | kbit/s spent | PESQ-WB | STOI | SIM | DNSMOS OVRL | WER |",
        "|---|---|---|---|---|---|---|",
    ]
    for spec, kbps, pesq, stoi, sim, ovrl, wer in quality:
        lines.append(
            f"| {spec} | {kbps:.1f} | {pesq:.2f} | {stoi:.3f} | {sim:.3f} | {ovrl:.2f} | {wer:.3f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    loadavg = os.getloadavg()[0]
    if loadavg > 1.0:
        print(f"warning: load average {loadavg:.1f} — other work on this machine will slow the figures")
    rows, load, info = measure()
    quality = codec_quality()
    update_doc(render(rows, load, info, loadavg, quality))
    print(f"wrote the '{SECTION}' section of {DOC}")


if __name__ == "__main__":
    main()
