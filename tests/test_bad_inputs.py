"""The bad-input corpus: every kind of bad input a user can give, through the real CLI.

Each case builds one bad input in `tmp_path` beside good ones and says what must happen
(docs/reliability.md, "Bad-input corpus"): the documented exit code; a message, a skipped
entry or the sample's record that names the file, the sample id and the field; the other
samples of the same input scored as usual; nothing scored from the bad one. Inputs that
look odd but are valid (other formats, 8 channels, 0.01 s, an hour, emoji ids, a BOM) must
be scored like any other.
"""

from __future__ import annotations

import codecs
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from typer.testing import CliRunner

from audioeval.audio.decode import load_clip
from audioeval.cli import exit_codes
from audioeval.cli.main import app
from tests.fakes.judge_server import FakeJudgeConfig, FakeJudgeServer
from tests.run_helpers import tone_asr_manifest, write_jsonl
from tests.test_unscorable_audio import non_finite_wav

runner = CliRunner()
GOOD = ("c0", "c1")
"""The good samples of every `run` case: scored by the oracle with WER 0."""
NO_JUDGE = "http://127.0.0.1:9/v1"  # never contacted: the flag cases stop before


@dataclass
class Setup:
    """One case's command and where its outcome must show."""

    args: list[str]
    out: Path
    show: str  # "record" | "skipped" | "message" | "scored"
    file: str | None = None  # what the message / entry must name
    sample_id: str | None = None
    field_name: str | None = None
    words: tuple[str, ...] = ()
    good: tuple[str, ...] = GOOD
    pair: tuple[str, str] = ("m", "oracle")  # benchmark, model of a `run` case
    mmae: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


# --- `audioeval run`: an ASR manifest of good tone clips and one bad row ---------------------


def run_with(tmp: Path, name: str, row: dict[str, Any] | None = None, write: Callable | None = None) -> Path:
    """The manifest `m.jsonl`: two good tone clips, then `row` (its audio made by `write`)."""
    folder = tmp / "set"
    manifest = tone_asr_manifest(folder, n=2)
    rows = [json.loads(line) for line in manifest.read_text().splitlines()]
    if write is not None:
        write(folder / f"{name}.wav")
    if row is not None:
        rows.append(row)
    return write_jsonl(folder / "m.jsonl", rows)


def run_args(manifest: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "-b", str(manifest), "--task", "asr", "-m", "oracle", "-o", str(out),
            "--no-progress", "--resamples", "0", *extra]  # fmt: skip


def audio_case(write: Callable[[Path], Any] | None, words: str, *, name: str = "bad", scored: bool = False):
    """A row whose clip `write` makes (None: no file); `scored`: it is valid audio."""

    def build(tmp: Path) -> Setup:
        manifest = run_with(tmp, name, {"id": name, "audio": f"{name}.wav", "text": "the tone"}, write)
        out = tmp / "o"
        clip = str(manifest.parent / f"{name}.wav")
        return Setup(run_args(manifest, out), out, "scored" if scored else "record", clip, name, "audio",
                     (words,) if words else (), extra={"clip": clip})  # fmt: skip

    return build


def tone(seconds: float, rate: int = 16000, channels: int = 1, amp: float = 0.3) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    x = amp * np.sin(2 * np.pi * 440 * t).astype(np.float32)
    return np.repeat(x[:, None], channels, axis=1) if channels > 1 else x


def writer(fmt: str | None = None, subtype: str | None = None, x: Callable[[], np.ndarray] | None = None):
    def write(path: Path) -> None:
        sf.write(path, tone(0.3) if x is None else x(), 16000, format=fmt, subtype=subtype)

    return write


def truncated(path: Path) -> None:
    """A WAV cut inside its 44-byte header, as a copy interrupted early leaves it."""
    sf.write(path, tone(0.3), 16000, subtype="PCM_16")
    path.write_bytes(path.read_bytes()[:30])


def hour_long(path: Path) -> None:
    """One hour at 8 kHz: a tone, then silence (FLAC keeps it to a few hundred KB)."""
    with sf.SoundFile(path, "w", 8000, 1, format="FLAC", subtype="PCM_16") as f:
        f.write(tone(1.0, 8000))
        block = np.zeros(8000 * 60, np.float32)
        for _ in range(60):
            f.write(block)


def symlink_loop(path: Path) -> None:
    os.symlink(path.name, path)


