"""A benchmark from an installed package (`examples/plugin_benchmark/`, entry point group
`audioeval.benchmarks`) runs end to end exactly as a built-in one: `run`, `rescore`,
`report`, `leaderboard`. Discovery errors name the package and entry point."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from audioeval.benchmarks import plugins
from audioeval.benchmarks.contract import Benchmark, BenchmarkPluginError
from audioeval.scoring.match import AccuracyScorer

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "plugin_benchmark"
AUDIOEVAL = Path(sys.executable).parent / "audioeval"

# Captions of k1 (keywords tone, low), k2 (tone, middle), k3 (tone, high, short): by hand,
# keyword_hit is 2/2, 2/2 ("Tone" in any case, as a whole word) and 0/3 ("tones" is not
# "tone"), so the mean is 2/3.
PREDICTIONS = [
    {"id": "k1", "text": "A low tone."},
    {"id": "k2", "text": "A steady Tone in the middle range."},
    {"id": "k3", "text": "Two tones, briefly."},
]


@pytest.fixture(scope="module")
def plugin_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The example installed into a scratch folder (no network), run once with predictions."""
    base = tmp_path_factory.mktemp("plugin")
    src = base / "plugin_benchmark"
    shutil.copytree(EXAMPLE, src, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    site = base / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(site),
            str(src),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    preds = base / "captions.jsonl"
    preds.write_text("".join(json.dumps(p) + "\n" for p in PREDICTIONS))
    # the plugin first, then whatever audioeval is under test (a source tree on PYTHONPATH)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)}
    run_dir = base / "run"
    _cli(env, "run", "-b", "keyword-demo", "-m", f"predictions:{preds}", "-o", str(run_dir))
    return run_dir, env


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    res = subprocess.run([str(AUDIOEVAL), *args], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    return res


def _pair_summary(run_dir: Path) -> dict:
    (path,) = (run_dir / "keyword-demo").glob("*/summary.json")
    return json.loads(path.read_text())


def test_plugin_benchmark_runs_with_its_own_scorer(plugin_run: tuple[Path, dict[str, str]]) -> None:
    run_dir, _ = plugin_run
    s = _pair_summary(run_dir)
    assert (s["benchmark"], s["headline"], s["n"], s["scored"], s["failed"]) == (
        "keyword-demo",
        "mean:keyword_hit",
        3,
        3,
        0,
    )
    assert s["metrics"]["mean:keyword_hit"]["value"] == pytest.approx(2 / 3)


def test_plugin_benchmark_reads_its_own_predictions_format(plugin_run: tuple[Path, dict[str, str]]) -> None:
    """The plugin's data is in its own source type (`keyword_tsv`), and a file of captions in its
    own predictions format (`caption_tsv`) is found by `auto` among every registered format,
    said so, and scores as the JSONL file of the same captions does."""
    run_dir, env = plugin_run
    tsv = run_dir.parent / "captions.tsv"
    tsv.write_text("".join(f"{p['id']}\t{p['text']}\n" for p in PREDICTIONS))
    other = run_dir.parent / "run_tsv"
    res = _cli(env, "run", "-b", "keyword-demo", "-m", f"mine=predictions:{tsv}", "-o", str(other))
    assert "read as caption_tsv (the one format it matches)" in " ".join(res.stdout.split())
    (path,) = (other / "keyword-demo").glob("*/summary.json")
    s = json.loads(path.read_text())
    assert (s["n"], s["scored"]) == (3, 3)
    assert s["metrics"]["mean:keyword_hit"]["value"] == pytest.approx(2 / 3)
    signature = json.loads((other / "run.json").read_text())
    assert '"format": "caption_tsv"' in json.dumps(signature) and '"matching": "by id"' in json.dumps(signature)


def test_plugin_benchmark_rescores_reports_and_ranks(plugin_run: tuple[Path, dict[str, str]]) -> None:
    run_dir, env = plugin_run
    res = _cli(env, "rescore", str(run_dir))
    assert "rescored 3 sample(s); 0 changed" in res.stdout
    assert _pair_summary(run_dir)["metrics"]["mean:keyword_hit"]["value"] == pytest.approx(2 / 3)
    _cli(env, "report", str(run_dir))
    assert "keyword-demo" in (run_dir / "report" / "index.html").read_text()
    board_dir = run_dir.parent / "board"
    _cli(env, "leaderboard", str(run_dir), "-o", str(board_dir))
    board = json.loads((board_dir / "leaderboard.json").read_text())["boards"]["understanding"]
    (row,) = board["rows"]
    cell = row["cells"]["keyword-demo · keyword hit"]  # under the display name its Benchmark declares
    # a fraction, declared so: on the board's 0–100 scale beside 100 − WER, not 0.67
    assert cell["value"] == pytest.approx(2 / 3) and cell["normalised"] == pytest.approx(200 / 3)
    block = _pair_summary(run_dir)["metrics"]["mean:keyword_hit"]
    assert (block["display"], block["unit"], block["per_sample"]) == ("keyword hit", "fraction", {"key": "keyword_hit", "scale": 1.0})


def test_plugin_benchmark_is_listed_with_its_package(plugin_run: tuple[Path, dict[str, str]]) -> None:
    _, env = plugin_run
    code = (
        "from audioeval.benchmarks.plugins import load_benchmarks, provider_of;"
        "load_benchmarks(); print(provider_of('keyword_demo'))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert "audioeval-keyword-bench" in out.stdout and "keyword_demo = keyword_bench:BENCHMARK" in out.stdout


def _entry_points(*eps: EntryPoint):
    return lambda group: [e for e in eps if e.group == group]


def test_a_broken_plugin_names_its_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    broken = EntryPoint("broken", "no_such_module_here:BENCHMARK", plugins.ENTRY_POINT_GROUP)
    monkeypatch.setattr(plugins, "entry_points", _entry_points(broken))
    found, (bad,) = plugins.installed_benchmarks()
    assert found == []
    assert "entry point broken = no_such_module_here:BENCHMARK" in bad.line()
    assert "failed to load" in bad.line()


def test_a_plugin_that_names_no_benchmark_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    wrong = EntryPoint("wrong", "json:dumps", plugins.ENTRY_POINT_GROUP)
    monkeypatch.setattr(plugins, "entry_points", _entry_points(wrong))
    found, (bad,) = plugins.installed_benchmarks()
    assert found == [] and "entry point wrong = json:dumps" in bad.line()
    assert "not an audioeval Benchmark" in bad.line()


def test_names_taken_twice_are_errors() -> None:
    plugins.load_benchmarks()
    with pytest.raises(
        BenchmarkPluginError, match=r"benchmark name 'x' .* from pkg B .*by benchmark 'x' from pkg A"
    ):
        plugins._check([("pkg A", Benchmark("x")), ("pkg B", Benchmark("x"))])
    with pytest.raises(BenchmarkPluginError, match=r"scorer name 'accuracy' .*already registered"):
        plugins._check([("pkg A", Benchmark("y", scorers={"accuracy": AccuracyScorer}))])
    with pytest.raises(BenchmarkPluginError, match=r"exporter name 'mcq_score'"):
        plugins._check([("pkg A", Benchmark("y", exporters={"mcq_score": lambda folder, export: None}))])


def test_formats_and_task_scorers_taken_twice_are_errors() -> None:
    """A source type, a predictions format or a task's default scorers is given once: by one
    benchmark, never over a generic one (`jsonl`, `auto`, a task's own scorers)."""
    loaded = plugins.load_benchmarks()
    mmae = loaded["mmae"]
    with pytest.raises(BenchmarkPluginError, match=r"source type name 'mmae' .*already registered"):
        plugins._check([("pkg A", Benchmark("y", source_types=dict(mmae.source_types)))])
    with pytest.raises(BenchmarkPluginError, match=r"source type name 'jsonl' .*generic source type"):
        plugins._check([("pkg A", Benchmark("y", source_types={"jsonl": mmae.source_types["mmae"]}))])
    with pytest.raises(BenchmarkPluginError, match=r"predictions format name 'auto'"):
        plugins._check([("pkg A", Benchmark("y", prediction_formats={"auto": mmae.prediction_formats["mmae"]}))])
    with pytest.raises(BenchmarkPluginError, match=r"task scorers name 'asr' .*the task's own"):
        plugins._check([("pkg A", Benchmark("y", task_scorers={"asr": ("wer",)}))])
    with pytest.raises(BenchmarkPluginError, match=r"task scorers name 'audio_edit' .*already registered"):
        plugins._check([("pkg A", Benchmark("y", task_scorers={"audio_edit": ("wer",)}))])
    with pytest.raises(BenchmarkPluginError, match=r"unknown task\(s\) no_such_task"):
        plugins._check([("pkg A", Benchmark("y", task_scorers={"no_such_task": ("wer",)}))])
    with pytest.raises(TypeError, match="must be a SourceFormat"):
        Benchmark("y", source_types={"x": "pkg.mod:read"})  # type: ignore[dict-item]


def test_a_task_without_scorers_of_its_own_gets_its_benchmark_s() -> None:
    from audioeval.benchmarks.tasks import default_scorers, get_task

    assert get_task("audio_edit").scorers == () and default_scorers(get_task("audio_edit")) == ("mmae_rubrics",)
    assert default_scorers(get_task("audio_chat")) == ("airbench_chat",)


def test_a_benchmark_holds_objects_not_module_paths() -> None:
    with pytest.raises(TypeError, match="factory object"):
        Benchmark("y", scorers={"s": "pkg.mod:Scorer"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="lower case"):
        Benchmark("Bad Name")


def test_the_builtin_benchmarks_register_their_exporters() -> None:
    from audioeval.benchmarks.exporter_names import EXPORTERS

    loaded = plugins.load_benchmarks()
    assert {"mmae", "mmar_mmau", "anyaudio_bench", "caption_rubrics", "voicebench", "air_bench"} <= set(loaded)
    assert {"mmae_rubrics", "mcq_score", "judge_eval", "rubric_decompose"} <= set(EXPORTERS)
    assert plugins.load_benchmarks() is loaded  # loaded once
