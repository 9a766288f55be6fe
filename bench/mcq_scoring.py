"""Benchmark: `mcq score` on 10,000 MMAR predictions (load, both modes on the run engine,
records, summary with CIs and the exported files), in a new folder and rerun in the same one.

Run: `.venv/bin/python bench/mcq_scoring.py` — prints the figures and writes them into the
"## MCQ scoring" section of docs/performance.md (other sections are left alone); `--no-doc`
prints them and writes nothing, `--repeats N` measures N runs (5 by default). Uses the
real MMAR JSONL (with its rubric fields, ~2.7 KB an item) ten times over when ../shared is
present, generated MMAR-shaped items otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from doc_section import replace_section  # noqa: E402  (bench/ is the script's folder)

import audioeval.cli  # noqa: E402, F401  (the command's process settings, set before numpy loads)
from audioeval.benchmarks.mcq.preset import SCORE  # noqa: E402
from audioeval.presets.preset_run import run_preset  # noqa: E402

N = 10_000
SHARED = ROOT.parent / "shared" / "data" / "mmar" / "MMAR-meta.jsonl"
DOC = ROOT / "docs" / "performance.md"
SECTION = "## MCQ scoring"


def base_items() -> tuple[list[dict[str, Any]], str]:
    if SHARED.exists():
        lines = SHARED.read_text(encoding="utf-8").splitlines()
        return [json.loads(x) for x in lines], "the real MMAR-meta.jsonl items ten times over"
    items = [
        {
            "id": f"q{i}",
            "question": "Which source?",
            "choices": ["Dog", "Cat", "Bird", "Cow"],
            "answer": "Cat",
            "modality": "sound",
            "category": "Signal Layer",
            "sub-category": "Counting",
        }
        for i in range(1000)
    ]
    return items, "generated MMAR-shaped items"


def prediction(item: dict[str, Any], rng: random.Random) -> str | None:
    choices = item["choices"]
    pick = rng.randrange(len(choices))
    letter, text = "ABCDEF"[pick], choices[pick]
    r = rng.random()
    if r < 0.30:
        return text
    if r < 0.50:
        return rng.choice([letter, f"({letter})", f"{letter}.", f"({letter}) {text}"])
    if r < 0.80:
        return (
            f"Listening closely, the options are {', '.join(choices)}. The cues point "
            f"to one of them.\nAnswer: {letter}"
        )
    if r < 0.90:
        return f"<think>Maybe {choices[0]}? No.</think>The answer is {text}."
    return "" if r < 0.95 else None


def make_file(folder: Path) -> tuple[Path, str]:
    items, source = base_items()
    rng = random.Random(0)
    path = folder / "preds.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for k in range(N):
            rec = dict(items[k % len(items)], id=f"{items[k % len(items)]['id']}#{k}")
            pred = prediction(rec, rng)
            if pred is not None:
                rec["answer_prediction"] = pred
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path, source


def measure(path: Path, out: Path, repeats: int = 5) -> dict[str, float]:
    """Median and best of `repeats` runs into new folders, and the median rerun (resumed).

    The CPU seconds (`time.process_time`, every thread of the process) of the fresh runs
    are kept beside the wall ones: on a shared machine other work moves them less."""
    fresh, fresh_cpu, rerun = [], [], []
    load = os.getloadavg()[0]
    for k in range(repeats):
        cfg = {"benchmark": "mmar", "predictions": path, "output_dir": out / str(k), "progress": False}
        t0, c0 = time.perf_counter(), time.process_time()
        run_preset(SCORE, cfg)  # `audioeval mcq score` without the console
        t1, c1 = time.perf_counter(), time.process_time()
        run_preset(SCORE, cfg)
        rerun.append(time.perf_counter() - t1)
        fresh.append(t1 - t0)
        fresh_cpu.append(c1 - c0)
    return {
        "median": statistics.median(fresh),
        "best": min(fresh),
        "cpu": statistics.median(fresh_cpu),
        "rerun": statistics.median(rerun),
        "load": load,
    }


def update_doc(text: str) -> None:
    replace_section(SECTION, text, DOC)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-doc", action="store_true", help="print the figures, write nothing")
    ap.add_argument("--repeats", type=int, default=5, help="runs measured (default 5)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path, source = make_file(Path(tmp))
        size_mb = path.stat().st_size / 1e6
        m = measure(path, Path(tmp) / "out", args.repeats)
    print(
        f"scored {N} predictions: median {m['median']:.3f} s (CPU {m['cpu']:.3f} s), "
        f"best {m['best']:.3f} s, rerun (every item reused) {m['rerun']:.3f} s; "
        f"load average {m['load']:.1f}"
    )
    if args.no_doc:
        return
    text = (
        f"{SECTION}\n\n"
        f"`bench/mcq_scoring.py`: `mcq score` on {N:,} MMAR predictions ({source}, "
        f"{size_mb:.0f} MB of JSONL; a mix of option text, letter forms, reasoning with a "
        "stated answer, think blocks, empty answers and missing keys). One run = load and "
        "validate, one run-engine record per item (official and robust scorers), and the "
        "exports: summary.json with a 95 % bootstrap CI (1,000 resamples) for every breakdown "
        "group, per_item.jsonl, disagreements.jsonl. A rerun in the same folder reuses every "
        "record and exports again.\n\n"
        "| measure | seconds |\n|---|---|\n"
        f"| `mcq score` into a new folder (median of {args.repeats}) | {m['median']:.3f} |\n"
        f"| same, best of {args.repeats} | {m['best']:.3f} |\n"
        f"| same, CPU seconds (median of {args.repeats}) | {m['cpu']:.3f} |\n"
        f"| rerun in the same folder, every item reused (median of {args.repeats}) "
        f"| {m['rerun']:.3f} |\n\n"
        "Before `mcq score` ran on the run engine (its own loop, no records): 0.714 s median "
        "(0.656 s best) for load + score + summary, 0.076 s for writing the three files. The "
        "engine's share (profiled): a flushed, crash-safe record per item, the per-sample "
        "pipeline (prompt render; the two string-match scorers run on the event loop, "
        "`Scorer.light`), the stored records read and "
        "checked before reuse and for the pair summary (with its own bootstrap), then the "
        "exports; what it buys: an interrupted or repeated run resumes, and `audioeval "
        "rescore` needs only the folder.\n\n"
        "Done once per distinct question rather than once per item (the same bytes in every "
        "file, tests/test_mcq_speed_*.py): the prompt's digest and text, the official answer and distractor tokens, the "
        "robust chain's prepared options. This set asks each of its 1,000 questions ten "
        "times, so these are reused nine times in ten here, and not at all on a file of "
        "distinct questions (a pair's memo of rendered prompt texts, keyed by the values its "
        "template reads, and the cached readings of a repeated answer against the same "
        "options, also help files whose items share a question, as MMAU's do); the rest (a "
        "cheaper record check, the line encoder built once, the repr of the exporter's result "
        "no longer built by `asyncio.run`, the answer-statement pattern, ASCII word splitting, "
        "one bincount per resample row) holds for any file: on 1,000 distinct items it does "
        "20 % fewer instructions (callgrind). The command's process lets OpenBLAS's idle "
        "threads sleep at once (`OPENBLAS_THREAD_TIMEOUT=4`, `audioeval/cli/__init__.py`; the "
        "bench imports it too): their spinning after the bootstrap's matrix products took "
        "the second core (median 1.71 s without it on the same machine, 1.50 s with it).\n\n"
        f"Measured on {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}, 1-minute load average {m['load']:.1f} at the "
        "start (a shared machine: compare CPU seconds and medians).\n\n"
    )
    update_doc(text)
    print(f"wrote the '{SECTION}' section of {DOC}")


if __name__ == "__main__":
    main()
