"""End-to-end MMAE scoring against the fake judge over real HTTP on 127.0.0.1."""

import json

import pytest

from audioeval.benchmarks.mmae.baselines import write_baseline
from audioeval.benchmarks.mmae.records import COMPLEXITIES
from audioeval.benchmarks.mmae.synthetic import MODALITIES
from audioeval.core.errors import RunConfigError
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer, dead_url
from tests.mmae_helpers import config, records_file, rescore_mmae, results, rubric_count, run_mmae


def test_oracle_edits_score_100_with_full_taxonomy(synthetic_set, judge_server, tmp_path):
    out = tmp_path / "oracle"
    r = run_mmae(
        config(synthetic_set.oracle_predictions, synthetic_set.metadata, out, [judge_server.base_url])
    )
    ov = r.taxonomy["overall"]
    assert (ov["IFR"], ov["CR"], ov["EMR"], ov["n"]) == (100.0, 100.0, 100.0, 42)
    assert ov["n_no_consistency_rubric"] == 3 and ov["CR_n"] == 39  # extraction samples: CR undefined
    tax = json.loads((out / "taxonomy.json").read_text())
    assert set(tax["complexity"]) == set(COMPLEXITIES)
    assert set(tax["modality"]) == set(MODALITIES)
    assert set(tax["complexity_group"]) == {"single", "multiple"}
    assert tax["complexity_group"]["single"]["n"] == 7 and tax["complexity_group"]["multiple"]["n"] == 35
    assert {"local", "global", "mix"} >= set(tax["granularity"]) and "mix" in tax["granularity"]
    assert "local:extraction" in tax["operation"] and "global:background change" in tax["operation"]
    assert "sound|single" in tax["modality_x_complexity_group"]
    for group in tax["modality"].values():
        assert group["n"] > 0 and group["IFR_ci"] == [100.0, 100.0]
    per = json.loads((out / "per_sample.json").read_text())
    assert len(per) == 42 and all(p["n_failed"] == 0 for p in per)
    extraction = [p for p in per if p["n_cr"] == 0]
    assert extraction and all(p["CR"] is None and p["EMR"] == 1 for p in extraction)
    lines = results(out)
    assert len(lines) == sum(p["n_rubrics"] for p in per) == 119
    att = lines[0]["attempts"][0]
    assert {"attempt", "options", "right_letter", "raw", "letter", "valid", "correct", "error"} <= set(att)
    # each referenced file is decoded and encoded once, though sent with every vote: 42 outputs,
    # input1 of the 7 multi-round samples, input2 of the 7 multi-audio samples
    assert r.decodes == r.encodes == 42 + 7 + 7
    # identical requests (same audio content, question, option order, vote index) are asked once
    assert judge_server.stats.requests == r.calls and r.calls + r.cache_hits == 3 * 119


def test_identity_and_noise_baselines_reproduce_the_papers_shape(synthetic_set, judge_server, tmp_path):
    scores = {}
    for kind in ("identity", "noise"):
        preds, errors = write_baseline(
            kind, metadata=synthetic_set.metadata, audio_root=synthetic_set.root, out_dir=tmp_path / kind
        )
        assert not errors
        r = run_mmae(
            config(
                preds,
                synthetic_set.metadata,
                tmp_path / f"{kind}_scores",
                [judge_server.base_url],
                audio_root=synthetic_set.root,
            )
        )
        scores[kind] = r.taxonomy["overall"]
    ident, noise = scores["identity"], scores["noise"]
    assert ident["CR"] > 90 and ident["IFR"] < 40 and ident["EMR"] < 10
    assert noise["CR"] < 10 and noise["EMR"] == 0.0
    assert noise["IFR"] > ident["IFR"]  # noise "removes" tones: IF checks of absence pass


def test_noise_baseline_matches_input_length_and_rate(small_synthetic_set, tmp_path):
    import soundfile as sf

    preds, _ = write_baseline(
        "noise", metadata=small_synthetic_set.metadata, audio_root=small_synthetic_set.root, out_dir=tmp_path
    )
    items = json.loads(preds.read_text())
    for item in items[:6]:
        src = small_synthetic_set.root / item["messages"][0]["content"][1]["audio_url"]
        out = item["messages"][-1]["content"][0]["audio_url"]
        a, b = sf.info(str(src)), sf.info(out)
        assert (a.frames, a.samplerate) == (b.frames, b.samplerate)


