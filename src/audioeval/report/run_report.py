"""`audioeval report RUN_DIR`: the run as one static page, `RUN_DIR/report/index.html`.

Everything comes from the run directory, never from a model or judge call: `run.json` (the
settings), each pair's `summary.json` (metrics with CIs, counts, failure kinds, the judge's
reliability) and `records.jsonl` (each sample's answer, processed answer, scores, every
judge answer, the failure). The page shows the settings; the run's boards by task family
(`summary.json`); a table and a bar chart with CI whiskers of every metric; for each cross
breakdown a benchmark declares (MMAE: modality × complexity) a heatmap of the headline per
cell, as the pair summary computed it; the reliability of each judge; the failures; each
pair's signature; and a sample browser (search, filter by failure or score) with players for the input, output and
reference clips. Clips are copied into the report folder (`report/clips.py`) and no path of the
machine is written (`report/portable.py`), so the folder can be copied or served.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from audioeval.core.errors import RunConfigError
from audioeval.core.json_value import JsonValue
from audioeval.core.record import SampleRecord, latest_records
from audioeval.core.redact import redact
from audioeval.engine.run_summary import RunSummaryJson
from audioeval.metrics.declaration import shown_name
from audioeval.metrics.judge_reliability import ReliabilityBlock
from audioeval.metrics.summary_blocks import MetricBlock, PairSummary
from audioeval.report.html_page import Section, Table, render_page
from audioeval.report.leaderboard_page import board_table
from audioeval.report.plots import bars_with_ci, heatmap, short_label
from audioeval.report.portable import machine_prefixes, scrub
from audioeval.report.reliability_table import (
    AUDIT_HEADERS,
    HEADERS,
    RIGHT_ALIGNED,
    disagreeing_rows,
    reliability_rows,
    reliability_title,
)
from audioeval.report.sample_chunks import CHUNK_DIR, write_samples
from audioeval.report.units import axis_limits, show_span, show_value, shown, unit_label
from audioeval.report.usage_table import HEADERS as USAGE_HEADERS
from audioeval.report.usage_table import usage_rows
from audioeval.store.atomic import write_text, write_text_atomic
from audioeval.store.run_folder import RunFile, read_pair, read_run_file, run_id_of
from audioeval.store.run_summaries import check_summary_records, read_summary

RUN_FILE = "run.json"
SUMMARY_FILE = "summary.json"
REPORT_DIR = "report"
MAX_FAILURES = 200


@dataclass
class Pair:
    benchmark: str
    model: str
    folder: Path
    summary: PairSummary
    records: list[SampleRecord]

    @property
    def name(self) -> str:
        return f"{self.benchmark} · {self.model}"


def find_pairs(run_dir: Path, run_id: str | None = None) -> list[Pair]:
    """Every benchmark × model folder of the run that has a summary (in path order), read
    through the run folder's checked reader (`run_id`: the run's, from its run.json): a summary
    changed by hand or computed from other records, or a pair whose files cannot be used,
    refuses the report with the list."""
    pairs = []
    for summary_path in sorted(run_dir.glob(f"*/*/{SUMMARY_FILE}")):
        folder = summary_path.parent
        if (folder / RUN_FILE).exists() or folder.parent.name == REPORT_DIR:
            continue  # a nested run directory (e.g. rubrics made on the fly) is its own run
        summary = read_summary(summary_path, run_id) or {}
        check_summary_records(run_dir, [{**summary, "folder": str(folder.relative_to(run_dir))}], run_id)
        files = read_pair(folder, run_id).usable()
        records = list(latest_records(files.records).values())
        bench = str(summary.get("benchmark") or folder.parent.name)
        pairs.append(Pair(bench, str(summary.get("model") or folder.name), folder, summary, records))
    return pairs


def _num(value: JsonValue, digits: int = 4) -> JsonValue:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "–" if value is None else value
    if isinstance(value, int):
        return value
    return round(value, digits) if math.isfinite(value) else "–"


def _ci(ci: JsonValue) -> tuple[float, float] | None:
    if isinstance(ci, list | tuple) and len(ci) == 2 and all(isinstance(c, int | float) for c in ci):
        return float(ci[0]), float(ci[1])
    return None


def settings_section(run_dir: Path, run: RunFile) -> Section:
    rows: list[list[Any]] = [["run directory", run_dir.name]]
    rows.append(["audioeval", run.get("audioeval", "")])
    for b in run.get("benchmarks") or []:
        spec = b.get("spec") or {}
        rows.append(["benchmark", f"{spec.get('name')} (task {spec.get('task')}; {b.get('where')})"])
    for m in run.get("models") or []:
        config = m.get("config") or {}
        rows.append(["model", f"{config.get('name')} ({config.get('type')})"])
    judge = run.get("judge")
    if judge:
        temperature = judge.get("temperature")
        rows.append(
            [
                "judge",
                f"{judge.get('model')} (temperature {'the server default' if temperature is None else temperature})",
            ]
        )
    rows += [["bootstrap", f"{run.get('resamples')} resamples, seed {run.get('seed')}"]]
    rows += [
        [
            "samples without output",
            "left out" if run.get("exclude_missing") else "counted (scored as failures)",
        ]
    ]
    return Section("Run", "run", tables=[Table(["setting", "value"], rows)])


def _compact(value: Any, width: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


def signatures_section(pairs: list[Pair]) -> Section | None:
    """What moves each pair's numbers (`signature.json`), part by part."""
    rows = []
    for p in pairs:
        signature = read_pair(p.folder, None, lines=False).signature
        if signature is None:
            continue
        digest = hashlib.sha256(json.dumps(signature, sort_keys=True).encode()).hexdigest()[:12]
        bench = signature.get("benchmark") if isinstance(signature.get("benchmark"), dict) else {}
        for key in ("template", "template_digest", "postprocess", "scorers", "metrics"):
            if key in bench:
                rows.append([p.name, digest, key, _compact(bench[key])])
        for key in ("model", "generation", "judge", "inputs"):
            if signature.get(key) is not None:
                rows.append([p.name, digest, key, _compact(signature[key])])
    if not rows:
        return None
    note = "A rerun with any other value here is refused, naming the field (docs/reliability.md)."
    table = Table(["pair", "signature", "part", "value"], rows, nowrap=("signature",))
    return Section("Signatures", "signatures", [note], [table])


