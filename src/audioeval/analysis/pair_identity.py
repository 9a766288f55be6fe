"""What a board column is: a benchmark *with its data and settings*. Two pairs of one benchmark
name (from one run directory or several) share a column only when their benchmark signatures
agree:

- `limit` (the run's `--limit`, else the spec's) and `profile` (the scoring profile) from the
  run's `run.json`;
- the benchmark part of the pair's `signature.json` (task, language, source but not where it
  is read from, fields, variables, prompt template and its digest, post-processing, scorers
  with their settings, metrics);
- the data: the sample ids the pair was asked (`sample_ids.json`, else its records), and each
  sample's content hash (`sample_sha256`) where both pairs recorded one.

Where they differ, `audioeval leaderboard` and `audioeval rank` refuse (exit 2), naming both
run directories, the benchmark and the first field that differs. `data_sha256` (a hash of
the ids and content hashes) is what a board column shows of its data.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from audioeval.analysis.pair_records import LatestByFolder, pair_latest
from audioeval.core.errors import InputError
from audioeval.core.json_value import JsonValue
from audioeval.core.shorten import shorten
from audioeval.engine.leaderboard import ColumnSignature
from audioeval.metrics.summary_blocks import PairSummary
from audioeval.store.json_file import read_json_object
from audioeval.store.run_folder import read_pair

RunSettings = dict[str, dict[str, JsonValue]]
"""Benchmark name -> the settings of a run that set its column apart ({limit, profile})."""
RunSettingsCache = dict[Path, RunSettings]
"""Each run directory's `RunSettings`, read once."""

WHERE_READ = ("path", "audio_root")
"""Source fields that say where the data is read from, not what it is (its hashes say that)."""


@dataclass(frozen=True)
class PairIdentity:
    """One pair's benchmark signature (see the module doc)."""

    run_dir: Path
    benchmark: str
    model: str
    settings: Mapping[str, JsonValue]
    hashes: Mapping[str, str | None]
    """Sample id -> content hash (None: asked but not recorded, or recorded without one)."""

    @property
    def data_sha256(self) -> str:
        text = json.dumps(sorted(self.hashes.items(), key=lambda kv: kv[0]), ensure_ascii=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def signature(self) -> ColumnSignature:
        """What a board column shows: data hash, sample count, limit, profile, scorers."""
        return {
            "data_sha256": self.data_sha256,
            "samples": len(self.hashes),
            "limit": self.settings.get("limit"),
            "profile": self.settings.get("profile"),
            "scorers": self.settings.get("scorers"),
        }


def _run_settings(run_dir: Path, cache: RunSettingsCache) -> RunSettings:
    """benchmark name -> {limit, profile} of a run's run.json (empty when it cannot be read)."""
    if run_dir not in cache:
        out: RunSettings = {}
        try:
            run = read_json_object(run_dir / "run.json")
            for b in run.get("benchmarks") or []:
                spec = b.get("spec") or {}
                out[str(b.get("name"))] = {
                    "limit": run.get("limit") or spec.get("limit"),
                    "profile": spec.get("profile"),
                }
        except (InputError, OSError, ValueError, AttributeError, TypeError):
            out = {}
        cache[run_dir] = out
    return cache[run_dir]


def pair_identity(
    run_dir: Path,
    summary: PairSummary,
    runs: RunSettingsCache,
    latest_by_folder: LatestByFolder,
) -> PairIdentity:
    """The benchmark signature of a pair (its summary in `run_dir`); `runs` and
    `latest_by_folder` keep what was read across calls."""
    bench, model = str(summary["benchmark"]), str(summary["model"])
    folder = run_dir / str(summary.get("folder", ""))
    settings: dict[str, JsonValue] = dict(_run_settings(run_dir, runs).get(bench) or {})
    latest = pair_latest(folder, latest_by_folder, run_dir)  # refuses a pair whose files cannot be used
    files = read_pair(folder, None, lines=False)
    if files.signature is not None:
        whole = files.signature
        signed = dict(whole["benchmark"]) if isinstance(whole.get("benchmark"), dict) else {}
        judge = whole.get("judge")
        source = {k: v for k, v in (signed.pop("source", None) or {}).items() if k not in WHERE_READ}
        settings.update(signed, source=source, judge=judge)
    ids = files.ids if files.ids is not None else list(latest)
    hashes = {sid: (latest[sid].sample_sha256 if sid in latest else None) for sid in ids}
    return PairIdentity(run_dir, bench, model, settings, hashes)


def difference(a: PairIdentity, b: PairIdentity) -> str | None:
    """The first field in which two pairs of one benchmark differ, described; None when alike."""
    for field in ("limit", "profile"):
        if a.settings.get(field) != b.settings.get(field):
            return f"{field} is {a.settings.get(field)} in one and {b.settings.get(field)} in the other"
    for field in sorted(set(a.settings) | set(b.settings)):
        x, y = a.settings.get(field), b.settings.get(field)
        if x != y:
            return f"{field} differs: {shorten(json.dumps(x), 120)} vs {shorten(json.dumps(y), 120)}"
    if set(a.hashes) != set(b.hashes):
        both = len(set(a.hashes) & set(b.hashes))
        return f"sample ids differ: {len(a.hashes)} and {len(b.hashes)} samples, {both} in common"
    for sid, h in sorted(a.hashes.items()):
        other = b.hashes.get(sid)
        if h is not None and other is not None and h != other:
            return f"data differs: sample {sid!r} has another content hash (sample_sha256)"
    return None


def check_alike(identities: Iterable[PairIdentity]) -> dict[str, PairIdentity]:
    """{benchmark: its first pair's identity}, after checking every other pair of the same
    benchmark against it; an `InputError` names both runs, the benchmark and the difference."""
    first: dict[str, PairIdentity] = {}
    for ident in identities:
        seen = first.setdefault(ident.benchmark, ident)
        if seen is ident:
            continue
        why = difference(seen, ident)
        if why is not None:
            raise InputError(
                f"benchmark {ident.benchmark!r} of {seen.run_dir} (model {seen.model!r}) and of"
                f" {ident.run_dir} (model {ident.model!r}) was not run alike: {why}. A board column"
                " is one benchmark with one data set and settings: give runs of the same data,"
                " --limit, --profile and scorers, or rank them separately",
                file=str(ident.run_dir),
                field=ident.benchmark,
            )
    return first
