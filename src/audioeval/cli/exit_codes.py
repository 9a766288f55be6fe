"""The exit codes of every `audioeval` command (documented in docs/reliability.md)."""

from __future__ import annotations

OK = 0
"""Everything asked for was produced and scored (or failures stayed within --max-failed)."""

CHECK_FAILED = 1
"""A check command found problems (`validate`, `runtime check`)."""

BAD_INPUT = 2
"""Bad arguments, input files or configuration; a resumed run with other settings; an output
folder that cannot be used; for `leaderboard` and `rank`, pairs of one benchmark not run alike
(data, --limit, --profile, scorers), run directories of several task families without
--family, a value a score table's metric cannot take, a folder that holds no run summary.
Nothing was evaluated, or only what is named in the message."""

ENDPOINT_UNUSABLE = 3
"""An endpoint (model or judge) refused before the run: connection refused, 401/403, 404, or
a reply that is not an OpenAI-compatible API, and no sample was judged or scored; or, during a
run, every endpoint of a model or judge stayed unreachable (refused, reset, unresolvable) for
30 s: what finished is on disk and a rerun resumes."""

TOO_MANY_FAILURES = 4
"""The run finished, but more samples failed than --max-failed allows (default: none of the
headline samples), or nothing at all was scored. Every failure is recorded in the run
directory; rerunning the same command retries the failed work."""

LOCKED = 5
"""Another audioeval process is writing to the same output folder."""

NO_SPACE = 6
"""No space left on device (or over a disk quota) while writing a file, named in the message:
what finished is kept, and a rerun of the same command resumes once space is freed."""

BUDGET_REACHED = 7
"""--max-calls or --max-cost was reached: no new request was started, the requests in flight
finished and were recorded, the summaries were written; rerunning the same command resumes
where it stopped (the limits count each command's own requests)."""

INTERRUPTED = 130
"""Stopped by Ctrl-C; what finished is on disk and a rerun resumes."""