def row_case(mutate: Callable[[dict[str, Any]], None], fld: str, words: str, sid: str = "c2"):
    """A third row, broken by `mutate`: skipped at load, named in skipped.json."""

    def build(tmp: Path) -> Setup:
        row: dict[str, Any] = {"id": "c2", "audio": "c0.wav", "text": "the tone number 0 is steady"}
        mutate(row)
        manifest = run_with(tmp, "c2", row)
        out = tmp / "o"
        return Setup(run_args(manifest, out), out, "skipped", str(manifest), sid, fld, (words,))

    return build


def scored_row(mutate: Callable[[dict[str, Any]], None], sid: str):
    def build(tmp: Path) -> Setup:
        row: dict[str, Any] = {"id": "c2", "audio": "c0.wav", "text": "the tone number 0 is steady"}
        mutate(row)
        manifest = run_with(tmp, "c2", row)
        out = tmp / "o"
        return Setup(run_args(manifest, out), out, "scored", str(manifest), sid, "id")

    return build


def manifest_text(text: Callable[[list[dict[str, Any]]], str], words: str, ext: str = "json", show="message"):
    """The whole manifest rewritten by `text` (as `m.EXT`)."""

    def build(tmp: Path) -> Setup:
        source = run_with(tmp, "x")
        rows = [json.loads(line) for line in source.read_text().splitlines()]
        manifest = source.parent / f"m.{ext}"
        source.unlink()
        data = text(rows)
        manifest.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        out = tmp / "o"
        return Setup(run_args(manifest, out), out, show, str(manifest), None, None, (words,) if words else ())

    return build


def windows(rows: list[dict[str, Any]]) -> bytes:
    return codecs.BOM_UTF8 + "".join(json.dumps(r) + "\r\n" for r in rows).encode()


def spec_case(text: str, words: str, name: str = "spec.yaml"):
    """A benchmark spec or prompt template next to a good manifest."""

    def build(tmp: Path) -> Setup:
        manifest = run_with(tmp, "x")
        spec = tmp / name
        spec.write_text(text.format(manifest=manifest, template=tmp / "t.yaml"))
        out = tmp / "o"
        args = ["run", "-b", str(spec), "-m", "oracle", "-o", str(out), "--no-progress", "--resamples", "0"]
        return Setup(args, out, "message", str(spec), None, None, (words,))

    return build


def jinja_attribute(tmp: Path) -> Setup:
    """A prompt template reaching for a Python attribute: the sandbox refuses it; the sample's
    prompt cannot be rendered (failure kind `prompt`), and nothing is asked or scored."""
    manifest = run_with(tmp, "x")
    template = tmp / "t.yaml"
    template.write_text("name: sneaky\nuser: \"{{ sample.__class__.__mro__ }} {{ ''.__class__ }}\"\n")
    spec = tmp / "spec.yaml"
    spec.write_text(f"name: m\ntask: asr\nprompt: {template}\nsource: {{type: jsonl, path: {manifest}}}\n")
    out = tmp / "o"
    args = ["run", "-b", str(spec), "-m", "oracle", "-o", str(out), "--no-progress", "--resamples", "0"]
    return Setup(args, out, "prompt", str(template), "c0", None, ("__class__",), good=())


# --- flags and output folders ----------------------------------------------------------------


def flag_case(extra: list[str], flag: str, words: str = "", out_kind: str = "dir"):
    def build(tmp: Path) -> Setup:
        manifest = run_with(tmp, "x")
        out = tmp / "o"
        if out_kind == "file":
            out.write_text("keep me")
        elif out_kind == "readonly":
            if os.geteuid() == 0:
                pytest.skip("root writes to read-only folders")
            out.mkdir()
            out.chmod(0o500)
        args = [*run_args(manifest, out), *extra]
        return Setup(
            args, out, "message", flag, None, None, (words,) if words else (), extra={"kind": out_kind}
        )

    return build


def mmae_flag_case(extra: list[str], flag: str, click: bool = False):
    """`mmae score` with a bad flag; `click`: a range the option parser checks (its usage box)."""

    def build(tmp: Path) -> Setup:
        out = tmp / "o"
        args = ["mmae", "score", "--predictions", str(tmp / "p.json"), "--metadata", str(tmp / "m.json"),
                "--output_dir", str(out), "--no-progress", *extra]  # fmt: skip
        return Setup(args, out, "message", flag, None, None, (), extra={"click": click})

    return build


# --- `audioeval mmae score` against the fake judge --------------------------------------------


