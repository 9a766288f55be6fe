"""DNSMOS P.835 (SIG, BAK, OVRL) and P.808 MOS, with speechmos's own model files.

Same numbers as `speechmos.dnsmos.run(audio, 16000)` (the tests check 1e-3, and 1e-5 for the
newer paths; observed < 1e-6), reached faster, all exactly — no window is skipped and no layer
approximated:

* sessions are opened once, with a fixed number of intra-op threads that do not spin when idle
  and numpy's BLAS held to one thread during a call (idle spinning threads took the cores the
  models need: together ~20 % of the CPU time on short clips);
* the P.835 layers up to its second pooling run once over the frames that overlapping windows
  share, with each window's edges recomputed (see `dnsmos_graph.py`); only the last layers run
  per window;
* the same for the P.808 model across neighbouring windows whose inputs agree on the frames
  they share (checked element by element; a window alone runs the whole model);
* a tiled short clip repeats itself: windows that hold the same samples are computed once, and
  when the clip's length is a multiple of 160 samples (or of 80, for longer tilings) its frames
  repeat too, so the costly front layers run over one period only.

The window recipe, including the tiling of clips shorter than 9.01 s, is the reference's
(`dnsmos_windows.py`).

DNSMOS was trained to rate noise suppression; it is not a TTS-naturalness model like UTMOS.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from audioeval.scoring.speech_models._audio import mono_at
from audioeval.scoring.speech_models._deps import dist_version, require
from audioeval.scoring.speech_models.dnsmos_graph import (
    FEATURES,
    FRAMES_IN,
    MID,
    OUTPUT,
    P808_INPUT,
    P808_MID,
    open_sessions,
)
from audioeval.scoring.speech_models.dnsmos_windows import (
    FRAMES,
    FRAMES_PER_HOP,
    SR,
    ClipPlan,
    P808Features,
    WindowRun,
    plan_clip,
    tile,
)
from audioeval.scoring.speech_models.runtime import ModelStats, load_once

_P_SIG = np.poly1d([-0.08397278, 1.22083953, 0.0052439])
_P_BAK = np.poly1d([-0.13166888, 1.60915514, -0.39604546])
_P_OVR = np.poly1d([-0.06766283, 1.11546468, 0.04602535])
HALO = 4  # frames of receptive field on each side of the front layers (four 3×3 convolutions)
POOLED = FRAMES // 2  # pooled frames in a window
POOLED_HALO = HALO // 2
CHANNELS, BINS = 32, 80  # pooled feature map: channels × frequency bins
MID_HALO = 4  # pooled frames of receptive field on each side of the mid layers
MID_BLOCK = 12  # pooled frames recomputed at each window edge for the mid layers
MID_EDGE = 3  # mid outputs at each window edge that see the window's edges
POOLED2, BINS2 = POOLED // 2, BINS // 2  # mid output of a window: 225 × 40
STEP = 512  # frames (or pooled frames) per chunk of a shared stream
P808_HALO = 12  # frames of receptive field (and padding reach) on each side of `p808_mid`
P808_BLOCK = 24  # frames recomputed at each P.808 window edge
P808_EDGE = 3  # `p808_mid` outputs at each window edge that see the window's edges


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
    """Windows per run of the per-window P.835 layers (cheap now; 1–4 measured alike)."""
    spinning: bool = False
    """Let onnxruntime's idle intra-op threads spin (off: less CPU time, as fast on 2 cores)."""


