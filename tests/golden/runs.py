"""The golden runs: a fixed set of run folders, built offline and deterministically.

Every input is generated here (or shipped with the package) and every model or judge is a
baseline, a predictions file or one of the fakes of `tests/fakes` on 127.0.0.1, so the same
code gives the same figures. What each run is, and which of its files the figures are read
from, is listed in `RUNS` and in `tests/test_golden_figures.py`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
DEMO_HYPS = ROOT / "examples" / "demo_hyps.jsonl"
RESAMPLES = "200"
LEADERBOARDS = "leaderboards"
"""Where `audioeval leaderboard RUN` of each run writes (`<root>/leaderboards/<run>/`)."""


def invoke(*args: str) -> str:
    """`audioeval ARGS` in this process; its console output. AssertionError naming the
    command when it does not exit 0."""
    from typer.testing import CliRunner

    from audioeval.cli.main import app

    res = CliRunner().invoke(app, list(args), catch_exceptions=False)
    assert res.exit_code == 0, f"audioeval {' '.join(args)}: exit {res.exit_code}\n{res.output[-3000:]}"
    return res.output


def run_cmd(out: Path, benchmarks: list[str], models: list[str]) -> None:
    args = ["run", "-o", str(out), "--no-progress", "--resamples", RESAMPLES]
    args += [x for b in benchmarks for x in ("-b", b)] + [x for m in models for x in ("-m", m)]
    invoke(*args)


# --- the runs ---


def demo(out: Path) -> None:
    """Both shipped demo sets with the baselines that serve both: two boards (understanding,
    reasoning)."""
    run_cmd(out, ["demo-speech-en", "demo-mcq"], ["oracle", "constant"])


def demo_asr(out: Path) -> None:
    """The README's example: a predictions file of transcripts beside the oracle."""
    run_cmd(out, ["demo-speech-en"], [f"mine=predictions:{DEMO_HYPS}", "oracle"])


def demo_mcq(out: Path) -> None:
    """The text-only choice baselines on the demo MCQ set (breakdowns by difficulty)."""
    run_cmd(out, ["demo-mcq"], ["longest-choice", "random-choice:0"])


def _mmae(out: Path, *, wrong_rate: float, invalid_rate: float) -> None:
    """`mmae score` on 12 synthetic samples: the oracle edit for even samples, the Identity
    baseline for odd ones, the last sample without a prediction (a failed output, counted),
    judged by the fake judge with `wrong_rate` and `invalid_rate` (seeded per request)."""
    from audioeval.benchmarks.mmae.baselines import write_baseline
    from audioeval.benchmarks.mmae.synthetic import write_synthetic_set
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
    from tests.mmae_helpers import config, run_mmae

    data_dir = out.parent / f"{out.name}.data"
    data = write_synthetic_set(data_dir / "set", 12)
    identity, errors = write_baseline(
        "identity", metadata=data.metadata, audio_root=data.root, out_dir=data_dir / "p"
    )
    assert not errors, errors
    oracle = json.loads(data.oracle_predictions.read_text(encoding="utf-8"))
    by_id = {x["id"]: x for x in json.loads(identity.read_text(encoding="utf-8"))}
    mixed = [x if i % 2 == 0 else by_id[x["id"]] for i, x in enumerate(oracle)][:-1]
    preds = data_dir / "predictions.json"
    preds.write_text(json.dumps(mixed), encoding="utf-8")
    judge = FakeJudgeConfig(wrong_rate=wrong_rate, invalid_rate=invalid_rate, seed=5)
    with FakeJudgeServer(judge) as server:
        cfg = config(
            preds, data.metadata, out, [server.base_url], audio_root=data.root, n_resamples=int(RESAMPLES)
        )
        run_mmae({**cfg, "name": "mixed", "judge_max_attempts": 4})


def mmae(out: Path) -> None:
    """MMAE with a noisy judge: wrong answers, and invalid ones that leave some rubrics with
    too few valid votes in the 4 attempts allowed (failed rubrics)."""
    _mmae(out, wrong_rate=0.06, invalid_rate=0.12)


def mmae_clean(out: Path) -> None:
    """MMAE with a judge that answers every request validly (some answers wrong): no rubric
    fails."""
    _mmae(out, wrong_rate=0.08, invalid_rate=0.0)


MCQ_ITEMS = 40
MMAR_FIELDS = {
    "modality": ("sound", "music", "speech", "mix-sound-music", "mix-sound-speech"),
    "category": ("Signal Layer", "Perception Layer", "Semantic Layer", "Cultural Layer"),
    "sub-category": ("Counting", "Timbre", "Emotion"),
}
MMAU_FIELDS = {
    "task": ("sound", "music", "speech"),
    "difficulty": ("easy", "hard", "medium"),
    "sub-category": ("Source", "Genre", "Speaker", "Count"),
}
CHOICES = (
    ("a barking dog", "a meowing cat", "a singing bird", "a roaring lion"),
    ("two", "three", "four", "five"),
    ("happy", "sad", "angry", "calm"),
)


def _prediction(i: int, choices: tuple[str, ...], answer: str) -> str | None:
    """The i-th item's prediction: a fixed cycle of the forms models answer in (None: the
    item has no prediction key)."""
    wrong = next(c for c in choices if c != answer)
    letter = "ABCD"[choices.index(answer)]
    forms: list[str | None] = [
        answer,
        wrong,
        f"({letter}) {answer}",
        letter,
        f"Let me weigh the options: {', '.join(choices)}. The answer is {answer}.",
        "",
        f"{answer}, not {wrong}",
        None,
        f"<think>maybe {wrong}</think>{answer}",
        answer.upper(),
    ]
    return forms[(i * 7) % len(forms)]


