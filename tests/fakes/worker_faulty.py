"""A fake runtime worker (stdlib only) whose every answer is one faulty answer of
`tests/fakes/faulty_answers.py`, named by its worker argument `fault`: a text of 2.4 M
characters, an empty or blank text, an HTML page, or NaN where text is due (the JSON literal
on the protocol's line). Each request is counted in the file named by `count_file`."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src/audioeval/adapters/runtimes/workers"))
from worker_protocol import private_stdout, reply, serve, worker_args  # noqa: E402

HTML_PAGE = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
TEXTS = {"huge": "word " * 480_000, "empty": "", "blank": "  ", "html": HTML_PAGE, "nan": float("nan")}


def main() -> int:
    out = private_stdout()
    args = worker_args()

    def answer(req: dict) -> dict:
        with open(args["count_file"], "a", encoding="utf-8") as f:
            f.write("asked\n")
        return reply(req, text=TEXTS[args["fault"]])

    return serve(answer, {"fault": args["fault"]}, out)


if __name__ == "__main__":
    sys.exit(main())
