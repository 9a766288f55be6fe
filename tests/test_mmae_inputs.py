"""Bad MMAE input: clear errors naming file, id and field; the rest of the run goes on."""

import json
import shutil

import pytest

from audioeval.benchmarks.mmae.loading import load_metadata, load_predictions
from audioeval.core.errors import InputError
from tests.conftest import shared_path
from tests.mmae_helpers import config, run_mmae


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


def _rubric_defects(meta):
    """Six samples, each with one defect in one rubric's question or options."""
    r = meta[0]["rubrics"][1]
    r["wrong_choices"] = [r["wrong_choices"][0], f"  {r['right_choice']} "]  # right choice repeated
    r = meta[1]["rubrics"][0]
    r["wrong_choices"] = [r["wrong_choices"][0], r["wrong_choices"][0]]  # a wrong choice twice
    r = meta[2]["rubrics"][2]
    r["wrong_choices"] = [*r["wrong_choices"], *(f"distractor {k}" for k in range(24))]  # 27 options
    meta[3]["rubrics"][0]["wrong_choices"][1] = "   "  # an empty option
    meta[4]["rubrics"][0]["question"] = "  "
    r = meta[6]["rubrics"][0]
    r["wrong_choices"][0] = r["right_choice"].upper()  # the same option for a judge
    return {
        "syn00000": ("rubrics[1].wrong_choices", "repeats the right choice"),
        "syn00001": ("rubrics[0].wrong_choices", "wrong choice 1"),
        "syn00002": ("rubrics[2].wrong_choices", "27 options"),
        "syn00003": ("rubrics[0].wrong_choices", "wrong choice 1 is empty"),
        "syn00004": ("rubrics[0].question", "empty question"),
        "syn00006": ("rubrics[0].wrong_choices", "repeats the right choice"),
    }


def test_bad_rubric_options_skip_their_sample_and_the_oracle_keeps_100(synthetic_set, judge_server, tmp_path):
    root, meta, preds = _copy_set(synthetic_set, tmp_path)
    expected = _rubric_defects(meta)
    pred_path, meta_path = _write(root, meta, preds)

    r = run_mmae(config(pred_path, meta_path, tmp_path / "o", [judge_server.base_url]))
    by_id = {e.sample_id: e for e in r.skipped}
    assert set(by_id) == set(expected)
    for sid, (field, words) in expected.items():
        assert by_id[sid].field == field and words in by_id[sid].message, by_id[sid].describe()
        assert by_id[sid].file == str(meta_path)
    overall = r.taxonomy["overall"]
    assert overall["n"] == 42 - 6 and overall["n_rubrics_failed"] == 0
    assert overall["IFR"] == overall["CR"] == overall["EMR"] == 100.0
    skipped = json.loads((tmp_path / "o" / "skipped.json").read_text())
    assert {(s["id"], s["field"]) for s in skipped} == {(k, v[0]) for k, v in expected.items()}


def test_run_source_mmae_uses_the_same_rubric_validation(synthetic_set, tmp_path):
    from audioeval.benchmarks.mmae.source import load_mmae_samples

    root, meta, preds = _copy_set(synthetic_set, tmp_path)
    expected = _rubric_defects(meta)
    _, meta_path = _write(root, meta, preds)
    samples, errors = load_mmae_samples(meta_path)
    assert {(e.sample_id, e.field) for e in errors} == {(k, v[0]) for k, v in expected.items()}
    assert len(samples) == 42 - 6


def test_a_data_uri_as_audio_path_skips_its_sample_with_a_short_message(
    synthetic_set, judge_server, tmp_path
):
    import base64

    root, meta, preds = _copy_set(synthetic_set, tmp_path)
    part = preds[0]["messages"][-1]["content"][0]
    wav = (root / part["audio_url"]).read_bytes()
    part["audio_url"] = "data:audio/wav;base64," + base64.b64encode(wav).decode()
    meta[1]["messages"][0]["content"][1]["audio_url"] = "x" * 300 + ".wav"
    pred_path, meta_path = _write(root, meta, preds)

    r = run_mmae(config(pred_path, meta_path, tmp_path / "o", [judge_server.base_url]))
    # a data: URI as the edited audio is the system's unusable output (counted at 0); a path too
    # long in the metadata is the input's error (skipped and listed)
    uri = {e.sample_id: e for e in r.failed_outputs}["syn00000"]
    long_path = {e.sample_id: e for e in reversed(r.skipped)}["syn00001"]
    assert uri.field == "messages[1].content[0].audio_url" and "data: URI" in uri.message
    assert "'data:audio/wav;base64,UklGR" in uri.message and " KB)" in uri.message
    assert long_path.field == "messages[0].content[1].audio_url" and "too long" in long_path.message
    assert all(len(e.describe()) < 400 for e in [*r.skipped, *r.failed_outputs])
    assert r.taxonomy["overall"]["n"] == 41 and r.taxonomy["overall"]["EMR"] == round(100 * 40 / 41, 2)
