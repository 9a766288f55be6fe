"""An MMAE sample is validated once where it enters and travels typed with the run's sample:
the scorer and the exporters read the typed item, nothing rebuilds it from the sample's
fields; a sample read back from records.jsonl (rescore) is parsed once."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from audioeval.benchmarks.mmae.records import MmaeSample
from tests.mmae_helpers import config, rescore_mmae, run_mmae


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How many times each sample id was made an `MmaeSample` (validated or rebuilt)."""
    counts: Counter[str] = Counter()
    original = MmaeSample.__init__

    def counting(self: MmaeSample, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        counts[self.id] += 1

    monkeypatch.setattr(MmaeSample, "__init__", counting)
    return counts


def test_one_validation_per_sample_in_a_score_run_and_in_a_rescore(
    small_synthetic_set, judge_server, tmp_path, made
):
    meta = small_synthetic_set.metadata
    ids = [m["id"] for m in json.loads(meta.read_text())]
    out = tmp_path / "o"
    run = run_mmae(config(small_synthetic_set.oracle_predictions, meta, out, [judge_server.base_url]))
    assert run.taxonomy["overall"]["n"] == len(ids)
    assert made == Counter({sid: 1 for sid in ids})

    made.clear()  # read back from records.jsonl: each sample parsed once
    lines = (out / "mmae" / "predictions" / "records.jsonl").read_bytes()
    rescore_mmae(out, meta, n_resamples=50)
    assert made == Counter({sid: 1 for sid in ids})
    # the records are stored as before: the typed item is not written
    assert (out / "mmae" / "predictions" / "records.jsonl").read_bytes() == lines
