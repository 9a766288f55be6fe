"""The sample browser's data: a small index of every sample in the page, and each sample's
details in chunk files beside it, `report/samples/p<pair>-c<chunk>.js`, loaded on demand.

Why chunks of script: a full MMAE run (2,000 samples, ~54,000 judge votes) is tens of MB of
details, too much to parse when the page opens; `fetch()` cannot read a file next to a page
opened from disk (`file://`), but a `<script src>` can, so each chunk is a script that hands
its samples to the page (`aeChunk(pair, chunk, [...])`). The page loads a chunk when one of
its samples is opened. The chunks are escaped as the page's inline data is
(`html_page.script_json`). Served over HTTP, the same files load the same way.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Protocol

from audioeval.core.record import SampleRecord
from audioeval.metrics.declaration import shown_name
from audioeval.metrics.summary_blocks import PairSummary
from audioeval.report.clips import AUDIO_DIR, ClipCopier
from audioeval.report.html_page import PageSamples, PairSamples, script_json
from audioeval.report.sample_rows import details, index_entry, primary_score
from audioeval.report.units import SampleUnit, sample_units, unit_of
from audioeval.store.atomic import write_text


class ShownPair(Protocol):
    """A pair as the sample browser reads it (`run_report.Pair`)."""

    benchmark: str
    model: str
    summary: PairSummary
    records: list[SampleRecord]

    @property
    def name(self) -> str: ...


CHUNK = 50  # samples per chunk file
CHUNK_DIR = "samples"
MAX_SAMPLES = 100_000  # per pair, in the page


def _score_key(headline: str | None, units: dict[str, SampleUnit]) -> str | None:
    """The per-sample value the headline is made of, as its metric declares it."""
    if not headline:
        return None
    for key, how in units.items():
        if how.metric == headline:
            return key
    return headline.split(":", 1)[-1]


def _wrong_flags(scores: list[float | None], higher: bool) -> list[bool | None]:
    """Not perfect: below the best possible (1, or the pair's best) / above 0 for an error rate."""
    finite = [s for s in scores if s is not None]
    best = 1.0 if finite and max(finite) <= 1.0 else max(finite, default=1.0)
    return [None if s is None else (s < best if higher else s > 0) for s in scores]


def write_samples(pairs: list[ShownPair], report_dir: Path, base: Path) -> PageSamples:
    """Write the chunk files and copy the clips; the page's inline data: per pair its name,
    key, the per-sample score its headline is made of (`score_key`, shown as `score_name`),
    its unit (and `scale`, the factor from stored to shown value, which the score filter works
    in) and direction, the index and the chunk size. Every value is shown in its metric's unit
    by `report/units.py`: `wer 10.00 %`, never `wer 0.1`; MMAE's `IFR 50.00 %`, never `0.50 %`."""
    for sub in (CHUNK_DIR, AUDIO_DIR):
        shutil.rmtree(report_dir / sub, ignore_errors=True)
    (report_dir / CHUNK_DIR).mkdir(parents=True, exist_ok=True)
    clips = ClipCopier(report_dir, base, report_dir.parent.parent)
    out: list[PairSamples] = []
    for pi, p in enumerate(pairs):
        records = p.records[:MAX_SAMPLES]
        headline = p.summary.get("headline")
        block = (p.summary.get("metrics") or {}).get(headline or "") or {}
        higher = bool(block.get("higher_is_better", True))
        units = sample_units(p.summary.get("metrics"))
        key = _score_key(headline, units)
        how = unit_of(key, units)
        scores = [primary_score(r, key) for r in records]
        wrong = _wrong_flags(scores, higher)
        index = [index_entry(r, s, w, how) for r, s, w in zip(records, scores, wrong, strict=True)]
        for ci in range(0, len(records), CHUNK):
            rows = [details(r, clips, units) for r in records[ci : ci + CHUNK]]
            text = f"aeChunk({pi},{ci // CHUNK},{script_json(rows)});\n"
            path = report_dir / CHUNK_DIR / f"p{pi}-c{ci // CHUNK}.js"
            write_text(path, text)
        out.append(
            {
                "name": p.name,
                "key": f"{p.benchmark}/{p.model}",
                "score_key": key,
                "score_name": shown_name(headline, block) if headline else key,
                "unit": None if how is None else how.unit,
                "scale": 1.0 if how is None else how.shown_factor,
                "higher": higher,
                "samples": index,
                "chunk": CHUNK,
                "total": len(p.records),
                "truncated": len(p.records) > MAX_SAMPLES,
            }
        )
    return {"pairs": out, "chunk_dir": CHUNK_DIR}
