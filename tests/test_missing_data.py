"""A benchmark whose data is not there says where it looked (the data root's place first),
where the data comes from, and the command that prepares the local copy: MMAU test-mini, MMAR,
every VoiceBench subset (hub configs and the local-only MMSU) and AIR-Bench's two parts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audioeval.benchmarks.air_bench.prepare import main as prepare_air_bench
from audioeval.benchmarks.registry import load_shipped, shipped_benchmarks
from audioeval.benchmarks.sources.loader import load_samples
from audioeval.core.errors import InputError
from tests.test_offline_hub import no_hub  # noqa: F401  (the fixture: the hub cannot be reached)

LOCAL_ONLY = {
    "mmau-test-mini": ("mmau/mmau-test-mini.json", "github.com/Sakshi113/MMAU", "tar -xzf"),
    "mmar": ("mmar/MMAR-meta.jsonl", "BoJack/MMAR", "huggingface-cli download BoJack/MMAR"),
    "voicebench-mmsu": ("voicebench-mmsu", "hlt-lab/voicebench", ".save_to_disk("),
    "air-bench-foundation": (
        "air-bench-foundation/manifest.jsonl",
        "qyang1021/AIR-Bench-Dataset",
        "python -m audioeval.benchmarks.air_bench.prepare foundation",
    ),
    "air-bench-chat": (
        "air-bench-chat/manifest.jsonl",
        "qyang1021/AIR-Bench-Dataset",
        "python -m audioeval.benchmarks.air_bench.prepare chat",
    ),
}


def _message(name: str, root: Path | None) -> str:
    spec, where = load_shipped(name)
    with pytest.raises(InputError) as info:
        load_samples(spec, where, root=root)
    return info.value.message


@pytest.mark.parametrize("name", sorted(LOCAL_ONLY))
def test_a_local_only_benchmark_names_where_it_looked_the_source_and_the_command(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AUDIOEVAL_DATA", raising=False)
    path, origin, command = LOCAL_ONLY[name]
    message = _message(name, tmp_path)
    looked = message.split("looked for ", 1)[1]
    assert looked.startswith(str(tmp_path / path))  # the data root's place first
    assert f"the data root is {tmp_path}" in message
    assert origin in message and "Prepare it with: " in message and command in message
    assert str(tmp_path) in message.split("Prepare it with: ", 1)[1]  # the command names the root
    assert "no data root was given (--data-root or AUDIOEVAL_DATA)" in _message(name, None)


def test_every_voicebench_subset_on_the_hub_names_its_config_and_a_save_to_disk_command(
    tmp_path: Path,
    no_hub: list,  # noqa: F811
) -> None:
    hubbed = [n for n in shipped_benchmarks() if n.startswith("voicebench-") and n not in LOCAL_ONLY]
    assert len(hubbed) >= 10
    for name in hubbed:
        spec, _ = load_shipped(name)
        message = _message(name, tmp_path)
        assert "hlt-lab/voicebench" in message and f"<data root>/{name}/" in message, name
        assert f"config {spec.source.name}" in message and "Prepare it with: python -c" in message, name
        assert f"save_to_disk('{tmp_path}/{name}')" in message, name
    assert no_hub == []


def test_the_air_bench_preparer_writes_the_manifest_the_spec_reads(tmp_path: Path) -> None:
    folder = tmp_path / "air-bench-foundation"
    (folder / "Foundation" / "Sound_AQA_clotho").mkdir(parents=True)
    (folder / "Foundation" / "Audio_Grounding_AudioGrounding").mkdir(parents=True)
    items = [
        {"path": "a.wav", "task_name": "Sound_AQA", "dataset_name": "clotho", "question": "Q?",
         "choice_a": "dog", "choice_b": "cat", "answer_gt": "cat", "uniq_id": 1},
        {"path": "b.wav", "task_name": "Audio_Grounding", "dataset_name": "AudioGrounding",
         "question": "When?", "choice_a": "[0,1]", "choice_b": "[1,2]", "choice_c": "[2,3]",
         "choice_d": "[3,4]", "answer_gt": "[1,2]", "uniq_id": 2},
    ]  # fmt: skip
    (folder / "Foundation" / "Foundation_meta.json").write_text(json.dumps(items))
    assert prepare_air_bench(["foundation", str(folder)]) == 0
    rows = [json.loads(x) for x in (folder / "manifest.jsonl").read_text().splitlines()]
    assert rows[0]["audio"] == "Foundation/Sound_AQA_clotho/a.wav" and rows[0]["choice_c"] is None
    assert rows[0]["task_id"] == "Sound_AQA_clotho"
    assert rows[1]["audio"] == "Foundation/Audio_Grounding_AudioGrounding/b.flac"  # read as .flac
    assert prepare_air_bench(["foundation", str(tmp_path / "nothing")]) == 2
    (folder / "Foundation" / "Foundation_meta.json").write_text(json.dumps([{"path": "x.wav"}]))
    assert prepare_air_bench(["foundation", str(folder)]) == 2
