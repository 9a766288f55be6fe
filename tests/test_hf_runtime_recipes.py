"""The shipped Transformers runtime recipes, end to end with tiny random models.

Nothing is downloaded: each recipe loads a tiny randomly initialised model of its real
architecture (`tests/fakes/tiny_hf_models.py`, built from a config and saved with
`save_pretrained`) as its local weights, through `$AUDIOEVAL_RUNTIME_MODEL_<NAME>`. Each is set
up with `audioeval runtime setup NAME` into a runtimes folder of this module, in venvs that
inherit this interpreter's packages (`$AUDIOEVAL_RUNTIME_INHERIT=1`: pip finds the pinned torch
and transformers installed, offline, in seconds), then runs isolated (its own venv's python)
through the worker protocol: request, answer, record. What the answers say is noise (random
weights); the tests check the wiring, the records and the recorded bitrates.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from audioeval.adapters.base import ModelRequest
from audioeval.adapters.local_runtime import LocalRuntimeAdapter
from audioeval.adapters.runtimes.environment import read_marker
from audioeval.adapters.runtimes.spec import load_runtime_spec
from audioeval.cli.main import app
from audioeval.core.errors import InputError
from audioeval.core.messages import AudioPart, AudioRef, Message, TextPart
from audioeval.core.sample import Sample
from tests.fakes.tiny_hf_models import BUILDERS, build_all
from tests.run_helpers import demo_speech_as_wavs, tone_asr_manifest

runner = CliRunner()
RECIPES = tuple(BUILDERS)


@pytest.fixture(scope="module", autouse=True)
def _torch_transformers_and_snac() -> None:
    """The module's tests are skipped without them. Imported when its tests run, not at
    collection: every xdist worker collects every module, and importing torch and
    transformers costs each about 2 s of CPU."""
    pytest.importorskip("torch", reason="torch is not installed: the Transformers recipes need it")
    pytest.importorskip("transformers", reason="transformers is not installed (the dev extra installs it)")
    pytest.importorskip(
        "snac", reason="snac is not installed (`make test` installs it beside torch, --no-deps)"
    )


@pytest.fixture(scope="module")
def recipes(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Tiny models, and every recipe set up (inheriting venvs) in this module's runtimes folder."""
    root = tmp_path_factory.mktemp("hf_recipes")
    models = build_all(root / "models")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AUDIOEVAL_RUNTIMES", str(root / "runtimes"))
        mp.setenv("AUDIOEVAL_RUNTIME_INHERIT", "1")
        mp.setenv("HF_HUB_OFFLINE", "1")
        for name, folder in models.items():
            mp.setenv(load_runtime_spec(name).model_env_var, str(folder))
        setup_s = {}
        for name in RECIPES:
            t0 = time.perf_counter()
            res = runner.invoke(app, ["runtime", "setup", name], catch_exceptions=False)
            assert res.exit_code == 0, res.output
            setup_s[name] = time.perf_counter() - t0
        yield {"root": root, "models": models, "setup_s": setup_s}


def test_recipes_set_up_in_seconds_in_inheriting_venvs(recipes: dict) -> None:
    for name in RECIPES:
        venvs = list((recipes["root"] / "runtimes").glob(f"{name}-*"))
        assert len(venvs) == 1, name
        marker = read_marker(venvs[0])
        assert marker is not None and marker["inherits_site_packages"], name
        assert recipes["setup_s"][name] < 60, recipes["setup_s"]
    res = runner.invoke(app, ["runtime", "setup", "encodec"], catch_exceptions=False)
    assert res.exit_code == 0 and "already" in res.output.lower()


def test_qwen2_audio_recipe_answers_through_audioeval_run(recipes: dict, tmp_path: Path) -> None:
    bench = tone_asr_manifest(tmp_path / "tones", n=2)
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["run", "--task", "asr", "-m", "qwen2-audio", "-b", str(bench), "-o", str(out)]
        + ["--no-progress", "--resamples", "0"],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    folder = next(p for p in out.iterdir() if p.is_dir() and (p / "qwen2-audio").is_dir()) / "qwen2-audio"
    recs = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]
    assert len(recs) == 2
    for rec in recs:
        assert rec["error"] is None and isinstance(rec["output"]["text"], str)
        assert rec["output"]["endpoint"].startswith("runtime:qwen2-audio")
    sig = json.loads((folder / "signature.json").read_text())["model"]
    assert sig["runtime"] == "qwen2-audio" and sig["isolated"] is True
    assert sig["worker"] == "transformers_audio_chat.py"
    assert sig["worker_args"]["model"] == str(recipes["models"]["qwen2-audio"])
    assert sig["worker_args"]["architecture"] == "Qwen2AudioForConditionalGeneration"


