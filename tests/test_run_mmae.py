"""MMAE through `audioeval run`: source type `mmae`, model `predictions:FILE`, task
`audio_edit` scored by the rubric judge (the fake judge over real HTTP on 127.0.0.1)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.benchmarks.mmae.baselines import write_baseline
from audioeval.benchmarks.mmae.preset import CROSSES, TAXONOMY
from audioeval.benchmarks.mmae.taxonomy import operation_keys
from audioeval.benchmarks.registry import resolve_benchmark
from audioeval.benchmarks.resolved import resolve
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from audioeval.core.record import SampleRecord
from audioeval.metrics.pair_summary import summarise_records
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer, dead_url
from tests.mmae_helpers import config, rubric_count, run_mmae

runner = CliRunner()
JUDGE = "fake-judge"


def write_spec(path: Path, metadata: Path, name: str = "mmae-syn") -> Path:
    path.write_text(
        f"name: {name}\ntask: audio_edit\n"
        f"source: {{type: mmae, path: {json.dumps(str(metadata))}}}\n"
        f"taxonomy: {json.dumps(TAXONOMY)}\ncrosses: {json.dumps(CROSSES)}\n",
        encoding="utf-8",
    )
    return path


def run_cli(*args: str) -> Any:
    return runner.invoke(app, ["run", *args, "--no-progress", "--resamples", "50"], catch_exceptions=False)


def run_predictions(spec: Path, preds: Path, judge_url: str, out: Path) -> Any:
    """`audioeval run` of an MMAE predictions file against a judge, into `out`."""
    return run_cli(
        "--benchmark", str(spec), "--model", f"predictions:{preds}",
        "--judge", judge_url, "--judge-model", JUDGE, "-o", str(out),
    )  # fmt: skip


def records(folder: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (folder / "records.jsonl").read_text().splitlines()]


def pair_folder(out: Path, preds: Path) -> Path:
    (folder,) = [p for p in (out / "mmae-syn").iterdir() if p.is_dir()]
    assert folder.name.endswith(preds.name)
    return folder


@pytest.fixture()
def fake_judge():
    with FakeJudgeServer(FakeJudgeConfig(model=JUDGE)) as server:
        yield server


@pytest.fixture(scope="module")
def identity_preds(small_synthetic_set, tmp_path_factory) -> Path:
    preds, errors = write_baseline(
        "identity",
        metadata=small_synthetic_set.metadata,
        audio_root=small_synthetic_set.root,
        out_dir=tmp_path_factory.mktemp("identity"),
    )
    assert not errors
    return preds


@pytest.mark.parametrize("which", ["oracle", "identity"])
def test_run_equals_mmae_score_per_sample(which, small_synthetic_set, identity_preds, fake_judge, tmp_path):
    preds = small_synthetic_set.oracle_predictions if which == "oracle" else identity_preds
    spec = write_spec(tmp_path / "mmae.yaml", small_synthetic_set.metadata)
    out = tmp_path / "run"
    res = run_predictions(spec, preds, fake_judge.base_url, out)
    assert res.exit_code == 0, res.output
    run_requests = fake_judge.stats.requests
    assert run_requests > 0

    ref = run_mmae(
        config(
            preds, small_synthetic_set.metadata, tmp_path / "score", [fake_judge.base_url],
            model=JUDGE, audio_root=small_synthetic_set.root, n_resamples=50, use_cache=False,
        )
    )  # fmt: skip
    expected = {row["id"]: row for row in ref.per_sample}
    recs = {r["id"]: r for r in records(pair_folder(out, preds))}
    n = len(json.loads(small_synthetic_set.metadata.read_text()))
    assert set(recs) == set(expected) and len(recs) == n
    for sid, row in expected.items():
        rec = recs[sid]
        assert rec["error"] is None, rec["error"]
        score = rec["scores"]["mmae_rubrics"]
        assert score["values"] == {"IFR": row["IFR"], "CR": row["CR"], "EMR": row["EMR"]}, sid
        answers = rec["judge"]["mmae_rubrics"]  # the stored judge answers: a field of the record
        assert answers["rubric_scores"] == row["rubric_scores"], sid
        assert rec["taxonomy"]["modality"] == row["modality"]
        assert rec["taxonomy"]["complexity"] == row["complexity"]
        # every judge attempt is stored, with the same vote rule as `mmae score`
        assert all(len([a for a in r["attempts"] if a["valid"]]) == 3 for r in answers["rubrics"])

    pair = json.loads((pair_folder(out, preds) / "summary.json").read_text())
    overall = ref.taxonomy["overall"]
    assert pair["headline"] == "mean:ifr" and pair["scored"] == n and pair["failed"] == 0
    assert pair["metrics"]["mean:ifr"]["value"] == pytest.approx(overall["IFR"], abs=0.005)
    assert pair["metrics"]["mean:cr"]["value"] == pytest.approx(overall["CR"], abs=0.005)
    assert pair["metrics"]["mean:em"]["value"] == pytest.approx(overall["EMR"], abs=0.005)
    assert set(pair["breakdowns"]) == {*TAXONOMY, *CROSSES}
    assert set(pair["breakdowns"]["complexity_group"]) == {"single", "multiple"}
    for group, block in ref.taxonomy["complexity"].items():
        assert pair["breakdowns"]["complexity"][group]["mean:ifr"]["value"] == pytest.approx(
            block["IFR"], abs=0.005
        )
    if which == "oracle":
        assert overall["IFR"] == overall["CR"] == overall["EMR"] == 100.0

    # the preset is a run of the same engine: its taxonomy.json, confidence intervals included,
    # is the one the plain run exports beside its records
    plain = json.loads((pair_folder(out, preds) / "taxonomy.json").read_text())
    preset = json.loads((tmp_path / "score" / "taxonomy.json").read_text())
    assert plain["confidence"] == preset["confidence"] == {
        "level": 0.95, "method": "percentile bootstrap over samples", "n_resamples": 50, "seed": 0,
    }  # fmt: skip
    for key in ("overall", "failed_outputs", "complexity", "modality", "operation"):
        assert plain[key] == preset[key], key
    assert {k: v for k, v in plain.items() if k != "run"} == {k: v for k, v in preset.items() if k != "run"}
    if which == "identity":  # intervals that are not a single point
        assert preset["overall"]["IFR_ci"][0] < preset["overall"]["IFR"] < preset["overall"]["IFR_ci"][1]

    sig = json.loads((pair_folder(out, preds) / "signature.json").read_text())
    assert sig["judge"]["judge_model"] == JUDGE
    scorer_sig = sig["benchmark"]["scorers"][0]
    assert scorer_sig["prompt_version"] == "mcq-judge-v1" and scorer_sig["option_shuffle_seed"] == 0

    # a rerun resumes: nothing is asked again, of the model or of the judge
    again = run_predictions(spec, preds, fake_judge.base_url, out)
    assert again.exit_code == 0, again.output
    assert f"asked 0, reused {n}" in again.output
    assert fake_judge.stats.requests == run_requests + ref.calls


def assert_same_breakdowns(pair: dict[str, Any], ref: dict[str, Any]) -> None:
    """Every dimension of the run path's summary has `mmae score`'s groups, counts and means."""
    for key in TAXONOMY:
        got, want = pair["breakdowns"][key], ref[key]
        assert set(got) == set(want), key
        for group, block in want.items():
            for metric, name in (("mean:ifr", "IFR"), ("mean:cr", "CR"), ("mean:em", "EMR")):
                cell = got[group][metric]
                assert cell["n"] == block["n"], (key, group, metric)
                if block[name] is None:
                    assert cell["value"] is None, (key, group, metric)
                else:
                    assert cell["value"] == pytest.approx(block[name], abs=0.005), (key, group, metric)


def run_and_score(
    small_synthetic_set, preds: Path, judge: FakeJudgeServer, tmp_path: Path
) -> tuple[Path, Path, dict]:
    """`audioeval run` (the pair folder, the spec) and `mmae score`'s taxonomy, on the same set."""
    meta = json.loads(small_synthetic_set.metadata.read_text())
    multi = [m["id"] for m in meta if len({(o["granularity"], o["operation"]) for o in m["operations"]}) > 1]
    assert multi, "the synthetic set must hold multi-operation samples"
    spec = write_spec(tmp_path / "mmae.yaml", small_synthetic_set.metadata)
    out = tmp_path / "run"
    res = run_predictions(spec, preds, judge.base_url, out)
    assert res.exit_code == 0, res.output
    ref = run_mmae(
        config(
            preds, small_synthetic_set.metadata, tmp_path / "score", [judge.base_url],
            model=JUDGE, audio_root=small_synthetic_set.root, n_resamples=50, use_cache=False,
        )
    ).taxonomy  # fmt: skip
    # a multi-operation sample is in each of its operations, never in a joined group
    assert sum(block["n"] for block in ref["operation"].values()) > ref["overall"]["n"]
    assert {"local:removal", "local:addition", "global:alteration"} <= set(ref["operation"])
    return pair_folder(out, preds), spec, ref


