"""`mmae score` after its last judge answer: the command's report comes from what the
exporter just wrote (`preset.WrittenFiles`), not from reading the files back, and it is what
reading them back gives; the summaries of the records kept in memory (attempts recorded by
this process, their verdicts not parsed again) are those of the records read back by a rescore."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from audioeval.benchmarks.mmae.preset import WrittenFiles
from audioeval.benchmarks.preset import PresetOutcome, PresetValues
from audioeval.core.redact import REDACTED, register_secret
from audioeval.presets.preset_run import preset_values, rescore_preset, run_preset
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
from tests.mmae_helpers import config, score_preset


def _as_read(outcome: PresetOutcome) -> dict[str, Any]:
    """Every field of an outcome, input errors as their records (errors compare by identity)."""
    out: dict[str, Any] = {}
    for f in fields(outcome):
        value = getattr(outcome, f.name)
        if f.name in ("skipped", "failed_outputs"):
            value = [(e.as_record(), e.describe()) for e in value]
        out[f.name] = value
    return out


def _from_files(folder: Path, cfg: dict[str, Any]) -> PresetOutcome:
    preset = score_preset()
    return preset.outcome(folder, preset_values(preset, cfg))


@pytest.fixture()
def varied(small_synthetic_set: Any, tmp_path: Path) -> tuple[Path, Path]:
    """The small synthetic set with inputs that fail: samples without a prediction or whose
    output file is missing, a prediction of no sample, a metadata sample that cannot be read."""
    preds = json.loads(small_synthetic_set.oracle_predictions.read_text())
    meta = json.loads(small_synthetic_set.metadata.read_text())
    kept = [p for k, p in enumerate(preds) if k not in (3, 9)]
    kept[5]["messages"][-1]["content"][0]["audio_url"] = "oracle/gone.wav"  # no such file
    kept.append({**kept[0], "id": "no-such-sample"})
    broken = {**meta[1], "id": "broken"}
    del broken["rubrics"]
    meta.append(broken)
    root = tmp_path / "set"
    root.mkdir()
    for name, data in (("preds.json", kept), ("meta.json", meta)):
        (root / name).write_text(json.dumps(data))
    return root / "preds.json", root / "meta.json"


def test_report_from_memory_equals_the_files_read_back(
    varied: tuple[Path, Path], small_synthetic_set: Any, tmp_path: Path
) -> None:
    preds, meta = varied
    out = tmp_path / "o"
    judge = FakeJudgeConfig(invalid_rate=0.45, wrong_rate=0.2, seed=3)
    with FakeJudgeServer(judge) as s:
        cfg = config(
            preds,
            meta,
            out,
            [s.base_url],
            audio_root=small_synthetic_set.root,
            max_attempts=4,
            max_failed="1.0",
        )
        first = run_preset(score_preset(), cfg)
        written = first.engine.exports[out]
        assert isinstance(written, WrittenFiles)
        tax = first.outcome.figures
        assert (
            tax["overall"]["n_rubrics_failed"] and tax["failed_outputs"]["n"] == 3 and first.outcome.skipped
        )
        assert first.outcome.first_failure is not None
        assert _as_read(first.outcome) == _as_read(_from_files(out, cfg))
        again = run_preset(score_preset(), cfg)  # failed samples judged again: records of two runs
    assert again.engine.reused and _as_read(again.outcome) == _as_read(_from_files(out, cfg))
    rescored = rescore_preset(score_preset(), out, {"metadata": meta})
    assert _as_read(rescored) == _as_read(_from_files(out, cfg))


def test_a_judge_that_echoes_the_key_is_reported_from_memory_as_from_the_files(
    synthetic_set: Any, tmp_path: Path
) -> None:
    secret = "sk-post-judging-secret-4711"
    out = tmp_path / "o"
    with FakeJudgeServer(FakeJudgeConfig(api_key="right", echo_credentials=401)) as s:
        cfg = config(
            synthetic_set.oracle_predictions, synthetic_set.metadata, out, [s.base_url],
            api_key=secret, max_attempts=1, judge_votes=1, probe=False, max_failed="1.0",
        )  # fmt: skip
        done = run_preset(score_preset(), cfg)
    assert done.outcome.first_failure is not None and "HTTP 401" in done.outcome.first_failure
    assert secret not in json.dumps(_as_read(done.outcome), default=str)
    assert _as_read(done.outcome) == _as_read(_from_files(out, cfg))


def test_a_failure_reason_from_memory_is_redacted_as_the_file_holds_it(tmp_path: Path) -> None:
    secret = "sk-post-judging-memory-0815"
    register_secret(secret)
    tax = {"overall": {"n": 1, "n_skipped": 0, "n_rubrics_failed": 1}, "run": {}}
    rows = [{"id": "a", "n_failed": 1, "failed_rubrics": [2], "output_failed": None}]
    written = WrittenFiles(tmp_path, tax, rows, [], [], {("a", 2): f"proxy said {secret}"})
    got = score_preset().outcome(tmp_path, PresetValues(exported=written))
    assert got.first_failure == f"id 'a', rubric 2: proxy said {REDACTED}"
    assert got.failed == 1 and got.total == 1


def test_summaries_of_the_kept_records_equal_those_of_a_rescore(
    small_synthetic_set: Any, tmp_path: Path
) -> None:
    out = tmp_path / "o"
    with FakeJudgeServer(
        FakeJudgeConfig(invalid_rate=0.3, wrong_rate=0.25, first_letter_rate=0.2, seed=8)
    ) as s:
        cfg = config(
            small_synthetic_set.oracle_predictions,
            small_synthetic_set.metadata,
            out,
            [s.base_url],
            max_attempts=5,
            max_failed="1.0",
        )
        run = run_preset(score_preset(), cfg)
    pair = out / "mmae" / "predictions" / "summary.json"
    run_pair = json.loads(pair.read_text())
    run_tax = json.loads((out / "taxonomy.json").read_text())
    assert run_pair["reliability"]["mmae_rubrics"]["fleiss_kappa"]["value"] is not None
    # every answer parsed again
    rescore_preset(score_preset(), out, {"metadata": small_synthetic_set.metadata})
    again_pair = json.loads(pair.read_text())
    again_tax = json.loads((out / "taxonomy.json").read_text())
    for key in ("metrics", "breakdowns", "reliability", "failed_outputs", "scored", "failed"):
        assert run_pair[key] == again_pair[key], key
    run_tax.pop("run"), again_tax.pop("run")
    assert run_tax == again_tax
    assert run.outcome.figures["reliability"] == again_tax["reliability"]
