"""The judge's encoded clips are bounded by its concurrency, evicted oldest first (an evicted
clip is encoded again, the same bytes), and dropped when judging ends."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import soundfile as sf

from audioeval.audio.clip_cache import ClipCache
from audioeval.core.messages import AudioRef
from audioeval.engine.run_judge import CLIP_BYTES_PER_SLOT, clip_budget

MIB = 1024 * 1024


def test_the_clip_budget_follows_concurrency_within_bounds() -> None:
    assert clip_budget(1) == 16 * MIB
    assert clip_budget(256) == 256 * CLIP_BYTES_PER_SLOT == 64 * MIB
    assert clip_budget(10_000) == 128 * MIB


def test_a_bounded_cache_evicts_and_reencodes_the_same_clip_and_clear_keeps_the_counts(
    tmp_path: Path,
) -> None:
    paths = []
    for k in range(3):
        p = tmp_path / f"c{k}.wav"
        sf.write(p, np.full(16000, 0.01 * (k + 1), dtype=np.float32), 16000, subtype="PCM_16")
        paths.append(str(p))
    one = len(ClipCache().get(AudioRef(paths[0])).b64_wav)
    cache = ClipCache(max_bytes=2 * one)  # room for two clips
    first = cache.get(AudioRef(paths[0]))
    cache.get(AudioRef(paths[1]))
    cache.get(AudioRef(paths[2]))  # the oldest (paths[0]) goes
    assert cache.peek(AudioRef(paths[0])) is None and cache.peek(AudioRef(paths[2])) is not None
    again = cache.get(AudioRef(paths[0]))
    assert again.b64_wav == first.b64_wav and again.sha256 == first.sha256
    assert cache.encodes == 4
    cache.clear()
    assert cache.peek(AudioRef(paths[0])) is None and cache.peek(AudioRef(paths[2])) is None
    assert cache.encodes == 4 and cache.decodes >= 3