class Dnsmos:
    """DNSMOS fast path. Thread-safe; calls run one at a time (each uses `threads` threads)."""

    def __init__(self, config: DnsmosConfig) -> None:
        require("librosa")
        self.config = config
        self.sessions = open_sessions(config.threads, spinning=config.spinning)
        self._features = P808Features()
        self.stats = ModelStats(self.signature)
        self._lock = threading.Lock()

    @property
    def signature(self) -> str:
        return f"dnsmos-p835+p808:speechmos {dist_version('speechmos')}:non-personalised"

    def score(self, audio: np.ndarray, sr: int) -> DnsmosScores:
        return self.score_batch([(audio, sr)])[0]

    def score_batch(self, clips: Sequence[tuple[np.ndarray, int]]) -> list[DnsmosScores]:
        """Scores of several clips, in order; their windows share model runs."""
        prepared = [mono_at(audio, sr, SR) for audio, sr in clips]
        clipped = [bool(np.any(np.abs(x) > 1.0)) for x in prepared]
        tiled = [tile(np.clip(x, -1.0, 1.0)) for x in prepared]
        plans = [
            plan_clip(i, a, len(x) if len(a) > len(x) else None, self._max_run_windows())
            for i, (x, a) in enumerate(zip(prepared, tiled, strict=True))
        ]
        runs = [r for plan in plans for r in plan.runs]
        audio_seconds = sum(len(x) for x in prepared) / SR
        # busy time (calls never overlap), not time spent waiting for another thread's call
        with self._lock, self.stats.measure(audio_seconds, len(prepared)), self._features.one_blas_thread():
            raw = self._p835(runs)
            p808 = self._p808(runs, tiled)
        return [_clip_scores(plan, raw, p808, clipped[plan.clip]) for plan in plans]

    def _max_run_windows(self) -> int:
        return max(1, (self.config.frame_budget - FRAMES) // 100 + 1)

    def _p835(self, runs: list[WindowRun]) -> dict[tuple[int, int], np.ndarray]:
        """Raw SIG, BAK, OVRL of each computed window, by (clip, start)."""
        out: dict[tuple[int, int], np.ndarray] = {}
        for pack in _packs(runs, self.config.frame_budget):
            pooled, starts = self._shared_features(pack)
            edges = self._edge_features(pack)
            mid = self._stream(self.sessions.mid, (FEATURES, MID), pooled, 1, MID_HALO)
            windows = [
                (r, k, starts[r] + off // 2)
                for r, run in enumerate(pack)
                for k, off in enumerate(run.offsets)
            ]
            mid_edges = self._mid_edges(pooled, [(w[2], edges[w[:2]]) for w in windows])
            for i in range(0, len(windows), self.config.batch):
                chunk = windows[i : i + self.config.batch]
                batch = np.empty((len(chunk), CHANNELS, POOLED2, BINS2), dtype=np.float32)
                for j, (_, _, p) in enumerate(chunk):
                    head, tail = mid_edges[i + j]
                    batch[j] = mid[:, p // 2 : p // 2 + POOLED2]
                    batch[j, :, :MID_EDGE] = head[:, :MID_EDGE]
                    batch[j, :, -MID_EDGE:] = tail[:, -MID_EDGE:]
                raw = self.sessions.tail.run([OUTPUT], {MID: batch})[0]
                for j, (r, k, _) in enumerate(chunk):
                    out[(pack[r].clip, pack[r].starts[k])] = raw[j]
        return out

    def _stream(
        self, session: Any, names: tuple[str, str], x: np.ndarray, axis: int, halo: int, scale: int = 2
    ) -> np.ndarray:
        """`session` over the time `axis` of `x` (frames (T, ·) or pooled (32, T, 80)) in chunks
        that overlap by `halo` on each side, its output (32, T/scale, ·) pieced together. Chunks
        start at multiples of `scale`, so output frame t is input frames scale·t … scale·t+scale−1."""
        total = x.shape[axis]
        out: np.ndarray | None = None
        for s in range(0, total, STEP):
            lo, hi, e = max(0, s - halo), min(total, s + STEP + halo), min(total, s + STEP)
            y = session.run([names[1]], {names[0]: x[None, lo:hi] if axis == 0 else x[None, :, lo:hi]})[0][0]
            if out is None:
                out = np.empty((y.shape[0], total // scale, y.shape[2]), dtype=np.float32)
            out[:, s // scale : e // scale] = y[:, (s - lo) // scale : (e - lo) // scale]
        assert out is not None
        return out

    def _shared_features(self, pack: list[WindowRun]) -> tuple[np.ndarray, list[int]]:
        """Pooled front features (32, T/2, 80) of every frame of every run in the pack, run as
        one stream, and where each run begins in it.

        Runs and chunks start at even frames, so pooled frame p is frames 2p and 2p+1. A run
        whose frames repeat every F frames (F even; a tiled clip of a suitable length) is run
        over its first F + 8 frames only, and its pooled frames are then copied from those
        (pooled frames 2 … F/2 + 1 are exact there and the rest repeat them; the first and last
        2 of a run are window edges, replaced by `_edge_features`).
        """
        spans = [_periodic_span(r) or len(r.frames) for r in pack]
        stream = np.concatenate([r.frames[:n] for r, n in zip(pack, spans, strict=True)])
        stream = stream.astype(np.float32, copy=False)
        feats = self._stream(self.sessions.front, (FRAMES_IN, FEATURES), stream, 0, HALO)
        starts = list(np.cumsum([0] + [len(r.frames) // 2 for r in pack[:-1]]))
        if all(n == len(r.frames) for r, n in zip(pack, spans, strict=True)):
            return feats, starts
        full = np.empty((CHANNELS, sum(len(r.frames) for r in pack) // 2, BINS), dtype=np.float32)
        pos = 0
        for run, n, start in zip(pack, spans, starts, strict=True):
            part = feats[:, pos // 2 : (pos + n) // 2]
            if n < len(run.frames):
                cycle = (n - 2 * HALO) // 2  # pooled frames in one period
                index = POOLED_HALO + (np.arange(len(run.frames) // 2) - POOLED_HALO) % cycle
                np.take(part, index, axis=1, out=full[:, start : start + len(run.frames) // 2])
            else:
                full[:, start : start + n // 2] = part
            pos += n
        return full, starts

    def _mid_edges(
        self, pooled: np.ndarray, windows: list[tuple[int, tuple[np.ndarray, np.ndarray]]]
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Each window's first and last `MID_BLOCK` pooled frames (its front edges put in), run
        alone through `mid`: exact values for its first and last `MID_EDGE` outputs."""
        blocks = np.empty((2 * len(windows), CHANNELS, MID_BLOCK, BINS), dtype=np.float32)
        for i, (p, (head, tail)) in enumerate(windows):
            blocks[2 * i, :, :POOLED_HALO] = head[:, :POOLED_HALO]
            blocks[2 * i, :, POOLED_HALO:] = pooled[:, p + POOLED_HALO : p + MID_BLOCK]
            end = p + POOLED
            blocks[2 * i + 1, :, :-POOLED_HALO] = pooled[:, end - MID_BLOCK : end - POOLED_HALO]
            blocks[2 * i + 1, :, -POOLED_HALO:] = tail[:, -POOLED_HALO:]
        y = self.sessions.mid.run([MID], {FEATURES: blocks})[0]
        return [(y[2 * i], y[2 * i + 1]) for i in range(len(windows))]

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

    def _p808(self, runs: list[WindowRun], tiled: list[np.ndarray]) -> dict[tuple[int, int], float]:
        """P.808 MOS of each computed window, by (clip, start)."""
        out: dict[tuple[int, int], float] = {}
        for run in runs:
            feats = self._features.for_run(tiled[run.clip], run.starts)
            for group in _p808_groups(feats):
                if len(group) == 1:
                    mos = self.sessions.p808.run(None, {P808_INPUT: feats[group]})[0][:, 0]
                else:
                    mos = self._p808_shared(feats, group)
                for w, value in zip(group, mos, strict=True):
                    out[(run.clip, run.starts[w])] = float(value)
        return out

    def _p808_shared(self, feats: np.ndarray, group: list[int]) -> np.ndarray:
        """MOS of consecutive windows whose inputs agree on the frames they share: the layers up
        to the third pooling run once over their frames, and again over 24 frames at each window
        edge (exact values for the 3 outputs at each end that see the edge or its padding)."""
        first = group[0]
        x = np.empty(((len(group) - 1) * FRAMES_PER_HOP + FRAMES, feats.shape[2]), dtype=np.float32)
        for w in group:
            at = (w - first) * FRAMES_PER_HOP
            x[at + 1 : at + FRAMES - 1] = feats[w, 1:-1]
        x[0], x[-1] = feats[first, 0], feats[group[-1], -1]
        mid = self._stream(self.sessions.p808_mid, (P808_INPUT, P808_MID), x, 0, P808_HALO, 4)
        blocks = np.concatenate([feats[group, :P808_BLOCK], feats[group, -P808_BLOCK:]])
        edges = self.sessions.p808_mid.run([P808_MID], {P808_INPUT: blocks})[0]
        n = len(group)
        batch = np.empty((n, mid.shape[0], FRAMES // 4, mid.shape[2]), dtype=np.float32)
        for i, w in enumerate(group):
            at = (w - first) * FRAMES_PER_HOP // 4
            batch[i] = mid[:, at : at + FRAMES // 4]
            batch[i, :, :P808_EDGE] = edges[i, :, :P808_EDGE]
            batch[i, :, -P808_EDGE:] = edges[n + i, :, -P808_EDGE:]
        return self.sessions.p808_tail.run([OUTPUT], {P808_MID: batch})[0][:, 0]


def _p808_groups(feats: np.ndarray) -> list[list[int]]:
    """Consecutive windows (100 frames apart) whose P.808 inputs agree on the frames 1 … 898 they
    share (frames 0 and 899 are each window's own: its STFT's zero padding), checked exactly."""
    groups = [[0]]
    for w in range(1, len(feats)):
        if np.array_equal(feats[w - 1, FRAMES_PER_HOP + 1 : -1], feats[w, 1 : -1 - FRAMES_PER_HOP]):
            groups[-1].append(w)
        else:
            groups.append([w])
    return groups


def _periodic_span(run: WindowRun) -> int | None:
    """Frames to run for a run whose frames repeat (one period and the halo), if that is fewer."""
    if run.frame_period is None or run.frame_period + 2 * HALO >= len(run.frames):
        return None
    return run.frame_period + 2 * HALO


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


def _clip_scores(
    plan: ClipPlan, raw: dict[tuple[int, int], np.ndarray], p808: dict[tuple[int, int], float], clipped: bool
) -> DnsmosScores:
    """Means over every window the reference scores (a repeated window counts each time)."""
    starts = {plan.key(s): s for r in plan.runs for s in r.starts}
    keys = [(plan.clip, starts[plan.key(s)]) for s in plan.starts]
    r = np.asarray([raw[k] for k in keys])
    return DnsmosScores(
        ovrl=float(np.mean(_P_OVR(r[:, 2]))),
        sig=float(np.mean(_P_SIG(r[:, 0]))),
        bak=float(np.mean(_P_BAK(r[:, 1]))),
        p808=float(np.mean([p808[k] for k in keys])),
        windows=len(keys),
        clipped=clipped,
    )


def load_dnsmos(config: DnsmosConfig | None = None) -> Dnsmos:
    """The process-wide DNSMOS scorer for `config` (sessions opened on first use)."""
    config = config or DnsmosConfig()
    return load_once(("dnsmos", config), lambda: Dnsmos(config))
