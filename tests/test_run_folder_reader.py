"""Every command that reads a run folder reads it through the one checked reader
(`store/run_folder.py`): fed the same damaged folders, each either recomputes what it cannot
vouch for (a resumed run asks it again and gets the clean figure) or refuses with the file,
line and why (exit 2; a rescore or replay counts the line's sample as failed work, exit 4),
never a traceback and never a figure made with what it cannot vouch for."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from audioeval.cli.main import app
from audioeval.store.run_folder import RunFolderError, Unvouched, read_pair, read_run_file
from tests.run_helpers import tone_asr_manifest, write_jsonl

runner = CliRunner()
PAIR = ("asr", "rp")
CLEAN_WER = 4 / 12  # c0 and c2 answered "the tone" (4 of 6 words deleted each), c1 and c3 exact


def _cli(*args: str) -> Any:
    return runner.invoke(app, [*args], catch_exceptions=True)


def _replay_folder(root: Path, variant: str) -> Path:
    rows = [
        {
            "id": f"c{i}",
            "output": {"text": f"the tone number {i} is steady" if i % 2 else variant, "error": None},
        }
        for i in range(4)
    ]
    write_jsonl(root / "records.jsonl", rows)
    return root


def _run_args(root: Path, out: Path, *, model: str = "rp", variant: str = "the tone") -> list[str]:
    replay = _replay_folder(root / f"model-{model}-{variant.replace(' ', '_')}", variant)
    speech = root / "speech" / "speech.jsonl"
    return [
        "run", "-b", str(root / "set" / "asr.jsonl"), "-b", str(speech), "--task", "asr",
        "-m", f"{model}=replay:{replay}", "-o", str(out), "--no-progress", "--resamples", "20",
    ]  # fmt: skip


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A run of two benchmarks (`asr`, `speech`: the same ids) by model `rp`, and the runs the
    damaged folders take their foreign files from: model `rp2`, the same command into another
    folder, and `rp` with other answers."""
    root = tmp_path_factory.mktemp("runfolder")
    tone_asr_manifest(root / "set", n=4)
    write_jsonl(
        root / "speech" / "speech.jsonl",
        [{"id": f"c{i}", "audio": f"../set/c{i}.wav", "text": f"another sentence {i}"} for i in range(4)],
    )
    made: dict[str, Path] = {"root": root}
    for name, kwargs in {
        "run": {},
        "twin": {},  # the same command, another folder
        "rp2": {"model": "rp2", "variant": "a tone"},
        "other_answers": {"variant": "tone"},
    }.items():
        out = root / name
        res = runner.invoke(app, _run_args(root, out, **kwargs), catch_exceptions=False)
        assert res.exit_code == 0, res.output
        made[name] = out
    assert _wer(made["run"]) == pytest.approx(CLEAN_WER)
    return made


