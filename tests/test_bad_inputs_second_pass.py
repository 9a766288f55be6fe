"""The bad-input corpus, second pass (issue 27): the surfaces added since the first pass
(judge-eval, rescore, model answers, templates, disk, Ray, JSON repair) under bad input and
faults. Each case goes through the real CLI where it is a CLI case and says what must happen:
the documented exit code (docs/reliability.md), a message naming file, id and field, and
never a silently wrong number (a NaN stored, a failure scored, a malformed row dropped).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from audioeval.cli import exit_codes
from audioeval.cli.main import app
from tests.fakes.yes_no_judge import YesNoJudgeConfig, YesNoJudgeServer
from tests.test_judge_eval import JUDGE, judge_bench, judge_eval, summary

runner = CliRunner()


# --- 1. numbers a judge or scorer returns are checked where they enter -----------------------


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 5.0])
def test_impossible_logprobs_are_unreadable_never_a_p_yes(bad: float) -> None:
    from audioeval.adapters.openai_chat import reply_first_token
    from audioeval.judge.p_yes import has_first_token, read_first_token

    stored = json.dumps({"text": "Yes", "top_logprobs": [["Yes", bad], ["No", min(bad, 3.0)]]})
    assert read_first_token(stored) is None and not has_first_token(stored)  # never cached
    body = {"choices": [{"message": {"content": "Yes"}, "logprobs": {"content": [
        {"token": "Yes", "logprob": bad, "top_logprobs": [{"token": "Yes", "logprob": bad}]}]}}]}  # fmt: skip
    with pytest.raises(ValueError, match="logprob"):
        reply_first_token(body)


def test_a_judge_sending_nan_logprobs_fails_those_answers_and_never_caches_them(tmp_path: Path) -> None:
    bench = judge_bench(tmp_path / "data", n=8)
    cache = tmp_path / "judge-cache.sqlite"
    out = tmp_path / "out"
    config = YesNoJudgeConfig(model=JUDGE, bad_logprobs_every=4)
    with YesNoJudgeServer(config) as server:
        res = judge_eval(bench, server.base_url, out, "--cache", str(cache), "--max-failed", "1.0")
    assert res.exit_code == exit_codes.OK, res.output
    records = "".join(p.read_text() for p in out.rglob("records.jsonl"))
    assert "NaN" not in records and "Infinity" not in records
    s = summary(out)
    assert s["n_scored"] + s["failed"]["n"] == 8  # every row scored or failed, none dropped
    assert "NaN" not in cache.read_bytes().decode("utf-8", "replace")
    # a new folder sharing the cache with a good judge scores every row
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE)) as good:
        res = judge_eval(bench, good.base_url, tmp_path / "again", "--cache", str(cache))
    assert res.exit_code == exit_codes.OK, res.output
    assert summary(tmp_path / "again")["n_scored"] == 8
    assert summary(tmp_path / "again")["overall"]["accuracy"] == 100.0


def test_a_non_finite_score_value_is_a_recorded_failure_never_stored() -> None:
    from audioeval.core.record import FailureKind, SampleRecord, Score
    from audioeval.core.sample import Sample
    from audioeval.engine.sample_pipeline import _keep
    from audioeval.scoring.base import Scorer

    class Nan(Scorer):
        name = "nan_scorer"

    rec = SampleRecord("s1", Sample(id="s1", fields={}, audio={}, source="m.jsonl"), None)
    rec.scores = {}
    assert not _keep(rec, Nan(), Score({"wer": float("nan")}, {"edits": 1}))  # type: ignore[arg-type]
    assert rec.failure == FailureKind.CANNOT_SCORE and rec.scores is None
    assert (
        "nan_scorer" in (rec.error or "") and "values.wer" in (rec.error or "") and "s1" in (rec.error or "")
    )


# --- 4. judge-eval: malformed rows, one-class tuning, impossible numbers ---------------------


def _malformed_rows(bench: Path, n_bad: int) -> list[str]:
    rows = [json.loads(x) for x in bench.read_text().splitlines()]
    ids = []
    for i in range(n_bad):
        row = rows[i]
        del row["label"]
        ids.append(row["uuid"])
    bench.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return ids


def test_judge_eval_reports_malformed_rows_and_counts_them_as_failed_work(tmp_path: Path) -> None:
    bench = judge_bench(tmp_path / "data", n=8)
    bad = _malformed_rows(bench, 5)
    with YesNoJudgeServer(YesNoJudgeConfig(model=JUDGE)) as server:
        res = judge_eval(bench, server.base_url, tmp_path / "out")
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        s = summary(tmp_path / "out")
        assert s["skipped"]["n"] == 5 and {r["id"] for r in s["skipped"]["rows"]} == set(bad)
        assert "skipped 5" in res.output and bad[0] in res.output
        allowed = judge_eval(bench, server.base_url, tmp_path / "out2", "--max-failed", "5")
        assert allowed.exit_code == exit_codes.OK, allowed.output
    res = runner.invoke(app, ["rescore", str(tmp_path / "out")])
    assert summary(tmp_path / "out")["skipped"]["n"] == 5  # kept by a rescore


def test_threshold_tuning_searches_the_extremes() -> None:
    from audioeval.metrics.binary_judge import tune_threshold

    every_no = tune_threshold([0.9, 0.8, 0.7], [False, False, False])
    assert every_no.accuracy == 1.0 and every_no.value > 0.9
    every_yes = tune_threshold([0.2, 0.3], [True, True])
    assert every_yes.accuracy == 1.0 and every_yes.value <= 0.2
    assert tune_threshold([0.6], [False]).accuracy == 1.0
    assert tune_threshold([0.2, 0.8], [False, True]).value == 0.5  # a split inside is kept


@pytest.mark.parametrize("value", ["nan", "-5", "inf", "0"])
def test_judge_eval_refuses_an_impossible_judge_timeout(tmp_path: Path, value: str) -> None:
    bench = judge_bench(tmp_path / "data", n=2)
    res = runner.invoke(app, ["judge-eval", "--bench", str(bench), "--judge", "http://127.0.0.1:9/v1",
                              "--judge-model", JUDGE, "-o", str(tmp_path / "o"), "--judge-timeout", value])  # fmt: skip
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    assert "--judge-timeout" in res.output and res.exception is None or isinstance(res.exception, SystemExit)
    assert "Traceback" not in res.output


# --- 3. a model answering 200 with empty, blank or think-only content -----------------------


class _EmptyModel:
    """Chat completions answering `answers[sample]` (keyed by a word of the prompt's audio
    order): empty, blank, think-only, or a transcript."""

    served_models = ["fake-asr"]

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers
        self.requests = 0


def _empty_model_server(answers: list[str]) -> Any:
    from tests.fakes.openai_http import FakeServer, JsonHandler, completion

    class Handler(JsonHandler):
        def do_POST(self) -> None:
            app_ = self.server.app  # type: ignore[attr-defined]
            body = self.read_json()
            if body is None:
                return
            i = app_.requests
            app_.requests += 1
            self.send_json(200, completion(i, "fake-asr", app_.answers[min(i, len(app_.answers) - 1)]))

    return FakeServer(Handler, _EmptyModel(answers))


@pytest.mark.parametrize("answer", ["", "   \n", "<think>the tone is steady</think>", "<think>cut off"])
def test_an_empty_or_think_only_answer_is_an_output_failure_asked_again(tmp_path: Path, answer: str) -> None:
    from tests.fakes.mcq_server import tone_wav
    from tests.run_helpers import write_jsonl

    tone_wav(tmp_path / "a.wav", 440, seconds=0.2)
    manifest = write_jsonl(tmp_path / "m.jsonl", [{"id": "a", "audio": "a.wav", "text": "red green"}])
    out = tmp_path / "o"
    args = ["run", "-b", str(manifest), "--task", "asr", "-o", str(out), "--no-progress", "--resamples", "0"]
    with _empty_model_server([answer]) as server:
        res = runner.invoke(app, [*args, "-m", f"fake-asr@{server.base_url}"])
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        assert server.app.requests == 1
        rec = json.loads(next(out.rglob("records.jsonl")).read_text().splitlines()[-1])
        assert rec["failure"] == "no output" and rec["output_failed"] is True and not rec.get("scores")
        assert "no content" in rec["error"]
        server.app.answers = ["red green"]  # the rerun asks again (nothing was cached) and scores
        again = runner.invoke(app, [*args, "-m", f"fake-asr@{server.base_url}"])
        assert again.exit_code == exit_codes.OK, again.output
        assert server.app.requests == 2


# --- 5. a spec scoring nothing; templates that would render gigabytes ------------------------


def _asr_spec(tmp_path: Path, extra: str) -> Path:
    from tests.fakes.mcq_server import tone_wav
    from tests.run_helpers import write_jsonl

    tone_wav(tmp_path / "a.wav", 440, seconds=0.2)
    write_jsonl(tmp_path / "m.jsonl", [{"id": "a", "audio": "a.wav", "text": "red green"}])
    spec = tmp_path / "spec.yaml"
    spec.write_text(f"name: tiny\ntask: asr\nsource: {{type: jsonl, path: m.jsonl}}\n{extra}")
    return spec


def _run_spec(spec: Path, out: Path) -> Any:
    return runner.invoke(app, ["run", "-b", str(spec), "-m", "oracle", "-o", str(out), "--no-progress",
                               "--resamples", "0"])  # fmt: skip


def test_a_spec_with_no_scorers_is_refused_naming_file_and_field(tmp_path: Path) -> None:
    spec = _asr_spec(tmp_path, "scorers: []\n")
    res = _run_spec(spec, tmp_path / "o")
    assert res.exit_code == exit_codes.BAD_INPUT, res.output
    assert "spec.yaml" in res.output and "scorers" in res.output and "Traceback" not in res.output


@pytest.mark.parametrize(
    "user",
    [
        "{% for i in range(100000000) %}x{% endfor %}",
        "{{ 'a' * 1000000000 }}",
        "{% for i in range(100000) %}{{ 'a' * 1000 }}{% endfor %}",
        "{{ 10 ** 100000000 }}",
    ],
)
def test_a_template_that_would_render_gigabytes_is_refused(tmp_path: Path, user: str) -> None:
    import resource

    template = tmp_path / "huge.yaml"
    template.write_text(json.dumps({"name": "huge", "user": user}))
    spec = _asr_spec(tmp_path, f"prompt: {template}\n")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    res = _run_spec(spec, tmp_path / "o")
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 500_000  # KB: < 0.5 GB more
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    rec = json.loads(next((tmp_path / "o").rglob("records.jsonl")).read_text().splitlines()[-1])
    assert rec["failure"] == "prompt" and "huge" in rec["error"] and "Traceback" not in res.output


# --- 2. rescore after stored lines were cut, damaged or edited -------------------------------


def _asr_run(tmp_path: Path, n: int = 10) -> tuple[Path, Path]:
    from tests.run_helpers import tone_asr_manifest

    manifest = tone_asr_manifest(tmp_path / "set", n=n)
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", "-b", str(manifest), "--task", "asr", "-m", "oracle", "-o", str(out),
                              "--no-progress", "--resamples", "0"])  # fmt: skip
    assert res.exit_code == exit_codes.OK, res.output
    return out, next(out.rglob("records.jsonl"))


def test_rescore_reports_every_unusable_line_and_counts_its_sample_missing(tmp_path: Path) -> None:
    out, records = _asr_run(tmp_path)
    lines = records.read_bytes().splitlines(keepends=True)
    lines[2] = lines[2][:40] + b"\n"  # cut short
    lines[4] = lines[4][:30] + b"\x00\x00\x00" + lines[4][33:]  # NUL-damaged
    edited = json.loads(lines[6])
    edited["id"] = "c6-edited"
    lines[6] = (json.dumps(edited) + "\n").encode()
    records.write_bytes(b"".join(lines))
    res = runner.invoke(app, ["rescore", str(out)])
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    assert "3 stored result line(s) could not be used" in res.output
    for n in (3, 5, 7):
        assert f"records.jsonl:{n}:" in res.output
    assert "c6-edited" in res.output
    pair = json.loads((records.parent / "summary.json").read_text())
    assert pair["missing"] == 3 and pair["scored"] == 7
    assert records.read_bytes().count(b"\n") == 10  # the damaged lines are kept as they were
    allowed = runner.invoke(app, ["rescore", str(out), "--max-failed", "3"])
    assert allowed.exit_code == exit_codes.OK, allowed.output


def test_rescore_of_a_record_with_a_nan_score_reports_it_without_a_traceback(tmp_path: Path) -> None:
    out, records = _asr_run(tmp_path, n=3)
    lines = records.read_text().splitlines()
    rec = json.loads(lines[1])
    name = next(iter(rec["scores"]))
    key = next(iter(rec["scores"][name]["values"]))
    rec["scores"][name]["values"][key] = float("nan")
    lines[1] = json.dumps(rec)  # writes NaN
    records.write_text("\n".join(lines) + "\n")
    res = runner.invoke(app, ["rescore", str(out)])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
    assert "records.jsonl:2:" in res.output and "not a finite number" in res.output


# --- 7. a Ray address where nothing listens ---------------------------------------------------


def test_a_ray_address_where_nothing_listens_stops_within_seconds(tmp_path: Path) -> None:
    import time

    pytest.importorskip("ray")
    from tests.run_helpers import demo_speech_as_wavs
    from tests.test_ray_executor import write_spec

    manifest = demo_speech_as_wavs(tmp_path, n=1, name="clips.jsonl")
    codec = write_spec(tmp_path, "codec-q6", "worker_codec.py", "[codec]", "audio", {"bits": 6})
    bench = tmp_path / "clips.yaml"
    bench.write_text(f"name: clips\ntask: codec\nsource: {{type: jsonl, path: {manifest}}}\n")
    started = time.monotonic()
    res = runner.invoke(app, ["run", "-m", str(codec), "-b", str(bench), "-o", str(tmp_path / "o"),
                              "--no-progress", "--resamples", "0", "--executor", "ray",
                              "--ray-address", "127.0.0.1:1"])  # fmt: skip
    assert time.monotonic() - started < 30
    assert res.exit_code == exit_codes.ENDPOINT_UNUSABLE, res.output
    assert "--ray-address 127.0.0.1:1" in res.output and "ray start --head" in res.output


# --- 6. a full disk -----------------------------------------------------------------------


def test_a_full_disk_stops_with_a_message_keeps_what_finished_and_the_rerun_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    import audioeval.store.jsonl as jsonl_module
    from tests.run_helpers import tone_asr_manifest

    class FullAfter:
        """A records file on a disk that fills after two lines."""

        def __init__(self, path: Any, mode: str) -> None:
            self.fh = open(path, mode)  # noqa: SIM115
            self.lines = 0

        def write(self, data: bytes) -> int:
            if self.lines >= 2:
                raise OSError(errno.ENOSPC, "No space left on device")
            self.lines += 1
            return self.fh.write(data)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.fh, name)

    manifest = tone_asr_manifest(tmp_path / "set", n=5)
    out = tmp_path / "o"
    args = ["run", "-b", str(manifest), "--task", "asr", "-m", "oracle", "-o", str(out), "--no-progress",
            "--resamples", "0", "--concurrency", "1"]  # fmt: skip
    monkeypatch.setattr(jsonl_module, "open", FullAfter, raising=False)
    res = runner.invoke(app, args)
    monkeypatch.undo()
    assert res.exit_code == exit_codes.NO_SPACE, res.output
    assert "no space left on device writing" in res.output and "records.jsonl" in res.output
    assert "what finished is kept, free space and rerun" in res.output
    records = next(out.rglob("records.jsonl"))
    assert len(records.read_text().splitlines()) == 2  # intact
    again = runner.invoke(app, args)
    assert again.exit_code == exit_codes.OK, again.output
    assert "reused 2" in again.output
    assert len({json.loads(x)["id"] for x in records.read_text().splitlines()}) == 5


# --- 8. a decomposition answer of 20,000 nested brackets ------------------------------------


@pytest.mark.parametrize("n", [20_000, 100_000])
def test_deeply_nested_brackets_are_rejected_in_linear_time(n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Linear, counted without a clock: the quadratic scan tried a JSON decode at every one of
    the n openers (each decode reading on to the end); the linear one skips brackets nested
    deeper than the limit in one pass, so the number of decodes does not grow with n."""
    import json

    from audioeval.benchmarks.anyaudio_bench.decomposition_reader import read_items
    from audioeval.postprocess import json_in_text
    from audioeval.postprocess.json_in_text import json_values, repaired_json_values

    decodes = []

    class CountingDecoder(json.JSONDecoder):
        def raw_decode(self, s: str, idx: int = 0):  # type: ignore[no-untyped-def]
            decodes.append(idx)
            return super().raw_decode(s, idx)

    monkeypatch.setattr(json_in_text, "_DECODER", CountingDecoder())
    for text in ("[" * n, "{" * n, '{"a": ' * n):
        decodes.clear()
        assert list(repaired_json_values(text)) == [] and list(json_values(text, "[")) == []
        # a bounded number of decodes, each at one of the last few openers (so each reads a
        # bounded tail): the same work for 20,000 and for 100,000 brackets
        bound = 2 * json_in_text.MAX_JSON_DEPTH
        assert len(decodes) <= bound, f"{len(decodes)} decodes for {n} nested brackets"
        assert min(decodes, default=len(text)) >= len(text) - 6 * bound
        assert read_items(text).items == ()  # the official reader decodes nothing either
    assert list(json_values('x {"a": [1, {"b": 2}]} y')) == [{"a": [1, {"b": 2}]}, {"b": 2}]