def metrics_section(pairs: list[Pair]) -> Section:
    rows = []
    by_bench: dict[str, list[Pair]] = defaultdict(list)
    for p in pairs:
        by_bench[p.benchmark].append(p)
        s = p.summary
        for name, m in (s.get("metrics") or {}).items():
            ci = _ci(m.get("ci"))
            rows.append(
                [
                    p.benchmark,
                    p.model,
                    shown_name(name, m) + (" (headline)" if name == s.get("headline") else ""),
                    show_value(m.get("value"), m.get("unit")),
                    show_span(ci, m.get("unit")),
                    "higher" if m.get("higher_is_better", True) else "lower",
                    _num(s.get("n")),
                    _num(s.get("scored")),
                    _num(s.get("failed")),
                ]
            )
    figures = []
    for bench, group in by_bench.items():
        headline = next((p.summary.get("headline") for p in group if p.summary.get("headline")), None)
        points = [(p.model, (p.summary.get("metrics") or {}).get(headline or "")) for p in group]
        points = [
            (m, v) for m, v in points if isinstance(v, dict) and isinstance(v.get("value"), int | float)
        ]
        if points:
            unit = points[0][1].get("unit")
            label = unit_label(unit)
            shown = shown_name(str(headline), points[0][1])
            figures.append(
                bars_with_ci(
                    f"{short_label(bench)}: {shown}{f' ({label})' if label else ''}, 95 % CI",
                    [short_label(m) for m, _ in points],
                    [float(v["value"]) * (100.0 if unit == "fraction" else 1.0) for _, v in points],
                    [_scaled(_ci(v.get("ci")), unit) for _, v in points],
                    limits=axis_limits(unit),
                )
            )
    headers = ["benchmark", "model", "metric", "value", "95 % CI", "better", "samples", "scored", "failed"]
    note = "Values in each metric's unit: fractions (WER, CER, accuracy) as %, the CI on the same scale."
    right = ("value", "95 % CI")
    return Section("Metrics", "metrics", [note], [Table(headers, rows, right_aligned=right)], figures)


