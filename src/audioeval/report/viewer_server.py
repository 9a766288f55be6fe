"""The local server of `audioeval view`: read-only pages over the run folders it was given.

Addresses (every other one is 404; none is ever mapped onto a file path):

- `/`                       the runs, their pairs and how far each is (updating while one is written)
- `/run/<n>`                one run, updating while it is written (polls `/api/run/<n>`)
- `/compare?p=<n>/<benchmark>/<model>&p=…`   two or more pairs of one benchmark, sample by
                              sample (updating while one is written); `#sample=<id>` opens one sample
- `/api/runs`, `/api/run/<n>`, `/api/compare?p=…`, `/api/sample?p=…&id=…`   the pages' data (JSON)
- `/clip/<token>`           a clip a served record names (`report/viewer_runs.ServedClips`)

It binds to 127.0.0.1 unless told otherwise, answers GET and HEAD only, and writes nothing.
Pages are built as the static report's are (`report/html_page.py`: escaped JSON data, text put
into the page with `textContent`).
"""

from __future__ import annotations

import json
import mimetypes
import re
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from audioeval.core.errors import InputError, RunConfigError
from audioeval.report.html_page import render_viewer_page as page
from audioeval.report.viewer_runs import ServedRuns

DEFAULT_HOST = "127.0.0.1"
_RUN_PATH = re.compile(r"/(?:api/)?run/(\d{1,6})")
_CLIP_PATH = re.compile(r"/clip/([0-9a-f]{24}\.[a-z0-9]{1,5})")


class ViewerHandler(BaseHTTPRequestHandler):
    runs: ServedRuns  # set on the class `serve` makes
    server_version = "audioeval-view"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base class's name)
        return None

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer(head=True)

    def do_GET(self) -> None:  # noqa: N802
        self._answer(head=False)

    def _answer(self, *, head: bool) -> None:
        try:
            status, kind, body = self._route()
        except (KeyError, IndexError):
            status, kind, body = HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", b"not found"
        except (ValueError, InputError, RunConfigError) as exc:
            status, kind, body = HTTPStatus.BAD_REQUEST, "text/plain; charset=utf-8", str(exc).encode("utf-8")
        if kind.startswith(("text/", "application/json")):
            body = self.runs.hidden(body.decode("utf-8")).encode("utf-8")  # no path of the machine
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if not head:
            self.wfile.write(body)

    def _route(self) -> tuple[int, str, bytes]:
        url = urlsplit(self.path)
        query = parse_qs(url.query, keep_blank_values=False, max_num_fields=64)
        path = url.path
        html = "text/html; charset=utf-8"
        if path == "/":
            return HTTPStatus.OK, html, page("runs", "audioeval view", {"runs": self.runs.listing()}).encode()
        if path == "/api/runs":
            return _json({"runs": self.runs.listing()})
        found = _RUN_PATH.fullmatch(path)
        if found:
            index = int(found.group(1))
            state = self.runs.run_state(index)  # IndexError: 404
            if path.startswith("/api/"):
                return _json(state)
            return (
                HTTPStatus.OK,
                html,
                page("run", f"run {state['name']}", {"index": index, "state": state}).encode(),
            )
        keys = query.get("p", [])
        if path == "/compare":
            data = self.runs.compare(keys)
            title = f"compare on {data['benchmark']}: " + " vs ".join(s["label"] for s in data["systems"])
            return HTTPStatus.OK, html, page("compare", title, {"keys": keys, **data}).encode()
        if path == "/api/compare":
            return _json(self.runs.compare(keys))
        if path == "/api/sample":
            return _json(self.runs.sample(keys, (query.get("id") or [""])[0]))
        clip = _CLIP_PATH.fullmatch(path)
        if clip:
            file = self.runs.clip(clip.group(1))
            if file is None:
                raise KeyError(path)
            kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            return HTTPStatus.OK, kind, file.read_bytes()
        raise KeyError(path)


def _json(value: Any) -> tuple[int, str, bytes]:
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=str)
    return HTTPStatus.OK, "application/json; charset=utf-8", text.encode("utf-8")


def make_server(runs: ServedRuns, host: str = DEFAULT_HOST, port: int = 0) -> ThreadingHTTPServer:
    """A server over `runs`, bound to `host:port` (port 0: a free one), not yet serving."""
    handler = type("BoundViewerHandler", (ViewerHandler,), {"runs": runs})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server