def test_input_audio_style_and_sliced_clips(small_synthetic_set, judge_server, tmp_path):
    r = run_mmae(
        config(
            small_synthetic_set.oracle_predictions,
            small_synthetic_set.metadata,
            tmp_path / "o",
            [judge_server.base_url],
            audio_part="input_audio",
            slice_clips=True,
        )
    )
    assert r.taxonomy["overall"]["IFR"] == 100.0 and r.taxonomy["overall"]["CR"] == 100.0
    st = judge_server.stats
    assert st.part_types == {"input_audio": st.audio_parts}
    labels = {lbl for req in st.labels for lbl in req}
    assert "<audio output[1.0s:]>" in labels and "<audio output[-1s:]>" in labels
    durs = {
        lbl: d
        for req, ds in zip(st.labels, st.durations, strict=True)
        for lbl, d in zip(req, ds, strict=True)
    }
    assert durs["<audio output[-1s:]>"] == pytest.approx(1.0, abs=0.01)
    assert durs["<audio output[:1.0s]>"] == pytest.approx(1.0, abs=0.01)
    assert st.sample_rates == {16000}


def test_full_clip_default_sends_each_clip_whole_once_per_request(
    small_synthetic_set, judge_server, tmp_path
):
    run_mmae(
        config(
            small_synthetic_set.oracle_predictions,
            small_synthetic_set.metadata,
            tmp_path / "o",
            [judge_server.base_url],
        )
    )
    st = judge_server.stats
    assert st.part_types == {"audio_url": st.audio_parts}
    assert all(len(req) == len(set(req)) for req in st.labels)
    assert {lbl for req in st.labels for lbl in req} == {"<audio output>", "<audio input1>", "<audio input2>"}
    assert all(d == pytest.approx(3.0, abs=0.01) for ds in st.durations for d in ds)


def test_failover_spreads_load_and_survives_a_dead_endpoint(synthetic_set, tmp_path):
    with (
        FakeJudgeServer(FakeJudgeConfig(latency_s=0.01)) as a,
        FakeJudgeServer(FakeJudgeConfig(latency_s=0.01)) as b,
    ):
        r = run_mmae(
            config(
                synthetic_set.oracle_predictions,
                synthetic_set.metadata,
                tmp_path / "o",
                [a.base_url, dead_url(), b.base_url],
                concurrency=8,
                probe=False,  # the endpoint check would leave the dead one out of the run
            )
        )
        assert r.taxonomy["overall"]["EMR"] == 100.0
        assert r.taxonomy["overall"]["n_rubrics_failed"] == 0
        assert a.stats.answered > 60 and b.stats.answered > 60
        assert a.stats.answered + b.stats.answered == r.calls
        dead = [e for e in r.endpoints if e["url"] not in (a.base_url, b.base_url)][0]
        assert dead["failures"] >= 1 and dead["failures"] < 20  # taken out after failing


def test_5xx_and_slow_answers_are_retried_within_the_attempt(small_synthetic_set, tmp_path):
    cfg = FakeJudgeConfig(fail_first=10, fail_rate=0.1, hang_first=2, hang_s=1.5, seed=1)
    with FakeJudgeServer(cfg) as s:
        r = run_mmae(
            config(
                small_synthetic_set.oracle_predictions,
                small_synthetic_set.metadata,
                tmp_path / "o",
                [s.base_url],
                timeout=5.0,
            )
        )
        assert r.taxonomy["overall"]["EMR"] == 100.0
        assert s.stats.requests - s.stats.answered >= 10  # injected 5xx, each retried
        assert s.stats.answered == r.calls
        assert all(len(x["attempts"]) == 3 for x in results(tmp_path / "o"))