def _wer(run: Path) -> float:
    results = json.loads((run / "summary.json").read_text())["results"]
    return next(r for r in results if (r["benchmark"], r["model"]) == PAIR)["metrics"]["wer"]["value"]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def _append(path: Path, line: dict[str, Any] | bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n")


def _line_of(path: Path, sid: str) -> dict[str, Any]:
    return next(r for r in _lines(path) if r["id"] == sid)


Corruption = Callable[[Path, dict[str, Path]], None]


def _pair(run: Path) -> Path:
    return run / PAIR[0] / PAIR[1]


def other_benchmark_line(run: Path, src: dict[str, Path]) -> None:
    _append(_pair(run) / "records.jsonl", _line_of(run / "speech" / "rp" / "records.jsonl", "c0"))


def duplicate_with_another_score(run: Path, src: dict[str, Path]) -> None:
    line = _line_of(_pair(run) / "records.jsonl", "c0")
    line["output"]["text"] = line["processed"]["text"] = "the tone number 0 is steady"
    line["scores"]["wer"] = {"values": {"wer": 0.0}, "stats": {"hits": 6, "substitutions": 0, "deletions": 0, "insertions": 0, "ref_len": 6}, "detail": {}}  # fmt: skip
    _append(_pair(run) / "records.jsonl", line)


def empty_records(run: Path, src: dict[str, Path]) -> None:
    (_pair(run) / "records.jsonl").write_bytes(b"")


def records_path_is_a_folder(run: Path, src: dict[str, Path]) -> None:
    (_pair(run) / "records.jsonl").unlink()
    (_pair(run) / "records.jsonl").mkdir()


def signature_deleted(run: Path, src: dict[str, Path]) -> None:
    (_pair(run) / "signature.json").unlink()


def signature_truncated(run: Path, src: dict[str, Path]) -> None:
    path = _pair(run) / "signature.json"
    path.write_bytes(path.read_bytes()[:200])


def signature_of_other_settings(run: Path, src: dict[str, Path]) -> None:
    path = _pair(run) / "signature.json"
    signature = json.loads(path.read_text())
    signature["benchmark"]["template_digest"] = "0" * 16
    path.write_text(json.dumps(signature))


def record_of_another_model(run: Path, src: dict[str, Path]) -> None:
    _append(_pair(run) / "records.jsonl", _line_of(src["rp2"] / PAIR[0] / "rp2" / "records.jsonl", "c0"))


def sample_id_not_in_the_benchmark(run: Path, src: dict[str, Path]) -> None:
    line = _line_of(_pair(run) / "records.jsonl", "c1")
    line["id"] = "zz"
    _append(_pair(run) / "records.jsonl", line)


def summary_edited_by_hand(run: Path, src: dict[str, Path]) -> None:
    for path in (run / "summary.json", _pair(run) / "summary.json"):
        data = json.loads(path.read_text())
        for res in data.get("results", [data]):
            if res.get("benchmark") == PAIR[0]:
                res["metrics"]["wer"]["value"] = 0.01
        path.write_text(json.dumps(data))


def records_of_another_run_folder(run: Path, src: dict[str, Path]) -> None:
    shutil.copy(_pair(src["other_answers"]) / "records.jsonl", _pair(run) / "records.jsonl")


def records_of_a_twin_run_copied_in(run: Path, src: dict[str, Path]) -> None:
    shutil.copy(_pair(src["twin"]) / "records.jsonl", _pair(run) / "records.jsonl")


def run_json_missing(run: Path, src: dict[str, Path]) -> None:
    (run / "run.json").unlink()


def run_json_truncated(run: Path, src: dict[str, Path]) -> None:
    path = run / "run.json"
    path.write_bytes(path.read_bytes()[:100])


def sample_ids_truncated(run: Path, src: dict[str, Path]) -> None:
    path = _pair(run) / "sample_ids.json"
    path.write_bytes(path.read_bytes()[:5])


def non_utf8_line(run: Path, src: dict[str, Path]) -> None:
    path = _pair(run) / "records.jsonl"
    data = path.read_bytes()
    path.write_bytes(
        data.replace(
            b'"the tone number 1 is steady","audio_path"', b'"the tone \xff\xfe 1 is steady","audio_path"', 1
        )
    )


def mixed_format_line(run: Path, src: dict[str, Path]) -> None:
    line = _line_of(_pair(run) / "records.jsonl", "c2")
    del line["stamp"]  # a line as an earlier audioeval wrote it, answering better
    line["output"]["text"] = "the tone number 2 is steady"
    line["scores"]["wer"]["values"]["wer"] = 0.0
    _append(_pair(run) / "records.jsonl", line)


def cut_last_line(run: Path, src: dict[str, Path]) -> None:
    _append(_pair(run) / "records.jsonl", b'{"id": "c0", "output": {"te')


CORRUPTIONS: list[Corruption] = [
    other_benchmark_line,
    duplicate_with_another_score,
    empty_records,
    records_path_is_a_folder,
    signature_deleted,
    signature_truncated,
    signature_of_other_settings,
    record_of_another_model,
    sample_id_not_in_the_benchmark,
    summary_edited_by_hand,
    records_of_another_run_folder,
    records_of_a_twin_run_copied_in,
    run_json_missing,
    run_json_truncated,
    sample_ids_truncated,
    non_utf8_line,
    mixed_format_line,
    cut_last_line,
]
RECOMPUTED_ON_RESUME = {
    other_benchmark_line, duplicate_with_another_score, empty_records, record_of_another_model,
    sample_id_not_in_the_benchmark, summary_edited_by_hand, records_of_another_run_folder,
    records_of_a_twin_run_copied_in, run_json_missing, sample_ids_truncated, non_utf8_line,
    mixed_format_line, cut_last_line,
}  # fmt: skip
"""What a resumed run asks again (the rest it refuses, naming the file)."""


def _damaged(clean: dict[str, Path], corrupt: Corruption, tmp_path: Path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(clean["run"], run, ignore=shutil.ignore_patterns(".audioeval.lock"))
    corrupt(run, clean)
    return run


def _named(corrupt: Corruption) -> str:
    """What the refusal or the listed line names."""
    files = {
        summary_edited_by_hand: "summary.json", signature_deleted: "signature.json", signature_truncated: "signature.json",
        signature_of_other_settings: "signature.json", run_json_missing: "run.json",
        run_json_truncated: "run.json", sample_ids_truncated: "sample_ids.json",
    }  # fmt: skip
    return files.get(corrupt, "records.jsonl")


def _no_traceback(res: Any) -> None:
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in res.output


READER_COMMANDS = (
    "report",
    "rescore",
    "leaderboard",
    "rank",
    "mmae rescore",
    "mcq rescore",
    "rubric rescore",
)

SERVED_COMMANDS = ("view",)
"""Commands that serve run folders rather than run once: fed every damaged folder by
`test_the_viewer_shows_only_what_the_reader_vouches_for`."""


def _invoke(command: str, run: Path, tmp_path: Path) -> Any:
    if command in ("leaderboard", "rank"):
        return _cli(command, str(run), "-o", str(tmp_path / f"{command}-out"), "--resamples", "20")
    return _cli(*command.split(), str(run))


def test_every_command_with_a_run_folder_argument_is_enumerated() -> None:
    """The commands whose argument is a run folder, found in the CLI: each is fed every
    damaged folder below (the commands that resume a folder given by --output_dir go through
    the engine's reader, tested with `run`)."""

    def walk(cmd: Any, prefix: tuple[str, ...] = ()) -> Any:
        for name, sub in (getattr(cmd, "commands", None) or {}).items():
            yield from (
                walk(sub, (*prefix, name)) if getattr(sub, "commands", None) else [((*prefix, name), sub)]
            )

    found = {
        " ".join(name)
        for name, cmd in walk(typer.main.get_command(app))
        if any(
            p.param_type_name == "argument" and p.name in ("run_dir", "run_dirs", "output_dir")
            for p in cmd.params
        )
    }
    assert found == set(READER_COMMANDS) | set(SERVED_COMMANDS)


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda c: c.__name__)
def test_every_reader_refuses_or_recomputes_a_damaged_folder(
    clean: dict[str, Path], corrupt: Corruption, tmp_path: Path
) -> None:
    for command in READER_COMMANDS:
        run = _damaged(clean, corrupt, tmp_path / command.replace(" ", "-"))
        res = _invoke(command, run, tmp_path / command.replace(" ", "-"))
        _no_traceback(res)
        text = res.output.replace("\n", "")
        if command == "rescore" and res.exit_code in (0, 4):  # recomputed from what it vouches for
            listed = "records.jsonl:" in text and "could not be used" in text
            assert listed or corrupt is summary_edited_by_hand, text  # each line it left out is listed
            if res.exit_code == 0:  # no sample went missing: the clean figure
                assert _wer(run) == pytest.approx(CLEAN_WER)
            else:  # a sample whose only line it could not use: missing work, counted
                assert _wer(run) != pytest.approx(0.01) and "failed" in text
            continue
        assert res.exit_code == 2, (command, res.output)
        assert _named(corrupt) in text or command.endswith(" rescore"), (command, res.output)
        assert not (run / "report" / "index.html").exists()
        assert not (tmp_path / command / f"{command}-out" / "leaderboard.json").exists()


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda c: c.__name__)
def test_a_resumed_run_asks_again_what_it_cannot_vouch_for_or_refuses(
    clean: dict[str, Path], corrupt: Corruption, tmp_path: Path
) -> None:
    run = _damaged(clean, corrupt, tmp_path)
    res = _cli(*_run_args(clean["root"], run))
    _no_traceback(res)
    if corrupt in RECOMPUTED_ON_RESUME:
        assert res.exit_code == 0, res.output
        assert _wer(run) == pytest.approx(CLEAN_WER)  # the figure of the clean run, recomputed
        assert read_pair(_pair(run), read_run_file(run)["run_id"]).records  # and the folder reads
    else:
        assert res.exit_code == 2, res.output
        assert _named(corrupt) in res.output.replace("\n", ""), res.output


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda c: c.__name__)
def test_a_replay_of_a_damaged_pair_answers_only_what_it_vouches_for(
    clean: dict[str, Path], corrupt: Corruption, tmp_path: Path
) -> None:
    run = _damaged(clean, corrupt, tmp_path)
    out = tmp_path / "replayed"
    res = _cli(
        "run", "-b", str(clean["root"] / "set" / "asr.jsonl"), "--task", "asr", "-m",
        f"again=replay:{_pair(run)}", "-o", str(out), "--no-progress", "--resamples", "20",
    )  # fmt: skip
    _no_traceback(res)
    if res.exit_code == 0:  # every sample's vouched output was there: the clean figure
        assert json.loads((out / "summary.json").read_text())["wer"] == pytest.approx(CLEAN_WER)
    elif res.exit_code == 4:  # a sample whose only stored line is in doubt has no output: counted failed
        assert "records.jsonl:" in res.output.replace("\n", ""), res.output  # the line, listed
        assert json.loads((out / "summary.json").read_text())["results"][0]["failed"] >= 1
    else:
        assert res.exit_code == 2, res.output
        assert _named(corrupt) in res.output.replace("\n", ""), res.output


