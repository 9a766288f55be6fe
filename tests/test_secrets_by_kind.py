"""Credentials by kind: a key in an endpoint URL's query (`?key=…`, `token`, `sig`, …), a URL's
user-info password, a header or a configured key is cut from every file a run writes and from
everything it prints, a model's answers included (a model may echo its key in a 200 answer).

The writers are enumerated from the code: every call in the package that writes a file or a
database row is either one of the gated writers (which pass the text through
`core.redact.redact_known`) or listed with why it never holds a text of a run.
"""

from __future__ import annotations

import ast
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from audioeval.cli import exit_codes
from audioeval.core.redact import REDACTED, redact, redact_known, redact_known_bytes, url_secrets
from audioeval.engine.endpoint_auth import request_url
from tests.fakes.mcq_server import FakeMcqConfig, FakeMcqServer
from tests.run_helpers import tone_mcq_manifest

SRC = Path(__file__).resolve().parents[1] / "src" / "audioeval"
AUDIOEVAL = [sys.executable, "-m", "audioeval.cli.main"]
QUERY_KEY = "qk-Sup3rSecret-0042"
SHORT_SIG = "s1gX9"
PIECES = ("Sup3rSecret", SHORT_SIG)

GATED = {
    ("store/atomic.py", "write_text_atomic"): "every summary, signature, run.json, export, page",
    ("store/atomic.py", "write_text"): "a report's sample chunks",
    ("store/jsonl.py", "JsonlAppender"): "records.jsonl and every appended stream",
    ("store/response_cache.py", "ResponseCache"): "the response cache (`put`)",
}
"""The writers of run folders and caches, each passing what it writes through the gate."""
OUTSIDE = {
    ("adapters/codecs/opus.py", "OpusCodec"): "audio encoded in memory",
    ("adapters/realtime_events.py", "pcm16_wav"): "audio encoded in memory",
    ("adapters/runtimes/environment.py", "_inherit_site_packages"): "a runtime's .pth file: package paths",
    ("adapters/runtimes/environment.py", "_install_lock"): "a runtime's install lock: empty",
    ("adapters/runtimes/environment.py", "setup_environment"): "a runtime's install marker: versions",
    ("adapters/runtimes/request_inputs.py", "audio_input"): "a clip cut for a worker (temporary folder)",
    ("adapters/runtimes/workers/worker_protocol.py", "private_stdout"): "a worker's pipe to its parent",
    ("benchmarks/sources/hf.py", "_write_once"): "a dataset's audio bytes",
    ("scoring/caption_java.py", "LineProcess"): "captions piped to the Java scorer",
}
"""Writers that never hold a run's texts (audio, runtime set-up, pipes)."""


def _mode(call: ast.Call) -> str:
    args = [a.value for a in call.args[1:2] if isinstance(a, ast.Constant)]
    args += [k.value.value for k in call.keywords if k.arg == "mode" and isinstance(k.value, ast.Constant)]
    return str(args[0]) if args else "r"


def _raw_write(node: ast.Call) -> bool:
    """A call that writes a file or a database row itself."""
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
    if isinstance(f, ast.Attribute) and name in ("write_text", "write_bytes"):
        return True
    if name in ("open", "fdopen") and any(c in _mode(node) for c in "wa"):
        return True
    if name == "write" and isinstance(f, ast.Attribute) and getattr(f.value, "id", None) == "os":
        return True
    first = node.args[0] if node.args else None
    sql = str(first.value).lstrip().upper() if isinstance(first, ast.Constant) else ""
    return name == "execute" and sql.startswith(("INSERT", "UPDATE", "REPLACE"))


def _writers() -> dict[tuple[str, str], ast.AST]:
    """(module, its class or function that holds the write) -> that node, for every raw write
    in the package (a write at a module's top level is named `<module>`)."""
    found: dict[tuple[str, str], ast.AST] = {}
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for top in tree.body:
            if any(isinstance(n, ast.Call) and _raw_write(n) for n in ast.walk(top)):
                name = getattr(top, "name", "<module>")
                found[(str(path.relative_to(SRC)), name)] = top
    return found


def test_every_file_writer_is_gated_or_holds_no_text_of_a_run() -> None:
    writers = _writers()
    unknown = sorted(set(writers) - set(GATED) - set(OUTSIDE))
    assert not unknown, f"a writer neither gated nor listed: {unknown}"
    for site in GATED:
        calls = {getattr(n.func, "id", None) for n in ast.walk(writers[site]) if isinstance(n, ast.Call)}
        assert calls & {"redact_known", "redact_known_bytes"}, site


