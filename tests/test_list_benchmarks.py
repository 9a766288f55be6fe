"""`audioeval list benchmarks`: a `needs` column read from each spec and its scorers (judge,
data download or local data, metric model, Java), and descriptions cut between words."""

from __future__ import annotations

from typer.testing import CliRunner

from audioeval.benchmarks.needs import benchmark_needs
from audioeval.benchmarks.registry import load_shipped, shipped_benchmarks
from audioeval.benchmarks.resolved import resolve
from audioeval.cli.listing import DESCRIPTION_CHARS, LISTINGS
from audioeval.cli.main import app
from audioeval.core.shorten import within_words


def _rows() -> dict[str, dict[str, str]]:
    table = LISTINGS.get("benchmarks")()
    heads = [str(c.header) for c in table.columns]
    cells = [[str(x) for x in c._cells] for c in table.columns]
    return {row[0]: dict(zip(heads, row, strict=True)) for row in zip(*cells, strict=True)}


def test_every_benchmark_says_what_it_needs() -> None:
    rows = _rows()
    assert set(rows) == set(shipped_benchmarks())
    for name in shipped_benchmarks():
        spec, where = load_shipped(name)
        scorers = resolve(spec, where).scorers
        needs = rows[name]["needs"]
        assert ("judge" in needs) == any(s.needs_judge for s in scorers), name
        assert ("download" in needs) == (spec.source.type == "hf"), name
        for scorer in scorers:
            assert all(x in needs for x in scorer.requires), name
        assert needs == (", ".join(benchmark_needs(spec, where, scorers)) or "–")
    assert rows["demo-speech-en"]["needs"] == "–"  # shipped data, a rule scorer
    assert rows["demo-tts-en"]["needs"] == "metric model"
    assert rows["air-bench-chat"]["needs"] == "judge, local data"
    assert rows["mmar"]["needs"] == "local data"
    assert "Java" in rows["audiocaps-test"]["needs"] and "download" in rows["audiocaps-test"]["needs"]


def test_descriptions_are_cut_between_words() -> None:
    for name, row in _rows().items():
        shown = row["description"]
        full = " ".join(load_shipped(name)[0].description.split())
        assert len(shown) <= DESCRIPTION_CHARS
        if shown.endswith("…"):
            kept = shown[:-1]
            assert full.startswith(kept) and full[len(kept)] in " ,;:", name  # a whole word ends there
        else:
            assert full.startswith(shown)
    assert within_words("one two three", 9) == "one two…"
    assert within_words("abcdefghij", 5) == "abcd…"


def test_the_console_table_has_the_needs_column() -> None:
    res = CliRunner().invoke(app, ["list", "benchmarks"], env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "needs" in res.output and "No benchmark needs a GPU" in res.output
