"""`make demo`: score a small synthetic MMAE-format set with the Identity and Noise baselines.

Offline and on CPU. The judge here is a DEMONSTRATION JUDGE: the rule-based fake
OpenAI-compatible server of the test suite, which decodes the audio it is sent and measures
tones. It is not Qwen3-Omni, and the numbers are not MMAE results; they show the pipeline
(votes, shuffles, resume, taxonomy, confidence intervals) end to end. Point `--base_urls`
at a real vLLM judge for real scores (see README).
"""

from __future__ import annotations

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
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer  # noqa: E402

OUT = Path(os.environ.get("AUDIOEVAL_DEMO_OUT", ROOT / "demo_out")) / "mmae"
DEMO_JUDGE = "demo-fake-judge (not Qwen3-Omni)"
console = Console()


def audioeval(*args: object) -> None:
    cmd = ["audioeval", *map(str, args)]
    console.print(f"[dim]$ {' '.join(cmd)}[/dim]", highlight=False)
    subprocess.run([sys.executable, "-m", "audioeval.cli.main", *map(str, args)], check=True)


def main() -> None:
    shutil.rmtree(OUT, ignore_errors=True)
    data = write_synthetic_set(OUT / "set", 42)
    console.print(
        Panel(
            "DEMONSTRATION JUDGE: a rule-based fake OpenAI-compatible server that decodes the audio "
            "and measures tones.\nIt is NOT Qwen3-Omni and these are NOT MMAE results.",
            style="bold yellow",
        )
    )
    runs: list[Path] = []
    with FakeJudgeServer(FakeJudgeConfig(model=DEMO_JUDGE)) as judge:
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
                "mmae",
                "score",
                "--predictions",
                preds,
                "--metadata",
                data.metadata,
                "--audio_root",
                data.root,
                "--base_urls",
                judge.base_url,
                "--output_dir",
                out,
                "--concurrency",
                8,
                "--model",
                DEMO_JUDGE,
                "--name",
                name.replace(" ", "-"),
            )
            runs.append(out)
    # the comparison: one board over the three runs, as any user makes it (the systems are named)
    audioeval("leaderboard", *runs, "-o", OUT / "leaderboard")
    console.print(f"Run directories: {OUT / 'scores'}; comparison: {OUT / 'leaderboard' / 'index.html'}")


if __name__ == "__main__":
    main()
