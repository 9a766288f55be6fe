"""Golden figures: the same runs give the same figures, and one figure is equal in every file.

The golden runs (`tests/golden/runs.py`), built offline and deterministically in a temporary
folder — baselines, predictions files, and the fakes of `tests/fakes` on 127.0.0.1:

- `demo`: `audioeval run -b demo-speech-en,demo-mcq -m oracle,constant` (understanding and
  reasoning boards);
- `demo_asr`: `-b demo-speech-en -m mine=predictions:examples/demo_hyps.jsonl,oracle` (the
  README's example);
- `demo_mcq`: `-b demo-mcq -m longest-choice,random-choice:0` (breakdown by difficulty);
- `mmae`, `mmae_clean`: `mmae score` of 12 synthetic samples (oracle edits and the Identity
  baseline, one sample without a prediction), judged by the fake judge: `mmae` with wrong
  and invalid answers (some rubrics failed), `mmae_clean` with wrong answers only;
- `mcq_mmar_missing`, `mcq_mmar_full`, `mcq_mmau_missing`: `mcq score` of 40 generated items
  answered in every form the official match reads (exact, letter, reasoning, `<think>`,
  empty…), an MMAR JSONL file with and without items that lack the prediction key, and an
  MMAU JSON file with such items;
- `judge_eval`: `judge-eval` of a noisy fake yes/no judge on two subsets, the threshold tuned
  on a dev split; `judge_eval_fixed`: the same in the official generate mode at its default
  threshold (known before judging: every figure is the pair summary's);
- `codec`: `audioeval codec --codec mulaw,codec2:3200` on two demo speech clips (ASR-WER,
  SIM, DNSMOS, PESQ/STOI by the metric models);

then `audioeval leaderboard RUN` of each run and `audioeval report RUN`.

Files read (`tests/golden/figures.py`): every JSON and JSONL file of each run folder —
`summary.json` at the top and per pair, `skipped.json`, `model_skipped.json`, and the
benchmarks' exports `taxonomy.json`, `per_sample.json`, `results.jsonl`, `skipped.json`,
`failed_outputs.json` (MMAE), `mcq_summary.json`, `per_item.jsonl`, `disagreements.jsonl`
(MCQ), `judge_eval_summary.json`, `per_row.jsonl`, `unscored.jsonl` (judge-eval) — but not
the engine's store and settings (`records.jsonl`, `signature.json`, `run.json`,
`sample_ids.json`); each leaderboard's `leaderboard.json`; the report's data (the JSON of
`report/index.html` and its sample chunks `report/samples/*.js`). Volatile values are left
out: times, versions, process ids, the judge's calls and cache hits, endpoints.

`test_every_golden_figure_is_unchanged` compares every figure with
`tests/golden/figures.json` (relative tolerance 1e-9) and prints each one that moved (file,
path, before, after); `python -m tests.golden.record` rewrites that file on purpose.

`test_one_figure_is_equal_in_every_file` checks each `Link` of `tests/golden/links.py` (which
key in which file means the same quantity as which key in another, compared in the units the
files declare) on the runs it applies to. Where the files disagree today, the case is marked
`xfail(strict=True)` with what disagrees (`KNOWN`): the mark must go once the figure is
computed once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.golden.figures import collect, flat
from tests.golden.links import LINKS, Link, RunFolder
from tests.golden.record import FIGURES_FILE, REL_TOL, differences, read_golden
from tests.golden.runs import RUNS, build_runs

KNOWN: dict[tuple[str, str], str] = {}
"""(link, run) -> what disagrees there today. Each case fails now; the mark goes once fixed."""


@pytest.fixture(scope="module")
def golden_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("golden")
    build_runs(root)
    return root


def test_every_golden_figure_is_unchanged(golden_root: Path) -> None:
    before = flat(read_golden())
    after = flat(collect(golden_root))
    changed, missing, added = differences(before, after)
    lines = [f"{len(changed)} figure(s) changed, {len(missing)} missing (FILE::PATH: before -> after):"]
    lines += changed[:150] + missing[:150]
    if added:
        lines.append(f"({len(added)} new figure(s), not in {FIGURES_FILE.name}: {added[:5]} …)")
    assert not changed and not missing, "\n".join(lines)


def test_the_golden_file_holds_every_run() -> None:
    runs = {key.split("/")[1] for key in read_golden() if key.startswith("runs/")}
    assert runs == {run.name for run in RUNS}
    assert len(flat(read_golden())) > 5000 and REL_TOL == 1e-9


def _cases() -> list[object]:
    cases = []
    for link in LINKS:
        for run in link.runs:
            reason = KNOWN.get((link.name, run))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cases.append(pytest.param(link, run, id=f"{link.name}-{run}", marks=marks))
    return cases


def test_every_known_discrepancy_names_a_checked_case() -> None:
    checked = {(link.name, run) for link in LINKS for run in link.runs}
    assert set(KNOWN) <= checked, sorted(set(KNOWN) - checked)


@pytest.mark.parametrize(("link", "run"), _cases())
def test_one_figure_is_equal_in_every_file(golden_root: Path, link: Link, run: str) -> None:
    pairs = list(link.pairs(RunFolder(golden_root, run)))
    assert pairs, f"{link.name}: no figure of it in run {run}"
    bad = [p.describe() for p in pairs if not p.equal(REL_TOL)]
    head = f"{link.a} vs {link.b}: {len(bad)} of {len(pairs)} differ in run {run}:"
    assert not bad, "\n".join([head, *bad[:60]])
