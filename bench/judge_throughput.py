"""Judge-call throughput, CPU per call and peak memory of `audioeval mmae score`.

Against the fake OpenAI-compatible judge (tests/fakes/judge_server.py) run in separate
processes with a fixed latency per request, the achieved call rate is compared with the
ideal concurrency ÷ latency at concurrency 8, 64 and 256. The client runs in its own process
so its CPU time and peak RSS are its own. The largest run scores a synthetic set of 2,000
samples × 9 rubrics (18,000 rubrics, 54,000 judge calls), with 1-second clips unique per
sample so the response cache never short-cuts a call. Each concurrency is measured
`--repeats` times (default 3); the table gives the run with the median fraction and the
spread of the fraction over all runs.

The fake judge answers each request `latency` seconds after it has read and parsed it, its
work on the answer (decoding the audio, measuring the spectrum) inside that time, as a real
server's latency includes its work. Started with `--memoize-audio`, it decodes each distinct
clip once and measures each (clip, slice, frequency) once, in bounded memos: its one
GIL-bound Python process would otherwise queue requests, which a real inference server's
fixed latency does not model.

The machine may be shared: the CPU that other processes used during each run is reported
(`other cores busy`), since the client and both fake servers share the machine's cores.

    python bench/judge_throughput.py            # writes the figures into docs/performance.md
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from doc_section import replace_section  # noqa: E402  (bench/ is the script's folder)
from fake_judges import judge_servers  # noqa: E402

N_RUBRICS = 9


def write_set(root: Path, n: int) -> tuple[Path, Path]:
    import soundfile as sf

    from audioeval.benchmarks.mmae.records import COMPLEXITIES
    from audioeval.benchmarks.mmae.synthetic import MODALITIES, render

    rng = np.random.default_rng(0)
    meta, preds = [], []
    for k in range(n):
        sid = f"b{k:05d}"
        (root / "wav" / sid).mkdir(parents=True, exist_ok=True)
        tones_in = [(440.0, 0.0, 1.0), (660.0, 0.5, 1.0)]
        x = render(tones_in, 16000, duration=1.0) + rng.normal(0, 1e-3, 16000).astype(np.float32)
        y = render(tones_in[:1], 16000, duration=1.0) + rng.normal(0, 1e-3, 16000).astype(np.float32)
        sf.write(root / "wav" / sid / "audio1.wav", x, 16000, subtype="PCM_16")
        sf.write(root / "wav" / sid / "out.wav", y, 16000, subtype="PCM_16")
        rubrics = []
        for r in range(N_RUBRICS):
            freq, present = (660, False) if r % 2 == 0 else (440, True)
            yes, no = f"Yes, a tone near {freq} Hz can be heard", f"No, no tone near {freq} Hz can be heard"
            clip = ["<audio output>", "<audio output[0.5s:]>", "<audio output[:-0.2s]>"][r % 3]
            q = f"In {clip}, can a steady tone near {freq} Hz be heard? (check {r})"
            if r == 8:
                q = f"Compared with <audio input1>, in {clip}, can a steady tone near {freq} Hz be heard?"
            rubrics.append(
                {
                    "category": "Instruction Following" if r < 4 else "Consistency",
                    "question": q,
                    "right_choice": yes if present else no,
                    "wrong_choices": [no if present else yes, "None of the above"],
                }
            )
        messages = [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Remove the 660 Hz tone."},
                    {"type": "audio", "audio_url": f"wav/{sid}/audio1.wav"},
                ],
            }
        ]
        meta.append(
            {
                "id": sid,
                "complexity": COMPLEXITIES[k % 6],
                "modality": MODALITIES[k % 7],
                "granularity": ["local"],
                "operations": [{"granularity": "local", "operation": "removal"}],
                "messages": messages,
                "tags": [],
                "rubrics": rubrics,
            }
        )
        preds.append(
            {
                "id": sid,
                "messages": messages
                + [{"role": "assistant", "content": [{"type": "audio", "audio_url": f"wav/{sid}/out.wav"}]}],
            }
        )
    (root / "meta.json").write_text(json.dumps(meta))
    (root / "preds.json").write_text(json.dumps(preds))
    return root / "preds.json", root / "meta.json"


def client(args: argparse.Namespace) -> None:
    """Run one scoring in this process and print its figures as JSON."""
    from audioeval.audio.clip_cache import ClipCache
    from audioeval.core.messages import AudioRef
    from tests.mmae_helpers import MmaeRunConfig, run_mmae

    root = Path(args.root)
    meta = json.loads((root / "meta.json").read_text())[: args.n]
    sub = root / f"meta_{args.n}.json"
    sub.write_text(json.dumps(meta))
    cfg = MmaeRunConfig(
        predictions=root / "preds.json",
        metadata=sub,
        output_dir=Path(args.out),
        base_urls=args.urls.split(","),
        concurrency=args.concurrency,
        progress=False,
        n_resamples=200,
        timeout=60,
    )
    cpu0, t0 = time.process_time(), time.perf_counter()
    result = run_mmae(cfg)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    # The one-off cost of decoding and encoding every clip, measured on its own.
    clips = ClipCache()
    e0 = time.process_time()
    for item in meta:
        clips.get(AudioRef(str(root / "wav" / item["id"] / "audio1.wav")))
        clips.get(AudioRef(str(root / "wav" / item["id"] / "out.wav")))
    encode_cpu = time.process_time() - e0
    print(
        json.dumps(
            {
                "samples": len(meta),
                "rubrics": result.taxonomy["overall"]["n_rubrics"],
                "failed": result.taxonomy["overall"]["n_rubrics_failed"],
                "calls": result.calls,
                "wall_s": wall,
                "judging_s": result.judging_s,
                "cpu_s": cpu,
                "encode_cpu_s": encode_cpu,
                "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            }
        )
    )


def _proc_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _busy_cpu_s() -> float:
    """CPU seconds the whole machine has spent busy since boot (Linux /proc/stat)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def measure(root: Path, n: int, concurrency: int, latency: float, servers: int) -> dict[str, float]:
    busy0, w0 = _busy_cpu_s(), time.monotonic()
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    with judge_servers(latency, servers) as (procs, urls), tempfile.TemporaryDirectory() as out:
        cmd = [
            sys.executable,
            __file__,
            "--client",
            "--root",
            str(root),
            "--n",
            str(n),
            "--out",
            out,
            "--urls",
            ",".join(urls),
            "--concurrency",
            str(concurrency),
        ]
        res = json.loads(
            subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()[-1]
        )
        server_cpu = sum(_proc_cpu_s(p.pid) for p in procs)
    children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    ours = sum(getattr(children1, f) - getattr(children0, f) for f in ("ru_utime", "ru_stime"))
    other_cores = max(0.0, (_busy_cpu_s() - busy0 - ours) / (time.monotonic() - w0))
    ideal = concurrency / latency
    # The rate counts the judging phase: first request to last answer (loading the files and
    # writing the summaries are reported apart, as wall_s).
    res.update(
        concurrency=concurrency, latency_s=latency, ideal_rate=ideal, rate=res["calls"] / res["judging_s"]
    )
    res["fraction_of_ideal"] = res["rate"] / ideal
    res["server_cpu_s"] = server_cpu
    res["server_cores_busy"] = server_cpu / res["wall_s"]
    res["cpu_ms_per_call"] = 1000 * res["cpu_s"] / res["calls"]
    res["cpu_ms_per_call_beyond_encoding"] = 1000 * (res["cpu_s"] - res["encode_cpu_s"]) / res["calls"]
    res["other_cores_busy"] = other_cores
    return res


