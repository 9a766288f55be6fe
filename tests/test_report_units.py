"""One unit per metric (`report/units.py`), the word diff of the sample browser, and system
names (`NAME=SPEC`)."""

from __future__ import annotations

from pathlib import Path

from audioeval.engine.model_specs import parse_model_ref
from audioeval.report.units import axis_limits, show_span, show_value
from audioeval.report.word_diff import word_diff


def test_a_fraction_is_shown_as_a_percentage_with_its_sign_and_a_short_span() -> None:
    assert show_value(0.0247, "fraction") == "2.47 %"
    assert show_value(3.214, "mos") == "3.21" and show_value(None, "fraction") == "–"
    assert show_span([0.642857, 0.928571], "fraction") == "64.3–92.9"
    assert axis_limits("fraction") == (0.0, 100.0) and axis_limits("score") is None


def test_the_word_diff_marks_substitutions_deletions_and_insertions() -> None:
    ops = word_diff("the cat sat on the mat", "the bat sat on mat now")
    assert ["s", "cat", "bat"] in ops and ops[0] == ["=", "the", "the"]
    assert word_diff("a b", "") == [["d", "a b", ""]] and word_diff("", "x") == [["i", "", "x"]]


def test_name_equals_spec_names_any_model() -> None:
    mine = parse_model_ref("mine=predictions:hyps.jsonl")
    assert (mine.name, mine.type, mine.predictions) == ("mine", "predictions", "hyps.jsonl")
    qwen = parse_model_ref("qwen=qwen2-audio@http://127.0.0.1:8000/v1")
    assert (qwen.name, qwen.served_model) == ("qwen", "qwen2-audio")  # the server still gets its id
    assert parse_model_ref("x@http://127.0.0.1:1/v1?a=b").name == "x"  # `=` in a URL is no name


def test_a_per_sample_value_takes_its_metrics_unit() -> None:
    from audioeval.report.units import sample_units, show_sample, unit_of

    units = sample_units({"wer": {"unit": "fraction"}, "mean:chat_rating": {"unit": "score"},
                          "rouge_l": {"unit": "fraction"}, "bad": None})  # fmt: skip
    assert {k: (u.unit, u.scale) for k, u in units.items()} == {
        "wer": ("fraction", 1.0), "chat_rating": ("score", 1.0), "rouge_l": ("fraction", 1.0)
    }  # fmt: skip
    assert show_sample(0.1, unit_of("wer", units)) == "10.00 %"
    assert show_sample(0.0789, unit_of("rouge_l_recall", units)) == "7.89 %"
    assert show_sample(7.0, unit_of("chat_rating", units)) == "7.00"
    assert unit_of("mcq_match", units) is None and show_sample(1.0, None) == "1"
    assert show_sample(0.07891, None) == "0.0789" and show_sample(float("nan"), "fraction") == "–"


def test_the_sample_browser_data_shows_each_value_in_its_unit(tmp_path: Path) -> None:
    """The list line (`t`) and the details' scores of an ASR run: `10.00 %`, not `0.1`."""
    import json
    import re

    from typer.testing import CliRunner

    from audioeval.cli.main import app
    from tests.run_helpers import tone_asr_manifest

    manifest = tone_asr_manifest(tmp_path / "set", n=3)
    out = tmp_path / "o"
    runner = CliRunner()
    res = runner.invoke(app, ["run", "-b", str(manifest), "--task", "asr", "-m", "constant:the tone number",
                              "-o", str(out), "--no-progress", "--resamples", "0"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    html = (out / "report" / "index.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="samples-data"[^>]*>(.*?)</script>', html, re.S).group(1))
    (pair,) = data["pairs"]
    assert (pair["unit"], pair["scale"]) == ("fraction", 100.0)
    assert [s["t"] for s in pair["samples"]] == [show_value(s["sc"], "fraction") for s in pair["samples"]]
    assert all(s["t"].endswith(" %") for s in pair["samples"])
    chunk = (out / "report" / "samples" / "p0-c0.js").read_text(encoding="utf-8")
    rows = json.loads(chunk[chunk.index("[") : chunk.rindex("]") + 1].replace("\\u003c", "<"))
    for row in rows:
        for _scorer, key, value, text in row["scores"]:
            assert key in ("wer", "cer") and text == show_value(value, "fraction") and text.endswith(" %")


def test_a_per_sample_value_is_shown_in_its_metrics_unit_as_the_metric_declares_it() -> None:
    """MMAE's per-sample IFR is a 0–1 rate of the percentage `mean:ifr` (declared × 100): a
    sample at 0.5 is `50.00 %`, never `0.50 %`, whether the summary block declares it or was
    written before blocks did (then the metric's declaration now is read)."""
    from audioeval.benchmarks.plugins import load_benchmarks
    from audioeval.report.units import sample_units, show_sample, unit_of

    load_benchmarks()
    declared = {"mean:ifr": {"unit": "percent", "display": "IFR", "per_sample": {"key": "IFR", "scale": 100.0}}}
    before = {"mean:ifr": {"unit": "percent"}, "mean:em": {"unit": "percent"}}
    for blocks in (declared, before):
        how = unit_of("IFR", sample_units(blocks))
        assert how is not None and (how.unit, how.scale, how.shown_factor) == ("percent", 100.0, 100.0)
        assert show_sample(0.5, how) == "50.00 %" and show_sample(1, how) == "100.00 %"
    assert unit_of("EMR", sample_units(before)).name == "EMR"  # shown as EMR, stored as mean:em
