"""Writes docs/replication.md: published per-sample outputs scored again.

For each published set (../shared/data/published/, its SOURCES.md): the figure its authors
published, the figure their own scoring code gives on the published outputs (where that code
is a computation we can run: AudioBench's WER is jiwer's summed measures over the logged
texts), and audioeval's figure, read as the tool wrote the file (`audioeval run -m
NAME=predictions:LOG -b SPEC`, the log itself as the benchmark), under the matching
convention; then whether they are equal at the published precision, or why not.

    python scripts/replication.py            # rewrites docs/replication.md
    python scripts/replication.py --check    # exit 1 when the committed page differs
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUBLISHED = ROOT.parent / "shared" / "data" / "published"
PAGE = ROOT / "docs" / "replication.md"


@dataclass(frozen=True)
class PublishedSet:
    model: str
    log: str
    board_set: str
    board_metric: str
    language: str | None = None

    @property
    def path(self) -> Path:
        return PUBLISHED / "audiobench" / self.model / self.log


SETS = (
    PublishedSet("Qwen2-Audio-7B-Instruct", "librispeech_test_clean_wer_score.json", "librispeech_test_clean", "wer", "en"),
    PublishedSet("Qwen2-Audio-7B-Instruct", "aishell_asr_zh_test_wer_score.json", "aishell_asr_zh_test", "wer", "zh"),
    PublishedSet("whisper_large_v3", "librispeech_test_other_wer_score.json", "librispeech_test_other", "wer", "en"),
    PublishedSet("whisper_large_v3", "tedlium3_test_wer_score.json", "tedlium3_test", "wer", "en"),
    PublishedSet("Qwen2-Audio-7B-Instruct", "mmau_mini_string_match_score.json", "mmau_mini", "string_match"),
)  # fmt: skip


def _spec(s: PublishedSet) -> str:
    """The run spec of a log scored as it stands (no normaliser: its texts are already
    AudioBench's normalised texts)."""
    head = f"name: {s.board_set}\nsource:\n  type: audiobench_log\n  path: {json.dumps(str(s.path))}\n"
    if s.board_metric == "wer":
        return head + f"task: asr\nlanguage: {s.language}\nscorers:\n  - wer: {{normaliser: []}}\n"
    return head + (
        "task: mcq\nscorers: [audiobench_string_match]\n"
        "metrics: [mean:audiobench_string_match]\nheadline: mean:audiobench_string_match\n"
    )


def audioeval_figure(s: PublishedSet, work: Path) -> tuple[float, int]:
    """audioeval's headline and its n, from `run -m NAME=predictions:LOG -b SPEC`."""
    from audioeval import api

    spec = work / f"{s.board_set}.yaml"
    spec.write_text(_spec(s), encoding="utf-8")
    result = api.evaluate(
        [f"{s.model}=predictions:{s.path}"], [spec], output_dir=work / s.board_set, resamples=0, probe=False
    )
    pair = result.results[0]
    value = pair["metrics"][pair["headline"]]["value"]
    return (value * 100 if s.board_metric == "string_match" else value), pair["n"]


def official_figure(s: PublishedSet) -> float | None:
    """AudioBench's computation on its logged texts: jiwer's measures summed, Σ(S+D+I) / Σ(S+D+H)
    (`compute_score`); a string-match log: the mean of its items' `rate_score` × 100."""
    log = json.loads(s.path.read_text(encoding="utf-8"))
    if s.board_metric == "wer":
        import jiwer

        edits = words = 0
        for row in log["sample_wer"]:
            out = jiwer.process_words(row["reference"], row["prediction"])
            edits += out.substitutions + out.deletions + out.insertions
            words += out.substitutions + out.deletions + out.hits
        return edits / words
    rates = [row["rate_score"] for row in log["details"]]
    return sum(rates) / len(rates) * 100


def published_figure(s: PublishedSet) -> float:
    board = json.loads((PUBLISHED / "audiobench" / "leaderboard_organize_model_results.json").read_text())
    value = board[s.board_set][s.board_metric][s.model]
    return float(value["judge_score"] if isinstance(value, dict) else value)


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def _shown(x: float | None, metric: str) -> str:
    if x is None:
        return "–"
    return f"{x * 100:.4f} %" if metric == "wer" else f"{x:.2f} %"


def rows() -> list[str]:
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for s in SETS:
            published, official = published_figure(s), official_figure(s)
            ours, n = audioeval_figure(s, Path(tmp))
            metric = "WER" if s.board_metric == "wer" else "string match"
            if _same(ours, published) and official is not None and _same(official, published):
                verdict = "equal"
            elif s.board_metric == "string_match":
                verdict = (
                    f"official code and audioeval equal on the {n} items the log keeps; the published "
                    "figure is over all 1,000 items of test-mini"
                )
            else:
                verdict = "differs"
            out.append(
                f"| AudioBench `{s.model}/{s.log}` | {metric} | {n:,} | {_shown(published, s.board_metric)} "
                f"| {_shown(official, s.board_metric)} | {_shown(ours, s.board_metric)} | {verdict} |"
            )
    return out


HEAD = """# Replication: published outputs scored again

Written by `scripts/replication.py` from the published per-sample outputs listed in
`../shared/data/published/SOURCES.md` (kept byte for byte as published, never copied into
this repository); `tests/test_replication_page.py` checks that this page is what the script
writes.

Each row: the figure its authors published (AudioBench's leaderboard,
`leaderboard/organize_model_results.json`), the figure of their own scoring code on the
published outputs (AudioBench's `compute_score`: jiwer's measures summed over the logged
texts; a string-match log: its items' `rate_score`), and audioeval's figure from
`audioeval run -m MODEL=predictions:LOG -b SPEC`, the log read as AudioBench writes it
(predictions format `audiobench_wer_log` / `audiobench_score_log`, the log itself the
benchmark through source type `audiobench_log`, rows matched by reference text). An
AudioBench log keeps only its normalised texts, so they are scored as they are (`wer` with no
normaliser); on raw outputs the matching convention is `--profile audiobench`
(docs/fidelity.md). Equal means equal to the published float.

| set | metric | n | published | official code | audioeval | equal, or why not |
|---|---|---|---|---|---|---|
"""


def page() -> str:
    return HEAD + "\n".join(rows()) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/replication.md differs")
    args = ap.parse_args()
    if not PUBLISHED.is_dir():
        print(f"{PUBLISHED} not present: the published outputs are needed", file=sys.stderr)
        return 2
    text = page()
    if args.check:
        return 0 if PAGE.read_text(encoding="utf-8") == text else 1
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
