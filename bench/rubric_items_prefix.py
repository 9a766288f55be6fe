"""How much of the judge's prompts a serving engine's prefix cache can reuse, for the judges
that ask several questions of the same clips: MMAE's rubric judge (`mmae score`, 9 rubrics ×
3 votes a sample, one rubric naming an input before the output) and `rubric_items` (one
request per item).

The requests of a sample send the system prompt and the clips first, byte for byte the same
(MMAE: `output` first, then the inputs by number), the question last; the sample's first
request goes alone and the rest once it is answered (`engine/run_judge.SampleJudge`). Each
fake judge answers after a fixed latency and logs every request body it reads and when it
answered it (`tests/fakes/prefix_log.py`): a request repeats the longest leading run of prompt
parts it shares with a request answered before it arrived (what a server's prefix cache holds
by then), up to the end of its audio; prompt tokens are approximated per part (text:
characters / 4; audio: the characters of its encoded payload). Reported: the share of prompt
tokens repeated, the ideal share (every request of a sample but its first repeats its whole
audio prefix; a first one, the system prompt), and the first over the second (goal ≥ 0.9).

For `rubric_items` the fake yes/no judge also keeps the last 16 request prefixes (system prompt
+ audio part) in an LRU, as a server's KV cache would: the share of requests whose prefix was
there, in the order the engine sent them and, for comparison, shuffled.

Writes the "## Judge requests: shared audio prefix" section of docs/performance.md.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import tempfile
from collections import OrderedDict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from doc_section import replace_section  # noqa: E402  (bench/ is the script's folder)
from judge_throughput import N_RUBRICS, write_set  # noqa: E402

from audioeval.engine.evaluate import EvalRequest, evaluate_async  # noqa: E402
from audioeval.engine.model_specs import ModelConfig  # noqa: E402
from audioeval.engine.run_judge import JudgeSettings  # noqa: E402
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer  # noqa: E402
from tests.fakes.mcq_server import tone_wav  # noqa: E402
from tests.fakes.prefix_log import prefix_share  # noqa: E402
from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer  # noqa: E402

DOC = ROOT / "docs" / "performance.md"
SECTION = "## Judge requests: shared audio prefix"
CLIPS, ITEMS, CACHE = 200, 8, 16
JUDGE = "AnyAudio-Judge-7B"
LATENCY = 0.02
MMAE_SAMPLES = 300


def make_bench(folder: Path) -> Path:
    rows = []
    for i in range(CLIPS):
        tone_wav(folder / f"c{i}.wav", 300 + 5 * i, seconds=0.3)
        rubric = [
            {"dimension": "pitch", "question": f"Is there a steady tone near {300 + 5 * i + k} Hz?"}
            for k in range(ITEMS)
        ]
        rows.append({"id": f"c{i}", "audio": f"c{i}.wav", "caption": "a tone", "rubric": rubric})
    (folder / "bench.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    spec = folder / "bench.yaml"
    spec.write_text(
        f"name: prefix\ntask: audio_instruct\nsource: {{type: jsonl, path: {folder / 'bench.jsonl'}}}\n"
    )
    return spec


def lru_hits(keys: list[str], capacity: int) -> int:
    lru: OrderedDict[str, None] = OrderedDict()
    hits = 0
    for key in keys:
        hits += key in lru
        lru[key] = None
        lru.move_to_end(key)
        while len(lru) > capacity:
            lru.popitem(last=False)
    return hits


def measure(concurrency: int) -> dict[str, float]:
    with (
        tempfile.TemporaryDirectory() as tmp,
        YesNoJudgeServer(
            YesNoJudgeConfig(model=JUDGE, prefix_cache=CACHE, latency_s=LATENCY, log_prefixes=True)
        ) as server,
    ):
        spec = make_bench(Path(tmp))
        judge = JudgeSettings(urls=[server.base_url], model=JUDGE, concurrency=concurrency, temperature=0.0)
        request = EvalRequest(
            benchmarks=[str(spec)],
            models=[ModelConfig(name="echo", type="baseline", baseline="echo")],
            output_dir=Path(tmp) / "out",
            judge=judge,
            progress=False,
            resamples=0,
        )
        asyncio.run(evaluate_async(request))
        stats = server.stats
        shuffled = list(stats.audio_sha256)
        random.Random(0).shuffle(shuffled)
        return {
            "requests": stats.requests,
            "engine": stats.prefix_hits / stats.requests,
            "random": lru_hits(shuffled, CACHE) / stats.requests,
            "ideal_hits": (ITEMS - 1) / ITEMS,
            **prefix_share(server.judge.prefix_log.requests),
        }


def measure_mmae(concurrency: int) -> dict[str, float]:
    """`mmae score` (3 votes a rubric) of a set whose clips are unique per sample."""
    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeJudgeServer(FakeJudgeConfig(latency_s=LATENCY, memoize_audio=True, log_prefixes=True)) as server,
    ):
        preds, meta = write_set(Path(tmp), MMAE_SAMPLES)
        subprocess.run(
            [sys.executable, "-m", "audioeval.cli.main", "mmae", "score", "--predictions", str(preds),
             "--metadata", str(meta), "--audio_root", tmp, "--judge", server.base_url, "--output_dir",
             str(Path(tmp) / "out"), "--judge-concurrency", str(concurrency), "--no-progress"],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        return prefix_share(server.judge.prefix_log.requests)


def update_doc(text: str) -> None:
    replace_section(SECTION, text, DOC)


def share_row(label: str, concurrency: int, m: dict[str, float]) -> str:
    return (
        f"| {label} | {concurrency} | {int(m['requests'])} | {int(m['samples'])} | {m['prompt_tokens']:,} "
        f"| {m['repeated']:.3f} | {m['ideal']:.3f} | {m['of_ideal']:.3f} |"
    )


def main() -> None:
    shares, hits = [], []
    for concurrency in (8, 64):
        m = measure_mmae(concurrency)
        print(f"mmae, concurrency {concurrency}: {m}")
        shares.append(
            share_row(f"MMAE rubrics, {MMAE_SAMPLES} samples × {N_RUBRICS} × 3 votes", concurrency, m)
        )
    for concurrency in (8, 32, 128):
        m = measure(concurrency)
        print(f"rubric_items, concurrency {concurrency}: {m}")
        shares.append(share_row(f"`rubric_items`, {CLIPS} clips × {ITEMS} items", concurrency, m))
        hits.append(
            f"| {concurrency} | {int(m['requests'])} | {m['engine']:.3f} | {m['random']:.3f} | {m['ideal_hits']:.3f} |"
        )
    text = (
        f"{SECTION}\n\n"
        "`python bench/rubric_items_prefix.py`: the judges that ask several questions of the same "
        "clips, against fake judges that answer after "
        f"{LATENCY:g} s and log each request body and when they answered it "
        "(`tests/fakes/prefix_log.py`). A sample's requests send the system prompt and the clips "
        "first, byte for byte the same (MMAE: `output` first, then the inputs by number, whatever "
        "order the question names them in), the question last; the sample's first request goes "
        "alone, the rest once it is answered (`engine/run_judge.SampleJudge`). A request repeats the "
        "longest leading run of prompt parts it shares with a request answered before it arrived, "
        "up to the end of its audio. Prompt tokens approximated per part: text characters / 4, "
        "audio the characters of its encoded payload. `ideal`: every request of a sample but its "
        "first repeats its whole audio prefix (a first one, the system prompt). Goal: ≥ 0.9 of the "
        "ideal. The MMAE set is `bench/judge_throughput.py`'s (clips unique per sample; rubric 9 "
        "names `<audio input1>` before the output). MMAR-Rubrics' judge sends no audio (each vote "
        "is the same text request).\n\n"
        "| judge | concurrency | requests | samples | prompt tokens | share repeated | ideal | of ideal |\n"
        "|---|---|---|---|---|---|---|---|\n" + "\n".join(shares) + "\n\n"
        f"`rubric_items`, requests whose prefix was among the last {CACHE} (an LRU, as a server's "
        "KV cache keeps blocks): in the order the engine sent them, and the same requests "
        "shuffled; `ideal`: each clip encoded once.\n\n"
        "| judge concurrency | requests | prefix hits, engine order | prefix hits, random order | ideal |\n"
        "|---|---|---|---|---|\n" + "\n".join(hits) + "\n\n"
        "Before 2026-12-06 (a sample's requests sent together; MMAE's clips in the order the question "
        "names them), measured the same way: 0.571 / 0.010 of the ideal for MMAE at concurrency 8 / 64, "
        "0.023 / 0.018 / 0.039 for `rubric_items` at 8 / 32 / 128; LRU hits 0.875 / 0.875 / 0.873. The "
        "LRU hits are lower now because more samples are in flight while their first requests "
        "are answered than an LRU of 16 prefixes holds (a server's cache holds far more). What waiting "
        'for the first answer costs against a fixed-latency judge: "MMAE judge throughput".\n'
    )
    update_doc(text)
    print(f"wrote the '{SECTION}' section of {DOC}")


if __name__ == "__main__":
    main()