def test_judged_samples_are_admitted_while_the_judge_has_room(small_synthetic_set, monkeypatch, tmp_path):
    """A pair's samples start only while the judge's attempts outstanding, reserved by samples
    about to ask and waiting for their sample's first answer stay under four times its
    concurrency (`RunJudge.pending_limit`), not a fixed number of workers; the waiting ones
    launch when that answer comes (`SampleJudge`)."""
    from audioeval.engine.run_judge import RunJudge

    peak, peak_waiting, peak_pending = [0], [0], [0]
    real, real_waiting = RunJudge.add_load, RunJudge.add_waiting

    def tracked(self: RunJudge, n: int) -> None:
        real(self, n)
        peak[0] = max(peak[0], self.load)
        peak_pending[0] = max(peak_pending[0], self.load + self.waiting)

    def tracked_waiting(self: RunJudge, n: int) -> None:
        real_waiting(self, n)
        peak_waiting[0] = max(peak_waiting[0], self.waiting)
        peak_pending[0] = max(peak_pending[0], self.load + self.waiting)

    monkeypatch.setattr(RunJudge, "add_load", tracked)
    monkeypatch.setattr(RunJudge, "add_waiting", tracked_waiting)
    with FakeJudgeServer(FakeJudgeConfig(model=JUDGE, latency_s=0.005)) as server:
        r = run_mmae(
            config(
                small_synthetic_set.oracle_predictions, small_synthetic_set.metadata, tmp_path / "o",
                [server.base_url],
                model=JUDGE, concurrency=2,
            )
        )  # fmt: skip
    assert r.taxonomy["overall"]["EMR"] == 100.0
    assert r.calls + r.cache_hits == 3 * rubric_count(small_synthetic_set.metadata)
    most_rubrics = max(len(m["rubrics"]) for m in json.loads(small_synthetic_set.metadata.read_text()))
    pending_limit = 4 * 2  # `RunJudge.pending_limit` at concurrency 2
    assert peak_waiting[0] > 0  # samples waited for their first answer
    # admitted below the limit: one sample's reservation past it at most
    assert pending_limit <= peak_pending[0] <= pending_limit + 3 * most_rubrics
    # admitted below the load limit; then the waiting attempts of samples answered at once
    assert peak[0] <= pending_limit + 3 * most_rubrics, (peak, peak_pending, peak_waiting)