def test_timeouts_become_failed_attempts_not_answers(small_synthetic_set, tmp_path):
    with FakeJudgeServer(FakeJudgeConfig(hang_first=10_000, hang_s=0.6)) as s:
        r = run_mmae(
            config(
                small_synthetic_set.oracle_predictions,
                small_synthetic_set.metadata,
                tmp_path / "o",
                [s.base_url],
                timeout=0.3,
                max_attempts=4,
                concurrency=32,
            )
        )
    ov = r.taxonomy["overall"]
    assert ov["n_rubrics_failed"] == rubric_count(small_synthetic_set.metadata)
    assert ov["n"] == 0 and ov["IFR"] is None
    rec = results(tmp_path / "o")[0]
    assert rec["failed"] and rec["score"] is None and len(rec["attempts"]) == 4
    assert "timed out" in rec["attempts"][0]["error"]


def test_garbage_answers_are_invalid_votes_and_trigger_more_attempts(small_synthetic_set, tmp_path):
    with FakeJudgeServer(FakeJudgeConfig(garbage_rate=0.3, seed=5)) as s:
        r = run_mmae(
            config(
                small_synthetic_set.oracle_predictions,
                small_synthetic_set.metadata,
                tmp_path / "o",
                [s.base_url],
            )
        )
    lines = results(tmp_path / "o")
    invalid = [a for x in lines for a in x["attempts"] if not a["valid"]]
    assert invalid and all(a["raw"] == "I am not sure what you mean." for a in invalid)
    assert any(len(x["attempts"]) > 3 for x in lines)
    scored = [x for x in lines if not x["failed"]]
    assert all(x["score"] == 1 for x in scored)
    assert r.taxonomy["overall"]["n_rubrics_failed"] == sum(x["failed"] for x in lines)


@pytest.mark.parametrize("style", ["fenced", "lowercase", "think"])
def test_answer_format_variants_are_parsed(small_synthetic_set, tmp_path, style):
    with FakeJudgeServer(FakeJudgeConfig(answer_style=style)) as s:
        r = run_mmae(
            config(
                small_synthetic_set.oracle_predictions,
                small_synthetic_set.metadata,
                tmp_path / "o",
                [s.base_url],
            )
        )
    assert r.taxonomy["overall"]["EMR"] == 100.0


def test_wrong_judge_scores_zero(small_synthetic_set, tmp_path):
    with FakeJudgeServer(FakeJudgeConfig(answer_style="wrong")) as s:
        r = run_mmae(
            config(
                small_synthetic_set.oracle_predictions,
                small_synthetic_set.metadata,
                tmp_path / "o",
                [s.base_url],
            )
        )
    assert (r.taxonomy["overall"]["IFR"], r.taxonomy["overall"]["CR"], r.taxonomy["overall"]["EMR"]) == (
        0.0,
        0.0,
        0.0,
    )


def test_resume_reuses_results_and_cache(small_synthetic_set, judge_server, tmp_path):
    out = tmp_path / "o"
    run_mmae(
        config(
            small_synthetic_set.oracle_predictions, small_synthetic_set.metadata, out, [judge_server.base_url]
        )
    )
    n = judge_server.stats.requests
    stream = records_file(out)
    lines = stream.read_text().splitlines()
    # simulate a crash: drop the records of the last 8 samples and leave a half-written one
    dropped = sum(len(json.loads(x)["sample"]["fields"]["rubrics"]) for x in lines[-8:])
    stream.write_text("\n".join(lines[:-8]) + "\n" + lines[-8][:37])
    r = run_mmae(
        config(
            small_synthetic_set.oracle_predictions, small_synthetic_set.metadata, out, [judge_server.base_url]
        )
    )
    total = rubric_count(small_synthetic_set.metadata)
    assert r.reused == total - dropped and r.judged_now == dropped
    assert judge_server.stats.requests == n  # the votes came from the response cache
    assert r.cache_hits == 3 * dropped
    again = results(out)
    assert len(again) == total and len({(x["id"], x["rubric_index"]) for x in again}) == total
    assert r.taxonomy["overall"]["EMR"] == 100.0
    # a third run does nothing at all
    r3 = run_mmae(
        config(
            small_synthetic_set.oracle_predictions, small_synthetic_set.metadata, out, [judge_server.base_url]
        )
    )
    assert r3.judged_now == 0 and r3.calls == 0 and r3.decodes == 0


