"""Audio-output health in a pair's summary and on the report page: a codec run whose outputs
are silent, clipped and the input unchanged lists each, with its samples."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from audioeval.adapters.runtimes.spec import load_runtime_spec_file
from audioeval.cli.main import app
from tests.run_helpers import demo_speech_as_wavs, write_jsonl
from tests.test_ray_executor import write_spec

runner = CliRunner()
RATE = 16000


def test_a_codec_run_lists_its_silent_clipped_and_unchanged_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    demo_speech_as_wavs(tmp_path, n=1, name="speech.jsonl")
    [speech] = [json.loads(x) for x in (tmp_path / "speech.jsonl").read_text().splitlines()]
    t = np.arange(RATE) / RATE
    sf.write(tmp_path / "quiet.wav", np.zeros(RATE), RATE, subtype="PCM_16")
    sf.write(tmp_path / "loud.wav", np.clip(3 * np.sin(2 * np.pi * 440 * t), -32767 / 32768, 32767 / 32768), RATE,
             subtype="PCM_16")  # fmt: skip
    rows = [speech, {"id": "quiet", "audio": "quiet.wav", "text": "x"}, {"id": "loud", "audio": "loud.wav", "text": "x"}]
    manifest = write_jsonl(tmp_path / "clips.jsonl", rows)
    # a codec of 16 bits keeps every sample: each output is its input unchanged
    codec = write_spec(tmp_path, "codec-id", "worker_codec.py", "[codec]", "audio", {"bits": 16})
    mos = write_spec(tmp_path, "mos-fake", "worker_metric.py", "[mos]", "text", {})
    for spec in (codec, mos):
        monkeypatch.setenv(load_runtime_spec_file(spec).env_var_name, sys.executable)
    bench = tmp_path / "clips.yaml"
    bench.write_text(
        f"name: clips\ntask: codec\nsource: {{type: jsonl, path: {manifest}}}\nscorers: [{{utmos: {{runtime: {mos}}}}}]\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", "-m", str(codec), "-b", str(bench), "-o", str(out), "--no-progress",
                              "--resamples", "0"], catch_exceptions=False)  # fmt: skip
    assert res.exit_code == 0, res.output
    health = json.loads((out / "clips" / "codec-id" / "summary.json").read_text())["output_health"]
    problems = health["problems"]
    assert health["n_checked"] == 3 and health["against_input"] is True
    assert problems["silent"]["ids"] == ["quiet"] and problems["clipped"]["ids"] == ["loud"]
    assert speech["id"] in problems["identical_to_input"]["ids"]
    assert health["unreadable"]["n"] == 0

    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    page = (out / "report" / "index.html").read_text(encoding="utf-8")
    section = page[page.index('<section id="output-health">') :].split("</section>")[0]
    for name, sid in (("silent", "quiet"), ("clipped", "loud"), ("identical_to_input", speech["id"])):
        rows = [r for r in section.split("<tr>") if f"<td>{name}</td>" in r]  # one row per sample
        # the sample, linked to the sample browser (the pair's key and the id in the address)
        assert any(f'<a href="#pair=clips/codec-id&amp;sample={sid}">{sid}</a>' in r for r in rows), rows


def test_a_text_benchmark_has_no_health_block() -> None:
    from audioeval.metrics.pair_summary import PairMetrics, summarise_records

    assert "output_health" not in summarise_records(PairMetrics([]), [])


def test_a_tts_run_lists_its_silent_and_clipped_outputs(tmp_path: Path) -> None:
    """Speech made from text is measured alone (no input to compare with)."""
    import shutil

    from tests.fakes.speech_server import FakeSpeechServer

    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng is not installed")
    mos = write_spec(tmp_path, "mos-fake", "worker_metric.py", "[mos]", "text", {})
    rows = [{"id": "ok", "text": "hello there"}, {"id": "quiet", "text": "[silent] hello there"},
            {"id": "loud", "text": "[clipped] hello there"}]  # fmt: skip
    manifest = write_jsonl(tmp_path / "tts.jsonl", rows)
    bench = tmp_path / "tts.yaml"
    bench.write_text(
        f"name: t\ntask: tts\nsource: {{type: jsonl, path: {manifest}}}\nscorers: [{{utmos: {{runtime: {mos}}}}}]\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    with FakeSpeechServer() as server, pytest.MonkeyPatch.context() as mp:
        mp.setenv(load_runtime_spec_file(mos).env_var_name, sys.executable)
        config = tmp_path / "run.yaml"
        config.write_text(
            f"benchmarks: [{bench}]\noutput_dir: {out}\nresamples: 0\nmodels:\n"
            f"  - {{name: tts-endpoint, type: openai, api: speech, urls: [{server.base_url}]}}\n"
        )
        res = runner.invoke(app, ["run", str(config), "--no-progress", "--resamples", "0"], catch_exceptions=False)
    # the stdlib fake MOS reads 16-bit WAVs only, and the adapter stores float WAVs: nothing is
    # scored (exit 4), and every output is measured all the same (health is not a score)
    assert res.exit_code == 4 and "unknown format" in res.output, res.output
    health = json.loads((out / "t" / "tts-endpoint" / "summary.json").read_text())["output_health"]
    assert health["n_checked"] == 3 and health["against_input"] is False and health["n_with_problems"] == 2
    assert health["problems"]["silent"]["ids"] == ["quiet"] and health["problems"]["clipped"]["ids"] == ["loud"]
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0
    page = (out / "report" / "index.html").read_text(encoding="utf-8")
    section = page[page.index('<section id="output-health">') :].split("</section>")[0]
    assert "<td>silent</td>" in section and "<td>clipped</td>" in section and "quiet" in section
