"""The whole `audioeval mmae score` command by phase, beside a naive client, in one run.

Against the fake judge (tests/fakes/judge_server.py, 2 processes, `--memoize-audio`) with a
fixed latency, the command runs in a child process (`python -m audioeval.cli.main`-equivalent:
the Typer app, in a fresh interpreter) and so do `bench/naive_client.py` (16 threads posting
with urllib, three valid votes per rubric, a summary only) and `bench/floor_client.py` (the
same requests from one asyncio loop, nothing else: what any Python client needs at least). Each one's rate is judge calls ÷
its whole wall time (process start to exit, start-up and outputs included), given as a
fraction of the ideal concurrency ÷ latency. The command's child times its phases by wrapping
the engine's steps (exclusive time: a step inside another counts once, for the inner one):

    import     importing the CLI and the engine it runs (python start-up is in `other`)
    plan       reading and checking the predictions and metadata, the pair plan, the signature
    probe      the endpoint check (GET /models) and what it needs (the work still to do)
    judging    first request to last answer (the run engine's work phase)
    read-back  the records read back after judging, the MMAE files read back by the preset
    summaries  the pair summary (with its bootstrap CIs) and the run's summary.json
    exports    results.jsonl, per_sample.json, taxonomy.json (CIs, reliability), …
    report     the console report after the run
    other      the rest of the process's wall time (interpreter start-up, run lock, cache open)

Peak RSS is the child's (`os.wait4`). Sets (`bench/judge_throughput.py`'s, clips unique per
sample so that no response-cache hit saves the command a call): 240 samples × 3 rubrics (2,160
calls) at concurrency 16 and latency 0.2 s, 3 repeats interleaved with the naive client; 2,000
samples × 9 rubrics (54,000 calls) at concurrency 256 and latency 0.5 s, once.

    python bench/command_phases.py            # writes its section of docs/performance.md
    python bench/command_phases.py --quick    # a smoke run, writes nothing
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from doc_section import replace_section  # noqa: E402
from fake_judges import judge_servers  # noqa: E402

PHASES = ["import", "plan", "probe", "judging", "read-back", "summaries", "exports", "report", "other"]
SMALL_RUBRICS = (0, 4, 8)
SMALL_CALLS_MAX = 1000 * len(SMALL_RUBRICS)  # judge calls of a small set stay under 10 × this
SECTION = "## The whole `mmae score` command by phase"
RUN_KINDS = ("small", "small-naive", "small-floor", "large", "large-naive", "large-floor", "imports")
CLIENTS = {"naive client": "naive_client.py", "floor client": "floor_client.py"}


# ---- the child: the command with its phases timed -------------------------------------------


class Phases:
    """Exclusive wall time per phase: entering a phase pauses the one it is called from."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = dict.fromkeys(PHASES, 0.0)
        self.stack: list[tuple[str, float]] = []
        self.peak_mb: dict[str, float] = {}

    def enter(self, name: str) -> None:
        now = time.perf_counter()
        if self.stack:
            outer, since = self.stack[-1]
            self.spent[outer] += now - since
        self.stack.append((name, now))

    def leave(self) -> None:
        now = time.perf_counter()
        name, since = self.stack.pop()
        self.spent[name] += now - since
        self.peak_mb[name] = _peak_rss_mb()  # the process's peak RSS so far, as this phase ends
        if self.stack:
            self.stack[-1] = (self.stack[-1][0], now)

    def wrap(self, module: Any, attr: str, name: str) -> None:
        fn = getattr(module, attr, None)
        if fn is None:  # not there in this version of the code: its time stays in `other`
            print(f"command_phases: no {attr} in {getattr(module, '__name__', module)}", file=sys.stderr)
            return
        phases = self
        if _is_async(fn):

            async def awrapped(*a: Any, **k: Any) -> Any:
                phases.enter(name)
                try:
                    return await fn(*a, **k)
                finally:
                    phases.leave()

            setattr(module, attr, awrapped)
        else:

            def wrapped(*a: Any, **k: Any) -> Any:
                phases.enter(name)
                try:
                    return fn(*a, **k)
                finally:
                    phases.leave()

            setattr(module, attr, wrapped)