def _scaled(ci: tuple[float, float] | None, unit: str | None) -> tuple[float, float] | None:
    factor = 100.0 if unit == "fraction" else 1.0
    return None if ci is None else (ci[0] * factor, ci[1] * factor)


def boards_section(summary: RunSummaryJson, prefixes: list[str] | None = None) -> Section | None:
    """The run's boards by task family (and the user's), as `summary.json` has them, in the
    cells of `leaderboard.md` (`report/leaderboard_page.board_table`); a model named by a path
    is drawn with the machine's folders hidden (`prefixes`: a chart's text is not scrubbed
    after it is drawn)."""
    boards = [b for b in (summary.get("boards") or {}).values() if isinstance(b, dict) and b.get("rows")]
    if not boards:
        return None
    figures = []
    for board in boards:
        scored = [r for r in board["rows"] if isinstance(r.get("average"), int | float)]
        if board.get("average") and scored:
            figures.append(
                bars_with_ci(
                    f"{board.get('title') or board.get('name')}: average (its CI: audioeval leaderboard)",
                    [short_label(scrub(str(r.get("model")), prefixes or [])) for r in scored],
                    [float(r["average"]) for r in scored],
                    [None] * len(scored),
                    limits=(0.0, 100.0),
                )
            )
    note = "Boards by task family: numbers of different families are never averaged together."
    return Section("Boards", "boards", [note], [board_table(b, "#output-health") for b in boards], figures)


def _breakdown_cell(p: Pair, key: str, group: str) -> tuple[str, int | None] | None:
    """A pair's headline in one taxonomy group, as shown (`87.50 % (80.0–95.0)`), and its n;
    None when the pair has no such group."""
    headline = p.summary.get("headline")
    metrics = ((p.summary.get("breakdowns") or {}).get(key) or {}).get(group)
    block = metrics.get(headline) if isinstance(metrics, dict) else None
    if not isinstance(block, dict):
        return None
    unit = block.get("unit") or ((p.summary.get("metrics") or {}).get(headline or "") or {}).get("unit")
    span = show_span(block.get("ci"), unit)
    value = show_value(block.get("value"), unit)
    return (value if span == "–" else f"{value} ({span})"), block.get("n")


def breakdowns_section(pairs: list[Pair]) -> Section | None:
    """Each benchmark's headline by taxonomy group (MMAE: modality, complexity, granularity,
    operation), as the pair summaries have them: one table per benchmark and key, a row per
    group, a column per model (value and 95 % CI), and the group's n (per model when they
    differ)."""
    by_bench: dict[str, list[Pair]] = defaultdict(list)
    for p in pairs:
        by_bench[p.benchmark].append(p)
    tables = []
    for bench, members in by_bench.items():
        headline = next((str(p.summary["headline"]) for p in members if p.summary.get("headline")), "")
        blocks = (((p.summary.get("metrics") or {}).get(headline)) for p in members)
        shown_headline = shown_name(headline, next((b for b in blocks if isinstance(b, dict)), None))
        keys = list(dict.fromkeys(k for p in members for k in (p.summary.get("breakdowns") or {})))
        for key in keys:
            groups = list(
                dict.fromkeys(
                    g for p in members for g in ((p.summary.get("breakdowns") or {}).get(key) or {})
                )
            )
            cells = {(g, p.model): _breakdown_cell(p, key, g) for g in groups for p in members}
            shown_models = [p.model for p in members if any(cells[(g, p.model)] for g in groups)]
            rows = []
            for g in groups:
                found = [cells[(g, m)] for m in shown_models]
                counts = {c[1] for c in found if c is not None}
                if not counts:
                    continue
                same_n = len(counts) == 1
                row = [g, _num(next(iter(counts))) if same_n else "varies"]
                for c in found:
                    row.append("–" if c is None else c[0] if same_n else f"{c[0]}, n={_num(c[1])}")
                rows.append(row)
            if rows:
                tables.append(
                    Table(
                        [key, "n", *shown_models],
                        rows,
                        f"{bench}: {shown_headline} (95 % CI) by {key}",
                        right_aligned=("n", *shown_models),
                    )
                )
    return Section("Breakdowns", "breakdowns", tables=tables) if tables else None


