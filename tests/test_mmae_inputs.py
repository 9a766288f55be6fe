"""Bad MMAE input: clear errors naming file, id and field; the rest of the run goes on."""

import json
import shutil

import pytest

from audioeval.benchmarks.mmae.loading import load_metadata, load_predictions
from audioeval.core.errors import InputError
from audioeval.engine.mmae_run import run_mmae
from tests.conftest import shared_path
from tests.mmae_helpers import config


def _copy_set(synthetic_set, tmp_path):
    root = tmp_path / "set"
    shutil.copytree(synthetic_set.root, root)
    meta = json.loads((root / "MMAE-meta.json").read_text())
    preds = json.loads((root / "predictions-oracle.json").read_text())
    return root, meta, preds


def _write(root, meta, preds):
    (root / "MMAE-meta.json").write_text(json.dumps(meta))
    (root / "predictions-oracle.json").write_text(json.dumps(preds))
    return root / "predictions-oracle.json", root / "MMAE-meta.json"


def test_bad_samples_are_skipped_named_and_the_run_goes_on(synthetic_set, judge_server, tmp_path):
    root, meta, preds = _copy_set(synthetic_set, tmp_path)
    del meta[0]["rubrics"][0]["right_choice"]  # missing field
    meta[1]["rubrics"][1]["question"] = "In <audio input7>, is it quiet?"  # no such clip
    meta.append(dict(meta[5]))  # duplicate id
    preds.append({"id": "not-in-meta", "messages": preds[2]["messages"]})
    preds[3]["messages"][-1]["content"][0]["audio_url"] = "oracle/missing.wav"
    del preds[4]  # sample without prediction
    (root / preds[5]["messages"][-1]["content"][0]["audio_url"]).write_bytes(b"garbage")  # unreadable
    pred_path, meta_path = _write(root, meta, preds)

    r = run_mmae(config(pred_path, meta_path, tmp_path / "o", [judge_server.base_url]))
    msgs = [e.describe() for e in r.skipped]
    assert any(
        "MMAE-meta.json" in m and "syn00000" in m and "rubrics[0].right_choice" in m and "missing field" in m
        for m in msgs
    )
    assert any("syn00001" in m and "rubrics[1].question" in m and "<audio input7>" in m for m in msgs)
    assert any("syn00005" in m and "duplicate id" in m for m in msgs)
    assert any("not-in-meta" in m and "not in the metadata" in m for m in msgs)
    assert len(r.skipped) == 4  # input errors, each reported once
    assert r.taxonomy["overall"]["n_skipped"] == 4  # syn0, syn1, the duplicate syn5, not-in-meta
    skipped = json.loads((tmp_path / "o" / "skipped.json").read_text())
    assert {s["id"] for s in skipped} == {"syn00000", "syn00001", "syn00005", "not-in-meta"}

    # the system's failures: no usable output, named, and in the headline with every rubric at 0
    failed = {e.sample_id: e.describe() for e in r.failed_outputs}
    unreadable = preds[5]["id"]
    assert set(failed) == {"syn00003", "syn00004", unreadable}
    assert "missing.wav" in failed["syn00003"] and "no prediction" in failed["syn00004"]
    assert "could not be decoded" in failed[unreadable]
    overall = r.taxonomy["overall"]
    assert overall["n"] == 40 and overall["n_failed_outputs"] == 3 and overall["n_samples_judged"] == 37
    assert overall["EMR"] == pytest.approx(100 * 37 / 40)
    assert r.taxonomy["failed_outputs"] == {
        "n": 3, "in_headline": "counted", "ids": sorted(failed), }  # fmt: skip
    rows = {row["id"]: row for row in r.per_sample}
    assert rows["syn00004"]["EMR"] == 0 and set(rows["syn00004"]["rubric_scores"]) == {0}
    on_disk = json.loads((tmp_path / "o" / "failed_outputs.json").read_text())
    assert {x["id"] for x in on_disk} == set(failed)


def test_malformed_json_is_fatal_with_position(tmp_path):
    bad = tmp_path / "MMAE-meta.json"
    bad.write_text('[{"id": "a",}]')
    with pytest.raises(InputError, match=r"MMAE-meta.json: malformed JSON .* line 1"):
        load_metadata(bad)
    bad.write_text('{"id": "a"}')
    with pytest.raises(InputError, match="must be a JSON list"):
        load_metadata(bad)
    with pytest.raises(InputError, match="predictions file not found"):
        load_predictions(tmp_path / "nope.json")


def test_jsonl_predictions_report_the_line(tmp_path):
    p = tmp_path / "preds.jsonl"
    p.write_text('{"id": "a", "messages": []}\n{"id": \n')
    with pytest.raises(InputError) as exc:
        load_predictions(p)
    assert exc.value.line == 2 and "preds.jsonl:2" in str(exc.value)


def test_assistant_content_must_be_a_list(tmp_path):
    p = tmp_path / "preds.json"
    p.write_text(json.dumps([{"id": "a", "messages": [{"role": "assistant", "content": "x.wav"}]}]))
    preds, errors = load_predictions(p)
    assert not preds and "messages[0].content" in errors[0].describe()


def test_paper_example_item_loads(tmp_path):
    path = shared_path("data", "mmae", "paper-appendixB-example-item.json")
    samples, errors = load_metadata(path)
    assert not errors
    s = samples["69e898163a050f39ac567501"]
    assert s.complexity == "single" and s.modality == "sound-speech" and len(s.rubrics) == 4
    assert s.input_audio == ("wav/69e898163a050f39ac567501/audio1.wav",)
    preds, perrors = load_predictions(shared_path("data", "mmae", "example-predictions-format.json"))
    assert (
        not perrors and preds["69e898163a050f39ac567501"].output_audio == "audio/69e898163a050f39ac567501.wav"
    )