def _peak_rss_mb() -> float:
    """VmHWM of this process (Linux), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _is_async(fn: Any) -> bool:
    import inspect

    return inspect.iscoroutinefunction(fn)


def child(argv: list[str], out: Path) -> None:
    t0 = time.perf_counter()
    phases = Phases()
    phases.enter("import")
    import audioeval.presets.preset_run  # noqa: F401  (the command imports the engine when it runs)
    from audioeval.cli.main import main as audioeval_main

    phases.leave()
    import dataclasses

    import audioeval.engine.evaluate as ev
    import audioeval.presets.preset_run as pr

    for attr in ("load_samples", "_resolve_all", "_plan_pair", "_write_run_file"):
        phases.wrap(ev, attr, "plan")
    phases.wrap(ev, "_check_endpoints", "probe")
    phases.wrap(ev, "_gather_pairs", "judging")
    phases.wrap(ev, "read_pair", "read-back")
    phases.wrap(ev, "summarise_pairs", "summaries")
    phases.wrap(ev, "write_run_summary", "summaries")  # the run's summary.json (the engine writes it)
    phases.wrap(ev, "export_pairs", "exports")
    run_preset, ended = pr.run_preset, []

    def timed(fn: Any, name: str) -> Any:
        holder = type("Holder", (), {})()
        holder.fn = fn
        phases.wrap(holder, "fn", name)
        return holder.fn

    def run_then_report(preset: Any, given: Any) -> Any:
        changes = {"outcome": timed(preset.outcome, "read-back")}  # the preset's figures read back
        if preset.check is not None:
            changes["check"] = timed(preset.check, "plan")  # the predictions read and checked
        result = run_preset(dataclasses.replace(preset, **changes), given)
        phases.enter("report")  # everything after the run: the console report
        ended.append(True)
        return result

    pr.run_preset = run_then_report
    code = 0
    sys.argv = ["audioeval", *argv]
    try:
        audioeval_main()  # the console command itself, as `audioeval …` runs it
    except SystemExit as exc:
        code = int(exc.code or 0)
    if ended:
        phases.leave()
    spent = dict(phases.spent)
    spent["in_process_s"] = time.perf_counter() - t0
    spent["exit_code"] = code
    spent["peak_mb_after"] = phases.peak_mb
    out.write_text(json.dumps(spent))


# ---- the parent ------------------------------------------------------------------------------


def child_env() -> dict[str, str]:
    """The children's environment: Python may cache compiled modules, as it does in a user's
    installed package (pip compiles them), in a folder of its own (`PYCACHE`) so the source
    tree stays clean. A machine that sets PYTHONDONTWRITEBYTECODE would otherwise compile
    the command's ~250 modules at every start (~0.15 s), a cost no user's install pays,
    while the naive client's standard-library modules come compiled."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


PYCACHE = Path(tempfile.gettempdir()) / "audioeval-bench-pycache"


def warm_bytecode() -> None:
    """Compile once what both children import, before anything is timed."""
    code = "import audioeval.presets.preset_run, audioeval.cli.main, urllib.request, concurrent.futures"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=child_env(), check=True)


def timed(cmd: list[str]) -> tuple[float, float, str]:
    """(wall s, peak RSS MB, stdout) of a child process, start to exit."""
    LOADS.append(os.getloadavg()[0])  # the machine's 1-minute load average as each run starts
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as so, tempfile.TemporaryFile("w+") as se:
        p = subprocess.Popen(cmd, cwd=ROOT, stdout=so, stderr=se, text=True, env=child_env())
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(status)
        so.seek(0), se.seek(0)
        out, err = so.read(), se.read()
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} exited {p.returncode}: {err[-2000:]}")
    return wall, usage.ru_maxrss / 1024, out


def run_command(
    preds: Path, meta: Path, urls: list[str], conc: int, latency: float, tmp: Path
) -> dict[str, Any]:
    out = Path(tempfile.mkdtemp(dir=tmp))
    phase_file = tmp / "phases.json"
    argv = [
        "mmae", "score", "--predictions", str(preds), "--metadata", str(meta), "--judge", ",".join(urls),
        "--judge-concurrency", str(conc), "-o", str(out), "--no-progress",
    ]  # fmt: skip
    wall, rss, _ = timed([sys.executable, __file__, "--child", str(phase_file), "--", *argv])
    phases = json.loads(phase_file.read_text())
    calls = json.loads((out / "taxonomy.json").read_text())["run"]["judge_calls"]
    phases["other"] = wall - sum(phases[p] for p in PHASES if p != "other")
    ideal = conc / latency
    return {
        "who": "mmae score", "calls": calls, "wall_s": wall, "peak_rss_mb": rss, "phases": phases,
        "fraction": calls / wall / ideal, "judging_fraction": calls / phases["judging"] / ideal, "load": LOADS[-1],
    }  # fmt: skip