def definitions_section(pairs: list[Pair]) -> Section | None:
    """What each metric on the page is, as the benchmark that provides it defines it
    (`Benchmark.definitions`): one row per metric the pairs have, under its display name
    (`IFR` for `mean:ifr`); none when no benchmark defines any of them."""
    from audioeval.benchmarks.plugins import load_benchmarks

    defined: dict[str, str] = {}
    for bench in load_benchmarks().values():
        defined.update(bench.definitions)
    blocks: dict[str, MetricBlock] = {}
    for p in pairs:
        for name, block in (p.summary.get("metrics") or {}).items():
            blocks.setdefault(str(name), block)
    rows = [[shown_name(name, block), defined[name]] for name, block in blocks.items() if name in defined]
    if not rows:
        return None
    table = Table(["metric", "what it is"], rows, nowrap=("metric",))
    return Section("Definitions", "definitions", tables=[table])


def heatmap_section(pairs: list[Pair]) -> Section | None:
    """The headline metric per cell of each cross of two taxonomy keys the benchmark declares
    (MMAE: modality × complexity), as the pair summary computed it (`breakdowns[cross]`, its
    groups `a|b`), in its unit (a percentage on a 0–100 colour scale), each cell with its n."""
    figures = []
    for p in pairs:
        headline = p.summary.get("headline")
        block = (p.summary.get("metrics") or {}).get(headline or "")
        if not headline or not isinstance(block, dict):
            continue
        unit = block.get("unit")
        breakdowns = p.summary.get("breakdowns") or {}
        for cross, keys in (p.summary.get("crosses") or {}).items():
            groups = breakdowns.get(cross) or {}
            if len(keys) != 2 or not groups:
                continue
            rows, cols = (list(breakdowns.get(k) or {}) for k in keys)
            cells = {(r, c): (groups.get(f"{r}|{c}") or {}).get(headline) or {} for r in rows for c in cols}
            rows = [r for r in rows if any(cells[(r, c)] for c in cols)]
            cols = [c for c in cols if any(cells[(r, c)] for r in rows)]
            grid = [[shown(cells[(r, c)].get("value"), unit) for c in cols] for r in rows]
            if not any(v is not None for row in grid for v in row):
                continue
            notes = [[f"n={cells[(r, c)]['n']}" if cells[(r, c)] else "" for c in cols] for r in rows]
            label = unit_label(unit)
            title = f"{short_label(p.name)}: {shown_name(headline, block)}{f' ({label})' if label else ''} by {' × '.join(keys)}"
            figures.append(
                heatmap(
                    title,
                    rows,
                    cols,
                    grid,
                    fmt="{:.1f}",
                    limits=axis_limits(unit),
                    label=label or None,
                    notes=notes,
                    wide=True,
                )
            )
    return Section("Cross breakdowns", "heatmap", figures=figures) if figures else None


def reliability_section(pairs: list[Pair]) -> Section | None:
    """Each judged scorer's reliability block, in the rows and words the console prints."""
    tables = []
    for p in pairs:
        for scorer, block in (p.summary.get("reliability") or {}).items():
            if isinstance(block, dict):
                rows = [list(row) for row in reliability_rows(block)]
                caption = reliability_title(str(scorer), block, where=p.name)
                tables.append(Table(list(HEADERS), rows, caption, right_aligned=RIGHT_ALIGNED))
                tables.extend(_disagreeing_table(p, str(scorer), block))
    if not tables:
        return None
    note = (
        "How reliable each judge was, from its stored answers, with no judge call: what each figure "
        'means and how to read it is in docs/judging.md ("The reliability block").'
    )
    return Section("Judge reliability", "reliability", [note], tables)


