"""Judge calls saved by `--early-stop`, and by a judge cache shared across output folders.

A synthetic MMAE set (the throughput bench's: 9 rubrics per sample, 3 options each, clips
unique per sample) is scored by the fake judge (tests/fakes/judge_server.py) made noisy: a
share `--wrong-rate` of requests, drawn from a hash of the request's content, pick a wrong
option. Two attempts of a rubric shown the same option order are the same request and get
the same answer (1 in 6 with 3 options), so a wrong rate of 0.10 makes two votes of a rubric
agree on pass/fail 1/6 + 5/6 × (0.9² + 0.1²) = 85 % of the time; the agreement is measured
from the votes of the full protocol and reported.

Scored four times with `mmae score` (3 valid votes per rubric, strict majority): the full
protocol; `--early-stop`, each into its own folder with its own cache; then the early-stop
scoring again into two more folders sharing one `--judge-cache` file (the second asks the
judge nothing). The per-rubric verdicts of the full protocol and of early stop are compared.

    python bench/early_stop.py            # writes the figures into docs/performance.md
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from doc_section import replace_section  # noqa: E402  (bench/ is the script's folder)

SECTION = "## Early stop and a shared judge cache"
DOC = ROOT / "docs" / "performance.md"


def _rubrics(out: Path) -> dict[tuple[str, int], dict[str, Any]]:
    """Each rubric's stored outcome in an `mmae score` folder, by (id, rubric index)."""
    records = out / "mmae" / "predictions" / "records.jsonl"
    lines = [json.loads(x) for x in records.read_text().splitlines()]
    return {(r["id"], o["rubric_index"]): o for r in lines for o in r["judge"]["mmae_rubrics"]["rubrics"]}


def agreement(rubrics: dict[tuple[str, int], dict[str, Any]]) -> dict[str, float]:
    """Pairs of valid votes on one rubric that agree: on pass/fail, and on the option chosen."""
    verdicts = options = pairs = 0
    for outcome in rubrics.values():
        valid = [a for a in outcome["attempts"] if a["valid"]]
        for a, b in combinations(valid, 2):
            pairs += 1
            verdicts += a["correct"] == b["correct"]
            chosen = [x["options"][ord(x["letter"]) - ord("A")] for x in (a, b)]
            options += chosen[0] == chosen[1]
    return {"verdict": verdicts / pairs, "option": options / pairs, "pairs": pairs}


def score(preds: Path, meta: Path, out: Path, url: str, concurrency: int, **kw: Any) -> tuple[Any, float]:
    from tests.mmae_helpers import MmaeRunConfig, run_mmae

    cfg = MmaeRunConfig(
        predictions=preds,
        metadata=meta,
        output_dir=out,
        base_urls=[url],
        concurrency=concurrency,
        progress=False,
        n_resamples=200,
        timeout=60,
        **kw,
    )
    t0 = time.perf_counter()
    result = run_mmae(cfg)
    return result, time.perf_counter() - t0


def measure(n: int, wrong_rate: float, latency: float, concurrency: int) -> dict[str, Any]:
    from bench.judge_throughput import write_set
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        preds, meta = write_set(root / "set", n)
        cfg = FakeJudgeConfig(latency_s=latency, memoize_audio=True, wrong_rate=wrong_rate, seed=0)
        with FakeJudgeServer(cfg) as server:
            url = server.base_url

            def run(name: str, **kw: Any) -> tuple[Any, float, int]:
                before = server.stats.requests
                result, wall = score(preds, meta, root / name, url, concurrency, **kw)
                return result, wall, server.stats.requests - before

            _, full_s, full_calls = run("full")
            early, early_s, early_calls = run("early", early_stop=True)
            shared = root / "shared" / "judge_cache.sqlite"
            _, _, first_calls = run("shared_a", early_stop=True, cache_path=shared)
            second, _, second_calls = run("shared_b", early_stop=True, cache_path=shared)
        full_rubrics, early_rubrics = _rubrics(root / "full"), _rubrics(root / "early")
        same = sum(
            (o["score"], o["failed"]) == (full_rubrics[k]["score"], full_rubrics[k]["failed"])
            for k, o in early_rubrics.items()
        )
        tax = [json.loads((root / x / "taxonomy.json").read_text()) for x in ("full", "early", "shared_b")]
    return {
        "samples": n,
        "rubrics": len(full_rubrics),
        "wrong_rate": wrong_rate,
        "agreement": agreement(full_rubrics),
        "full_calls": full_calls,
        "early_calls": early_calls,
        "saving": 1 - early_calls / full_calls,
        "calls_saved_recorded": early.calls_saved,
        "rubrics_stopped_early": tax[1]["run"]["rubrics_stopped_early"],
        "same_verdicts": same,
        "failed_full": sum(o["failed"] for o in full_rubrics.values()),
        "headline_full": overall(tax[0]),
        "headline_early": overall(tax[1]),
        "full_s": full_s,
        "early_s": early_s,
        "shared_first_calls": first_calls,
        "shared_second_calls": second_calls,
        "shared_second_hits": second.cache_hits,
        "shared_same_taxonomy": {k: v for k, v in tax[2].items() if k not in ("run", "reliability")}
        == {k: v for k, v in tax[1].items() if k not in ("run", "reliability")},
        "latency_s": latency,
        "concurrency": concurrency,
    }


