"""The gate of everything printed: the consoles write through `RedactedStream`, which cuts the
credentials in use (`core.redact.redact_known`: configured keys, URL passwords, credential query
values) from every text before it reaches the terminal or a pipe, as the writers of files do.
Failure texts are also redacted in full where they are formatted (`report/escaping.failure_text`).
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from audioeval.core.redact import redact_known


class RedactedStream:
    """`sys.stdout` or `sys.stderr`, looked up at each write (so a test's capture is honoured),
    with the credentials in use cut from what is written."""

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def _stream(self) -> TextIO:
        return getattr(sys, self._name)

    def write(self, text: str) -> int:
        return self._stream.write(redact_known(text))

    def __getattr__(self, attr: str) -> Any:  # flush, isatty, fileno, encoding, …
        return getattr(self._stream, attr)


STDOUT = RedactedStream("stdout")
STDERR = RedactedStream("stderr")