def run_naive(
    preds: Path, meta: Path, urls: list[str], workers: int, latency: float, who: str = "naive client"
) -> dict[str, Any]:
    """One run of a yardstick client (`CLIENTS`: the naive thread pool, or the asyncio floor)."""
    cmd = [sys.executable, str(Path(__file__).with_name(CLIENTS[who])), "--predictions", str(preds),
           "--metadata", str(meta), "--judge", ",".join(urls), "--workers", str(workers)]  # fmt: skip
    wall, rss, out = timed(cmd)
    res = json.loads(out.splitlines()[-1])
    return {"who": who, "calls": res["calls"], "wall_s": wall, "peak_rss_mb": rss,
            "fraction": res["calls"] / wall / (workers / latency), "load": LOADS[-1]}  # fmt: skip


FIRST_REQUEST_IMPORTS = "import aiohttp, numpy, soundfile, pydantic"
"""What any client of this judge built on the command's libraries imports before its first
request (the HTTP client, the audio decoding, the settings' validation)."""


def run_imports_floor() -> dict[str, Any]:
    """One process that only imports `FIRST_REQUEST_IMPORTS` and exits, start to exit."""
    wall, rss, _ = timed([sys.executable, "-c", FIRST_REQUEST_IMPORTS])
    return {"who": "imports floor", "wall_s": wall, "peak_rss_mb": rss, "load": LOADS[-1]}


def sets(tmp: Path, small: int, large: int) -> dict[str, tuple[Path, Path]]:
    from judge_throughput import write_set

    (tmp / "small").mkdir()
    preds, meta = write_set(tmp / "small", max(1, small))
    items = json.loads(meta.read_text())
    for item in items:  # 3 of the 9 rubrics: one per clip slice, the last comparing with the input
        item["rubrics"] = [item["rubrics"][r] for r in SMALL_RUBRICS]
    meta.write_text(json.dumps(items))
    out = {"small": (preds, meta)}
    if large:
        (tmp / "large").mkdir()
        preds, meta = write_set(tmp / "large", large)
        out["large"] = (preds, meta)
    return out


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} [{min(values):.3f}–{max(values):.3f}]"


