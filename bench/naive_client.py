"""A naive MMAE judge client: the yardstick `bench/command_phases.py` holds `mmae score` to.

A thread pool of `--workers` (16) threads, each judging one rubric at a time with blocking
`urllib` POSTs: the referenced clips sent whole as WAV data URIs (the file's bytes, base64),
the options shuffled per attempt, the answer's JSON `choice` read, until three valid votes
(at most 10 attempts). No records, no cache, no resume, no outputs beyond a one-line JSON
summary on stdout (calls, rubrics passed, wall seconds). Not part of the package.

    python bench/naive_client.py --predictions P.json --metadata M.json --judge URL[,URL]
"""

from __future__ import annotations

import argparse
import base64
import itertools
import json
import random
import re
import threading
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REF = re.compile(r"<audio\s+([A-Za-z_]+\d*)\s*(?:\[[^\]]*\])?\s*>")
CHOICE = re.compile(r'"choice"\s*:\s*"([A-Z])"')
SYSTEM = "You judge audio clips. Answer only from the audio."
INSTRUCTIONS = 'Answer the multiple-choice question. Return JSON with keys "reason" and "choice".'


def clips(sample: dict[str, Any], pred: dict[str, Any], root: Path) -> dict[str, str]:
    """label (`input1`, `output`) -> data URI of the file."""
    out: dict[str, str] = {}
    paths: dict[str, str] = {}
    n = 0
    for msg in pred["messages"]:
        for part in msg["content"] if isinstance(msg["content"], list) else []:
            if part.get("type") == "audio":
                if msg["role"] == "assistant":
                    paths["output"] = part["audio_url"]
                else:
                    n += 1
                    paths[f"input{n}"] = part["audio_url"]
    for label, rel in paths.items():
        data = (root / rel).read_bytes()
        out[label] = "data:audio/wav;base64," + base64.b64encode(data).decode("ascii")
    return out


def request(
    model: str, rubric: dict[str, Any], audio: dict[str, str], rng: random.Random
) -> tuple[bytes, list[str], str]:
    """(JSON body, options in the order shown, their letters) of one attempt."""
    options = [rubric["right_choice"], *rubric["wrong_choices"]]
    labels = list(dict.fromkeys(REF.findall(rubric["question"])))
    shown = options[:]
    rng.shuffle(shown)
    letters = "ABCDEFGH"[: len(shown)]
    content: list[dict[str, Any]] = []
    for i, label in enumerate(labels):
        content.append({"type": "text", "text": ("\n" if i else "") + f"<audio {label}>: "})
        content.append({"type": "audio_url", "audio_url": {"url": audio[label]}})
    choices = "\n".join(f"{lt}. {tx}" for lt, tx in zip(letters, shown, strict=True))
    content.append(
        {
            "type": "text",
            "text": f"\n\n{INSTRUCTIONS}\n\nQuestion: {rubric['question']}\n\nChoices:\n{choices}",
        }
    )
    body = {
        "model": model,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": content}],
        "max_tokens": 1024,
    }
    return json.dumps(body).encode(), shown, letters


def vote(text: str, shown: list[str], letters: str, right: str) -> bool | None:
    """Whether a readable answer picked the right option (None: no valid vote)."""
    m = CHOICE.search(text)
    if m is None or m.group(1) not in letters:
        return None
    return shown[letters.index(m.group(1))] == right


def judge_rubric(
    urls: itertools.cycle,
    lock: threading.Lock,
    model: str,
    rubric: dict[str, Any],
    audio: dict[str, str],
    seed: int,
    votes: int = 3,
    max_attempts: int = 10,
) -> tuple[int, int]:
    """(calls, valid votes for the right choice) of one rubric."""
    rng = random.Random(seed)
    good = calls = valid = 0
    while valid < votes and calls < max_attempts:
        data, shown, letters = request(model, rubric, audio, rng)
        with lock:
            url = next(urls)
        req = urllib.request.Request(url + "/chat/completions", data, {"Content-Type": "application/json"})
        calls += 1
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                text = json.loads(resp.read())["choices"][0]["message"]["content"] or ""
        except OSError:
            continue
        right = vote(text, shown, letters, rubric["right_choice"])
        if right is None:
            continue
        valid += 1
        good += right
    return calls, good


def rubric_jobs(meta: list[dict[str, Any]], preds: dict[str, Any], root: Path) -> Iterator[tuple[Any, ...]]:
    """(rubric, its sample's clips, seed) of every rubric, in the metadata's order (a sample's
    clips are read when its first rubric is reached, so work starts at once)."""
    for k, sample in enumerate(meta):
        audio = clips(sample, preds[sample["id"]], root)
        for r, rubric in enumerate(sample["rubrics"]):
            yield rubric, audio, k * 1000 + r


def client_args() -> argparse.Namespace:
    """The command line of a yardstick client (this one and `floor_client.py`)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--predictions", type=Path, required=True)
    ap.add_argument("--metadata", type=Path, required=True)
    ap.add_argument("--judge", required=True)
    ap.add_argument("--workers", type=int, default=16)
    ap.add_argument("--model", default="Qwen3Omni-Instruct")
    args = ap.parse_args()
    return args


def main() -> None:
    args = client_args()
    t0 = time.perf_counter()
    meta = json.loads(args.metadata.read_text())
    preds = {p["id"]: p for p in json.loads(args.predictions.read_text())}
    root = args.predictions.parent
    urls, lock = itertools.cycle(args.judge.split(",")), threading.Lock()
    with ThreadPoolExecutor(args.workers) as pool:
        futures = [
            pool.submit(judge_rubric, urls, lock, args.model, rubric, audio, seed)
            for rubric, audio, seed in rubric_jobs(meta, preds, root)
        ]
        results = [f.result() for f in futures]
    calls = sum(c for c, _ in results)
    passed = sum(g >= 2 for _, g in results)
    print(
        json.dumps(
            {
                "samples": len(meta),
                "rubrics": len(results),
                "calls": calls,
                "passed": passed,
                "wall_s": time.perf_counter() - t0,
            }
        )
    )


if __name__ == "__main__":
    main()
