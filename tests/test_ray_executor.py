"""`--executor ray`: a runtime's workers sharded over Ray actors (adapters/ray_runtime.py).

Ray runs locally here (`ray.init(num_cpus=2)`, two CPU actors). The model under test is the
stdlib fake codec runtime (`tests/fakes/worker_codec.py`, 16-bit PCM requantised), scored by
the fake MOS runtime (`tests/fakes/worker_metric.py`), both in dev mode with this interpreter,
so records and numbers are deterministic: a single-process run and a Ray run must agree.
The echo worker (`tests/fakes/worker_echo.py`) answers with its pid: which actor did the work.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.adapters.base import ModelRequest
from audioeval.adapters.runtimes.spec import load_runtime_spec_file
from audioeval.cli.main import app
from audioeval.core.errors import AudioevalError
from audioeval.core.messages import AudioRef, Message, TextPart
from audioeval.core.sample import Sample
from audioeval.engine.model_specs import ModelConfig, parse_model_entry
from tests.run_helpers import demo_speech_as_wavs

# Found, not imported: every xdist worker collects every module, and `import ray` costs each
# about 0.5 s of CPU; the tests that use it import it.
HAS_RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAS_RAY, reason="ray is not installed: pip install 'audioeval[ray]'")
runner = CliRunner()
FAKES = Path(__file__).parent / "fakes"


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray of two CPUs, shared by the module's tests (about 3 s to start)."""
    if not HAS_RAY:
        pytest.skip("ray is not installed: pip install 'audioeval[ray]'")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def write_spec(folder: Path, name: str, worker: str, tasks: str, output: str, args: dict) -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(
        f"name: {name}\ndescription: fake\nworker: {FAKES / worker}\nworker_args: {json.dumps(args)}\n"
        f"tasks: {tasks}\noutput: {output}\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Four speech clips as WAVs, the fake codec and MOS runtimes, a codec benchmark spec."""
    folder = tmp_path_factory.mktemp("ray")
    manifest = demo_speech_as_wavs(folder, n=4, name="clips.jsonl")
    codec = write_spec(folder, "codec-q6", "worker_codec.py", "[codec]", "audio", {"bits": 6})
    mos = write_spec(folder, "mos-fake", "worker_metric.py", "[mos]", "text", {})
    bench = folder / "clips.yaml"
    bench.write_text(
        f"name: clips\ntask: codec\nsource: {{type: jsonl, path: {manifest}}}\n"
        f"scorers: [{{utmos: {{runtime: {mos}}}}}]\n",
        encoding="utf-8",
    )
    return {"folder": folder, "codec": codec, "mos": mos, "bench": bench, "manifest": manifest}


@pytest.fixture()
def dev_mode(monkeypatch: pytest.MonkeyPatch, setup: dict) -> None:
    for spec in (setup["codec"], setup["mos"]):
        monkeypatch.setenv(load_runtime_spec_file(spec).env_var_name, sys.executable)


def run(setup: dict, out: Path, *extra: str):
    args = ["run", "-m", str(setup["codec"]), "-b", str(setup["bench"]), "-o", str(out)]
    return runner.invoke(app, [*args, "--no-progress", "--resamples", "0", *extra], catch_exceptions=False)


def records(out: Path) -> dict[str, dict]:
    lines = (out / "clips" / "codec-q6" / "records.jsonl").read_text().splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def gone(pid: int) -> bool:
    """The process has exited (a zombie no adoptive parent reaped yet counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def wait_gone(pids: list[int], timeout_s: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if all(map(gone, pids)):
            return True
        time.sleep(0.1)
    return False


@needs_ray
def test_without_a_cluster_the_run_starts_ray_here_and_stops_it(
    setup: dict, dev_mode: None, tmp_path: Path
) -> None:
    """First in the module: no Ray is running yet (the `local_ray` fixture starts later)."""
    import ray

    assert not ray.is_initialized()
    res = run(setup, tmp_path / "o", "--executor", "ray", "--ray-actors", "1", "--limit", "1")
    assert res.exit_code == 0, res.output
    (rec,) = records(tmp_path / "o").values()
    assert rec["error"] is None and rec["output"]["endpoint"] == "runtime:codec-q6@ray#0"
    assert not ray.is_initialized()  # the Ray it started is shut down with the run


@needs_ray
def test_a_ray_run_equals_the_single_process_run_and_resumes(
    local_ray, setup: dict, dev_mode: None, tmp_path: Path
) -> None:
    single, sharded = tmp_path / "single", tmp_path / "ray"
    assert run(setup, single).exit_code == 0
    t0 = time.perf_counter()
    res = run(setup, sharded, "--executor", "ray", "--ray-actors", "2")
    ray_s = time.perf_counter() - t0
    assert res.exit_code == 0, res.output
    assert "asked 4, reused 0" in " ".join(res.output.split())

    one, two = records(single), records(sharded)
    assert one.keys() == two.keys() and len(one) == 4
    for sid, a in one.items():
        b = two[sid]
        assert a["error"] is None and b["error"] is None
        assert a["scores"] == b["scores"], sid  # utmos of the reconstruction: the same numbers
        out_a, out_b = Path(a["output"]["audio_path"]), Path(b["output"]["audio_path"])
        assert out_a.name == out_b.name and out_a.read_bytes() == out_b.read_bytes()
        assert out_b.parent == sharded / "clips" / "codec-q6" / "audio"
        assert a["output"]["endpoint"].startswith("runtime:codec-q6#")
    # Both actors worked: each record says which actor answered.
    assert {r["output"]["endpoint"] for r in two.values()} == {
        "runtime:codec-q6@ray#0",
        "runtime:codec-q6@ray#1",
    }
    summary = [json.loads((d / "summary.json").read_text()) for d in (single, sharded)]
    assert summary[0]["scores"] == summary[1]["scores"]
    assert summary[1]["scores"]["clips"]["codec-q6"]  # numbers there, not an empty board
    # The signature is the runtime's own: the executor moves no number.
    sigs = [json.loads((d / "clips" / "codec-q6" / "signature.json").read_text()) for d in (single, sharded)]
    assert sigs[0]["model"] == sigs[1]["model"]

    again = run(setup, sharded, "--executor", "ray", "--ray-actors", "2")
    assert again.exit_code == 0, again.output
    assert "asked 0, reused 4" in " ".join(again.output.split())  # resumed: no call
    # A run started with one executor resumes with the other.
    local_again = run(setup, sharded)
    assert "asked 0, reused 4" in " ".join(local_again.output.split())
    print(f"ray run of 4 clips with 2 actors: {ray_s:.1f} s")


def _request(i: int, audio: Path) -> ModelRequest:
    sample = Sample(id=f"s{i}", audio={"audio": AudioRef(str(audio))})
    message = Message(role="user", parts=(TextPart(f"clip {i}"),))
    return ModelRequest(sample=sample, messages=(message,), task="asr")


@needs_ray
def test_requests_go_to_free_actors_and_close_stops_every_worker(local_ray, setup: dict) -> None:
    from audioeval.adapters.ray_runtime import RayRuntimeAdapter, RaySettings

    spec = load_runtime_spec_file(write_spec(setup["folder"], "echo", "worker_echo.py", "[asr]", "text", {}))
    audio = next(setup["folder"].glob("*.wav"))

    async def go() -> tuple[list, list[int], list[dict]]:
        adapter = RayRuntimeAdapter(spec, settings=RaySettings(actors=2), python_executable=sys.executable)
        await adapter.start()
        assert adapter.max_concurrency == 2
        try:
            outs = await asyncio.gather(*(adapter.generate(_request(i, audio)) for i in range(6)))
            calls = adapter.calls_by_actor()
            info = adapter.actor_info
        finally:
            await adapter.aclose()
        return outs, calls, info

    outs, calls, info = asyncio.run(go())
    assert all(o.ok for o in outs), [o.error for o in outs]
    answers = [json.loads(o.text) for o in outs]
    assert sorted(a["text"] for a in answers) == [f"clip {i}" for i in range(6)]
    assert len(calls) == 2 and all(c > 0 for c in calls) and sum(calls) == 6
    worker_pids = {a["pid"] for a in answers}
    assert worker_pids == {i["worker"]["pid"] for i in info} and len(worker_pids) == 2
    assert all(a["frames"] > 0 for a in answers)  # the actor read the clip from its path
    # Clean shutdown: the workers and the actors hosting them are gone.
    assert wait_gone([*worker_pids, *(i["pid"] for i in info)])


@needs_ray
def test_a_worker_that_cannot_start_fails_start_with_its_reason(local_ray, setup: dict) -> None:
    from audioeval.adapters.ray_runtime import RayRuntimeAdapter, RaySettings

    path = write_spec(setup["folder"], "broken", "worker_echo.py", "[asr]", "text", {"fail_start": True})
    adapter = RayRuntimeAdapter(
        load_runtime_spec_file(path), settings=RaySettings(actors=1), python_executable=sys.executable
    )
    with pytest.raises(AudioevalError, match="could not load model weights"):
        asyncio.run(adapter.start())


def test_ray_options_need_the_ray_executor(setup: dict, tmp_path: Path) -> None:
    res = run(setup, tmp_path / "o", "--ray-actors", "2")
    assert res.exit_code == 2
    assert "need --executor ray" in " ".join(res.output.split())
    assert not (tmp_path / "o").exists()


def test_the_executor_applies_to_runtime_models_only(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="executor ray runs isolated runtimes only"):
        ModelConfig(name="m", type="openai", urls=["http://127.0.0.1:1/v1"], executor="ray")
    cfg = parse_model_entry({"name": "whisper-tiny.en", "executor": "ray", "ray_actors": 3}, "run.yaml", 0)
    assert cfg.type == "runtime" and cfg.executor == "ray" and cfg.ray_actors == 3
    # On the command line an OpenAI-compatible model is left as it is, and the run says so.
    res = runner.invoke(
        app,
        ["run", "-m", "echo", "-b", "demo-speech-en", "--limit", "1", "-o", str(tmp_path / "o")]
        + ["--no-progress", "--resamples", "0", "--executor", "ray"],
    )
    assert res.exit_code == 0, res.output
    assert "applies to runtime models only; echo" in " ".join(res.output.split())


def test_without_ray_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from audioeval.adapters import ray_runtime
    from audioeval.core.errors import OptionalDependencyError

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(OptionalDependencyError, match=r"pip install 'audioeval\[ray\]'"):
        ray_runtime.import_ray()