def mmae_case(edit: Callable[[Path, list, list], tuple[str, str | None, str, str]], show: str = "skipped"):
    """The synthetic MMAE set (3 samples), edited by `edit` which returns (file, id, field, words)."""

    def build(tmp: Path) -> Setup:
        from audioeval.benchmarks.mmae.synthetic import write_synthetic_set

        s = write_synthetic_set(tmp / "set", 3)
        meta = json.loads(s.metadata.read_text())
        preds = json.loads(s.oracle_predictions.read_text())
        f, sid, fld, words = edit(s.root, meta, preds)
        ids = tuple(m["id"] for m in meta if isinstance(m["id"], str))
        s.metadata.write_text(json.dumps(meta))
        s.oracle_predictions.write_text(json.dumps(preds))
        out = tmp / "o"
        args = ["mmae", "score", "--predictions", str(s.oracle_predictions), "--metadata", str(s.metadata),
                "--output_dir", str(out), "--no-progress", "--bootstrap", "10", "--retries", "1",
                "--max_attempts", "2"]  # fmt: skip
        good = tuple(i for i in ids if i != sid)
        return Setup(args, out, show, f, sid, fld, (words,), good=good, mmae=True)

    return build


def mmae_unknown_id(root: Path, meta: list, preds: list) -> tuple[str, str, str, str]:
    preds.append({**preds[0], "id": "not-in-meta"})
    return str(root / "predictions-oracle.json"), "not-in-meta", "id", "not in the metadata"


def mmae_missing_field(root: Path, meta: list, preds: list) -> tuple[str, str, str, str]:
    del meta[1]["rubrics"][0]["right_choice"]
    return str(root / "MMAE-meta.json"), meta[1]["id"], "rubrics[0].right_choice", "missing field"


def mmae_escaping_path(root: Path, meta: list, preds: list) -> tuple[str, str, str, str]:
    parts = meta[1]["messages"][0]["content"]
    k = next(i for i, p in enumerate(parts) if p.get("type") == "audio")
    (root.parent / "outside.wav").write_bytes((root / parts[k]["audio_url"]).read_bytes())
    parts[k]["audio_url"] = "../outside.wav"  # a real clip, but outside the audio root
    return str(root / "MMAE-meta.json"), meta[1]["id"], f"messages[0].content[{k}].audio_url", "audio root"


def mmae_non_string_id(root: Path, meta: list, preds: list) -> tuple[str, str | None, str, str]:
    meta[1]["id"] = ["a", "list"]  # no id to name: the item's place and the value instead
    return str(root / "MMAE-meta.json"), None, "id", "item 1 has no string id (got ['a', 'list'])"


def mmae_file(text: str, words: str, which: str = "MMAE-meta.json"):
    def edit(root: Path, meta: list, preds: list) -> tuple[str, str, str, str]:
        meta[:] = []  # written as given below
        return str(root / which), "", "", words

    def build(tmp: Path) -> Setup:
        setup = mmae_case(edit, "message")(tmp)
        Path(setup.file or "").write_text(text)
        setup.sample_id = setup.field_name = None
        setup.good = ()
        return setup

    return build


@dataclass(frozen=True)
class Case:
    kind: str
    build: Callable[[Path], Setup]
    code: int


BAD, FAILED, OK = exit_codes.BAD_INPUT, exit_codes.TOO_MANY_FAILURES, exit_codes.OK