def mcq_items(
    fields: dict[str, tuple[str, ...]], key: str, audio_field: str, *, missing: bool
) -> list[dict[str, Any]]:
    """`MCQ_ITEMS` items in the benchmark's own format; with `missing`, every tenth-form item
    lacks the prediction key, otherwise it holds the answer."""
    items = []
    for i in range(MCQ_ITEMS):
        choices = CHOICES[i % len(CHOICES)]
        answer = choices[(i // 3) % len(choices)]
        item: dict[str, Any] = {"id": f"q{i:03d}", audio_field: f"audio/q{i:03d}.wav", "question": "Which?"}
        item.update({"choices": list(choices), "answer": answer})
        item.update(
            {name: values[(i * (n + 2)) % len(values)] for n, (name, values) in enumerate(fields.items())}
        )
        prediction = _prediction(i, choices, answer)
        if prediction is None and not missing:
            prediction = answer
        if prediction is not None:
            item[key] = prediction
        items.append(item)
    return items


def _mcq(out: Path, bench: str, items: list[dict[str, Any]], suffix: str) -> None:
    from audioeval.benchmarks.mcq.definitions import get_benchmark
    from tests.run_helpers import mcq_score_file

    preds = out.parent / f"{out.name}.predictions{suffix}"
    if suffix == ".jsonl":
        preds.write_text("".join(json.dumps(x) + "\n" for x in items), encoding="utf-8")
    else:
        preds.write_text(json.dumps(items, indent=1), encoding="utf-8")
    mcq_score_file(get_benchmark(bench), preds, out, resamples=int(RESAMPLES))


def mcq_mmar_missing(out: Path) -> None:
    """`mcq score` of an MMAR predictions file (JSONL) in which some items lack the key."""
    _mcq(out, "mmar", mcq_items(MMAR_FIELDS, "answer_prediction", "audio_path", missing=True), ".jsonl")


def mcq_mmar_full(out: Path) -> None:
    """The same MMAR items, every one with a prediction."""
    _mcq(out, "mmar", mcq_items(MMAR_FIELDS, "answer_prediction", "audio_path", missing=False), ".jsonl")


def mcq_mmau_missing(out: Path) -> None:
    """`mcq score` of an MMAU predictions file (a JSON list) in which some items lack the key."""
    _mcq(out, "mmau", mcq_items(MMAU_FIELDS, "model_output", "audio_id", missing=True), ".json")


def judge_eval(out: Path) -> None:
    """`judge-eval` of a noisy fake yes/no judge on two subsets, the threshold tuned on a dev
    split (the bench and judge of tests/test_judge_eval.py)."""
    from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer
    from tests.test_judge_eval import JUDGE, judge_bench

    data = out.parent / f"{out.name}.data"
    bench, dev = judge_bench(data, n=24), judge_bench(data, name="dev.jsonl", n=16)
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE, noise=0.3, seed=3)) as server:
        invoke("judge-eval", "--bench", str(bench), "--judge", server.base_url, "--judge-model", JUDGE,
               "--tune-on", str(dev), "-o", str(out), "--no-progress", "--resamples", RESAMPLES)  # fmt: skip


def judge_eval_fixed(out: Path) -> None:
    """`judge-eval` of the same bench and judge in the official generate mode (`all_at_once`)
    at its default threshold (0.8), known before judging: every figure is the pair summary's."""
    from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer
    from tests.test_judge_eval import JUDGE, judge_bench

    data = out.parent / f"{out.name}.data"
    bench = judge_bench(data, n=24)
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE, noise=0.3, seed=3)) as server:
        invoke("judge-eval", "--bench", str(bench), "--judge", server.base_url, "--judge-model", JUDGE,
               "--mode", "all_at_once", "-o", str(out), "--no-progress", "--resamples", RESAMPLES)  # fmt: skip


def codec(out: Path) -> None:
    """`audioeval codec` of two built-in codecs on the first two demo speech clips (ASR-WER,
    SIM, DNSMOS, PESQ/STOI by the metric models)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    invoke("codec", "--codec", "mulaw,codec2:3200", "-b", "demo-speech-en", "--limit", "2",
           "-o", str(out), "--no-progress", "--resamples", RESAMPLES)  # fmt: skip


@dataclass(frozen=True)
class GoldenRun:
    name: str
    build: Callable[[Path], None]


RUNS = (
    GoldenRun("demo", demo),
    GoldenRun("demo_asr", demo_asr),
    GoldenRun("demo_mcq", demo_mcq),
    GoldenRun("mmae", mmae),
    GoldenRun("mmae_clean", mmae_clean),
    GoldenRun("mcq_mmar_missing", mcq_mmar_missing),
    GoldenRun("mcq_mmar_full", mcq_mmar_full),
    GoldenRun("mcq_mmau_missing", mcq_mmau_missing),
    GoldenRun("judge_eval", judge_eval),
    GoldenRun("judge_eval_fixed", judge_eval_fixed),
    GoldenRun("codec", codec),
)


def build_runs(root: Path) -> dict[str, Path]:
    """Every golden run under `root/runs/<name>`, then `audioeval leaderboard` of each into
    `root/leaderboards/<name>` and `audioeval report` of each (its `report/`)."""
    folders = {}
    for run in RUNS:
        folder = root / "runs" / run.name
        run.build(folder)
        folders[run.name] = folder
    for name, folder in folders.items():
        invoke("leaderboard", str(folder), "-o", str(root / LEADERBOARDS / name), "--resamples", RESAMPLES)
        invoke("report", str(folder))
    return folders