def test_resume_with_other_settings_is_refused(small_synthetic_set, judge_server, tmp_path):
    out = tmp_path / "o"
    run_mmae(
        config(
            small_synthetic_set.oracle_predictions, small_synthetic_set.metadata, out, [judge_server.base_url]
        )
    )
    with pytest.raises(RunConfigError, match="judge_model"):
        run_mmae(
            config(
                small_synthetic_set.oracle_predictions,
                small_synthetic_set.metadata,
                out,
                [judge_server.base_url],
                model="other-judge",
            )
        )


def test_rescore_equals_original_and_reparse_is_stable(small_synthetic_set, judge_server, tmp_path):
    out = tmp_path / "o"
    preds, _ = write_baseline(
        "identity",
        metadata=small_synthetic_set.metadata,
        audio_root=small_synthetic_set.root,
        out_dir=tmp_path / "id",
    )
    r = run_mmae(
        config(
            preds,
            small_synthetic_set.metadata,
            out,
            [judge_server.base_url],
            audio_root=small_synthetic_set.root,
        )
    )
    calls = judge_server.stats.requests
    tax = rescore_mmae(out, small_synthetic_set.metadata, n_resamples=200)  # every stored answer parsed again
    for key in ("IFR", "CR", "EMR", "IFR_ci", "n"):
        assert tax["overall"][key] == r.taxonomy["overall"][key]
    assert tax["modality"] == r.taxonomy["modality"]
    assert judge_server.stats.requests == calls


def test_api_key_is_sent_but_never_written(small_synthetic_set, tmp_path):
    secret = "sk-test-very-secret-123"
    with FakeJudgeServer(FakeJudgeConfig(api_key=secret)) as s:
        r = run_mmae(
            config(
                small_synthetic_set.oracle_predictions,
                small_synthetic_set.metadata,
                tmp_path / "o",
                [s.base_url],
                api_key=secret,
            )
        )
        assert set(s.stats.auth_headers) == {f"Bearer {secret}"}
    assert r.taxonomy["overall"]["EMR"] == 100.0
    for f in (tmp_path / "o").rglob("*"):
        assert not f.is_file() or secret.encode() not in f.read_bytes(), f


def test_wrong_api_key_fails_rubrics_with_recorded_error(small_synthetic_set, tmp_path):
    with FakeJudgeServer(FakeJudgeConfig(api_key="right")) as s:
        r = run_mmae(
            config(
                small_synthetic_set.oracle_predictions,
                small_synthetic_set.metadata,
                tmp_path / "o",
                [s.base_url],
                api_key="wrong",
                max_attempts=3,
                probe=False,  # the endpoint check would stop the run before it starts
            )
        )
    assert r.taxonomy["overall"]["n_rubrics_failed"] == rubric_count(small_synthetic_set.metadata)
    assert "HTTP 401" in results(tmp_path / "o")[0]["attempts"][0]["error"]


def test_failed_rubrics_are_retried_on_rerun(small_synthetic_set, tmp_path):
    out = tmp_path / "o"
    first = run_mmae(
        config(
            small_synthetic_set.oracle_predictions,
            small_synthetic_set.metadata,
            out,
            [dead_url()],
            timeout=0.5,
            max_attempts=3,
            concurrency=64,
            probe=False,  # a judge that dies after the endpoint check
        )
    )
    total = rubric_count(small_synthetic_set.metadata)
    assert first.taxonomy["overall"]["n_rubrics_failed"] == total and first.reused == 0
    with FakeJudgeServer(FakeJudgeConfig()) as s:
        second = run_mmae(
            config(
                small_synthetic_set.oracle_predictions,
                small_synthetic_set.metadata,
                out,
                [s.base_url],
                max_attempts=3,
                concurrency=64,
            )
        )
    assert second.reused == 0 and second.judged_now == total
    assert second.taxonomy["overall"]["EMR"] == 100.0 and second.taxonomy["overall"]["n_rubrics_failed"] == 0
    lines = results(out)
    assert len(lines) == 2 * total  # the failures stay on record; the new lines supersede them
    assert sum(x["failed"] for x in lines) == total
