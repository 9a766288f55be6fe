"""A metric is declared once (`metrics/declaration.py`, `metrics/corpus.METRICS`): its name,
display name, unit, direction, aggregation and the per-sample value it is made of. Every
registered metric and every benchmark's declaration is checked here; a bad declaration is
refused where it is made; and what a user sees of an MMAE run (the console, the report's
tables and charts, `leaderboard.md`) names each of its rates one way, IFR, CR and EMR."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from audioeval.benchmarks.contract import Benchmark
from audioeval.benchmarks.plugins import load_benchmarks
from audioeval.metrics.corpus import all_metrics, display_of, get_metric
from audioeval.metrics.declaration import (
    AGGREGATIONS,
    UNITS,
    MeanDeclaration,
    MicroDeclaration,
    PerSample,
    shown_name,
)


def test_every_declared_metric_says_its_unit_direction_aggregation_and_display_name() -> None:
    load_benchmarks()
    declared = dict(all_metrics())
    for bench in load_benchmarks().values():
        for d in bench.metrics:
            assert declared[d.name].display == d.display and declared[d.name].unit == d.unit, d
    assert {"wer", "accuracy", "mean:ifr", "mean:em", "mean:robust_correct"} <= set(declared)
    for name, metric in declared.items():
        block = metric.declaration()
        assert block["unit"] in UNITS and block["aggregation"] in AGGREGATIONS, name
        assert isinstance(block["higher_is_better"], bool) and block["display"].strip(), name
        assert block["per_sample"]["key"] and block["per_sample"]["scale"] > 0, name
    assert (declared["mean:em"].display, declared["mean:em"].unit) == ("EMR", "percent")
    assert declared["mean:ifr"].per_sample == PerSample("IFR", 100.0)
    assert (declared["wer"].aggregation, declared["mean:em"].aggregation, declared["cider_d"].aggregation) == (
        "corpus", "mean", "whole_set",
    )  # fmt: skip
    assert declared["mean:robust_correct"].unit == "fraction"  # a share of the items, not a score
    assert get_metric("mean:never_declared").unit == "score" and shown_name("mean:never_declared") == "never_declared"
    assert display_of("mean:em") == shown_name("mean:em") == "EMR" and shown_name("mean:em", {"display": "X"}) == "X"


def test_a_micro_rate_is_shown_by_its_declared_name_never_as_micro_key() -> None:
    """A `micro:<key>` rate is declared as a `mean:` one is (display name, unit): the metric
    computes Σ numerators / Σ denominators and its block carries the name; a summary written
    before (its block's display `micro:<key>`) is shown by the declaration; one nobody
    declares is shown as `<key> (micro)`."""
    load_benchmarks()
    declared = dict(all_metrics())
    micro = [d for bench in load_benchmarks().values() for d in bench.metrics if isinstance(d, MicroDeclaration)]
    assert micro, "no benchmark declares a micro rate"
    for d in micro:
        assert d.name.startswith("micro:") and not d.name.startswith("mean:")
        metric = declared[d.name]
        assert metric.declaration()["display"] == d.display and not d.display.startswith("micro:")
        assert metric.compute([{d.key: [1, 4]}, {d.key: [2, 2]}]) == pytest.approx(0.5)  # 3 of 6, pooled
        assert get_metric(d.name) is metric
        assert shown_name(d.name, {"display": d.name}) == display_of(d.name) == d.display
    assert shown_name("micro:never_declared") == "never_declared (micro)"
    assert get_metric("micro:never_declared").declaration()["display"] == "never_declared (micro)"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"key": "x", "display": "X", "unit": "percentage"}, "unit 'percentage' is not one of"),
        ({"key": "x", "display": " ", "unit": "fraction"}, "display name must be a non-empty string"),
        ({"key": "", "display": "X", "unit": "fraction"}, "needs a stats key"),
    ],
)
def test_a_bad_declaration_is_refused_where_it_is_made(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MeanDeclaration(**kwargs)


def test_a_benchmark_declares_metrics_and_boards_of_the_right_kind() -> None:
    with pytest.raises(TypeError, match="must be a MeanDeclaration"):
        Benchmark("x", metrics=("mean:x",))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a board must be a mapping with a `name`"):
        Benchmark("x", boards=({"columns": []},))


class _Visible(HTMLParser):
    """The text a reader sees of a page: no scripts (the data), no styles."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("script", "style")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def _without_signatures(html: str) -> str:
    """The page without its Signatures section (which shows the stored metric names, the
    keys a resumed run is checked against)."""
    return re.sub(r'<section id="signatures">.*?</section>', "", html, flags=re.S)


def test_an_mmae_run_names_each_rate_one_way_in_everything_shown(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from audioeval.cli.main import app
    from tests.golden.runs import mmae_clean

    out = tmp_path / "mmae"
    mmae_clean(out)
    runner = CliRunner()
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    board = runner.invoke(app, ["leaderboard", str(out), "-o", str(tmp_path / "board")])
    assert board.exit_code == 0, board.output
    score = runner.invoke(app, ["rescore", str(out)])
    assert score.exit_code == 0, score.output
    parser = _Visible()
    parser.feed(_without_signatures((out / "report" / "index.html").read_text(encoding="utf-8")))
    shown = {
        "report": " ".join(parser.parts),
        "leaderboard.md": (tmp_path / "board" / "leaderboard.md").read_text(encoding="utf-8"),
        "leaderboard console": board.output,
        "rescore console": score.output,
    }
    for where, text in shown.items():
        assert "EMR" in text and "IFR" in text, where
        for other in (r"mean:(ifr|cr|em)\b", r"(?<![\w:])(em|ifr|cr|EM)(?![\w:])", r"micro:\w+"):
            found = re.findall(other, text)
            assert not found, f"{where} names a rate {found[:3]} (other than IFR, CR, EMR)"
    (summary,) = out.glob("mmae/*/summary.json")
    blocks = json.loads(summary.read_text(encoding="utf-8"))["metrics"]
    assert {k: (b["display"], b["unit"], b["per_sample"]["key"]) for k, b in blocks.items()} == {
        "mean:ifr": ("IFR", "percent", "IFR"), "mean:cr": ("CR", "percent", "CR"), "mean:em": ("EMR", "percent", "EMR"),
        # the micro rates over rubrics: shares of each sample's [passed, scored] rubrics
        "micro:if_rubrics": ("IFR (micro)", "fraction", "if_rubrics"),
        "micro:cr_rubrics": ("CR (micro)", "fraction", "cr_rubrics"),
    }  # fmt: skip


def test_a_metric_is_declared_by_one_benchmark_only() -> None:
    """A plugin declaring a metric another benchmark (or audioeval) declares is refused at
    load, naming both; the registry itself refuses a second declaration."""
    from audioeval.benchmarks.contract import BenchmarkPluginError
    from audioeval.benchmarks.plugins import _claim, _taken
    from audioeval.metrics.declaration import declare

    ours = MeanDeclaration("robust_correct", "mine", "fraction")
    with pytest.raises(BenchmarkPluginError, match="metric name 'mean:robust_correct' .* is taken"):
        _claim(_taken(), "package 'x'", Benchmark("x", metrics=(ours,)))
    seen = _taken()
    _claim(seen, "package 'a'", Benchmark("a", metrics=(MeanDeclaration("hit", "hit", "fraction"),)))
    with pytest.raises(BenchmarkPluginError, match=r"metric name 'mean:hit' of benchmark 'b' .* \(by benchmark 'a'"):
        _claim(seen, "package 'b'", Benchmark("b", metrics=(MeanDeclaration("hit", "Hit", "percent"),)))
    with pytest.raises(ValueError, match="already declared"):
        declare(ours)


def test_a_task_whose_scorers_a_benchmark_gives_names_none_of_its_metrics() -> None:
    """`audio_edit` and `audio_chat` name no metric of MMAE or AIR-Bench: a spec of either
    task gets the metrics its benchmark's scorer declares, the first as headline, as before."""
    from audioeval.benchmarks.registry import load_shipped
    from audioeval.benchmarks.resolved import resolve
    from audioeval.benchmarks.tasks import TASKS

    for task in ("audio_edit", "audio_chat"):
        assert (TASKS.get(task).metrics, TASKS.get(task).headline) == ((), ""), task
    chat = resolve(*load_shipped("air-bench-chat"))
    assert [m.name for m in chat.metrics] == ["mean:chat_score", "mean:reference_score", "mean:win"]
    assert chat.headline == "mean:chat_score"