def _cli(*args: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return subprocess.run([*AUDIOEVAL, *map(str, args)], capture_output=True, text=True, env=env, timeout=300)


def _leaks(folder: Path, console: str) -> list[str]:
    found = [
        str(p.relative_to(folder))
        for p in sorted(folder.rglob("*"))
        if p.is_file() and any(piece.encode() in p.read_bytes() for piece in PIECES)
    ]
    return found + (["console"] if any(piece in console for piece in PIECES) else [])


def test_a_key_in_the_urls_query_is_sent_but_never_stored_or_printed_even_when_echoed(tmp_path: Path) -> None:
    """The model's endpoint carries its key in the query and echoes it in every 200 answer:
    the run, a rescore, the report and the leaderboard write every file without it."""
    manifest = tone_mcq_manifest(tmp_path / "set", n=3)
    out = tmp_path / "run"
    with FakeMcqServer(FakeMcqConfig(echo_query=True)) as server:
        url = f"{server.base_url}?key={QUERY_KEY}&sig={SHORT_SIG}&api-version=1"
        run = _cli("run", "-m", f"fake-audio-lm@{url}", "--task", "mcq", "-b", manifest, "-o", out,
                   "--resamples", 10, "--no-progress")  # fmt: skip
        assert server.stats.queries == [f"key={QUERY_KEY}&sig={SHORT_SIG}&api-version=1"] * 3
    assert run.returncode == exit_codes.OK, run.stdout + run.stderr
    steps = [run, _cli("rescore", out), _cli("report", out), _cli("leaderboard", out, "-o", out / "board")]
    assert [p.returncode for p in steps] == [exit_codes.OK] * 4, [p.stderr for p in steps]
    written = {p.name for p in out.rglob("*") if p.is_file()}
    assert {"run.json", "records.jsonl", "signature.json", "summary.json", "response_cache.sqlite"} <= written
    assert {"index.html", "leaderboard.md"} <= written and any(n.endswith(".js") for n in written)
    assert _leaks(out, "".join(p.stdout + p.stderr for p in steps)) == []
    run_json = (out / "run.json").read_text()
    assert f"?key={REDACTED}&sig={REDACTED}&api-version=1" in run_json
    (records,) = out.rglob("records.jsonl")
    assert f"my key: {REDACTED}" in records.read_text()  # the answer as stored
    with sqlite3.connect(out / "response_cache.sqlite") as db:
        cached = [row[0] for row in db.execute("SELECT text FROM responses")]
    assert len(cached) == 3 and all(f"my key: {REDACTED}" in t for t in cached)


def test_an_endpoint_refused_with_a_key_in_its_url_is_named_without_it(tmp_path: Path) -> None:
    manifest = tone_mcq_manifest(tmp_path / "set", n=1)
    p = _cli("run", "-m", f"m@http://127.0.0.1:9/v1?access_token={QUERY_KEY}&sig={SHORT_SIG}",
             "--task", "mcq", "-b", manifest, "-o", tmp_path / "out", "--no-progress")  # fmt: skip
    assert p.returncode == exit_codes.ENDPOINT_UNUSABLE, p.stdout + p.stderr
    assert "127.0.0.1:9" in p.stderr and _leaks(tmp_path / "out", p.stdout + p.stderr) == []


@pytest.mark.parametrize(
    "text",
    [
        "http://h/v1?key=K1&v=2",
        "https://h/v1?api_key=K1",
        "http://h?x=1&api-key=K1",
        "http://h/v1?token=K1",
        "http://h/v1?access_token=K1#frag",
        "https://blob/x.wav?sv=2024&sig=K1&se=2030",
        "https://s3/x?X-Amz-Credential=K1&X-Amz-Signature=K1",
        "http://h/v1?client_secret=K1",
        "http://user:K1@h/v1",
        "Authorization: Basic K1",
        "X-Auth-Token: K1",
        "Ocp-Apim-Subscription-Key: K1",
        "x-api-key: K1",
        "Bearer K1",
    ],
)
def test_each_kind_of_credential_is_redacted_in_every_text(text: str) -> None:
    assert "K1" not in redact(text), redact(text)
    if "://" in text:  # the gate of files: by pattern in URLs
        assert "K1" not in redact_known(text) and b"K1" not in redact_known_bytes(text.encode())


def test_ordinary_parameters_and_words_are_kept() -> None:
    text = "http://h/v1?monkey=1&keyword=2&api-version=3&model=m and the token of the day"
    assert redact(text) == text and redact_known(text) == text


def test_the_credentials_of_a_url_are_found_and_the_query_follows_the_path() -> None:
    assert url_secrets("http://u:p%40ss@h/v1?key=abc&x=1") == ["p%40ss", "p@ss", "abc", "abc"]
    assert request_url("http://h/v1?key=abc", "/chat/completions") == "http://h/v1/chat/completions?key=abc"
    assert request_url("http://h/v1?key=abc", "/x", "?api-version=1") == "http://h/v1/x?key=abc&api-version=1"
    assert request_url("http://h/v1", "/x", "?api-version=1") == "http://h/v1/x?api-version=1"


def test_every_console_prints_through_the_gate(capsys: pytest.CaptureFixture[str]) -> None:
    """What the commands print (tables, notes, progress, errors) leaves through one stream that
    cuts the credentials in use, as the files do."""
    from audioeval.cli.errors import err_console
    from audioeval.cli.options import make_console
    from audioeval.core.redact import register_secret

    register_secret(QUERY_KEY)
    for console in (make_console(), err_console):
        console.print(f"endpoint http://h/v1?sig={SHORT_SIG} answered {QUERY_KEY}", highlight=False)
    printed = capsys.readouterr()
    assert printed.out.count(REDACTED) == 2 and printed.err.count(REDACTED) == 2
    assert _leaks(Path("/nonexistent"), printed.out + printed.err) == []
