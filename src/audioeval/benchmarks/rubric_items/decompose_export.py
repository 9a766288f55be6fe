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

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NotRequired, TypedDict, cast

from audioeval.benchmarks.pair_exports import PairExport
from audioeval.benchmarks.pair_figures import Figure, PairFigures
from audioeval.benchmarks.rubric_items.decompose_scorer import ITEMS, SCORER_NAME, DecomposeJudgement
from audioeval.core.errors import RunConfigError
from audioeval.core.record import FailureKind, SampleRecord, latest_records
from audioeval.core.version import __version__
from audioeval.store.atomic import write_json_atomic, write_jsonl_atomic
from audioeval.store.bounded_json import loads

SUMMARY_FILE = "decompose_summary.json"
RUN_INFO_KEY = "rubric_decompose"  # the preset's part of `PairExport.run_info`


class DecomposeSettings(TypedDict, total=False):
    """What the preset tells the export (`PairExport.run_info["rubric_decompose"]`) and the
    summary keeps for a rescore: the captions file and its hash, the rubrics file, the LLM,
    the prompt, the scorer's arguments, the seed; in a run also what was asked now and reused,
    the LLM calls and cache hits; `rescored` after a rescore."""

    captions: str
    captions_sha256: str
    output: str
    llm_model: str | None
    prompt_version: str | None
    prompt_file: str
    domain: str
    max_items: int | None
    max_attempts: int
    dedupe: bool
    temperature: float | None
    max_tokens: int | None
    seed: int | None
    decomposed_now: int
    reused: int
    llm_calls: int
    cache_hits: int
    rescored: bool


class RubricLine(TypedDict):
    """A line of the rubrics file: a decomposed caption and its rubric (see the module doc)."""

    id: str
    caption: str | None
    domain: str | None
    rubric: list[dict[str, str]]
    fallback: bool
    prompt_version: str | None


class FailedCaption(TypedDict):
    """A caption with no rubric, and why (`kind`: the failure's kind, when it was asked)."""

    id: str
    error: str
    kind: NotRequired[FailureKind | None]


class DecomposeCounts(TypedDict):
    captions: int
    decomposed: int
    fallback: int
    unparsed: int
    failed: int
    items: int


class DecomposeSummary(DecomposeSettings, total=False):
    """`decompose_summary.json`: the settings, then the counts, the mean items per rubric,
    the domains used, the fallback and unparsed ids, the failed captions, the version."""

    counts: DecomposeCounts
    mean_items: float | None
    domains: dict[str, int]
    fallback_ids: list[str]
    unparsed_ids: list[str]
    failed: list[FailedCaption]
    audioeval_version: str


@dataclass
class DecomposeResult:
    """What `rubric decompose` produced: the rubrics file, the summary, the counts."""

    output: Path
    summary_path: Path
    summary: DecomposeSummary
    failed: list[FailedCaption] = field(default_factory=list)

    @property
    def counts(self) -> DecomposeCounts:
        return self.summary["counts"]

    @property
    def first_failure(self) -> str | None:
        if not self.failed:
            return None
        first = self.failed[0]
        return f"id {first['id']!r}: {first['error']}"


def rubric_line(rec: SampleRecord) -> RubricLine | None:
    """The rubrics-file line of a decomposed caption (None: it failed)."""
    detail = cast(DecomposeJudgement | None, rec.judge.get(SCORER_NAME))
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


def _failure(sid: str, rec: SampleRecord | None) -> FailedCaption:
    if rec is None:
        return {"id": sid, "error": "not decomposed yet (the run stopped before it)"}
    return {"id": sid, "error": rec.error or "no rubric in the record", "kind": rec.failure}


def build_summary(
    settings: DecomposeSettings,
    lines: Sequence[RubricLine],
    failed: Sequence[FailedCaption],
    unparsed: Sequence[str] = (),
    mean_items: float | None = None,
) -> DecomposeSummary:
    """`decompose_summary.json`: counts of the lines written, and `mean_items`, the engine's
    `mean:rubric_items` of the pair (items per decomposed caption: computed once, by the pair
    summary, and shown here)."""
    fallback = [str(line["id"]) for line in lines if line["fallback"]]
    items = [len(line["rubric"]) for line in lines]
    domains: dict[str, int] = {}
    for line in lines:
        domains[str(line["domain"])] = domains.get(str(line["domain"]), 0) + 1
    summary = DecomposeSummary(**settings)
    summary.update({
        "counts": {
            "captions": len(lines) + len(failed),
            "decomposed": len(lines),
            "fallback": len(fallback),
            "unparsed": len(unparsed),
            "failed": len(failed),
            "items": sum(items),
        },
        "mean_items": mean_items,
        "domains": domains,
        "fallback_ids": fallback,
        "unparsed_ids": list(unparsed),
        "failed": list(failed),
        "audioeval_version": __version__,
    })  # fmt: skip
    return summary


def write_exports(folder: Path, export: PairExport) -> DecomposeResult:
    """The exporter of a `rubric decompose` pair (registered as `rubric_decompose`)."""
    run = export.run_info.get(RUN_INFO_KEY)
    settings = DecomposeSettings(**run) if run is not None else _as_written(folder / SUMMARY_FILE)
    if run is not None:
        asked = set(export.asked_ids)
        settings["decomposed_now"] = sum(1 for i in export.expected_ids if i in asked)
        settings["reused"] = len(export.expected_ids) - settings["decomposed_now"]
        settings["llm_calls"] = export.run_info.get("judge_calls", 0)
        settings["cache_hits"] = export.run_info.get("cache_hits", 0)
    latest = latest_records(export.records)
    lines: list[RubricLine] = []
    failed: list[FailedCaption] = []
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
    mean_items = PairFigures.of(export.summary).metrics.get(f"mean:{ITEMS}", Figure()).value
    summary = build_summary(settings, lines, failed, unparsed, mean_items)
    write_jsonl_atomic(output, lines)
    write_json_atomic(folder / SUMMARY_FILE, summary)
    return DecomposeResult(output, folder / SUMMARY_FILE, summary, failed)


COMPUTED = ("counts", "mean_items", "domains", "fallback_ids", "unparsed_ids", "failed", "audioeval_version")


def _as_written(path: Path) -> DecomposeSettings:
    """A rescore's settings (where the rubrics file goes, …): those of the summary it replaces."""
    try:
        summary = loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RunConfigError(
            f"{path}: cannot be read ({exc}); run `audioeval rubric decompose` again to write it"
        ) from None
    if not isinstance(summary, dict) or not isinstance(summary.get("output"), str):
        raise RunConfigError(f"{path}: not a `rubric decompose` summary (no output file named)")
    kept = DecomposeSettings(**{k: v for k, v in summary.items() if k not in COMPUTED})
    kept["rescored"] = True
    return kept