def test_summary_counts_a_list_taxonomy_value_in_each_group(
    small_synthetic_set, identity_preds, fake_judge, tmp_path
):
    folder, spec, ref = run_and_score(small_synthetic_set, identity_preds, fake_judge, tmp_path)
    ops = {
        m["id"]: operation_keys((o.get("granularity", ""), o["operation"]) for o in m["operations"])
        for m in json.loads(small_synthetic_set.metadata.read_text())
    }  # the operations of each sample, as a list
    recs = [{**r, "taxonomy": {**r["taxonomy"], "operation": ops[r["id"]]}} for r in records(folder)]
    assert any(len(r["taxonomy"]["operation"]) > 1 for r in recs)
    bench = resolve(*resolve_benchmark(str(spec)))
    typed = [SampleRecord.from_json(r) for r in recs]
    assert_same_breakdowns(summarise_records(bench.summary_plan(), typed, resamples=50), ref)


def test_run_breakdowns_equal_mmae_score_with_multi_operation_samples(
    small_synthetic_set, identity_preds, fake_judge, tmp_path
):
    folder, _, ref = run_and_score(small_synthetic_set, identity_preds, fake_judge, tmp_path)
    pair = json.loads((folder / "summary.json").read_text())
    assert_same_breakdowns(pair, ref)
    assert not [g for g in pair["breakdowns"]["operation"] if "+" in g or "," in g]

    # rescoring rebuilds the summary from the stored records: the same groups
    res = runner.invoke(
        app, ["rescore", str(folder.parent.parent), "--resamples", "50"], catch_exceptions=False
    )
    assert res.exit_code == 0, res.output
    assert json.loads((folder / "summary.json").read_text())["breakdowns"] == pair["breakdowns"]


