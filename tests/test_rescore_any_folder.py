"""`audioeval rescore DIR` reads every kind of output folder (run, mmae score, mcq score) and
gives the same numbers with the model and judge stopped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from audioeval.cli.main import app
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
from tests.fakes.mcq_server import FakeMcqConfig, FakeMcqServer
from tests.test_mcq_rubrics import predictions as mcq_predictions
from tests.test_mcq_rubrics import score_cli as mcq_score_cli

runner = CliRunner()


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _without_run_info(tax: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in tax.items() if k != "run"}


def test_rescore_of_an_mmae_score_folder_gives_the_same_taxonomy(small_synthetic_set, tmp_path: Path) -> None:
    out = tmp_path / "scores"
    # the identity baseline (input returned unchanged) and a judge giving some unreadable
    # answers: neither all 100 nor all 0
    ident = runner.invoke(
        app,
        [
            "mmae", "baseline", "identity", "--metadata", str(small_synthetic_set.metadata),
            "--audio_root", str(Path(small_synthetic_set.metadata).parent), "--out", str(tmp_path / "ident"),
        ],
    )  # fmt: skip
    assert ident.exit_code == 0, ident.output
    with FakeJudgeServer(FakeJudgeConfig(garbage_rate=0.2, seed=3)) as server:
        first = runner.invoke(
            app,
            [
                "mmae", "score", "--predictions", str(tmp_path / "ident" / "predictions.json"),
                "--metadata", str(small_synthetic_set.metadata), "--base_urls", server.base_url,
                "--output_dir", str(out), "--no-progress", "--bootstrap", "200", "--seed", "7",
            ],
        )  # fmt: skip
        assert first.exit_code in (0, 4), first.output
    before = _json(out / "taxonomy.json")
    assert 0 < before["overall"]["CR"] and before["overall"]["IFR"] < 100
    per_sample = _json(out / "per_sample.json")
    # the judge is gone: rescoring must not need it
    again = runner.invoke(app, ["rescore", str(out)])
    assert again.exit_code == 0, again.output
    assert "no judge call" in again.output
    assert _without_run_info(_json(out / "taxonomy.json")) == _without_run_info(before)
    assert _json(out / "per_sample.json") == per_sample
    # `mmae rescore` reads the same folder, and refuses metadata other than the one scored
    same = runner.invoke(
        app,
        ["mmae", "rescore", str(out), "--metadata", str(small_synthetic_set.metadata), "--bootstrap", "200"],
    )
    assert same.exit_code == 0, same.output
    assert _without_run_info(_json(out / "taxonomy.json")) == _without_run_info(before)
    other = tmp_path / "other-meta.json"
    other.write_text(json.dumps(_json(small_synthetic_set.metadata)[:5]))
    refused = runner.invoke(app, ["mmae", "rescore", str(out), "--metadata", str(other)])
    assert refused.exit_code == 2 and "metadata_sha256 differs" in refused.output


def test_rescore_of_an_mcq_score_folder_gives_the_same_summary(tmp_path: Path) -> None:
    preds = mcq_predictions(tmp_path)
    out = tmp_path / "out"
    with FakeMcqServer(FakeMcqConfig(judge_garbage_first=2)) as server:
        assert mcq_score_cli(preds, out, server.base_url).exit_code == 0
    before = _json(out / "mcq_summary.json")
    assert isinstance(_json(out / "summary.json")["results"], list)  # the run's summary, as everywhere
    per_item = (out / "per_item.jsonl").read_text()
    again = runner.invoke(app, ["rescore", str(out)])
    assert again.exit_code == 0, again.output
    assert _json(out / "mcq_summary.json") == before
    assert (out / "per_item.jsonl").read_text() == per_item
    assert before["rubrics"]["scored"] == 5  # the stored judgements were read again
    assert (out / "rubrics" / "results.jsonl").is_file()
    # the folder is a run directory: its records are all rescoring needs, not the predictions file
    assert (out / "run.json").is_file()
    preds.unlink()
    for name in ("mcq_summary.json", "per_item.jsonl", "disagreements.jsonl"):
        (out / name).write_text("{}\n" if name == "mcq_summary.json" else "")
    (out / "mcq_summary.json").write_text(json.dumps({"benchmark": "mmar", **{k: before[k] for k in KEPT}}))
    again = runner.invoke(app, ["rescore", str(out)])
    assert again.exit_code == 0, again.output
    assert _json(out / "mcq_summary.json") == before
    assert (out / "per_item.jsonl").read_text() == per_item
    # a folder of an earlier audioeval kept the export in summary.json: a rescore reads its
    # settings there, writes mcq_summary.json, and summary.json becomes the run's summary
    (out / "mcq_summary.json").unlink()
    (out / "summary.json").write_text(json.dumps({"benchmark": "mmar", **{k: before[k] for k in KEPT}}))
    again = runner.invoke(app, ["rescore", str(out)])
    assert again.exit_code == 0, again.output
    assert _json(out / "mcq_summary.json") == before
    assert isinstance(_json(out / "summary.json")["results"], list)


KEPT = ("predictions", "predictions_sha256", "prediction_key", "rubrics", "bootstrap")
"""What rescoring reads of the old summary: where the items came from and the settings."""


def test_rescore_names_an_mmae_folder_of_an_earlier_version(tmp_path: Path) -> None:
    (tmp_path / "signature.json").write_text(json.dumps({"benchmark": "mmae"}))
    (tmp_path / "results.jsonl").write_text("")
    res = runner.invoke(app, ["rescore", str(tmp_path)])
    assert res.exit_code == 2
    assert "earlier audioeval" in res.output and "audioeval mmae score" in res.output


def test_rescore_refuses_a_folder_no_command_wrote(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    res = runner.invoke(app, ["rescore", str(tmp_path)])
    assert res.exit_code == 2
    assert "run.json: not found: not a run directory" in res.output
