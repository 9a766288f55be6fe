"""The files of an `mmae score` output folder, and rescoring them with no judge call.

`results.jsonl` (one line per judged rubric, written by `engine/mmae_run.py`),
`per_sample.json`, `taxonomy.json`, `skipped.json` (input errors) and `failed_outputs.json`
(samples the system under test gave no usable output for: they count in the headline with
every rubric at 0, unless excluded).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from audioeval.benchmarks.mmae.aggregate import failed_output_row, per_sample_row, public_row, taxonomy
from audioeval.benchmarks.mmae.loading import load_metadata
from audioeval.benchmarks.mmae.records import MmaeSample
from audioeval.benchmarks.mmae.stored_results import read_results
from audioeval.core.errors import InputError, RunConfigError
from audioeval.store.atomic import write_json_atomic
from audioeval.store.file_digest import file_sha256

RESULTS_FILE = "results.jsonl"
FAILED_OUTPUTS_FILE = "failed_outputs.json"


def sample_rows(
    samples: dict[str, MmaeSample],
    done: dict[tuple[str, int], dict[str, Any]],
    failed_outputs: list[InputError],
    *,
    leave_out: set[str] | frozenset[str] = frozenset(),
) -> list[dict[str, Any]]:
    """In metadata order: a failed-output row (every rubric 0) for a sample without a usable
    output, else the row of its stored results (samples with none are left out)."""
    why = {e.sample_id: e.describe() for e in failed_outputs if e.sample_id}
    rows = []
    for sid, sample in samples.items():
        if sid in why:
            rows.append(failed_output_row(sample, why[sid]))
            continue
        results = {i: done[(sid, i)] for i in range(len(sample.rubrics)) if (sid, i) in done}
        if results and sid not in leave_out:
            rows.append(per_sample_row(sample, results))
    return rows


def write_outputs(
    output_dir: Path,
    rows: list[dict[str, Any]],
    tax: dict[str, Any],
    skipped: list[InputError],
    extra: dict[str, Any],
) -> None:
    write_json_atomic(output_dir / "per_sample.json", [public_row(r) for r in rows])
    write_json_atomic(output_dir / "taxonomy.json", {**tax, "run": extra})
    write_json_atomic(output_dir / "skipped.json", [e.as_record() for e in skipped])


def write_failed_outputs(output_dir: Path, failed: list[InputError]) -> None:
    """`failed_outputs.json`: the samples without a usable output (what rescoring reads)."""
    write_json_atomic(output_dir / FAILED_OUTPUTS_FILE, [e.as_record() for e in failed])


def read_failed_outputs(output_dir: Path) -> list[InputError]:
    path = output_dir / FAILED_OUTPUTS_FILE
    if not path.is_file():
        return []
    return [
        InputError(str(r.get("error")), file=r.get("file"), sample_id=r.get("id"), field=r.get("field"))
        for r in json.loads(path.read_text(encoding="utf-8"))
    ]


def rescore_mmae(
    output_dir: Path,
    metadata: Path,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    reparse: bool = False,
    exclude_missing: bool = False,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Recompute per-sample and taxonomy files from `results.jsonl`, with no judge call.

    With `reparse`, every stored raw answer is parsed again (e.g. after a parser change);
    `exclude_missing` leaves the samples without a usable output out of the means.
    """
    from audioeval.judge.rubric_votes import rescore_attempts
    from audioeval.store.signature import read_signature

    sig = read_signature(output_dir)
    stored_hash = sig.get("metadata_sha256")
    if stored_hash is not None and stored_hash != file_sha256(metadata):
        raise RunConfigError(
            f"{metadata} is not the metadata {output_dir} was scored with (metadata_sha256 differs)"
        )
    samples, _ = load_metadata(metadata)
    done = read_results(output_dir / RESULTS_FILE, samples).done
    if reparse:
        for rec in done.values():
            rec.update(rescore_attempts(rec.get("attempts", []), int(sig.get("votes_needed", 3))))
    rows = sample_rows(samples, done, read_failed_outputs(output_dir))
    skipped_file = output_dir / "skipped.json"
    skipped = json.loads(skipped_file.read_text(encoding="utf-8")) if skipped_file.exists() else []
    n_skipped = len({s.get("id") or f"#{i}" for i, s in enumerate(skipped)})
    tax = taxonomy(
        rows, n_skipped=n_skipped, n_resamples=n_resamples, seed=seed, exclude_failed_outputs=exclude_missing
    )
    write_json_atomic(output_dir / "per_sample.json", [public_row(r) for r in rows])
    write_json_atomic(output_dir / "taxonomy.json", {**tax, "run": {"rescored": True, "reparsed": reparse}})
    return [public_row(r) for r in rows], tax
