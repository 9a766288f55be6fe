"""The fake judge servers a bench script measures against (`tests/fakes/judge_server.py`, each
in its own process, answering after `latency` seconds, audio memoised), stopped on exit."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def judge_servers(latency: float, n: int = 2) -> Iterator[tuple[list[subprocess.Popen[str]], list[str]]]:
    """`n` fake judge servers: (their processes, their base URLs); terminated when the block ends."""
    procs: list[subprocess.Popen[str]] = []
    urls: list[str] = []
    try:
        for _ in range(n):
            p = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tests.fakes.judge_server",
                    "--latency",
                    str(latency),
                    "--memoize-audio",
                ],
                cwd=ROOT,
                stdout=subprocess.PIPE,
                text=True,
            )
            procs.append(p)
            assert p.stdout is not None
            urls.append(p.stdout.readline().strip())
        yield procs, urls
    finally:
        for p in procs:
            p.terminate()
            p.wait()
