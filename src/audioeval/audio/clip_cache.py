"""A per-run cache of encoded clips: each (file, slice) is decoded and encoded once."""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property

from audioeval.audio.decode import Clip, load_clip, resample
from audioeval.audio.encode import b64, content_hash, wav_bytes
from audioeval.audio.slicing import cut
from audioeval.core.messages import AudioRef


@dataclass(frozen=True)
class EncodedClip:
    """A clip ready to send: base64 WAV, its content hash, its duration."""

    b64_wav: str
    sha256: str
    duration_s: float
    sample_rate: int

    @cached_property
    def b64_is_json_safe(self) -> bool:
        """Whether `b64_wav` is plain base64, which a JSON string holds with no escape (checked
        once per clip, so request bodies can copy it in as is)."""
        return _PLAIN_B64.fullmatch(self.b64_wav) is not None


_PLAIN_B64 = re.compile(r"[A-Za-z0-9+/=]*")


class ClipCache:
    """Thread-safe LRU of encoded clips, bounded in bytes.

    `target_rate` resamples every clip (0 keeps the native rate). The last few decoded
    sources are kept too, so several slices of one file decode it once. `decodes` and `encodes` count the real work
    done, so callers and tests can check nothing is done twice.
    """

    def __init__(self, target_rate: int = 16000, max_bytes: int = 128 * 1024 * 1024) -> None:
        self.target_rate = target_rate
        self.max_bytes = max_bytes
        self._items: OrderedDict[tuple[str, float | None, float | None], EncodedClip] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()
        self._key_locks: dict[tuple[str, float | None, float | None], threading.Lock] = {}
        self._sources: OrderedDict[str, Clip] = OrderedDict()
        self._abspaths: dict[str, str] = {}  # normalised absolute paths, looked up per request
        self.max_sources = 16
        self.decodes = 0
        self.encodes = 0

    def _key(self, ref: AudioRef) -> tuple[str, float | None, float | None]:
        path = self._abspaths.get(ref.path)
        if path is None:
            path = os.path.abspath(ref.path)
            if os.path.isabs(ref.path):  # a relative path's meaning follows the working directory
                if len(self._abspaths) >= 65536:
                    self._abspaths.clear()
                self._abspaths[ref.path] = path
        return (path, ref.start, ref.end)

    def peek(self, ref: AudioRef) -> EncodedClip | None:
        key = self._key(ref)
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def get(self, ref: AudioRef, *, sample_id: str | None = None, field: str | None = None) -> EncodedClip:
        """Return the encoded clip, decoding and encoding it on first use."""
        hit = self.peek(ref)
        if hit is not None:
            return hit
        key = self._key(ref)
        with self._lock:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:
            hit = self.peek(ref)
            if hit is not None:
                return hit
            clip = self._decode(ref.path, sample_id=sample_id, field=field)
            if ref.is_slice:
                clip = cut(clip, ref.start, ref.end)
            data = wav_bytes(clip)
            item = EncodedClip(b64(data), content_hash(data), clip.duration_s, clip.sample_rate)
            _ = item.b64_is_json_safe  # checked here, off the event loop
            with self._lock:
                self.encodes += 1
                self._store(key, item)
                self._key_locks.pop(key, None)
            return item

    def _decode(self, path: str, *, sample_id: str | None, field: str | None) -> Clip:
        key = os.path.abspath(path)
        with self._lock:
            source = self._sources.get(key)
        if source is not None:
            return source
        clip = resample(load_clip(path, sample_id=sample_id, field=field), self.target_rate)
        with self._lock:
            self.decodes += 1
            self._sources[key] = clip
            while len(self._sources) > self.max_sources:
                self._sources.popitem(last=False)
        return clip

    def clear(self) -> None:
        """Drop every clip held (the counts of work done stay)."""
        with self._lock:
            self._items.clear()
            self._sources.clear()
            self._bytes = 0

    def _store(self, key: tuple[str, float | None, float | None], item: EncodedClip) -> None:
        size = len(item.b64_wav)
        self._items[key] = item
        self._bytes += size
        while self._bytes > self.max_bytes and len(self._items) > 1:
            _, old = self._items.popitem(last=False)
            self._bytes -= len(old.b64_wav)
