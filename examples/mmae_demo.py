"""`make demo`: score a small synthetic MMAE-format set with the Identity and Noise baselines.

Offline and on CPU, with no server: `--judge verifiers` answers each rubric a measurement can
answer (a tone's presence in a slice, speech, silence, loudness, reversal, fades, panning;
docs/judging.md) and marks the rest not judged. It is not Qwen3-Omni and the numbers are not
MMAE results; they show the pipeline (taxonomy, confidence intervals, resume, boards) end to
end. Point `--judge` at a real vLLM judge for real scores (see README).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.panel import Panel  # noqa: E402

from audioeval.benchmarks.mmae.synthetic import write_synthetic_set  # noqa: E402

OUT = Path(os.environ.get("AUDIOEVAL_DEMO_OUT", ROOT / "demo_out")) / "mmae"
JUDGE = "verifiers"
console = Console()


def audioeval(*args: object) -> None:
    cmd = ["audioeval", *map(str, args)]
    console.print(f"[dim]$ {' '.join(cmd)}[/dim]", highlight=False)
    subprocess.run([sys.executable, "-m", "audioeval.cli.main", *map(str, args)], check=True)


def measured(out: Path) -> None:
    """Which rubrics the verifiers measured (with the check each used) and which they could not."""
    checks: dict[str, int] = {}
    not_judged: list[str] = []
    for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        if rec.get("not_judged"):
            not_judged.append(f"{rec['id']} rubric {rec['rubric_index']}: {rec['not_judged']}")
        else:
            name = rec["measurement"]["check"]
            checks[name] = checks.get(name, 0) + 1
    shown = ", ".join(f"{n} × {c}" for c, n in sorted(checks.items()))
    console.print(f"measured: {sum(checks.values())} rubric(s) ({shown}); not judged: {len(not_judged)}")
    for why in not_judged[:5]:
        console.print(f"  not judged: {why}", highlight=False)


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    data = write_synthetic_set(OUT / "set", 42)
    console.print(
        Panel(
            "MEASURING JUDGE (--judge verifiers): each rubric a measurement answers is measured on the audio;\n"
            "the others are not judged. No model is asked: these are NOT MMAE results.",
            style="bold yellow",
        )
    )
    runs: list[Path] = []
    for name in ("identity", "noise"):
        audioeval(
            "mmae",
            "baseline",
            name,
            "--metadata",
            data.metadata,
            "--audio_root",
            data.root,
            "--out",
            OUT / name,
        )
    systems = {
        "identity": OUT / "identity" / "predictions.json",
        "noise": OUT / "noise" / "predictions.json",
        "oracle edit": data.oracle_predictions,
    }
    for name, preds in systems.items():
        out = OUT / "scores" / name.replace(" ", "_")
        audioeval(
            "mmae", "score",
            "--predictions", preds,
            "--metadata", data.metadata,
            "--audio_root", data.root,
            "--judge", JUDGE,
            "--output_dir", out,
            "--name", name.replace(" ", "-"),
        )  # fmt: skip
        measured(out)
        runs.append(out)
    # the comparison: one board over the three runs, as any user makes it (the systems are named)
    audioeval("leaderboard", *runs, "-o", OUT / "leaderboard")
    console.print(f"Run directories: {OUT / 'scores'}; comparison: {OUT / 'leaderboard' / 'index.html'}")


if __name__ == "__main__":
    main()