def test_encodec_mimi_dac_and_snac_share_the_board_with_opus(recipes: dict, tmp_path: Path) -> None:
    speech = demo_speech_as_wavs(tmp_path, n=1)
    out = tmp_path / "out"
    res = runner.invoke(
        app,
        ["codec", "--codec", "encodec:6k,mimi:4q,dac:8q,snac:24k,opus:6k", "-b", str(speech), "-o", str(out)]
        + ["--no-progress", "--resamples", "0"],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    codecs = json.loads((out / "summary.json").read_text())["codecs"]
    assert set(codecs) == {"encodec:6k", "mimi:4q", "dac:8q", "snac:24k", "opus:6k"}
    for name, values in codecs.items():
        assert values["pesq"] is not None and values["stoi"] is not None, (name, values)
    # Tiny EnCodec: 500 frames/s x 6 bits a code; 6 kbit/s is 2 codebooks. Tiny Mimi: 250
    # frames/s x 6 bits; 4 codebooks are 6 kbit/s too. Tiny DAC: 16000 / 48 = 333.33 frames/s
    # (exact, not Transformers' rounded-up 334) x 6 bits x 8 codebooks = 16 kbit/s. Tiny SNAC:
    # codebooks at 93.75, 187.5 and 375 frames/s x 6 bits = 3.9375 kbit/s. Real checkpoints differ.
    rate = 6000.0, 8 * 16000 / 48 * 6, 3937.5
    expect = {
        "encodec_6k": ({"bandwidth": 6.0}, {"codec": "encodec", "codebooks": 2, "frame_rate_hz": 500.0}, rate[0]),
        "mimi_4q": ({"num_quantizers": 4}, {"codec": "mimi", "codebooks": 4, "frame_rate_hz": 250.0}, rate[0]),
        "dac_8q": ({"num_quantizers": 8}, {"codec": "dac", "codebooks": 8, "frame_rate_hz": 16000 / 48}, rate[1]),
        "snac_24k": (
            {"sampling_khz": 24},
            {"codec": "snac", "codebooks": 3, "frame_rate_hz": 375.0, "codebook_frame_rates_hz": [93.75, 187.5, 375.0]},
            rate[2],
        ),
    }
    for slug, (args, facts, bitrate) in expect.items():
        folder = out / "speech" / slug
        sig = json.loads((folder / "signature.json").read_text())["model"]
        assert args.items() <= sig["worker_args"].items() and sig["isolated"] is True
        recs = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]
        assert len(recs) == 1
        for rec in recs:
            assert rec["error"] is None
            measured = json.loads(rec["output"]["text"])
            assert facts.items() <= measured.items()
            assert measured["bitrate_bps"] == pytest.approx(bitrate, abs=1e-3) and measured["bits_per_code"] == 6.0
            assert Path(rec["output"]["audio_path"]).is_file()


async def _ask(name: str, task: str, audio: Path, **args: int) -> str:
    adapter = LocalRuntimeAdapter(name, worker_args=args)
    await adapter.start()
    try:
        parts = (AudioPart(AudioRef(str(audio))), TextPart("Transcribe."))
        out = await adapter.generate(ModelRequest(Sample(id="s1"), (Message("user", parts),), task))
    finally:
        await adapter.aclose()
    assert out.error is None, out.error
    assert out.text is not None
    return out.text


def test_metric_recipes_whisper_and_wavlm_answer(recipes: dict, tmp_path: Path) -> None:
    speech = demo_speech_as_wavs(tmp_path, n=1)
    clip = next(speech.parent.glob("*.wav"))
    async def both() -> list[str]:  # started side by side: each start imports torch
        return await asyncio.gather(
            _ask("whisper-large-v3", "asr", clip, max_new_tokens=8), _ask("wavlm-sv", "speaker_embedding", clip)
        )

    text, answer = asyncio.run(both())
    assert isinstance(text, str)
    embedding = json.loads(answer)
    assert len(embedding) == 12 and all(isinstance(v, float) for v in embedding)  # xvector_output_dim


def test_codec_workers_refuse_an_operating_point_the_checkpoint_lacks(
    recipes: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers' `load`, called in this process (a worker start costs seconds): `snac:32k`
    on a 24 kHz checkpoint and `dac:13q` on a 12-codebook one fail before any request."""
    monkeypatch.syspath_prepend(str(Path(load_runtime_spec("snac").source).parent.parent / "workers"))
    snac_codec = importlib.import_module("snac_codec")
    transformers_codec = importlib.import_module("transformers_codec")
    models = recipes["models"]
    with pytest.raises(ValueError, match="is a 24000 Hz SNAC, not the 32 kHz one asked for"):
        snac_codec.load({**snac_codec.DEFAULTS, "model": str(models["snac"]), "sampling_khz": 32})
    with pytest.raises(ValueError, match=r"num_quantizers 13 outside 1\.\.12"):
        transformers_codec.load({**transformers_codec.DEFAULTS, "model": str(models["dac"]), "num_quantizers": 13})


def test_variant_parameters_are_checked() -> None:
    assert load_runtime_spec("encodec:1.5k").worker_args["bandwidth"] == 1.5
    assert load_runtime_spec("mimi:8q").worker_args["num_quantizers"] == 8
    assert load_runtime_spec("dac:8q").worker_args["num_quantizers"] == 8
    assert load_runtime_spec("snac:32k").worker_args["sampling_khz"] == 32
    for bad, fragment in [
        ("encodec:fast", "encodec:6k"),
        ("mimi:0q", "mimi:8q"),
        ("mimi:2.5q", "mimi:8q"),
        ("dac:0q", "dac:8q"),
        ("snac:44.1k", "snac:24k"),
        ("whisper-large-v3:6k", "takes no parameter"),
    ]:
        with pytest.raises(InputError, match=fragment):
            load_runtime_spec(bad)