CASES = [
    # audio
    Case("missing audio", audio_case(None, "audio file not found"), FAILED),
    Case("empty audio file", audio_case(lambda p: p.write_bytes(b""), "could not be decoded"), FAILED),
    Case("zero-length audio", audio_case(writer(x=lambda: np.zeros(0, np.float32)), "holds no samples"), FAILED),
    Case("truncated audio", audio_case(truncated, "could not be decoded"), FAILED),
    Case("NaN-filled audio", audio_case(lambda p: non_finite_wav(p, float("nan"), 16000), "non-finite"), FAILED),
    Case("text file named .wav", audio_case(lambda p: p.write_text("not audio\n"), "could not be decoded"), FAILED),
    Case("symlink loop", audio_case(symlink_loop, "audio file not found"), FAILED),
    Case("clipped audio", audio_case(writer(x=lambda: np.clip(tone(0.3, amp=3.0), -1, 1)), "", scored=True), OK),
    Case("8-channel audio", audio_case(writer(x=lambda: tone(0.3, channels=8)), "", scored=True), OK),
    Case("0.01 s audio", audio_case(writer(x=lambda: tone(0.01)), "", scored=True), OK),
    Case("hour-long audio", audio_case(hour_long, "", scored=True), OK),
    Case("MP3", audio_case(writer("MP3", "MPEG_LAYER_III"), "", scored=True), OK),
    Case("OGG Vorbis", audio_case(writer("OGG", "VORBIS"), "", scored=True), OK),
    Case("FLAC", audio_case(writer("FLAC", "PCM_16"), "", scored=True), OK),
    Case("24-bit WAV", audio_case(writer("WAV", "PCM_24"), "", scored=True), OK),
    Case("float WAV", audio_case(writer("WAV", "FLOAT"), "", scored=True), OK),
    # manifest rows
    Case("duplicate id", row_case(lambda r: r.update(id="c0"), "id", "duplicate id", "c0"), FAILED),
    Case("empty id", row_case(lambda r: r.update(id="  "), "id", "empty id", "  "), FAILED),
    Case("non-string id", row_case(lambda r: r.update(id=[2]), "id", "must be a string", "[2]"), FAILED),
    Case("whole-number id", scored_row(lambda r: r.update(id=7), "7"), OK),
    Case("emoji id", scored_row(lambda r: r.update(id="🎵 tone ✓"), "🎵 tone ✓"), OK),
    Case("missing field", row_case(lambda r: r.pop("text"), "reference", "missing field"), FAILED),
    Case("wrong type (object as text)", row_case(lambda r: r.update(text={"a": 1}), "text", "expected text"), FAILED),
    Case("wrong type (number as path)", row_case(lambda r: r.update(audio=3), "audio", "audio file path"), FAILED),
    # manifest files
    Case("malformed JSON manifest", manifest_text(lambda rows: json.dumps(rows)[:-4], "malformed JSON"), BAD),
    Case("malformed JSONL line", manifest_text(lambda rows: '{"id": "c0",\n', "malformed JSON", "jsonl"), BAD),
    Case("dict where a list belongs", manifest_text(lambda rows: json.dumps({"rows": rows}), "not an object"), BAD),
    Case("empty manifest list", manifest_text(lambda rows: "[]", "no samples"), BAD),
    Case("CRLF and BOM manifest", manifest_text(windows, "", "jsonl", show="scored"), OK),
    Case("YAML with a Python tag", spec_case("name: !!python/object/apply:os.system ['true']\n", "Python"), BAD),
    Case("malformed YAML spec", spec_case("name: m\ntask: [asr\n", "line"), BAD),
    Case("Jinja template reaching for attributes", jinja_attribute, FAILED),
    # flags and output folders
    Case("output dir is a file", flag_case([], "o", "is an existing file", "file"), BAD),
    Case("output dir not writable", flag_case([], "o", "not writable", "readonly"), BAD),
    Case("URL without scheme", flag_case(["--judge", "localhost:8000/v1"], "judge", "no http://"), BAD),
    Case("zero concurrency", mmae_flag_case(["--base_urls", NO_JUDGE, "--concurrency", "0"], "--concurrency"), BAD),
    Case("negative concurrency", mmae_flag_case(["--base_urls", NO_JUDGE, "--concurrency", "-4"], "--concurrency"), BAD),
    Case("--retries above --max_attempts",
         mmae_flag_case(["--base_urls", NO_JUDGE, "--retries", "5", "--max_attempts", "3"], "--retries"), BAD),
    # MMAE metadata and predictions
    Case("unknown id (MMAE prediction)", mmae_case(mmae_unknown_id), FAILED),
    Case("missing field (MMAE rubric)", mmae_case(mmae_missing_field), FAILED),
    Case("path escaping --audio_root", mmae_case(mmae_escaping_path), FAILED),
    Case("non-string id (MMAE)", mmae_case(mmae_non_string_id), FAILED),
    Case("malformed JSON (MMAE metadata)", mmae_file('[{"id": "a",}]', "malformed JSON"), BAD),
    Case("dict where a list belongs (MMAE)", mmae_file('{"id": "a"}', "must be a JSON list"), BAD),
    Case("empty metadata list (MMAE)", mmae_file("[]", "no samples"), BAD),
]  # fmt: skip


def one_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in output, output
    return lines[0]