# --- 9. every numeric option goes through one validator ------------------------------------


def _numeric_options() -> list[tuple[str, str]]:
    import typer

    from audioeval.cli.number_flags import number_type

    out = []

    def walk(cmd: Any, path: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
            return
        for p in cmd.params:
            if p.param_type_name == "option" and number_type(p) is not None:
                out.append((" ".join(path), p.opts[0]))

    walk(typer.main.get_command(app), [])
    return out


NUMERIC_OPTIONS = _numeric_options()


def test_the_walk_finds_the_numeric_options() -> None:
    found = set(NUMERIC_OPTIONS)
    assert {("run", "--temperature"), ("run", "--seed"), ("judge-eval", "--threshold"),
            ("mcq score", "--judge-timeout"), ("rank", "--resamples")} <= found  # fmt: skip
    assert len(found) >= 50


@pytest.mark.parametrize(("command", "flag"), NUMERIC_OPTIONS, ids=[f"{c}:{f}" for c, f in NUMERIC_OPTIONS])
def test_every_numeric_option_refuses_nan_inf_and_negatives_naming_the_flag(command: str, flag: str) -> None:
    for value in ("nan", "inf", "-inf", "-5"):
        res = runner.invoke(app, [*command.split(), f"{flag}={value}"])
        assert res.exit_code == exit_codes.BAD_INPUT, (value, res.output)
        assert isinstance(res.exception, SystemExit), (value, res.exception)
        lines = [x for x in res.output.splitlines() if x.strip()]
        said = " ".join(res.output.replace("│", " ").split())  # the option parser's box
        assert f"Invalid value for '{flag}'" in said or (
            len(lines) == 1 and lines[0].startswith(f"error: field '{flag}': must be")
        ), (value, res.output)
        assert "Traceback" not in res.output, (value, res.output)


# --- 10. a 50 MB prediction line: refused where it enters; a report page stays small ----------


def _asr_predictions(tmp_path: Path, texts: dict[str, str]) -> tuple[Path, Path]:
    from tests.run_helpers import tone_asr_manifest, write_jsonl

    manifest = tone_asr_manifest(tmp_path / "set", n=3)
    rows = [
        {"id": sid, "text": texts.get(sid, f"the tone number {sid[1:]} is steady")}
        for sid in ("c0", "c1", "c2")
    ]
    return manifest, write_jsonl(tmp_path / "hyps.jsonl", rows)


def test_a_huge_prediction_line_is_refused_naming_it_in_bounded_memory(tmp_path: Path) -> None:
    import subprocess
    import sys

    line_mb = 20
    manifest, hyps = _asr_predictions(tmp_path, {"c0": "word " * (line_mb * 1024 * 1024 // 5)})
    out = tmp_path / "o"
    measure = (
        "import resource, subprocess, sys\n"
        "rc = subprocess.run(sys.argv[1:]).returncode\n"
        "print('RC', rc, 'PEAK_KB', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    cli = [sys.executable, "-c", "from audioeval.cli.main import app; app()"]
    proc = subprocess.run([sys.executable, "-c", measure, *cli, "run", "-b", str(manifest), "--task", "asr",
                           "-m", f"predictions:{hyps}", "-o", str(out), "--no-progress", "--resamples", "0"],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    rc, peak_kb = (int(x) for x in proc.stdout.split()[-3::2])
    assert rc == exit_codes.TOO_MANY_FAILURES, proc.stdout + proc.stderr
    said = proc.stdout + proc.stderr
    assert "id 'c0': bad output: field 'output.text'" in said and "over the bound of 1,000,000" in said
    assert peak_kb < 200_000 + 6 * line_mb * 1024, peak_kb  # the file is read, never copied per stage
    records = next(out.rglob("records.jsonl"))
    assert records.stat().st_size < 50_000  # the answer is not stored
    rec = {json.loads(x)["id"]: json.loads(x) for x in records.read_text().splitlines()}
    assert rec["c0"]["failure"] and not rec["c0"].get("scores") and rec["c1"]["scores"]


def test_a_live_model_answer_over_the_bound_is_an_output_failure_never_cached(tmp_path: Path) -> None:
    from audioeval.engine.output_gate import MAX_ANSWER_CHARS
    from tests.fakes.mcq_server import tone_wav
    from tests.run_helpers import write_jsonl

    tone_wav(tmp_path / "a.wav", 440, seconds=0.2)
    manifest = write_jsonl(tmp_path / "m.jsonl", [{"id": "a", "audio": "a.wav", "text": "red green"}])
    args = [
        "run",
        "-b",
        str(manifest),
        "--task",
        "asr",
        "-o",
        str(tmp_path / "o"),
        "--no-progress",
        "--resamples",
        "0",
    ]
    with _empty_model_server(["red " * (MAX_ANSWER_CHARS // 4 + 1)]) as server:
        res = runner.invoke(app, [*args, "-m", f"fake-asr@{server.base_url}"])
        assert res.exit_code == exit_codes.TOO_MANY_FAILURES, res.output
        assert "over the bound of 1,000,000 on a stored answer" in res.output
        records = next((tmp_path / "o").rglob("records.jsonl"))
        assert records.stat().st_size < 50_000 and not json.loads(records.read_text()).get("scores")
        server.app.answers = ["red green"]  # not cached: the rerun asks again and scores
        again = runner.invoke(app, [*args, "-m", f"fake-asr@{server.base_url}"])
        assert again.exit_code == exit_codes.OK, again.output
        assert server.app.requests == 2


def test_a_report_page_cuts_long_answers_pointing_to_records(tmp_path: Path) -> None:
    from audioeval.report.sample_rows import SHOWN_CHARS

    long = "the tone " * (SHOWN_CHARS // 2)  # 4.5 × what a page shows, under the stored bound
    manifest, hyps = _asr_predictions(tmp_path, {"c0": long, "c1": long, "c2": long})
    out = tmp_path / "o"
    res = runner.invoke(app, ["run", "-b", str(manifest), "--task", "asr", "-m", f"predictions:{hyps}", "-o",
                              str(out), "--no-progress", "--resamples", "0"])  # fmt: skip
    assert res.exit_code == exit_codes.OK, res.output  # under the bound: stored whole and scored
    assert runner.invoke(app, ["report", str(out)]).exit_code == exit_codes.OK
    size = sum(p.stat().st_size for p in (out / "report").rglob("*") if p.is_file())
    assert size < 3 * 3 * SHOWN_CHARS + 300_000, size  # 3 samples × answer, processed, … cut
    chunk = (out / "report" / "samples" / "p0-c0.js").read_text(encoding="utf-8")
    assert f"cut at {SHOWN_CHARS:,} of {len(long):,} characters: the full text is in records.jsonl" in chunk
    stored = json.loads(next(out.rglob("records.jsonl")).read_text().splitlines()[0])
    assert stored["output"]["text"] == long  # the full text on disk


# --- 11. an out-of-range rating is an invalid vote: asked again, never averaged --------------


@pytest.mark.parametrize(
    ("reader", "low", "high", "bad"),
    [
        ("bracket_rating", 1, 10, ["[[11]]", "[[-1]]", "[[0]]", "[[10.5]]", "[[" + "9" * 400 + "]]"]),
        ("rating", 1, 5, ["11", "-1", "0", "5.01", "[[6]]", "[[-3]]", "9" * 400]),
        ("score_pair", 0, 10, ["11 3", "3 -1", "-1 -1", "10 10.5", "9" * 400 + " 3"]),
    ],
)
def test_each_rating_reader_refuses_a_finite_rating_off_its_scale(
    reader: str, low: int, high: int, bad: list[str]
) -> None:
    from audioeval.postprocess import ratings
    from audioeval.postprocess.outcome import Unparseable

    read = getattr(ratings, reader)
    for text in bad:
        assert isinstance(read(text, low, high), Unparseable), text


def _rating_judge(answers: list[str]) -> Any:
    """A judge answering each distinct request with `answers` in turn (the last one repeated)."""
    import threading
    from collections import Counter

    from tests.fakes.openai_http import FakeServer, JsonHandler, completion

    class Handler(JsonHandler):
        def do_POST(self) -> None:
            body = self.read_json()
            if body is None:
                return
            app_ = self.server.app  # type: ignore[attr-defined]
            with app_["lock"]:
                key = json.dumps(body["messages"])
                seen = app_["seen"][key]
                app_["seen"][key] += 1
                app_["n"] += 1
            self.send_json(200, completion(1, body["model"], answers[min(seen, len(answers) - 1)]))

    return FakeServer(Handler, {"lock": threading.Lock(), "seen": Counter(), "n": 0})


@pytest.mark.parametrize(
    ("scorer", "value", "answers", "expected", "requests"),
    [
        ("chat_rating", "chat_rating", ["Rating: [[11]]", "Rating: [[-1]]", "Rating: [[7]]"], 7.0, 3),
        ("voicebench_open", "open_rating", ["11", "-1", "4"], 4.0, 5),  # 3 votes, 2 re-asked
    ],
)
def test_a_judge_rating_off_the_scale_is_asked_again_and_never_averaged(
    tmp_path: Path, scorer: str, value: str, answers: list[str], expected: float, requests: int
) -> None:
    from tests.test_judged_benchmarks import _bench, _records, _run

    spec = (f"name: rated\ntask: spoken_chat\nsource: {{type: jsonl, path: MANIFEST}}\n"
            f"fields: {{instruction: request}}\nscorers:\n  - {scorer}: {{instruction_field: instruction}}\n")  # fmt: skip
    spec_path, preds = _bench(
        tmp_path, [{"id": "s0", "request": "Tell me a story."}], spec, {"s0": "Once upon a time."}
    )
    out = tmp_path / "out"
    with _rating_judge(answers) as judge:
        res = _run("-b", str(spec_path), "-m", f"predictions:{preds}", "-o", str(out), "--judge", judge.base_url,
                   "--judge-model", "rule-judge")  # fmt: skip
        assert res.exit_code == exit_codes.OK, res.output
        assert judge.app["n"] == requests
    rec = _records(out)["s0"]
    assert rec["scores"][scorer]["values"][value] == expected  # only on-scale votes averaged
    votes = [a["vote"] for a in rec["judge"][scorer]["attempts"]]
    assert sorted(v for v in votes if v is not None) == [expected] * (requests - 2) and votes.count(None) == 2
    (result,) = json.loads((out / "summary.json").read_text())["results"]
    assert result["metrics"][f"mean:{value}"]["value"] == expected
