"""Judge requests that share their audio prefix: the requests of one sample send the system
prompt and their clips first, byte for byte the same (MMAE: `output` first, then the inputs by
number, whatever order the question names them in), the rubric question last; the sample's
first request goes alone and the rest only once it is answered (`engine/run_judge.SampleJudge`),
so a serving engine's prefix cache encodes the clips once. Checked on the HTTP bodies the fake
judges read (`tests/fakes/prefix_log.py`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from audioeval.benchmarks.mmae.judge_prompt import attachments
from audioeval.benchmarks.mmae.synthetic import write_synthetic_set
from audioeval.cli.main import app
from audioeval.judge.audio_refs import find_mentions
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
from tests.fakes.mcq_server import tone_wav
from tests.fakes.prefix_log import LoggedRequest, prefix_share, samples_of
from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer
from tests.run_helpers import write_jsonl

AUDIOEVAL = [sys.executable, "-m", "audioeval.cli.main"]


def unique_clips(root: Path) -> None:
    """Every clip of the set made distinct (a little noise of its own): requests that send a
    common clip then belong to one sample."""
    rng = np.random.default_rng(0)
    for wav in sorted(root.rglob("*.wav")):
        x, rate = sf.read(wav)
        sf.write(wav, x + rng.normal(0, 1e-3, x.shape), rate, subtype="PCM_16")


def by_sample(requests: list[LoggedRequest]) -> dict[int, list[LoggedRequest]]:
    groups: dict[int, list[LoggedRequest]] = {}
    for r, s in zip(requests, samples_of(requests), strict=True):
        groups.setdefault(s, []).append(r)
    return {s: sorted(rs, key=lambda r: r.arrived) for s, rs in groups.items()}


def assert_shared_prefix(requests: list[LoggedRequest], n_samples: int) -> None:
    """Audio first, question last; a sample's audio prefixes all leading runs of its first
    request's, which was answered before any other of the sample arrived."""
    groups = by_sample(requests)
    assert len(groups) == n_samples
    for rs in groups.values():
        for r in rs:
            kinds = [u.kind for u in r.units]
            assert "audio" in kinds and kinds[-1] == "text"  # the question text last
            assert "audio" not in kinds[r.audio_prefix :]
        first = rs[0]
        head = first.units[: first.audio_prefix]
        assert max(r.audio_prefix for r in rs) == first.audio_prefix  # the first sends the most clips
        for r in rs[1:]:
            assert r.units[: r.audio_prefix] == head[: r.audio_prefix]  # byte-identical prefix
            assert first.answered is not None and r.arrived > first.answered


def test_mmae_clips_go_output_first_whatever_order_the_question_names_them():
    paths = {"output": "/o.wav", "input1": "/i1.wav", "input2": "/i2.wav"}
    for question in (
        "Compared with <audio input2>, is the tone of <audio input1> heard in <audio output>?",
        "Is <audio output> like <audio input1> and <audio input2>?",
        "Does <audio input2> sound like <audio output> or <audio input1>?",
    ):
        clips = attachments(find_mentions(question), paths.__getitem__, slice_clips=False)
        assert [label for label, _ in clips] == ["<audio output>", "<audio input1>", "<audio input2>"]


@pytest.fixture(scope="module")
def mmae_set(tmp_path_factory):
    """The 12-sample synthetic set (questions naming an input before the output, two-input
    samples), its clips made distinct."""
    data = write_synthetic_set(tmp_path_factory.mktemp("prefix") / "set", 12)
    unique_clips(data.root)
    return data


def test_mmae_requests_of_a_sample_share_their_audio_prefix(mmae_set, tmp_path):
    with FakeJudgeServer(FakeJudgeConfig(latency_s=0.02, log_prefixes=True)) as judge:
        p = subprocess.run(
            [*AUDIOEVAL, "mmae", "score", "--predictions", str(mmae_set.oracle_predictions), "--metadata",
             str(mmae_set.metadata), "--audio_root", str(mmae_set.root), "--judge", judge.base_url,
             "--output_dir", str(tmp_path / "out"), "--judge-concurrency", "16"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert p.returncode == 0, p.stderr[-2000:]
        requests = judge.judge.prefix_log.requests
    assert len(requests) == 34 * 3
    assert_shared_prefix(requests, 12)
    assert any(r.audio_prefix > 3 for r in requests)  # some send two clips or more
    share = prefix_share(requests)
    assert share["of_ideal"] >= 0.9  # 1.0 but for the system prompt of samples sent in the first wave
    tax = json.loads((tmp_path / "out" / "taxonomy.json").read_text())
    assert tax["overall"]["EMR"] == 100.0  # the judge still hears the right clip under each label


def test_rubric_items_requests_of_a_sample_share_their_audio_prefix(tmp_path):
    rows = []
    for i, hz in enumerate((440, 660, 880, 550, 990)):
        tone_wav(tmp_path / f"c{i}.wav", hz, seconds=0.3)
        rubric = [
            {
                "dimension": "tone",
                "question": f"Is there a steady tone near {hz + 10 * k} Hz?",
                "basis": "a tone",
            }
            for k in range(4)
        ]
        rows.append({"id": f"c{i}", "audio": f"c{i}.wav", "caption": "a tone", "rubric": rubric})
    write_jsonl(tmp_path / "b.jsonl", rows)
    spec = tmp_path / "b.yaml"
    spec.write_text(
        f"name: prefix\ntask: audio_instruct\nsource: {{type: jsonl, path: {json.dumps(str(tmp_path / 'b.jsonl'))}}}\n"
    )
    with YesNoJudgeServer(YesNoJudgeConfig(latency_s=0.02, log_prefixes=True)) as judge:
        result = CliRunner().invoke(
            app,
            ["run", "--benchmark", str(spec), "--model", "echo", "--judge", judge.base_url, "--judge-model",
             "AnyAudio-Judge-7B", "-o", str(tmp_path / "out"), "--no-progress", "--resamples", "0"],
            catch_exceptions=False,
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        requests = judge.judge.prefix_log.requests
    assert len(requests) == 5 * 4
    assert_shared_prefix(requests, 5)
    assert prefix_share(requests)["of_ideal"] >= 0.9


def test_the_measure_counts_only_prefixes_answered_before_a_request_arrives():
    """Requests sent together share nothing a cache could hold yet; sent after the first is
    answered, they repeat its prefix."""
    from tests.fakes.prefix_log import Unit

    sys_, audio, q1, q2 = (
        Unit("text", "s", 100),
        Unit("audio", "a", 1000),
        Unit("text", "q1", 10),
        Unit("text", "q2", 10),
    )
    together = [LoggedRequest(0, (sys_, audio, q1), 2), LoggedRequest(1, (sys_, audio, q2), 3)]
    after = [LoggedRequest(0, (sys_, audio, q1), 1), LoggedRequest(2, (sys_, audio, q2), 3)]
    assert prefix_share(together)["repeated"] == 0.0 and prefix_share(together)["of_ideal"] == 0.0
    share = prefix_share(after)
    assert share["of_ideal"] == 1.0 and share["repeated"] == pytest.approx(1100 / 2220)
