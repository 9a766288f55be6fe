"""DNSMOS P.835 (SIG, BAK, OVRL) and P.808 MOS, with speechmos's own model files.

Same numbers as `speechmos.dnsmos.run(audio, 16000)` (checked to 1e-3 in the tests), reached
faster: sessions are opened once with a fixed number of intra-op threads, the windows of many
clips run through each model in batches, and the costly first layers of the P.835 model run
once over the frames that overlapping windows share (see `dnsmos_graph.py`). The window recipe,
including the tiling of clips shorter than 9.01 s, is the reference's (`dnsmos_windows.py`).

DNSMOS was trained to rate noise suppression; it is not a TTS-naturalness model like UTMOS.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from audioeval.scoring.speech_models._audio import mono_at
from audioeval.scoring.speech_models._deps import dist_version, require
from audioeval.scoring.speech_models.dnsmos_graph import (
    FEATURES,
    FRAMES_IN,
    OUTPUT,
    P808_INPUT,
    open_sessions,
)
from audioeval.scoring.speech_models.dnsmos_windows import (
    FRAMES,
    SR,
    P808Features,
    WindowRun,
    plan_runs,
    tile,
)
from audioeval.scoring.speech_models.runtime import ModelStats, load_once

_P_SIG = np.poly1d([-0.08397278, 1.22083953, 0.0052439])
_P_BAK = np.poly1d([-0.13166888, 1.60915514, -0.39604546])
_P_OVR = np.poly1d([-0.06766283, 1.11546468, 0.04602535])
HALO = 4  # frames of receptive field on each side of the shared layers (four 3×3 convolutions)
POOLED = FRAMES // 2  # pooled frames in a window
POOLED_HALO = HALO // 2
CHANNELS, BINS = 32, 80  # pooled feature map: channels × frequency bins


@dataclass(frozen=True)
class DnsmosScores:
    """DNSMOS of one clip (1–5, higher is better)."""

    ovrl: float
    """P.835 overall quality."""
    sig: float
    """P.835 speech signal quality."""
    bak: float
    """P.835 background noise (5 = no noise)."""
    p808: float
    """P.808 overall MOS."""
    windows: int
    """9.01 s windows scored (after DNSMOS's tiling of short clips)."""
    clipped: bool = False
    """True when samples outside [-1, 1] were clipped (speechmos refuses such input)."""


@dataclass(frozen=True)
class DnsmosConfig:
    threads: int = 2
    """onnxruntime intra-op threads."""
    frame_budget: int = 4096
    """P.835 frames whose shared features are held at once (~5 KB each, plus the ~45 MB of
    activations of one 512-frame chunk)."""
    batch: int = 4
    """Windows per run of the per-window models."""


class Dnsmos:
    """DNSMOS fast path. Thread-safe; calls run one at a time (each uses `threads` threads)."""

    def __init__(self, config: DnsmosConfig) -> None:
        require("librosa")
        self.config = config
        self.sessions = open_sessions(config.threads)
        self._features = P808Features()
        self.stats = ModelStats()
        self._lock = threading.Lock()

    @property
    def signature(self) -> str:
        return f"dnsmos-p835+p808:speechmos {dist_version('speechmos')}:non-personalised"

    def score(self, audio: np.ndarray, sr: int) -> DnsmosScores:
        return self.score_batch([(audio, sr)])[0]

    def score_batch(self, clips: Sequence[tuple[np.ndarray, int]]) -> list[DnsmosScores]:
        """Scores of several clips, in order; their windows share model runs."""
        t0 = time.perf_counter()
        prepared = [mono_at(audio, sr, SR) for audio, sr in clips]
        clipped = [bool(np.any(np.abs(x) > 1.0)) for x in prepared]
        tiled = [tile(np.clip(x, -1.0, 1.0)) for x in prepared]
        runs = [r for i, a in enumerate(tiled) for r in plan_runs(i, a, self._max_run_windows())]
        with self._lock:
            raw = self._p835(runs)
            p808 = self._p808(runs, tiled)
        self.stats.add(sum(len(x) for x in prepared) / SR, time.perf_counter() - t0, len(prepared))
        return [_clip_scores(raw[i], p808[i], clipped[i]) for i in range(len(prepared))]

    def _max_run_windows(self) -> int:
        return max(1, (self.config.frame_budget - FRAMES) // 100 + 1)

    def _p835(self, runs: list[WindowRun]) -> dict[int, list[np.ndarray]]:
        out: dict[int, list[np.ndarray]] = {}
        for pack in _packs(runs, self.config.frame_budget):
            features = self._shared_features(pack)
            edges = self._edge_features(pack)
            windows = [(r, k, off // 2) for r, run in enumerate(pack) for k, off in enumerate(run.offsets)]
            for i in range(0, len(windows), self.config.batch):
                chunk = windows[i : i + self.config.batch]
                batch = np.empty((len(chunk), CHANNELS, POOLED, BINS), dtype=np.float32)
                for j, (r, k, off) in enumerate(chunk):
                    batch[j] = features[r][:, off : off + POOLED]
                    head, tail = edges[(r, k)]
                    batch[j, :, :POOLED_HALO] = head[:, :POOLED_HALO]
                    batch[j, :, -POOLED_HALO:] = tail[:, -POOLED_HALO:]
                raw = self.sessions.back.run([OUTPUT], {FEATURES: batch})[0]
                for j, (r, _, _) in enumerate(chunk):
                    out.setdefault(pack[r].clip, []).append(raw[j])
        return out

    def _shared_features(self, pack: list[WindowRun]) -> list[np.ndarray]:
        """Pooled front features of every frame of every run in the pack, run as one stream.

        Runs and chunks start at even frames, so pooled frame p is frames 2p and 2p+1.
        """
        stream = np.concatenate([r.frames for r in pack]).astype(np.float32, copy=False)
        total = len(stream)
        feats = np.empty((CHANNELS, total // 2, BINS), dtype=np.float32)
        step = 512
        for s in range(0, total, step):
            lo, hi = max(0, s - HALO), min(total, s + step + HALO)
            y = self.sessions.front.run([FEATURES], {FRAMES_IN: stream[None, lo:hi]})[0][0]
            e = min(total, s + step)
            feats[:, s // 2 : e // 2] = y[:, (s - lo) // 2 : (e - lo) // 2]
        out, pos = [], 0
        for run in pack:
            out.append(feats[:, pos // 2 : (pos + len(run.frames)) // 2])
            pos += len(run.frames)
        return out

    def _edge_features(self, pack: list[WindowRun]) -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
        """Each window's first and last 8 frames, run alone: exact features for its 4-frame edges."""
        keys, blocks = [], []
        for r, run in enumerate(pack):
            for k, off in enumerate(run.offsets):
                keys.append((r, k))
                blocks.append(run.frames[off : off + 2 * HALO])
                blocks.append(run.frames[off + FRAMES - 2 * HALO : off + FRAMES])
        y = self.sessions.front.run([FEATURES], {FRAMES_IN: np.asarray(blocks, dtype=np.float32)})[0]
        return {key: (y[2 * i], y[2 * i + 1]) for i, key in enumerate(keys)}

    def _p808(self, runs: list[WindowRun], tiled: list[np.ndarray]) -> dict[int, list[float]]:
        out: dict[int, list[float]] = {}
        pending: list[tuple[int, np.ndarray]] = []
        for i, run in enumerate(runs):
            pending.extend((run.clip, f) for f in self._features.for_run(tiled[run.clip], run.starts))
            if len(pending) >= 16 or i == len(runs) - 1:
                mos = self.sessions.p808.run(None, {P808_INPUT: np.stack([f for _, f in pending])})[0][:, 0]
                for (clip, _), value in zip(pending, mos, strict=True):
                    out.setdefault(clip, []).append(float(value))
                pending = []
        return out


def _packs(runs: list[WindowRun], budget: int) -> list[list[WindowRun]]:
    packs: list[list[WindowRun]] = []
    size = 0
    for run in runs:
        if packs and size + len(run.frames) <= budget:
            packs[-1].append(run)
            size += len(run.frames)
        else:
            packs.append([run])
            size = len(run.frames)
    return packs


def _clip_scores(raw: list[np.ndarray], p808: list[float], clipped: bool) -> DnsmosScores:
    r = np.asarray(raw)
    return DnsmosScores(
        ovrl=float(np.mean(_P_OVR(r[:, 2]))),
        sig=float(np.mean(_P_SIG(r[:, 0]))),
        bak=float(np.mean(_P_BAK(r[:, 1]))),
        p808=float(np.mean(p808)),
        windows=len(raw),
        clipped=clipped,
    )


def load_dnsmos(config: DnsmosConfig | None = None) -> Dnsmos:
    """The process-wide DNSMOS scorer for `config` (sessions opened on first use)."""
    config = config or DnsmosConfig()
    return load_once(("dnsmos", config), lambda: Dnsmos(config))