MAX_DISAGREEING = 100
MAX_HEALTH_IDS = 20


def health_section(pairs: list[Pair]) -> Section | None:
    """Each pair's audio-output health (`summary.json`'s `output_health`): per model, the
    outputs checked and each problem, one row per sample (the first `MAX_HEALTH_IDS` of a
    problem), each id linking to its sample in the sample browser."""
    rows: list[list[Any]] = []
    links: list[str] = []
    for p in pairs:
        h = p.summary.get("output_health")
        if not isinstance(h, dict):
            continue
        problems = dict(h.get("problems") or {})
        unreadable = h.get("unreadable") or {}
        if unreadable.get("n"):
            problems["unreadable"] = unreadable
        head = [p.benchmark, p.model, h.get("n_checked", 0), h.get("n_with_problems", 0)]
        key = quote(f"{p.benchmark}/{p.model}", safe="/")
        if not problems:
            rows.append([*head, "none", 0, ""])
            links.append("")
        for name, block in problems.items():
            ids = [str(i) for i in block.get("ids") or []]
            n = block.get("n", len(ids))
            for sid in ids[:MAX_HEALTH_IDS]:
                rows.append([*head, str(name), n, sid])
                links.append(f"#pair={key}&sample={quote(sid, safe='')}")
            if len(ids) > MAX_HEALTH_IDS or not ids:
                rows.append([*head, str(name), n, f"… ({len(ids)} in all: summary.json)" if ids else ""])
                links.append("")
    if not rows:
        return None
    note = (
        "Each audio output measured once when its pair was summarised: silent, clipped, DC offset, and "
        "where the output is a version of its input (codecs, edits) truncated, padded or the input "
        "returned unchanged. An output with a problem is still scored as its benchmark says; each "
        "sample opens in the sample browser, and summary.json's output_health lists them all."
    )
    table = Table(["benchmark", "model", "checked", "with problems", "problem", "n", "sample"], rows,
                  right_aligned=("checked", "with problems", "n"), link_column="sample", links=links)  # fmt: skip
    return Section("Output health", "output-health", [note], [table])


def usage_section(pairs: list[Pair]) -> Section | None:
    """What each pair's model and judge asked (`summary.json`'s `usage`) and cost (`cost`, with
    --prices); unknown shows as "–", never 0."""
    results = [{**p.summary, "benchmark": p.benchmark, "model": p.model} for p in pairs]
    rows = usage_rows(results)
    if not rows:
        return None
    priced = any(r.get("cost") is not None for r in results)
    headers = ["pair", "role", *USAGE_HEADERS, *(["cost"] if priced else [])]
    note = (
        "Requests asked live (an answer from the response cache asks none), their retries, tokens "
        "as the APIs' usage reports them (audio tokens in brackets), audio seconds sent and "
        "received, and wall time, over every record of the pair; with a price file, what they "
        "cost (docs/cost.md). A model that makes no API request (a baseline, a predictions file, "
        "a local runtime) and a record written before usage was recorded show –."
    )
    table = Table(headers, [r if priced else r[:-1] for r in rows], right_aligned=tuple(headers[2:]))
    return Section("Usage and cost", "usage", [note], [table])


def _disagreeing_table(p: Pair, scorer: str, block: ReliabilityBlock) -> list[Table]:
    """The votes where the judge and the measurement disagree, each id linking to its sample
    in the sample browser (every vote and clip of it); none without any."""
    rows = disagreeing_rows(block)
    if not rows:
        return []
    key = quote(f"{p.benchmark}/{p.model}", safe="/")
    caption = f"judge vs measurement, disagreeing: {scorer} · {p.name} ({len(rows)}"
    caption += f", the first {MAX_DISAGREEING} shown)" if len(rows) > MAX_DISAGREEING else ")"
    rows = rows[:MAX_DISAGREEING]
    links = [f"#pair={key}&sample={quote(r[0], safe='')}" for r in rows]
    return [Table(list(AUDIT_HEADERS), rows, caption, right_aligned=("rubric", "judge", "measured"),
                  link_column="id", links=links)]  # fmt: skip


