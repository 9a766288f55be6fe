"""The shipped benchmark specs and the errors a bad spec gives.

Every spec YAML in a benchmark's `specs/` folder (`audioeval/benchmarks/<family>/specs/`) must
parse, carry its file name as its
`name`, name a known task, and resolve against the registered prompts, post-processing
steps, scorers and metrics. A bad spec must say which file and which field is wrong.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from audioeval.benchmarks.registry import load_shipped, shipped_benchmarks
from audioeval.benchmarks.spec import load_spec_file, parse_spec
from audioeval.benchmarks.tasks import TASKS, get_task
from audioeval.core.errors import InputError

SHIPPED = sorted(shipped_benchmarks())

# The benchmarks the UltraEval-Audio paper's tables need; each must stay registered.
REQUIRED = {
    "librispeech-test-clean",
    "librispeech-test-other",
    "librispeech-dev-clean",
    "tedlium-test",
    "commonvoice-en-test",
    "commonvoice-zh-test",
    "aishell1-test",
    "wenetspeech-test-net",
    "wenetspeech-test-meeting",
    "fleurs-en-test",
    "fleurs-zh-test",
    "covost2-en-zh",
    "covost2-zh-en",
    "meld-emotion",
    "tess-emotion",
    "voxceleb1-gender",
    "nsynth-instrument",
    "gtzan-genre",
    "audiocaps-test",
    "clotho-eval",
    "vocalsound",
    "mmau-test-mini",
    "mmar",
    "seed-tts-eval-en",
    "seed-tts-eval-zh",
    "seed-tts-eval-hard",
    "cv3-eval-en",
    "cv3-eval-zh",
    "speech-cmmlu",
    *(f"speech-hsk{level}" for level in range(1, 7)),
    "speech-cmmlu-spoken",
    *(f"speech-hsk{level}-spoken" for level in range(1, 7)),
    "voicebench-sd-qa",
    *(
        f"voicebench-sd-qa-{accent}"
        for accent in ("aus", "gbr", "ind_n", "ind_s", "irl", "kenya", "nga", "nzl", "phl", "zaf")
    ),
    "voicebench-openbookqa",
    "voicebench-mmsu",
    "voicebench-advbench",
    "voicebench-bbh",
    "voicebench-alpacaeval-full",
    "air-bench-foundation",
    "mmau-pro",
}

# Hub sources whose split name could not be confirmed: they rely on the loader using the
# only split of a single-split dataset (and fail with "choose a split: ..." otherwise).
SPLIT_UNCONFIRMED = {"tess-emotion"}


def test_the_paper_benchmarks_are_registered() -> None:
    assert REQUIRED <= set(SHIPPED), sorted(REQUIRED - set(SHIPPED))


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_spec_parses_under_its_file_name(name: str) -> None:
    spec, where = load_shipped(name)
    assert spec.name == name
    assert Path(where).parent.name == "specs" and Path(where).name in (f"{name}.yaml", f"{name}.yml")
    assert Path(where).is_file()  # errors name the file where it now lives
    assert get_task(spec.task, where=where).name == spec.task
    assert spec.description.strip(), "every shipped spec says what it is"


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_spec_is_plain_data(name: str) -> None:
    """No YAML tags, anchors or aliases: the file is plain data that `safe_load` reads."""
    text = Path(shipped_benchmarks()[name]).read_text(encoding="utf-8")
    kinds = {type(token).__name__ for token in yaml.scan(text)}
    assert not kinds & {"TagToken", "AnchorToken", "AliasToken"}, kinds
    assert isinstance(yaml.safe_load(text), dict)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_spec_is_complete_for_its_task(name: str) -> None:
    spec, _ = load_shipped(name)
    if spec.source.type == "hf" and name not in SPLIT_UNCONFIRMED:
        assert spec.source.split, "a hub source names its split"
    if spec.task == "classification":
        labels = spec.variables.get("labels")
        assert isinstance(labels, list) and len(labels) >= 2, (
            "a classification spec gives its closed label set"
        )
        assert all(isinstance(x, str) and x for x in labels)
        assert len(set(labels)) == len(labels)
        assert "answer" in spec.fields, "a classification spec maps `answer` to its label column"
    if spec.task == "ast":
        assert spec.variables.get("target_language"), "a translation spec names its target language"
        assert "reference" in spec.fields, "a translation spec maps the translation column explicitly"
    if spec.task == "mcq" and not name.startswith("demo-"):
        assert spec.source.type in ("json", "jsonl") and spec.source.audio_root
        assert spec.taxonomy
    if spec.task == "vc":
        assert {"reference", "reference_voice"} <= set(spec.fields), (
            "a voice-cloning spec maps text and voice"
        )
        assert spec.fields.get("audio", "") is None, "a voice-cloning model gets no input clip"
    if not name.startswith("demo-"):
        assert "AUDIOEVAL_DATA" in spec.description, "the description says how to run it offline"
        assert spec.homepage and spec.license


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_spec_resolves(name: str) -> None:
    """Prompt template, post-processing chain, scorers and metrics all exist by name."""
    from audioeval.benchmarks.resolved import resolve

    spec, where = load_shipped(name)
    resolved = resolve(spec, where)
    assert resolved.name == name
    assert resolved.headline in [m.name for m in resolved.metrics]
    assert resolved.scorers
    if spec.task == "asr" and spec.language in ("zh",):
        assert resolved.headline == "cer"


# ---------------------------------------------------------------------------------------
# A registered benchmark read from a local copy under the data root (no network).


def test_local_manifest_copy_of_a_registered_classification_benchmark(tmp_path: Path) -> None:
    from audioeval.benchmarks.sources.loader import load_samples

    folder = tmp_path / "meld-emotion"
    folder.mkdir()
    rows = [
        {"id": "d0_u0", "audio": "clips/a.wav", "Emotion": "joy"},
        {"id": "d0_u1", "audio": "clips/b.wav", "Emotion": "anger"},
    ]
    (folder / "manifest.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    spec, where = load_shipped("meld-emotion")
    loaded = load_samples(spec, where, root=tmp_path)
    assert [s.id for s in loaded.samples] == ["d0_u0", "d0_u1"]
    first = loaded.samples[0]
    assert first.get("answer") == "joy"
    assert first.get("choices") == spec.variables["labels"]
    assert first.audio["audio"].path == str(folder / "clips" / "a.wav")


def test_mmau_and_mmar_read_under_the_data_root(tmp_path: Path) -> None:
    from audioeval.benchmarks.sources.loader import load_samples

    (tmp_path / "mmau").mkdir()
    (tmp_path / "mmar").mkdir()
    mmau_item = {
        "id": "u1",
        "audio_id": "./test-mini-audios/u1.wav",
        "question": "Who speaks?",
        "choices": ["Man", "Woman"],
        "answer": "Man",
        "task": "sound",
        "difficulty": "easy",
        "sub-category": "Acoustic Source Inference",
    }
    (tmp_path / "mmau" / "mmau-test-mini.json").write_text(json.dumps([mmau_item]), encoding="utf-8")
    mmar_item = {
        "id": "v1",
        "audio_path": "./audio/v1.wav",
        "question": "Where?",
        "choices": ["Forest", "City"],
        "answer": "City",
        "modality": "sound",
        "category": "Perception Layer",
        "sub-category": "Environmental Perception and Reasoning",
        "language": None,
    }
    (tmp_path / "mmar" / "MMAR-meta.jsonl").write_text(json.dumps(mmar_item) + "\n", encoding="utf-8")

    spec, where = load_shipped("mmau-test-mini")
    (sample,) = load_samples(spec, where, root=tmp_path).samples
    assert Path(sample.audio["audio"].path) == tmp_path / "mmau" / "test-mini-audios" / "u1.wav"
    assert sample.taxonomy == {
        "task": "sound",
        "difficulty": "easy",
        "sub-category": "Acoustic Source Inference",
    }
    assert sample.get("choices") == ["Man", "Woman"] and sample.get("answer") == "Man"

    spec, where = load_shipped("mmar")
    (sample,) = load_samples(spec, where, root=tmp_path).samples
    assert Path(sample.audio["audio"].path) == tmp_path / "mmar" / "audio" / "v1.wav"
    assert sample.taxonomy["modality"] == "sound"


# ---------------------------------------------------------------------------------------
# Spec errors name the file and the field.

GOOD = {
    "name": "my-bench",
    "task": "asr",
    "source": {"type": "jsonl", "path": "data.jsonl"},
}


def _write(tmp_path: Path, data: dict, name: str = "spec.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def test_good_spec_parses(tmp_path: Path) -> None:
    spec = load_spec_file(_write(tmp_path, GOOD))
    assert spec.name == "my-bench" and spec.language == "en" and spec.fields == {}


def test_misspelt_key_names_file_field_and_suggestion(tmp_path: Path) -> None:
    path = _write(tmp_path, {**GOOD, "scorrers": ["wer"]})
    with pytest.raises(InputError) as info:
        load_spec_file(path)
    err = info.value
    assert err.file == str(path)
    assert err.field == "scorrers"
    assert "did you mean 'scorers'" in err.message
    assert str(path) in str(err) and "scorrers" in str(err)


def test_misspelt_source_key_is_located_inside_source(tmp_path: Path) -> None:
    path = _write(tmp_path, {**GOOD, "source": {"type": "hf", "path": "x/y", "splt": "test"}})
    with pytest.raises(InputError) as info:
        load_spec_file(path)
    assert info.value.field == "source.splt"
    assert "did you mean 'split'" in info.value.message


def test_missing_source_names_the_field(tmp_path: Path) -> None:
    data = {k: v for k, v in GOOD.items() if k != "source"}
    path = _write(tmp_path, data)
    with pytest.raises(InputError) as info:
        load_spec_file(path)
    assert info.value.file == str(path)
    assert info.value.field == "source"
    assert "required" in info.value.message


def test_unknown_task_names_the_known_ones(tmp_path: Path) -> None:
    path = _write(tmp_path, {**GOOD, "task": "asrr"})
    spec = load_spec_file(path)  # the task is looked up when the spec is resolved
    with pytest.raises(InputError) as info:
        get_task(spec.task, where=str(path))
    err = info.value
    assert err.file == str(path) and err.field == "task"
    assert "did you mean 'asr'" in err.message
    for known in TASKS:
        assert known in err.message


@pytest.mark.parametrize("bad", ["my bench", "a/b", "x,y", "m@1", ""])
def test_spec_name_with_space_or_separator_is_refused(bad: str) -> None:
    with pytest.raises(InputError) as info:
        parse_spec({**GOOD, "name": bad}, "inline.yaml")
    assert info.value.field == "name"
    assert info.value.file == "inline.yaml"


def test_unknown_source_type_lists_the_allowed(tmp_path: Path) -> None:
    """Checked against the types the loaded benchmarks contribute when the spec is resolved."""
    from audioeval.benchmarks.resolved import resolve

    path = _write(tmp_path, {**GOOD, "source": {"type": "parquet", "path": "x"}})
    with pytest.raises(InputError) as info:
        resolve(load_spec_file(path), str(path))
    assert (info.value.field, info.value.file) == ("source.type", str(path))
    assert "jsonl" in info.value.message and "hf_disk" in info.value.message


def test_malformed_yaml_and_non_mapping_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("name: [unclosed\n", encoding="utf-8")
    with pytest.raises(InputError, match="malformed YAML"):
        load_spec_file(path)
    with pytest.raises(InputError, match="mapping"):
        parse_spec(["not", "a", "mapping"], "list.yaml")


def test_unknown_shipped_benchmark_suggests_a_name() -> None:
    with pytest.raises(InputError) as info:
        load_shipped("librispeech-test-clen")
    assert "did you mean 'librispeech-test-clean'" in info.value.message


def test_unknown_exports_name_is_refused_when_the_spec_resolves(tmp_path: Path) -> None:
    from audioeval.benchmarks.resolved import resolve

    path = _write(tmp_path, {**GOOD, "exports": "mcq_scor"})
    with pytest.raises(InputError) as info:
        resolve(load_spec_file(path), str(path))
    err = info.value
    assert err.file == str(path) and err.field == "exports"
    assert "did you mean 'mcq_score'" in err.message


# ---------------------------------------------------------------------------------------
# `source.local_name`: the folder under the data root that holds a spec's local copy.

HUB_SPEC = {
    "name": "my-variant",
    "task": "classification",
    "source": {"type": "hf", "path": "org/shared-data", "split": "test", "local_name": "shared"},
    "fields": {"answer": "label"},
    "variables": {"labels": ["yes", "no"]},
}


def _manifest(folder: Path, rows: list[dict]) -> None:
    folder.mkdir(parents=True)
    (folder / "manifest.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_local_name_reads_the_named_folder_under_the_data_root(tmp_path: Path) -> None:
    from audioeval.benchmarks.sources.loader import load_samples

    root = tmp_path / "data"
    _manifest(root / "shared", [{"id": "s1", "audio": "a.wav", "label": "yes"}])
    _manifest(root / "my-variant", [{"id": "own", "audio": "b.wav", "label": "no"}])
    path = _write(tmp_path, HUB_SPEC)
    spec = load_spec_file(path)
    assert spec.source.local_name == "shared" and spec.local_copy_name == "shared"
    loaded = load_samples(spec, str(path), root=root)
    assert loaded.location == str(root / "shared" / "manifest.jsonl")
    (sample,) = loaded.samples
    assert sample.id == "s1" and sample.get("answer") == "yes"
    assert sample.audio["audio"].path == str(root / "shared" / "a.wav")
    # Without the key the folder is the benchmark's own name, as before.
    plain = parse_spec(
        {**HUB_SPEC, "source": {k: v for k, v in HUB_SPEC["source"].items() if k != "local_name"}}, "p.yaml"
    )
    assert plain.local_copy_name == "my-variant"
    assert [s.id for s in load_samples(plain, "p.yaml", root=root).samples] == ["own"]


def test_local_name_reads_a_shared_save_to_disk_copy(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets", reason="the hf extra is not installed")
    from audioeval.benchmarks.sources.loader import load_samples

    root = tmp_path / "data"
    clip = tmp_path / "a.wav"
    clip.write_bytes(b"RIFF")
    datasets.Dataset.from_dict({"id": ["d1"], "audio": [str(clip)], "label": ["no"]}).save_to_disk(
        str(root / "shared")
    )
    path = _write(tmp_path, HUB_SPEC)
    loaded = load_samples(load_spec_file(path), str(path), root=root)
    assert loaded.location == str(root / "shared")
    assert [(s.id, s.get("answer")) for s in loaded.samples] == [("d1", "no")]


@pytest.mark.parametrize("bad", ["", " shared", "a/b", "..", ".", "a\\b"])
def test_local_name_that_is_not_one_folder_name_is_refused(tmp_path: Path, bad: str) -> None:
    path = _write(tmp_path, {**HUB_SPEC, "source": {**HUB_SPEC["source"], "local_name": bad}})
    with pytest.raises(InputError) as info:
        load_spec_file(path)
    err = info.value
    assert err.file == str(path) and err.field == "source.local_name"
    assert "not a folder name" in err.message
    assert str(path) in str(err) and "source.local_name" in str(err)


def test_misspelt_local_name_key_suggests_it(tmp_path: Path) -> None:
    source = {k: v for k, v in HUB_SPEC["source"].items() if k != "local_name"}
    path = _write(tmp_path, {**HUB_SPEC, "source": {**source, "local_nam": "shared"}})
    with pytest.raises(InputError) as info:
        load_spec_file(path)
    assert info.value.file == str(path) and info.value.field == "source.local_nam"
    assert "did you mean 'local_name'" in info.value.message


def test_local_name_folder_without_a_copy_is_an_error_naming_the_field(tmp_path: Path) -> None:
    from audioeval.benchmarks.sources.loader import load_samples

    root = tmp_path / "data"
    (root / "shared").mkdir(parents=True)
    (root / "shared" / "notes.txt").write_text("not a copy", encoding="utf-8")
    path = _write(tmp_path, HUB_SPEC)
    with pytest.raises(InputError) as info:
        load_samples(load_spec_file(path), str(path), root=root)
    err = info.value
    assert err.file == str(path) and err.field == "source.local_name"
    assert str(root / "shared") in err.message and "manifest.jsonl" in err.message


def test_missing_local_copy_and_unreachable_hub_name_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No copy in the named folder: the hub is tried; when it cannot be reached (the one remote
    faked here) the error says which folder under the data root the copy was looked for in."""
    datasets = pytest.importorskip("datasets", reason="the hf extra is not installed")
    from audioeval.benchmarks.sources.loader import load_samples

    def offline(*args: object, **kwargs: object) -> None:
        raise ConnectionError("no network")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    path = _write(tmp_path, HUB_SPEC)
    with pytest.raises(InputError) as info:
        load_samples(load_spec_file(path), str(path), root=tmp_path / "empty")
    assert info.value.file == str(path) and info.value.field == "source"
    assert "<data root>/shared/" in info.value.message


def test_local_name_is_no_part_of_the_signature() -> None:
    from audioeval.benchmarks.resolved import resolve

    shared = parse_spec(HUB_SPEC, "a.yaml")
    own = parse_spec({**HUB_SPEC, "source": {**HUB_SPEC["source"], "local_name": None}}, "a.yaml")
    assert resolve(shared, "a.yaml").signature() == resolve(own, "a.yaml").signature()
    assert "local_name" not in resolve(shared, "a.yaml").signature()["source"]


@pytest.mark.parametrize("name", [n for n in SHIPPED if load_shipped(n)[0].source.local_name])
def test_shipped_local_name_names_a_spec_reading_the_same_data(name: str) -> None:
    """A shipped spec shares the copy of a shipped spec with the same source, which keeps its own."""
    spec, _ = load_shipped(name)
    owner, _ = load_shipped(spec.local_copy_name)
    assert owner.source.local_name is None and owner.local_copy_name == owner.name
    assert spec.source.model_copy(update={"local_name": None}) == owner.source