LOADS: list[float] = []


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", type=Path)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--large", type=int, default=2000, help="samples of the large set (0: none)")
    ap.add_argument(
        "--large-naive", action="store_true", help="the naive client (256 threads) on the large set too"
    )
    ap.add_argument("--large-repeats", type=int, default=1, help="runs on the large set")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--small", type=int, default=240, help="samples of the small set")
    ap.add_argument("--no-doc", action="store_true", help="print the figures, write nothing")
    ap.add_argument(
        "--from-log", type=Path, nargs="+", help="write the doc from the JSON lines of earlier runs"
    )
    ap.add_argument("argv", nargs="*")
    args = ap.parse_args()
    if args.child:
        child(args.argv, args.child)
        return
    if args.from_log:
        logged: dict[str, list[dict[str, Any]]] = {kind: [] for kind in RUN_KINDS}
        for log in args.from_log:
            for line in log.read_text().splitlines():
                if line.startswith("{") and "who" in line:
                    r = json.loads(line)
                    if r["who"] == "imports floor":
                        logged["imports"].append(r)
                        continue
                    size = "small" if r["calls"] < 10 * SMALL_CALLS_MAX else "large"
                    suffix = {"naive client": "-naive", "floor client": "-floor"}.get(r["who"], "")
                    logged[size + suffix].append(r)
        write_doc(logged, args.small, args.large)
        return
    small_n, large_n = (args.small if not args.quick else 60, 0 if args.quick else args.large)
    runs: dict[str, list[dict[str, Any]]] = {kind: [] for kind in RUN_KINDS}
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        data = sets(tmp, small_n, large_n)
        warm_bytecode()
        with judge_servers(0.2) as (_, urls):
            for _ in range(max(1, args.repeats) if small_n else 0):  # interleaved: a busy spell hits both
                runs["small"].append(run_command(*data["small"], urls, 16, 0.2, tmp))
                print(json.dumps(runs["small"][-1]), flush=True)
                runs["small-naive"].append(run_naive(*data["small"], urls, 16, 0.2))
                print(json.dumps(runs["small-naive"][-1]), flush=True)
                runs["small-floor"].append(run_naive(*data["small"], urls, 16, 0.2, "floor client"))
                print(json.dumps(runs["small-floor"][-1]), flush=True)
                runs["imports"].append(run_imports_floor())
                print(json.dumps(runs["imports"][-1]), flush=True)
        if large_n:
            with judge_servers(0.5) as (_, urls):
                for _ in range(max(1, args.large_repeats)):
                    runs["large"].append(run_command(*data["large"], urls, 256, 0.5, tmp))
                    print(json.dumps(runs["large"][-1]), flush=True)
                    if args.large_naive:
                        runs["large-naive"].append(run_naive(*data["large"], urls, 256, 0.5))
                        print(json.dumps(runs["large-naive"][-1]), flush=True)
                        runs["large-floor"].append(run_naive(*data["large"], urls, 256, 0.5, "floor client"))
                        print(json.dumps(runs["large-floor"][-1]), flush=True)
    small = runs["small"]
    if small:
        print("mmae score fraction:", spread([r["fraction"] for r in small]))
        print("naive fraction:     ", spread([r["fraction"] for r in runs["small-naive"]]))
        print("floor fraction:     ", spread([r["fraction"] for r in runs["small-floor"]]))
    if not (args.quick or args.no_doc):
        write_doc(runs, small_n, large_n)


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def _reading(runs: dict[str, list[dict[str, Any]]], small_n: int, large_n: int) -> list[str]:
    """The paragraphs under the tables, their figures taken from the runs."""
    out = [
        f"1-minute load average as each run started: {_loads(runs)} (2 cores). Reading: `other` is the "
        "interpreter's start-up and exit, the run lock, the response cache opened and closed, and what the "
        "wrappers do not name. The naive client's threads each send and parse in parallel; the command's one "
        "event loop does the work of every call in turn. The floor client sends the naive client's requests "
        "from one asyncio loop over kept-alive connections and does nothing else: the least time a Python "
        "client of this judge needs, start-up included.",
    ]
    small, naive, floor = runs["small"], runs["small-naive"], runs["small-floor"]
    if small and naive and floor:
        outside = statistics.median(
            r["wall_s"] - r["phases"]["judging"] for r in small
        )  # what the command spends outside its judging phase
        judging = statistics.median(r["phases"]["judging"] for r in small)
        budget = _median(naive, "wall_s") - judging  # what the command may spend outside judging to be ahead
        imports = runs["imports"]
        out += [
            "",
            f"At {small_n} samples the ideal is {small[0]['calls'] / 80:.2f} s (concurrency 16 ÷ 0.2 s). The "
            f"floor client took {_median(floor, 'wall_s'):.2f} s and the naive client "
            f"{_median(naive, 'wall_s'):.2f} s (medians)"
            + (
                ": the bare asyncio client was not ahead of the naive one here. "
                if _median(floor, "wall_s") >= _median(naive, "wall_s")
                else f": a client can be at most {_median(naive, 'wall_s') - _median(floor, 'wall_s'):.2f} s "
                "ahead of the naive one here. "
            )
            + f"The command's judging phase took {judging:.2f} s and everything outside it {outside:.2f} s "
            "(importing aiohttp, numpy, pydantic and the engine, reading and checking the inputs, the "
            "summaries with their bootstrap CIs, the exports, the report). The first request cannot leave "
            "before the HTTP client is imported, nor the summaries be written before the last answer: "
            + (
                "at this size the command stays behind the naive client by about what it does that the "
                "naive client does not."
                if _median(small, "wall_s") > _median(naive, "wall_s")
                else "even so, the command's median time was within the naive client's."
            ),
        ]
        if imports:
            out += [
                "",
                f"To be ahead of the naive client here, the command would have to spend under {budget:.2f} s "
                f"outside its judging phase (the naive client's {_median(naive, 'wall_s'):.2f} s less the "
                f"command's judging phase). A process that only imports what sending the first request needs "
                f"(`{FIRST_REQUEST_IMPORTS}`) and exits took {_median(imports, 'wall_s'):.2f} s (median of "
                f"{len(imports)}), before reading a file, building a prompt or writing a summary"
                + (
                    ": with these libraries the goal cannot be met at this size."
                    if _median(imports, "wall_s") >= budget
                    else "."
                ),
            ]
    large, large_naive, large_floor = runs["large"], runs["large-naive"], runs["large-floor"]
    if large and large_naive and large_floor:
        from judge_throughput import N_RUBRICS  # the large set's rubrics per sample (`sets`)

        judging = statistics.median(r["phases"]["judging"] for r in large)
        naive_s = _median(large_naive, "wall_s")
        outside = {p: statistics.median(r["phases"][p] for r in large) for p in PHASES if p != "judging"}
        named = sorted(((v, p) for p, v in outside.items() if v >= 0.05), reverse=True)
        out += [
            "",
            f"At {large_n} samples and concurrency 256 the start-up and the outputs are spread over "
            f"{large[0]['calls']:,} calls. The command took {_median(large, 'wall_s'):.1f} s: its judging "
            f"phase {judging:.1f} s, against the naive client's whole run ({naive_s:.1f} s) and the floor's "
            f"({_median(large_floor, 'wall_s'):.1f} s), and {sum(outside.values()):.1f} s outside it ("
            + ", ".join(f"{p} {v:.2f}" for v, p in named)
            + "). In the judging phase the work of every call (the request built, the response cache asked "
            "and written, the answer parsed, the sample's record appended) is done in turn on one event loop, "
            "against the floor's bare send; outside it, the plan reads, checks and hashes every clip (input "
            f"and output: {2 * large_n:,} here) and the exports write every attempt of "
            f"{large_n * N_RUBRICS:,} rubrics.",
        ]
    return out


