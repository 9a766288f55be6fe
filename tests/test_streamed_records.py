"""Reading a records file a line at a time gives what reading it whole gave: the same
records, the same line numbers for the lines passed over, a cut-short last line left out."""

from __future__ import annotations

import json
from pathlib import Path

from audioeval.store.jsonl import read_jsonl
from audioeval.store.run_folder import read_pair

GOOD = {"id": "a", "error": None, "scores": {"acc": {"values": {"correct": 1}, "stats": {"correct": 1}}}}


def test_line_numbers_blank_lines_bare_cr_and_a_cut_tail(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    lines = [
        json.dumps(GOOD),  # 1
        "",  # 2: blank, skipped
        "not json",  # 3
        "[1, 2]",  # 4: not an object
        '{"id": "b", "error": "boom"}\r{"id": 7}',  # 5 and 6: a bare CR ends a line too
        json.dumps({**GOOD, "id": "c"}),  # 7
    ]
    path.write_bytes(("\n".join(lines) + "\n").encode() + b'{"id": "cut')  # a last line cut short
    report = read_jsonl(path)
    assert [r["id"] for r in report.records] == ["a", "b", 7, "c"]
    assert report.line_numbers == [1, 5, 6, 7]
    assert report.bad_lines == [3, 4]
    assert report.truncated_tail
    stored = read_pair(path.parent, None, signature={})
    assert [r.id for r in stored.records] == ["a", "b", "c"]
    assert [str(p.line) for p in stored.lines] == ["3", "4", "6", "8"]
    assert "not a JSON object" in stored.ignored[0] and "not a sample id" in stored.ignored[2]
    assert stored.lines[3].why.startswith("cut short")


def test_a_missing_file_reads_as_empty(tmp_path: Path) -> None:
    assert read_jsonl(tmp_path / "none.jsonl").records == []
    assert read_pair(tmp_path / "none", None).records == []


# ---- the records kept in memory while a pair runs are the records read back -----------------


def _checked_kept_records(monkeypatch) -> list[tuple[list, list]]:
    """Every pair's `final_records()` beside what reading its file back gives."""
    from audioeval.engine import evaluate

    seen: list[tuple[list, list]] = []
    original = evaluate.PairRun.final_records

    def final_records(self):  # type: ignore[no-untyped-def]
        used_memory = self.records is None and self.kept is not None
        records = original(self)
        if used_memory:
            seen.append((records, read_pair(self.folder, self.run_id, expected_ids=self.ids).records))
        return records

    monkeypatch.setattr(evaluate.PairRun, "final_records", final_records)
    return seen


def test_kept_records_equal_the_read_back_mmae_with_failures_and_a_resume(
    small_synthetic_set, tmp_path, monkeypatch
):
    from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
    from tests.mmae_helpers import config, run_mmae

    seen = _checked_kept_records(monkeypatch)
    out = tmp_path / "a"
    # one rubric's votes come back empty: its sample is a recorded failure, judged again on a rerun
    with FakeJudgeServer(FakeJudgeConfig(empty_when="near 990 Hz", wrong_rate=0.2)) as judge:
        args = (small_synthetic_set.oracle_predictions, small_synthetic_set.metadata, out, [judge.base_url])
        first = run_mmae(config(*args, n_resamples=50))
        second = run_mmae(config(*args, n_resamples=50))  # a resume: stored records, then new ones
    assert first.reused == 0 and second.reused > 0 and first.failed_outputs == second.failed_outputs
    assert len(seen) == 2
    for kept, read_back in seen:
        assert kept == read_back and any(not r.ok for r in kept)


def test_kept_records_equal_the_read_back_mcq(tmp_path, monkeypatch):
    from audioeval.benchmarks.mcq.preset import SCORE
    from audioeval.presets.preset_run import run_preset

    seen = _checked_kept_records(monkeypatch)
    items = [
        {"id": f"q{i}", "question": "Which?", "choices": ["Dog", "Cat", "Bird"], "answer": "Cat",
         "modality": "sound", "category": "Signal Layer", "sub-category": "Counting",
         **({"answer_prediction": p} if p is not None else {})}
        for i, p in enumerate(["Cat", "(B)", "Answer: A", "<think>Dog?</think>Bird", "", None, "cat and dog"])
    ]  # fmt: skip
    preds = tmp_path / "preds.jsonl"
    preds.write_text("".join(json.dumps(x) + "\n" for x in items))
    cfg = {"benchmark": "mmar", "predictions": preds, "output_dir": tmp_path / "o", "progress": False}
    run_preset(SCORE, cfg)
    run_preset(SCORE, cfg)  # every record reused
    assert len(seen) == 2
    for kept, read_back in seen:
        assert kept == read_back and len(kept) >= len(items)


def test_a_redacted_line_reads_the_file_back(tmp_path: Path) -> None:
    from audioeval.core.redact import register_secret
    from audioeval.store.jsonl import JsonlAppender

    register_secret("sk-kept-test-secret")
    with JsonlAppender(tmp_path / "r.jsonl") as writer:
        assert writer.append(GOOD) is True
        assert writer.append({**GOOD, "id": "b", "error": "key sk-kept-test-secret refused"}) is False
    assert "sk-kept-test-secret" not in (tmp_path / "r.jsonl").read_text()
