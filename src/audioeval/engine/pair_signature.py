"""What a benchmark × model pair of `audioeval run` was made from: settings and inputs.

The pair's signature holds every setting that moves a number (benchmark spec, model with
the content hashes of what it replays, generation, prompt override, judge); endpoints,
concurrency and timeouts stay out. Each record holds its sample's content hash
(`sample_sha256`: id, fields such as the prompt and reference, taxonomy, and the content
hash of each input clip), so a rerun whose manifest, references or audio changed for a
sample already scored is refused, naming the sample, rather than reusing its record; a
rerun with more samples (a larger --limit) goes on, and a failed sample is asked again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TypedDict

from audioeval.adapters.base import ModelAdapter
from audioeval.benchmarks.resolved import ResolvedBenchmark
from audioeval.benchmarks.sources.hf import stored_sha256_prefix
from audioeval.core.errors import RunConfigError
from audioeval.core.json_value import JsonValue
from audioeval.core.record import SampleRecord
from audioeval.core.sample import Sample
from audioeval.core.version import __version__
from audioeval.store.file_digest import files_sha256, json_digest


def _clip_hashes(samples: Sequence[Sample]) -> dict[str, str]:
    """The content hash of every input clip: from the name of a clip a hub dataset wrote
    once under its hash, else from the file's bytes."""
    paths = {ref.path for s in samples for ref in s.audio.values()}
    known = {p: h for p in paths if (h := stored_sha256_prefix(p)) is not None}
    return {**files_sha256(sorted(paths - set(known))), **known}


def sample_digests(samples: Sequence[Sample]) -> dict[str, str]:
    """`{id: sha256}` over each sample's id, fields, taxonomy and input audio contents."""
    hashes = _clip_hashes(samples)
    return {
        s.id: json_digest(
            {
                "id": s.id,
                "fields": dict(s.fields),
                "taxonomy": dict(s.taxonomy),
                "audio": {k: [hashes[a.path], a.start, a.end] for k, a in sorted(s.audio.items())},
            }
        )
        for s in samples
    }


def changed_samples(
    records: Sequence[SampleRecord], digests: Mapping[str, str], where: Path
) -> RunConfigError | None:
    """The refusal to resume when a finished sample's inputs differ from those read now (a
    failed sample is asked again anyway: its inputs may have been fixed)."""
    for rec in records:
        sid = rec.id
        if sid not in digests or rec.sample_sha256 == digests[sid] or rec.error is not None:
            continue
        why = (
            "was recorded by an earlier audioeval that did not hash its inputs"
            if rec.sample_sha256 is None
            else "was recorded from other inputs: its fields or audio changed"
        )
        return RunConfigError(
            f"{where}: sample {sid!r} {why} (sample_sha256 differs). Use a new --output_dir, or "
            "delete the old results to start over."
        )
    return None


class PairSignature(TypedDict, total=False):
    """A pair's `signature.json`: the benchmark's and the model's signatures, the generation
    settings, the prompt override, audioeval's version, the judge, and the hash of a source
    file whose every byte counts."""

    benchmark: dict[str, JsonValue]
    model: dict[str, JsonValue]
    generation: dict[str, JsonValue]
    prompt_override: str | None
    audioeval: str
    judge: dict[str, JsonValue]
    source_sha256: str


def pair_signature(
    bench: ResolvedBenchmark,
    adapter: ModelAdapter,
    *,
    generation: dict[str, JsonValue],
    prompt_override: str | None,
    judge: dict[str, JsonValue] | None,
    source_sha256: str | None = None,
) -> PairSignature:
    signature: PairSignature = {
        "benchmark": bench.signature(),
        "model": adapter.signature(),
        "generation": generation,
        "prompt_override": prompt_override,
        "audioeval": __version__.split("+")[0],
    }
    if judge is not None:
        signature["judge"] = judge
    if source_sha256 is not None:  # a source file whose every byte counts (MMAE metadata)
        signature["source_sha256"] = source_sha256
    return signature


INPUT_FILE_KEYS = ("file", "audio_root", "predictions_sha256", "outputs_sha256")
SOURCE_INPUT_OPTIONS = ("predictions",)
"""Source options that name where answers are read from (`mcq score --metadata`: the
predictions file), whose answers the samples' own content hashes hold."""


def without_input_files(signature: PairSignature) -> PairSignature:
    """The signature without where the inputs are read from and their file hashes (the
    benchmark's source path and its options naming a predictions file, a predictions file's
    path and hash): for runs whose samples'
    own content hashes say what is done (`PreparedInputs.rescore_changed_samples`)."""
    out = PairSignature(**signature)
    out.pop("source_sha256", None)
    bench = dict(out.get("benchmark") or {})
    source = dict(bench.get("source") or {})
    source.pop("path", None)
    options = source.get("options")
    if isinstance(options, dict):
        source["options"] = {k: v for k, v in options.items() if k not in SOURCE_INPUT_OPTIONS}
    bench["source"] = source
    out["benchmark"] = bench
    out["model"] = {k: v for k, v in (out.get("model") or {}).items() if k not in INPUT_FILE_KEYS}
    return out
