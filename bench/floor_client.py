"""The floor: the fewest seconds any asyncio client in Python needs for the naive client's
calls against the same fake judge, start-up included. `bench/command_phases.py` runs it beside
`mmae score` and `bench/naive_client.py` so the table says what is physically reachable.

The same requests as the naive client (`naive_client.request`: same bodies, three valid votes
per rubric, at most 10 attempts), sent by `--workers` coroutines over one aiohttp session
with kept-alive connections, each rubric's attempts in turn. Nothing is written; a one-line
JSON summary on stdout. Not part of the package.

    python bench/floor_client.py --predictions P.json --metadata M.json --judge URL[,URL]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import time
from typing import Any

import aiohttp
from naive_client import client_args, request, rubric_jobs, vote


async def judge_rubric(
    session: aiohttp.ClientSession, urls: itertools.cycle, model: str, job: tuple[Any, ...]
) -> tuple[int, int]:
    rubric, audio, seed = job
    rng = random.Random(seed)
    good = calls = valid = 0
    while valid < 3 and calls < 10:
        data, shown, letters = request(model, rubric, audio, rng)
        calls += 1
        try:
            async with session.post(
                next(urls) + "/chat/completions", data=data, headers={"Content-Type": "application/json"}
            ) as resp:
                text = (await resp.json())["choices"][0]["message"]["content"] or ""
        except aiohttp.ClientError:
            continue
        right = vote(text, shown, letters, rubric["right_choice"])
        if right is not None:
            valid += 1
            good += right
    return calls, good


async def run(args: argparse.Namespace) -> list[tuple[int, int]]:
    meta = json.loads(args.metadata.read_text())
    preds = {p["id"]: p for p in json.loads(args.predictions.read_text())}
    jobs = rubric_jobs(meta, preds, args.predictions.parent)
    urls = itertools.cycle(args.judge.split(","))
    results: list[tuple[int, int]] = []
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

        async def worker() -> None:
            for job in jobs:  # one shared iterator: each worker takes the next rubric
                results.append(await judge_rubric(session, urls, args.model, job))

        await asyncio.gather(*(worker() for _ in range(args.workers)))
    return results


def main() -> None:
    args = client_args()
    t0 = time.perf_counter()
    results = asyncio.run(run(args))
    print(
        json.dumps(
            {
                "rubrics": len(results),
                "calls": sum(c for c, _ in results),
                "passed": sum(g >= 2 for _, g in results),
                "wall_s": time.perf_counter() - t0,
            }
        )
    )


if __name__ == "__main__":
    main()