def failures_section(pairs: list[Pair]) -> Section | None:
    rows = []
    for p in pairs:
        for rec in p.records:
            if rec.error:
                rows.append([p.benchmark, p.model, rec.id, str(rec.failure or ""), redact(rec.error)[:300]])
    if not rows:
        return None
    paragraphs = [
        f"{len(rows)} sample(s) failed, each counted in its summary. A failure of the system under test "
        "(no usable output) counts in the metrics as wrong, or as a full deletion for error rates, unless "
        "the run left such samples out (--exclude-missing); any other failure (the input's, the judge's) "
        "is never scored."
    ]
    if len(rows) > MAX_FAILURES:
        paragraphs.append(f"The first {MAX_FAILURES} are listed; the sample browser has them all.")
    table = Table(["benchmark", "model", "id", "kind", "error"], rows[:MAX_FAILURES])
    return Section("Failures", "failures", paragraphs=paragraphs, tables=[table])


def write_run_report(run_dir: Path) -> Path:
    """Write `RUN_DIR/report/index.html`; its path. RunConfigError when the folder is not a
    run directory or holds no summarised pair."""
    run = read_run_file(run_dir)
    pairs = find_pairs(run_dir, run_id_of(run))
    if not pairs:
        raise RunConfigError(f"{run_dir}: no benchmark × model folder with a summary.json yet; run it first")
    report_dir = run_dir / REPORT_DIR
    wheres = [str(b.get("where") or "") for b in run.get("benchmarks") or []]
    prefixes = machine_prefixes(run_dir, [*_named_paths(pairs), *wheres])
    for p in pairs:  # a name holding a path (predictions:/…/file.json) is drawn in charts too
        p.model = scrub(p.model, prefixes)
    summary_path = run_dir / SUMMARY_FILE
    summary = read_summary(summary_path, run_id_of(run)) or {}
    sections = [settings_section(run_dir, run)]
    boards = boards_section(summary, prefixes)
    if boards is not None:
        sections.append(boards)
    sections.append(metrics_section(pairs))
    extras = (
        definitions_section(pairs),
        heatmap_section(pairs),
        breakdowns_section(pairs),
        reliability_section(pairs),
        health_section(pairs),
        usage_section(pairs),
        failures_section(pairs),
        signatures_section(pairs),
    )
    for extra in extras:
        if extra is not None:
            sections.append(extra)
    benches = sorted({p.benchmark for p in pairs})
    models = sorted({p.model for p in pairs})
    subtitle = f"{len(benches)} benchmark(s) × {len(models)} model(s); from the run directory, no model or judge call"
    report_dir.mkdir(parents=True, exist_ok=True)
    samples = write_samples(pairs, report_dir, Path.cwd())
    page = render_page(f"audioeval report: {run_dir.name}", subtitle, sections, samples)
    for chunk in (report_dir / CHUNK_DIR).glob("*.js"):
        write_text(chunk, scrub(chunk.read_text(encoding="utf-8"), prefixes))
    path = report_dir / "index.html"
    write_text_atomic(path, scrub(page, prefixes))
    path.chmod(0o644)  # a page others may open or serve
    return path


def _named_paths(pairs: list[Pair]) -> list[str | None]:
    """Every file path the run's records and model names hold (their folders are hidden)."""
    out: list[str | None] = []
    for p in pairs:
        out.append(p.model.split(":", 1)[-1])
        for rec in p.records:
            out += [ref.path for ref in rec.sample.audio.values()]
            out.append(rec.sample.source)
            if rec.output is not None:
                out.append(rec.output.audio_path)
    return out
