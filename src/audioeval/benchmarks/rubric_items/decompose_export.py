"""The files of `rubric decompose`, exported from the run's records (exporter `rubric_decompose`).

After every run and every `audioeval rescore`, from the latest record of each caption, in
the captions file's order, each file replaced whole and atomically:

- the rubrics file (`--output`): one line per decomposed caption, `{id, caption, domain,
  rubric: [{dimension, question, basis}], fallback, prompt_version}` (`domain`: the one
  used, the model's choice under `auto`); a caption whose decomposition failed has no line;
- `decompose_summary.json` in the run directory: counts, the failed captions with the
  reason, the fallback ids, the ids whose decomposition answer had no decodable JSON
  (`unparsed`: no item, as the official reads it, so the caption stood in), the settings and
  where the rubrics file is (a rescore, which is not told, writes it there again).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.benchmarks.pair_exports import PairExport
from audioeval.benchmarks.rubric_items.decompose_scorer import SCORER_NAME
from audioeval.core.errors import RunConfigError
from audioeval.core.record import SampleRecord, latest_records
from audioeval.core.version import __version__
from audioeval.store.atomic import write_json_atomic, write_jsonl_atomic
from audioeval.store.bounded_json import loads

SUMMARY_FILE = "decompose_summary.json"
RUN_INFO_KEY = "rubric_decompose"  # the preset's part of `PairExport.run_info`


@dataclass
class DecomposeResult:
    """What `rubric decompose` produced: the rubrics file, the summary, the counts."""

    output: Path
    summary_path: Path
    summary: dict[str, Any]
    failed: list[dict[str, Any]] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = self.summary["counts"]
        return counts

    @property
    def first_failure(self) -> str | None:
        if not self.failed:
            return None
        first = self.failed[0]
        return f"id {first['id']!r}: {first['error']}"


def rubric_line(rec: SampleRecord) -> dict[str, Any] | None:
    """The rubrics-file line of a decomposed caption (None: it failed)."""
    detail = rec.judge.get(SCORER_NAME)
    if not rec.ok or not detail or "rubric" not in detail:
        return None
    return {
        "id": rec.id,
        "caption": rec.sample.get("reference"),
        "domain": detail.get("domain"),
        "rubric": detail["rubric"],
        "fallback": bool(detail.get("fallback")),
        "prompt_version": detail.get("prompt_version"),
    }


def _failure(sid: str, rec: SampleRecord | None) -> dict[str, Any]:
    if rec is None:
        return {"id": sid, "error": "not decomposed yet (the run stopped before it)"}
    return {"id": sid, "error": rec.error or "no rubric in the record", "kind": rec.failure}


def build_summary(
    settings: Mapping[str, Any],
    lines: Sequence[Mapping[str, Any]],
    failed: Sequence[Mapping[str, Any]],
    unparsed: Sequence[str] = (),
) -> dict[str, Any]:
    fallback = [str(line["id"]) for line in lines if line["fallback"]]
    items = [len(line["rubric"]) for line in lines]
    domains: dict[str, int] = {}
    for line in lines:
        domains[str(line["domain"])] = domains.get(str(line["domain"]), 0) + 1
    return {
        **settings,
        "counts": {
            "captions": len(lines) + len(failed),
            "decomposed": len(lines),
            "fallback": len(fallback),
            "unparsed": len(unparsed),
            "failed": len(failed),
            "items": sum(items),
        },
        "mean_items": sum(items) / len(items) if items else None,
        "domains": domains,
        "fallback_ids": fallback,
        "unparsed_ids": list(unparsed),
        "failed": list(failed),
        "audioeval_version": __version__,
    }


def write_exports(folder: Path, export: PairExport) -> DecomposeResult:
    """The exporter of a `rubric decompose` pair (registered as `rubric_decompose`)."""
    run = export.run_info.get(RUN_INFO_KEY)
    settings = dict(run) if run is not None else {**_as_written(folder / SUMMARY_FILE), "rescored": True}
    if run is not None:
        asked = set(export.asked_ids)
        settings["decomposed_now"] = sum(1 for i in export.expected_ids if i in asked)
        settings["reused"] = len(export.expected_ids) - settings["decomposed_now"]
        settings["llm_calls"] = export.run_info.get("judge_calls", 0)
        settings["cache_hits"] = export.run_info.get("cache_hits", 0)
    latest = latest_records(export.records)
    lines: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    unparsed: list[str] = []
    for sid in export.expected_ids:
        rec = latest.get(sid)
        line = rubric_line(rec) if rec is not None else None
        if line is None:
            failed.append(_failure(sid, rec))
        else:
            lines.append(line)
            if rec is not None and (rec.judge.get(SCORER_NAME) or {}).get("unparsed"):
                unparsed.append(str(line["id"]))
    output = Path(settings["output"])
    summary = build_summary(settings, lines, failed, unparsed)
    write_jsonl_atomic(output, lines)
    write_json_atomic(folder / SUMMARY_FILE, summary)
    return DecomposeResult(output, folder / SUMMARY_FILE, summary, failed)


COMPUTED = ("counts", "mean_items", "domains", "fallback_ids", "unparsed_ids", "failed", "audioeval_version")


def _as_written(path: Path) -> dict[str, Any]:
    """A rescore's settings (where the rubrics file goes, …): those of the summary it replaces."""
    try:
        summary = loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunConfigError(
            f"{path}: cannot be read ({exc}); run `audioeval rubric decompose` again to write it"
        ) from None
    if not isinstance(summary, dict) or not isinstance(summary.get("output"), str):
        raise RunConfigError(f"{path}: not a `rubric decompose` summary (no output file named)")
    return {k: v for k, v in summary.items() if k not in COMPUTED}