def summarise(runs: list[dict[str, float]]) -> dict[str, float]:
    """The run with the median fraction of ideal, with the spread over every run."""
    ordered = sorted(runs, key=lambda r: r["fraction_of_ideal"])
    row = dict(ordered[(len(ordered) - 1) // 2])
    row.update(
        repeats=len(runs),
        fraction_median=statistics.median(r["fraction_of_ideal"] for r in runs),
        fraction_min=ordered[0]["fraction_of_ideal"],
        fraction_max=ordered[-1]["fraction_of_ideal"],
        fractions=[round(r["fraction_of_ideal"], 4) for r in runs],
        other_cores_max=max(r["other_cores_busy"] for r in runs),
    )
    return row


def write_doc(rows: list[dict[str, float]]) -> None:
    doc = ROOT / "docs" / "performance.md"
    repeats = int(rows[0]["repeats"])
    lines = [
        "## MMAE judge throughput",
        "",
        f"`python bench/judge_throughput.py`, measured {time.strftime('%Y-%m-%d')} on this project's CI kind of "
        f"machine ({os.cpu_count()} cores, CPU only). The fake judge runs in 2 separate processes "
        "(2 endpoints) with a fixed latency per request, counted from reading the request to answering it "
        "(its own decoding and measuring included), decoding each distinct clip and measuring each "
        "(clip, slice, frequency) once so that its own CPU does not queue requests; the client is a third "
        f"process. Each concurrency was measured {'once' if repeats == 1 else f'{repeats} times'}: the fraction column gives the median "
        "and, in brackets, the lowest and highest run; the other columns are those of the median run. Goal: "
        "≥ 0.95 of the ideal rate (concurrency ÷ latency); ≤ 1 ms client CPU per call beyond the first "
        "encoding of each clip.",
        "",
        "| concurrency | latency | samples | rubrics | judge calls | ideal calls/s | achieved calls/s | fraction of ideal: median [min–max] | whole command s | CPU ms/call | CPU ms/call beyond encoding | peak RSS MB | other processes, cores busy |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['concurrency']} | {r['latency_s']:g} s | {r['samples']} | {r['rubrics']} | {r['calls']} | "
            f"{r['ideal_rate']:.0f} | {r['rate']:.0f} | {r['fraction_median']:.3f} "
            f"[{r['fraction_min']:.3f}–{r['fraction_max']:.3f}] | {r['wall_s']:.1f} | {r['cpu_ms_per_call']:.2f} | "
            f"{r['cpu_ms_per_call_beyond_encoding']:.2f} | {r['peak_rss_mb']:.0f} | {r['other_cores_busy']:.2f} |"
        )
    lines += [
        "",
        "Reading: the rate counts the judging phase (first request to last answer); `whole command` adds "
        "loading, planning and writing the summaries and exports. CPU per call includes building the request, "
        "the response cache, parsing, the append to the record stream and the exports written at the end "
        "(`mmae score` is a preset of `audioeval run`); decoding and encoding each clip once is "
        "measured apart and subtracted. What remains below 1.0 is the time each call spends outside the "
        "fake's latency (the client's and the fake's turn on the two shared cores, ~1–5 ms a call), the "
        "first wave of requests, which also opens the connections, and the last, partly filled wave: at "
        "concurrency 8 the 810 calls need 102 rounds of 0.2 s, so no client can exceed 0.993 there. "
        "`other processes` is the CPU that the rest of the machine used during the run (the two cores "
        "are shared with it).",
        "",
        "What moved the 256 figure from 0.924 (0.87–0.93 over reruns) to the above: (1) samples are "
        "admitted while fewer than two slots' worth of attempts are outstanding (now the run engine's rule "
        "for every judged pair, `engine/run_judge.py`), instead of one worker per "
        "slot each launching a whole sample: at 256 that kept ~6,900 attempt coroutines alive (each having "
        "done its cache lookup up front), and the collector's full passes over them stopped the event loop "
        "for 0.1–0.2 s of CPU each (over a second on a busy machine); now ~500 are alive; (2) the request "
        "body is written without passing the base64 audio through `json.dumps` (it needs no escaping; the "
        "bytes are identical); (3) the response cache's WAL checkpoints (its only fsyncs) run in a "
        "background thread: inside `put` they stopped the event loop for 5–35 ms every ~400 answers "
        "(each answer is still committed at once); (4) attempt records are built without "
        "`dataclasses.asdict`; (5) the fake judge's latency now includes its own work, and its memo no "
        "longer re-serialises each audio part or re-runs the FFT, so it no longer queues requests behind "
        "its GIL (its mean time in a request beyond the latency went from 7–14 ms to ~1 ms). Since `mmae score` runs through the engine, the samples loaded before the run are frozen out of the garbage collector while it judges (`gc.freeze`): without it, full collections walking 2,000 loaded samples held the 256 figure at 0.956–0.964.",
        "",
        "Since 2026-12-06 a sample's first judge request goes alone and its other requests once it is "
        "answered (`engine/run_judge.SampleJudge`: a serving engine's prefix cache then encodes the "
        "sample's clips once, see \"Judge requests: shared audio prefix\"), so a sample takes at least two "
        "latencies. This fake's latency is fixed and gains nothing from a shared prefix, so here that is "
        "only a cost, kept small by admitting samples while others wait for their first answer (waiting "
        "attempts bounded apart, at sixteen times the concurrency): measured back to back on the same "
        "machine, the code before that change gave 0.986 / 0.988 / 0.987 at concurrency 8 / 64 / 256 "
        "(peak RSS 94 / 164 / 366 MB), against 0.975 / 0.978 / 0.967 (94 / 165 / 375 MB) with it. With "
        "the waiting attempts bounded at eight times the concurrency, 64 gave 0.935 (twice); at four "
        "times, 0.85.",
        "",
    ]
    replace_section("## MMAE judge throughput", "\n".join(lines), doc)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--client", action="store_true")
    ap.add_argument("--root"), ap.add_argument("--n", type=int), ap.add_argument("--out")
    ap.add_argument("--urls"), ap.add_argument("--concurrency", type=int)
    ap.add_argument("--repeats", type=int, default=3, help="runs per concurrency (median and spread)")
    ap.add_argument("--quick", action="store_true", help="smaller sets, for a smoke run")
    args = ap.parse_args()
    if args.client:
        client(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_set(root, 2000)
        plan = [(8, 0.2, 30), (64, 0.2, 300), (256, 0.5, 2000)]
        if args.quick:
            plan = [(8, 0.05, 20), (64, 0.2, 60), (256, 0.5, 150)]
        runs: dict[int, list[dict[str, float]]] = {conc: [] for conc, _, _ in plan}
        for _ in range(max(1, args.repeats)):  # interleaved, so a busy spell hits every concurrency
            for conc, lat, n in plan:
                row = measure(root, n, conc, lat, servers=2)
                print(json.dumps(row), flush=True)
                runs[conc].append(row)
        rows = [summarise(runs[conc]) for conc, _, _ in plan]
        for row in rows:
            print(
                json.dumps({k: row[k] for k in ("concurrency", "fraction_median", "fractions")}), flush=True
            )
    if not args.quick:
        write_doc(rows)


if __name__ == "__main__":
    main()