def update_doc(r: dict[str, Any]) -> None:
    a = r["agreement"]
    text = "\n".join(
        [
            SECTION,
            "",
            f"`python bench/early_stop.py`, measured {time.strftime('%Y-%m-%d')}: `mmae score` of a synthetic "
            f"set of {r['samples']} samples × 9 rubrics ({r['rubrics']:,} rubrics, 3 options each, clips unique "
            "per sample), 3 valid votes per rubric, against the fake judge made noisy: "
            f"{_pct(r['wrong_rate'], 0)} of requests, drawn from a hash of the request's content, pick a wrong "
            "option (two attempts shown the same option order are the same request and get the same answer). "
            f"Measured over the {a['pairs']:,} pairs of votes on one rubric of the full protocol, the judge "
            f"agrees with itself on pass/fail {_pct(a['verdict'])} of the time (on the option chosen "
            f"{_pct(a['option'])}). Goal: ≥ 25 % fewer calls with `--early-stop`, the same verdicts.",
            "",
            "| protocol | judge calls | saving | rubrics stopped after 2 votes | verdicts equal to the full protocol's | IFR / CR / EMR | wall s |",
            "|---|---|---|---|---|---|---|",
            f"| full (published) | {r['full_calls']:,} | – | – | – | {_headline(r['headline_full'])} | "
            f"{r['full_s']:.1f} |",
            f"| `--early-stop` | {r['early_calls']:,} | {_pct(r['saving'])} | {r['rubrics_stopped_early']:,} | "
            f"{r['same_verdicts']:,} of {r['rubrics']:,} | {_headline(r['headline_early'])} | {r['early_s']:.1f} |",
            "",
            "The taxonomy.json `run` block of the early-stop folder records `early_stop: true`, "
            f"`calls_saved: {r['calls_saved_recorded']}`: the valid votes not asked (votes needed − valid votes, "
            "over the rubrics decided early); each would have cost at least one call, so it is a lower bound on "
            "the calls saved, here equal to them since every answer is readable. A rubric costs 2 calls, plus a "
            "third when the first two disagree (1 − a, with a the agreement): the saving is a / 3, "
            "28.3 % at a = 0.85. "
            f"Wall times are with a fixed {r['latency_s'] * 1000:g} ms judge latency at concurrency "
            f"{r['concurrency']}, fake and client in one process on this project's shared 2-core machine.",
            "",
            f"Shared judge cache: the early-stop scoring into two more folders sharing one `--judge-cache` file: "
            f"the first made {r['shared_first_calls']:,} judge calls, the second {r['shared_second_calls']} "
            f"({r['shared_second_hits']:,} cache hits), with "
            f"{'the same' if r['shared_same_taxonomy'] else 'a DIFFERENT'} taxonomy.json (less its `run` block).",
            "",
        ]
    )
    replace_section(SECTION, text, DOC)


def _pct(x: float, digits: int = 1) -> str:
    return f"{100 * x:.{digits}f} %"


def overall(tax: dict[str, Any]) -> dict[str, Any]:
    return {k: tax["overall"].get(k) for k in ("IFR", "CR", "EMR")}


def _headline(h: dict[str, Any]) -> str:
    return " / ".join("–" if h[k] is None else f"{h[k]:.2f}" for k in ("IFR", "CR", "EMR"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300, help="samples (9 rubrics each)")
    ap.add_argument("--wrong-rate", type=float, default=0.10)
    ap.add_argument("--latency", type=float, default=0.02, help="judge latency per request, s")
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--no-doc", action="store_true", help="print the figures only")
    args = ap.parse_args()
    r = measure(args.n, args.wrong_rate, args.latency, args.concurrency)
    print(json.dumps(r, indent=2))
    if not args.no_doc:
        update_doc(r)


if __name__ == "__main__":
    main()
