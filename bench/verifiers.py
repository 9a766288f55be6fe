"""How many rubric items of an MMAE-format set a measurement answers, and how often rightly.

A synthetic MMAE-format set (`mmae synth`'s tones, `benchmarks/mmae/synthetic.py`) of N
samples, each rubric list extended by four questions of other forms: speech presence, silence,
reversal against the input, and one no rule recognises (naturalness). Five systems edit it,
each output's truth known by construction: `oracle` (the right edit), `identity` (the input
unchanged), `reversed` (the input backwards), `noise` (white noise) and `silence`.

Per item: the check (`judge/checkable.py`, MMAE's rules `benchmarks/mmae/check_rules.py`)
measured on the clips, mapped onto the item's Yes / No choice, compared with the truth.
Reported: coverage (items with a check / all items), answered (measured yes/no / all items),
agreement with the truth on answered items, and the judge calls a `first` mode would save
(answered items × votes per rubric). A tone question's truth is "yes" when the tone fills at
least 60 % of the slice, "no" when it fills none of it; between, the item is counted as
ambiguous and left out of the agreement.

Writes the "## Acoustic verifiers" section of docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
import zlib
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from doc_section import replace_section  # noqa: E402  (bench/ is the script's folder)

from audioeval.audio.verifiers.measurement import Audio, load_audio  # noqa: E402
from audioeval.benchmarks.mmae.check_rules import MMAE_CHECK_RULES  # noqa: E402
from audioeval.benchmarks.mmae.synthetic import BASE, DURATION, write_synthetic_set  # noqa: E402
from audioeval.judge.audio_refs import find_mentions  # noqa: E402
from audioeval.judge.checkable import VERIFIERS_VERSION, choice_for, measure, plan_check  # noqa: E402

SECTION = "## Acoustic verifiers"
VOTES = 3
AUDIT_WRONG_RATE = 0.1  # the fake judge's share of wrong answers in the audit run
SYSTEMS = ("oracle", "identity", "reversed", "noise", "silence")
EXTRA = (
    ("speech", "Is there speech in <audio output>?", "Yes, there is speech", "No, there is no speech"),
    ("silent", "Is <audio output> silent?", "Yes, it is silent", "No, it is not silent"),
    ("reversed", "Is <audio output> the reverse of <audio input1>?", "Yes, it is reversed", "No, it is not"),
    (
        "natural",
        "Does the edit in <audio output> sound natural?",
        "Yes, it sounds natural",
        "No, it does not",
    ),
)
_FREQ_RE = re.compile(r"near (\d+) Hz")


def _tone_truth(question: str, tones: list[tuple[float, float, float]]) -> str | None:
    freq = float(_FREQ_RE.search(question).group(1))
    mention = next(m for m in find_mentions(question) if m.label == "output")
    s, e = mention.start, mention.end
    s = 0.0 if s is None else (DURATION + s if s < 0 else s)
    e = DURATION if e is None else (DURATION + e if e < 0 else e)
    cover = sum(max(0.0, min(e, b) - max(s, a)) for f, a, b in tones if abs(f - freq) < 1) / (e - s)
    return "yes" if cover >= 0.6 else "no" if cover == 0 else None


def _truth(system: str, kind: str, rubric: dict, right_is_yes: bool) -> str | None:
    if kind == "tone":
        if system == "oracle":
            return "yes" if right_is_yes else "no"
        tones = {"identity": BASE, "reversed": [(440.0, 0.0, 3.0), (660.0, 0.0, 2.0)]}.get(system, [])
        return _tone_truth(rubric["question"], tones)
    if kind == "speech":
        return "no"
    if kind == "silent":
        return "yes" if system == "silence" else "no"
    if kind == "reversed":
        return "yes" if system == "reversed" else "no"
    return None  # naturalness: no truth by construction, and no check either


def _output(system: str, sid: str, data_root: Path, rate: int) -> Audio:
    if system == "oracle":
        return load_audio(data_root / "oracle" / f"{sid}.wav", "output")
    inp = load_audio(data_root / "wav" / sid / "audio1.wav", "output")
    n = inp.samples.shape[0]
    if system == "identity":
        return inp
    if system == "reversed":
        return Audio(inp.samples[::-1].copy(), rate, "output")
    if system == "noise":
        rng = np.random.default_rng(zlib.crc32(sid.encode()))
        return Audio.of(rng.standard_normal(n) * 0.1, rate, "output")
    return Audio.of(np.zeros(n), rate, "output")


def run(n_samples: int, audit_wrong_rate: float = AUDIT_WRONG_RATE) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        data = write_synthetic_set(Path(tmp) / "set", n_samples)
        meta = json.loads(data.metadata.read_text())
        counts: Counter = Counter()
        by_kind: Counter = Counter()
        wrong_examples: list[str] = []
        t0 = time.perf_counter()
        for s in meta:
            inputs = {
                f"input{n}": load_audio(p, f"input{n}")
                for n in (1, 2)
                if (p := data.root / "wav" / s["id"] / f"audio{n}.wav").is_file()
            }
            rate = inputs["input1"].rate
            rubrics = [(r, "tone") for r in s["rubrics"]] + [
                ({"question": q, "right_choice": y, "wrong_choices": [no, "None of the above"]}, k)
                for k, q, y, no in EXTRA
            ]
            for system in SYSTEMS:
                clips = {**inputs, "output": _output(system, s["id"], data.root, rate)}
                for r, kind in rubrics:
                    counts["items"] += 1
                    check = plan_check(r, MMAE_CHECK_RULES)
                    if check is None:
                        continue
                    counts["checkable"] += 1
                    options = [r["right_choice"], *r["wrong_choices"]]
                    picked = choice_for(measure(check, clips.__getitem__).answer, options)
                    if picked is None:
                        counts["cannot tell"] += 1
                        continue
                    counts["answered"] += 1
                    right_is_yes = r["right_choice"].lower().startswith("yes")
                    truth = _truth(system, kind, r, right_is_yes)
                    if truth is None:
                        counts["ambiguous"] += 1
                        continue
                    said = "yes" if picked.lower().startswith("yes") else "no"
                    counts["scored"] += 1
                    by_kind[(kind, said == truth)] += 1
                    if said == truth:
                        counts["agree"] += 1
                    elif len(wrong_examples) < 5:
                        wrong_examples.append(
                            f"{system} {s['id']}: {r['question']} measured {said}, truth {truth}"
                        )
        seconds = time.perf_counter() - t0
        audit = _audit(data) if audit_wrong_rate else None
    return {
        "audit": audit,
        "audit_wrong_rate": audit_wrong_rate,
        "n_samples": n_samples,
        "counts": dict(counts),
        "by_kind": {f"{k}:{ok}": v for (k, ok), v in by_kind.items()},
        "seconds": seconds,
        "wrong": wrong_examples,
    }


def _audit(data) -> dict:
    """`mmae score --verify audit` of the oracle edits against the test suite's fake judge, made
    to pick a wrong option for a share of requests: the audit figure should see that share."""
    import subprocess

    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer

    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeJudgeServer(FakeJudgeConfig(wrong_rate=AUDIT_WRONG_RATE, memoize_audio=True)) as judge,
    ):
        out = Path(tmp) / "audit"
        subprocess.run(
            [sys.executable, "-m", "audioeval.cli.main", "mmae", "score", "--predictions",
             str(data.oracle_predictions), "--metadata", str(data.metadata), "--audio_root", str(data.root),
             "--judge", judge.base_url, "--output_dir", str(out), "--verify", "audit", "--concurrency", "16"],
            check=True, capture_output=True, text=True,
        )  # fmt: skip
        figure = json.loads((out / "taxonomy.json").read_text())["reliability"]["mmae_rubrics"][
            "verifier_audit"
        ]
    return {k: v for k, v in figure.items() if k != "disagreeing"}


def section(res: dict) -> str:
    c = res["counts"]
    items = c["items"]
    kinds = sorted({k.split(":")[0] for k in res["by_kind"]})
    rows = []
    for k in kinds:
        ok, bad = res["by_kind"].get(f"{k}:True", 0), res["by_kind"].get(f"{k}:False", 0)
        rows.append(f"| {k} | {ok + bad} | {ok / max(1, ok + bad):.4f} |")
    return "\n".join(
        [
            SECTION,
            "",
            f"`python bench/verifiers.py --samples {res['n_samples']}` (verifiers version {VERIFIERS_VERSION}), "
            f"measured {time.strftime('%Y-%m-%d')} on 2 cores (CPU only): "
            f"a synthetic MMAE-format set of {res['n_samples']} samples (`mmae synth` tones, each rubric list "
            "extended by a speech, a silence, a reversal and a naturalness question), edited by five systems "
            "whose outputs' truth is known by construction (oracle edit, input unchanged, input reversed, "
            "white noise, silence). Every item is planned by MMAE's check rules and measured on the clips; "
            "the measured yes / no is mapped onto the item's choice and compared with the truth.",
            "",
            "| figure | value |",
            "|---|---|",
            f"| items (samples × systems × rubrics) | {items} |",
            f"| coverage: items with a check | {c.get('checkable', 0) / items:.4f} |",
            f"| answered by measurement (yes / no) | {c.get('answered', 0) / items:.4f} |",
            f"| cannot tell (left to the judge) | {c.get('cannot tell', 0)} |",
            f"| answered but truth ambiguous (tone fills 0-60 % of the slice) | {c.get('ambiguous', 0)} |",
            f"| agreement with the truth on answered items | {c.get('agree', 0) / max(1, c.get('scored', 0)):.4f} "
            f"({c.get('agree', 0)} / {c.get('scored', 0)}) |",
            f"| judge calls a `first` mode would save ({VOTES} votes per rubric) | "
            f"{c.get('answered', 0) * VOTES} of {items * VOTES} ({c.get('answered', 0) / items:.1%}) |",
            f"| measuring time, 2 cores | {res['seconds']:.1f} s |",
            "",
            "| question form | answered with a truth | agreement |",
            "|---|---|---|",
            *rows,
            "",
            "Disagreements: " + ("; ".join(res["wrong"]) if res["wrong"] else "none."),
            *_audit_lines(res),
        ]
    )


def _audit_lines(res: dict) -> list[str]:
    a = res.get("audit")
    if not a:
        return []
    axes = ", ".join(f"{k} {v['rate']:.3f} (n {v['n']})" for k, v in a["by_axis"].items())
    return [
        "",
        f"`audit` mode against the test judge (tests/fakes/judge_server.py, which measures tones itself, made "
        f"to pick a wrong option for {res['audit_wrong_rate']:.0%} of requests; 3 votes, strict majority) on the "
        f"oracle edits: agreement of judge and measurement {a['value']:.4f} over {a['n']} rubrics ({axes}). "
        "The measurement matched the truth on every oracle item above, so each disagreement is a rubric whose "
        "majority verdict the injected wrong answers changed; they are listed in taxonomy.json.",
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=300)
    ap.add_argument("--no-doc", action="store_true")
    ap.add_argument("--no-audit", action="store_true", help="skip the audit run against the test judge")
    args = ap.parse_args()
    res = run(args.samples, 0.0 if args.no_audit else AUDIT_WRONG_RATE)
    text = section(res)
    print(text)
    if not args.no_doc:
        replace_section(SECTION, text)


if __name__ == "__main__":
    main()