def _loads(runs: dict[str, list[dict[str, Any]]]) -> str:
    loads = [r["load"] for rs in runs.values() for r in rs if "load" in r]
    return f"{min(loads):.1f}–{max(loads):.1f}" if loads else "not recorded"


def _phase_row(label: str, runs: list[dict[str, Any]]) -> str:
    cells = [statistics.median(r["phases"][p] for r in runs) for p in PHASES]
    wall = statistics.median(r["wall_s"] for r in runs)
    return f"| {label} | " + " | ".join(f"{c:.2f}" for c in cells) + f" | {wall:.2f} |"


def write_doc(runs: dict[str, list[dict[str, Any]]], small_n: int, large_n: int) -> None:
    small, naive = runs["small"], runs["small-naive"]
    wins = sum(c["fraction"] > n["fraction"] for c, n in zip(small, naive, strict=False))
    lines = [
        SECTION,
        "",
        f"`python bench/command_phases.py --large-naive` (or `--from-log LOG…` to write this section from the "
        f"JSON lines of earlier runs), measured {time.strftime('%Y-%m-%d')} on {os.cpu_count()} cores "
        "(shared with other work: compare within a row, not across days). The command, the naive client "
        "(`bench/naive_client.py`) and the floor client (`bench/floor_client.py`) run one after the other, "
        "interleaved, each in its own process (compiled modules cached, as in an installed package) against "
        "the same fake judge (2 processes); rate = judge calls ÷ the process's whole wall time, as a fraction "
        "of the ideal concurrency ÷ latency.",
        "",
        "| set | who | concurrency | latency | judge calls | fraction of ideal, whole process: median [min–max] | judging phase alone | wall s (median) | peak RSS MB (max) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for key, conc, lat, n in (("small", 16, 0.2, small_n), ("large", 256, 0.5, large_n)):
        naive = "naive client" if conc == 16 else f"naive client ({conc} threads)"
        floor = f"floor: asyncio client, {conc} coroutines"
        for who, rs in (
            ("`mmae score`", runs[key]),
            (naive, runs[f"{key}-naive"]),
            (floor, runs[f"{key}-floor"]),
        ):
            if not rs:
                continue
            judging = spread([r["judging_fraction"] for r in rs]) if "judging_fraction" in rs[0] else "–"
            lines.append(
                f"| {n} samples | {who} | {conc} | {lat:g} s | {rs[0]['calls']} | "
                f"{spread([r['fraction'] for r in rs])} | {judging} | "
                f"{statistics.median(r['wall_s'] for r in rs):.2f} | {max(r['peak_rss_mb'] for r in rs):.0f} |"
            )
    lines += [
        "",
        f"The command was ahead of the naive client in {wins} of {len(small)} interleaved pairs at {small_n} samples.",
        "",
        "Phases of `mmae score`, wall seconds (median over the runs):",
        "",
        "| set | " + " | ".join(PHASES) + " | whole process |",
        "|---|" + "---|" * (len(PHASES) + 1),
        _phase_row(f"{small_n} samples, concurrency 16", small),
    ]
    if runs["large"]:
        lines.append(_phase_row(f"{large_n} samples, concurrency 256", runs["large"]))
    if runs["large"]:
        peaks = runs["large"][0]["phases"].get("peak_mb_after", {})
        lines += [
            "",
            f"Peak RSS of the {large_n}-sample run as each phase ended (MB, first run): "
            + ", ".join(f"{p} {peaks[p]:.0f}" for p in PHASES if p in peaks)
            + ".",
        ]
    lines += ["", *_reading(runs, small_n, large_n)]
    replace_section(SECTION, "\n".join(lines))


if __name__ == "__main__":
    main()