def pair_records(out: Path, pair: tuple[str, str]) -> dict[str, dict[str, Any]]:
    path = out / pair[0] / pair[1] / "records.jsonl"
    return {r["id"]: r for r in (json.loads(x) for x in path.read_text().splitlines())}


def assert_good_scored(setup: Setup) -> None:
    if setup.mmae:
        judged = {json.loads(x)["id"] for x in (setup.out / "results.jsonl").read_text().splitlines()}
        assert set(setup.good) <= judged and setup.sample_id not in judged
        return
    recs = pair_records(setup.out, setup.pair)
    for sid in setup.good:
        assert recs[sid]["error"] is None and recs[sid]["scores"]["wer"]["values"]["wer"] == 0.0, recs[sid]


def names_everything(text: str, setup: Setup) -> None:
    for part in (setup.file, setup.sample_id, setup.field_name, *setup.words):
        if part:
            assert part in text, (part, text)


@pytest.fixture()
def judge_url() -> Any:
    with FakeJudgeServer(FakeJudgeConfig()) as server:
        yield server.base_url


@pytest.mark.parametrize("case", CASES, ids=[c.kind for c in CASES])
def test_bad_input(case: Case, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    setup = case.build(tmp_path)
    if setup.mmae and setup.show != "message":
        setup.args += ["--base_urls", request.getfixturevalue("judge_url")]
    elif setup.mmae:
        setup.args += ["--base_urls", NO_JUDGE]
    try:
        res = runner.invoke(app, setup.args)
    finally:
        if setup.extra.get("kind") == "readonly":
            setup.out.chmod(0o700)
    assert res.exit_code == case.code, res.output
    assert "Traceback" not in res.output, res.output
    if setup.show == "message":  # refused before any work: one line, nothing new written
        if setup.extra.get("click"):
            text = " ".join(res.output.replace("│", " ").split())  # the option parser's box
            assert "Invalid value for" in text and "greater than or equal to 1" in text
            names_everything(text, setup)
        else:
            names_everything(one_line(res.output), setup)
        kind = setup.extra.get("kind")
        if kind == "file":
            assert setup.out.read_text() == "keep me"
        else:
            assert not setup.out.exists() or not any(setup.out.iterdir())
        return
    if setup.show == "skipped":
        skipped = json.loads((setup.out / ("skipped.json" if setup.mmae else "m/skipped.json")).read_text())
        (entry,) = [s for s in skipped if (s["id"], s["field"]) == (setup.sample_id, setup.field_name)]
        assert (entry["file"], entry["field"]) == (setup.file, setup.field_name), entry
        names_everything(json.dumps(entry, ensure_ascii=False) + entry["error"], setup)
        assert "skipped" in res.output or "failed" in res.output
        if not setup.mmae and setup.sample_id not in GOOD:
            assert setup.sample_id not in pair_records(setup.out, setup.pair)  # never asked, never scored
    elif setup.show == "record":
        bad = pair_records(setup.out, setup.pair)[setup.sample_id or ""]
        assert bad.get("scores") is None and bad["output"] is None and bad["failure"] == "input", bad
        assert not bad.get("output_failed"), bad  # the input's fault: not counted as a wrong answer
        names_everything(bad["error"], setup)
        assert f"id {setup.sample_id!r}" in bad["error"] and "field 'audio'" in bad["error"]
    elif setup.show == "prompt":
        recs = pair_records(setup.out, setup.pair)
        assert recs and all(r.get("scores") is None and r["failure"] == "prompt" for r in recs.values())
        assert all(r["output"] is None for r in recs.values())
        names_everything(recs["c0"]["error"], Setup([], setup.out, "", None, None, None, setup.words))
        return
    else:  # valid input: scored like the others
        setup.good = (*setup.good, setup.sample_id or "")
        if "clip" in setup.extra:
            assert load_clip(setup.extra["clip"]).duration_s > 0  # the one decoder reads it
        if setup.sample_id is None:  # the whole manifest: every row scored
            setup.good = ("c0", "c1")
    assert_good_scored(setup)
    summary = json.loads((setup.out / "summary.json").read_text())
    assert summary  # the summaries were written whatever failed


def test_the_corpus_has_at_least_35_kinds() -> None:
    assert len({c.kind for c in CASES}) == len(CASES) >= 35


def test_the_corpus_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "reliability.md").read_text()
    section = doc.split("## Bad-input corpus", 1)[1].split("\n## ", 1)[0]
    missing = [c.kind for c in CASES if f"| {c.kind} |" not in section]
    assert not missing, missing