def test_dead_judge_fails_samples_then_a_rerun_scores_them(small_synthetic_set, fake_judge, tmp_path):
    spec = write_spec(tmp_path / "mmae.yaml", small_synthetic_set.metadata)
    out = tmp_path / "run"
    cfg = tmp_path / "run.yaml"
    model = f"predictions:{small_synthetic_set.oracle_predictions}"

    def write_cfg(judge: str) -> None:
        cfg.write_text(
            f"benchmarks: [{json.dumps(str(spec))}]\nmodels: [{json.dumps(model)}]\nlimit: 4\n"
            f"judge: {{urls: [{json.dumps(judge)}], model: {JUDGE}, timeout_s: 0.3, concurrency: 8}}\n",
            encoding="utf-8",
        )

    write_cfg(dead_url())
    res = runner.invoke(app, ["run", str(cfg), "-o", str(out), "--no-progress"], catch_exceptions=False)
    assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE, res.output  # the endpoint check stops it
    assert "judge: no usable endpoint" in res.output and "cannot connect" in res.output
    assert not (out / "mmae-syn").exists()  # nothing asked, nothing written

    # without the check (a judge that dies once the run has started), every sample fails
    args = ["run", str(cfg), "-o", str(out), "--no-progress", "--no-probe"]
    res = runner.invoke(app, args, catch_exceptions=False)
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    assert "nothing was scored" in res.output
    folder = pair_folder(out, small_synthetic_set.oracle_predictions)
    pair = json.loads((folder / "summary.json").read_text())
    assert (pair["scored"], pair["failed"]) == (0, 4)
    assert pair["metrics"]["mean:ifr"]["value"] is None
    assert "4 sample(s) failed" in res.output
    for rec in records(folder):
        assert rec["error"].startswith("judge: ") and rec.get("scores") is None
        rubrics = rec["judge"]["mmae_rubrics"]["rubrics"]
        assert rubrics and all(r["failed"] and len(r["attempts"]) == 10 for r in rubrics)
        assert all(a["error"] for r in rubrics for a in r["attempts"])

    # the endpoint is not part of the signature: the same run resumes on a live judge
    write_cfg(fake_judge.base_url)
    res = runner.invoke(app, ["run", str(cfg), "-o", str(out), "--no-progress"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "asked 4, reused 0" in res.output
    pair = json.loads((folder / "summary.json").read_text())
    assert (pair["scored"], pair["failed"]) == (4, 0)
    assert pair["metrics"]["mean:ifr"]["value"] == 100.0


def test_rescore_reaggregates_stored_votes_without_the_judge(small_synthetic_set, identity_preds, tmp_path):
    spec = write_spec(tmp_path / "mmae.yaml", small_synthetic_set.metadata)
    out = tmp_path / "run"
    with FakeJudgeServer(FakeJudgeConfig(model=JUDGE)) as server:
        res = run_cli(
            "--benchmark", str(spec), "--model", f"predictions:{identity_preds}",
            "--judge", server.base_url, "--judge-model", JUDGE, "-o", str(out), "--limit", "12",
        )  # fmt: skip
        assert res.exit_code == 0, res.output
    folder = pair_folder(out, identity_preds)
    before = json.loads((folder / "summary.json").read_text())
    recs_before = records(folder)
    # the judge is gone: rescoring must not need it
    res = runner.invoke(app, ["rescore", str(out), "--resamples", "50"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    assert "rescored 12 sample(s); 0 changed" in res.output
    after = json.loads((folder / "summary.json").read_text())
    assert after["metrics"] == before["metrics"] and after["scored"] == 12
    assert [r["scores"] for r in records(folder)] == [r["scores"] for r in recs_before]


def test_judge_settings_are_checked(small_synthetic_set, fake_judge, tmp_path):
    spec = write_spec(tmp_path / "mmae.yaml", small_synthetic_set.metadata)
    model = f"predictions:{small_synthetic_set.oracle_predictions}"
    res = runner.invoke(
        app, ["run", "-b", str(spec), "-m", model, "-o", str(tmp_path / "a"), "--no-progress"]
    )
    assert res.exit_code != 0 and "--judge" in res.output
    out = tmp_path / "b"
    ok = run_cli("-b", str(spec), "-m", model, "--judge", fake_judge.base_url, "--judge-model", JUDGE,
                 "-o", str(out), "--limit", "2")  # fmt: skip
    assert ok.exit_code == 0, ok.output
    other = runner.invoke(
        app,
        ["run", "-b", str(spec), "-m", model, "--judge", fake_judge.base_url, "--judge-model", "other",
         "-o", str(out), "--limit", "2", "--no-progress"],
    )  # fmt: skip
    assert other.exit_code != 0 and "judge_model" in other.output


def test_mmae_source_reports_bad_samples_and_missing_predictions(small_synthetic_set, fake_judge, tmp_path):
    meta = json.loads(small_synthetic_set.metadata.read_text())[:3]
    del meta[1]["rubrics"][0]["right_choice"]
    bad_meta = tmp_path / "meta.json"
    for item in meta:  # keep the clips where they are
        for msg in item["messages"]:
            for part in msg["content"]:
                if part.get("type") == "audio":
                    part["audio_url"] = str(small_synthetic_set.root / part["audio_url"])
    bad_meta.write_text(json.dumps(meta))
    preds = json.loads(small_synthetic_set.oracle_predictions.read_text())
    pred_file = tmp_path / "preds.json"
    pred_file.write_text(
        json.dumps([{**p, "messages": [m for m in p["messages"] if m["role"] == "user"]} if i == 2 else
                    {**p, "messages": p["messages"][:-1] + [{"role": "assistant", "content": [
                        {"type": "audio", "audio_url": str(small_synthetic_set.root / p["messages"][-1]["content"][0]["audio_url"])}]}]}
                    for i, p in enumerate(preds[:3])])
    )  # fmt: skip
    spec = write_spec(tmp_path / "mmae.yaml", bad_meta)
    out = tmp_path / "run"
    res = run_cli("-b", str(spec), "-m", f"predictions:{pred_file}", "--judge", fake_judge.base_url,
                  "--judge-model", JUDGE, "-o", str(out))  # fmt: skip
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output  # 1 skipped, 1 failed of 3
    assert "2 of 3 sample(s) failed" in res.output
    skipped = json.loads((out / "mmae-syn" / "skipped.json").read_text())
    assert skipped == [
        {"file": str(bad_meta), "id": meta[1]["id"], "field": "rubrics[0].right_choice",
         "line": None, "error": "missing field"}
    ]  # fmt: skip
    recs = {r["id"]: r for r in records(pair_folder(out, pred_file))}
    assert set(recs) == {meta[0]["id"], meta[2]["id"]}
    assert recs[meta[0]["id"]]["error"] is None
    err = recs[meta[2]["id"]]["error"]
    assert err.startswith("predictions: ") and str(pred_file) in err and "assistant" in err


def test_taxonomy_json_shows_what_the_pair_summary_computes_and_nothing_else() -> None:
    """taxonomy.json formats the pair summary: a rate the spec does not compute (a spec that
    lists only `mean:ifr`) is null, never computed by the exporter; `*_n` is the block's
    `count` (the samples the rate is the mean of), `n` its samples."""
    from audioeval.benchmarks.mmae.aggregate import taxonomy

    block = {"value": 50.0, "ci": [25.0, 75.0], "n": 4, "count": 3, "unit": "percent"}
    pair = {"metrics": {"mean:ifr": block}, "breakdowns": {"modality": {"speech": {"mean:ifr": block}}}}
    tax = taxonomy(pair, [], n_skipped=0)
    assert tax["overall"]["n"] == 4 and (tax["overall"]["IFR"], tax["overall"]["IFR_n"]) == (50.0, 3)
    assert tax["overall"]["CR"] is None and tax["overall"]["CR_n"] == 0 and tax["overall"]["EMR_ci"] is None
    assert tax["modality"]["speech"]["IFR_ci"] == [25.0, 75.0]
    assert tax["overall"]["micro"] == {"IFR": None, "CR": None, "n_if_rubrics": 0, "n_cr_rubrics": 0}
    with pytest.raises(ValueError, match="unit 'score' cannot be shown in percent"):
        taxonomy({"metrics": {"mean:ifr": {**block, "unit": "score"}}}, [], n_skipped=0)