def test_the_reader_lists_each_line_with_file_line_and_why(clean: dict[str, Path], tmp_path: Path) -> None:
    run = _damaged(clean, duplicate_with_another_score, tmp_path)
    record_of_another_model(run, clean)
    non_utf8_line(run, clean)
    found = read_pair(_pair(run), read_run_file(run)["run_id"])
    path = _pair(run) / "records.jsonl"
    assert all(isinstance(p, Unvouched) and p.file == path for p in found.lines)
    listed = {(p.line, p.sample_id): p.why for p in found.lines}
    assert listed[(5, "c0")].startswith("id 'c0': another scored result than line ")
    assert listed[(6, "c0")] == "id 'c0': written by another run folder (its stamp names another run)"
    assert any(why.startswith("not UTF-8 text") for why in listed.values())
    assert sorted(r.id for r in found.records) == ["c2", "c3"]  # c0 in doubt, c1 unreadable
    assert str(found.lines[0]).startswith(f"{path}:")
    with pytest.raises(RunFolderError, match="signature.json: not found"):
        signature_deleted(run, clean)
        read_pair(_pair(run), None).usable()


def test_a_rescore_stopped_half_way_blocks_nothing_but_itself(
    clean: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`rescore --profile` stopped after scoring its pairs (it rewrote the run's signatures in
    place, so the original `run` was refused from then on): the run resumes untouched, every
    reader refuses the unfinished copy, and the same rescore again finishes it."""
    from audioeval.engine import rescore

    run = _damaged(clean, lambda run, src: None, tmp_path)

    def files() -> dict[Path, bytes]:
        return {
            p: p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file() and p.name != ".audioeval.lock"
        }

    before = files()

    def stopped(target: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(rescore, "finish_copy", stopped)
    res = _cli("rescore", str(run), "--profile", "ultraeval", "--resamples", "20")
    assert res.exit_code == 130, res.output
    monkeypatch.undo()
    assert files() == before
    resumed = _cli(*_run_args(clean["root"], run))
    assert resumed.exit_code == 0 and "asked 0, reused 8" in resumed.output, resumed.output
    half = tmp_path / "run-ultraeval"
    unfinished = (
        ["report", str(half)],
        ["rescore", str(half)],
        [*_run_args(clean["root"], half), "--profile", "ultraeval"],
    )
    for command in unfinished:
        refused = _cli(*command)
        assert refused.exit_code == 2 and "a rescore into this folder did not finish" in refused.output, (
            command
        )
    done = _cli("rescore", str(run), "--profile", "ultraeval", "--resamples", "20")
    assert done.exit_code == 0 and f"{half.resolve()}: written" in done.output.replace("\n", ""), done.output
    assert _cli("report", str(half)).exit_code == 0


@pytest.mark.parametrize("corrupt", CORRUPTIONS, ids=lambda c: c.__name__)
def test_the_viewer_shows_only_what_the_reader_vouches_for(
    clean: dict[str, Path], corrupt: Corruption, tmp_path: Path
) -> None:
    """`audioeval view` over each damaged folder: refused at the start naming run.json, or the
    pair shows exactly the samples the reader vouches for, lists what it left out by file, and
    never shows a summary edited by hand (its figures are computed from the records)."""
    from audioeval.report.units import show_value
    from audioeval.report.viewer_runs import ServedRuns

    run = _damaged(clean, corrupt, tmp_path)
    try:
        state = ServedRuns([run]).run_state(0)
    except RunFolderError as exc:
        assert _named(corrupt) in str(exc)
        return
    (line,) = [p for p in state["pairs"] if p["key"] == f"0/{PAIR[0]}/{PAIR[1]}"]
    vouched = read_pair(_pair(run), read_run_file(run).get("run_id"))
    assert line["done"] == len({r.id for r in vouched.records})
    listed = " ".join(text for _, text in state["problems"])
    if (vouched.refused or vouched.lines) and corrupt is not cut_last_line:  # a line without its end
        assert _named(corrupt).split(".")[0] in listed, listed  # is one still being written for a live page
    if corrupt is summary_edited_by_hand:
        assert line["value"] == show_value(CLEAN_WER, "fraction") != show_value(0.01, "fraction")
