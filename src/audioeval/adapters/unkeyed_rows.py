"""Predictions without ids, matched to a benchmark's samples by a stated rule.

Some tools write their outputs without the sample's id (AudioBench's logs hold reference and
prediction pairs in the test set's order). Such a file's reader gives `UnkeyedRow`s; the
rule that finds each row's sample is:

- **by reference text, equal texts in order**: a row goes to the first sample, in the
  benchmark's order, one of whose texts (`sample_keys`: its reference, or the reference as
  the tool normalised it) equals the row's text once both are compared on their letters and
  digits alone (case, spaces and punctuation ignored); several rows of one text go to the
  samples of that text in file order;
- **by position** (a row that carries its 0-based index in the benchmark's samples instead
  of a text).

Nothing is paired by a guess: a row no sample takes is listed (file, line, its text), and a
sample no row answers is a recorded failure ("no prediction").
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.core.shorten import shorten

BY_TEXT = "by reference text (letters and digits, case ignored), equal texts in order"
BY_POSITION = "by position in the benchmark's samples"

SampleKeys = Callable[[Sample], Iterable[str]]
"""A sample's texts a row may name (its reference; the reference as the tool normalised it)."""


@dataclass(frozen=True)
class UnkeyedRow:
    """One output of a file without ids."""

    output: str
    text: str | None = None
    """The text that finds its sample (the reference the tool wrote beside the output)."""
    position: int | None = None
    """Its 0-based index in the benchmark's samples, when the file states that instead."""
    line: int | None = None
    field: str = "reference"


def canonical(text: str) -> str:
    """A text compared on its letters and digits alone, lower case."""
    return "".join(ch for ch in text.casefold() if ch.isalnum())


@dataclass
class Matched:
    """The outputs by sample id, and the rows no sample took (as errors naming them)."""

    outputs: dict[str, str]
    unmatched: list[InputError]


def match_rows(
    rows: Sequence[UnkeyedRow], samples: Sequence[Sample], sample_keys: SampleKeys, file: str, bench: str
) -> Matched:
    """Each row's sample by the module's rule."""
    outputs: dict[str, str] = {}
    unmatched: list[InputError] = []
    queues: dict[str, deque[UnkeyedRow]] = {}
    for row in rows:
        if row.position is not None:
            if 0 <= row.position < len(samples) and samples[row.position].id not in outputs:
                outputs[samples[row.position].id] = row.output
            else:
                unmatched.append(_unmatched(row, file, f"position {row.position} is no sample of {bench}"))
        elif row.text is not None:
            queues.setdefault(canonical(row.text), deque()).append(row)
    for sample in samples:
        if sample.id in outputs:
            continue
        for key in dict.fromkeys(canonical(k) for k in sample_keys(sample)):
            queue = queues.get(key)
            if queue:
                outputs[sample.id] = queue.popleft().output
                break
    for queue in queues.values():
        for row in queue:
            why = f"no sample of {bench} has this reference ({shorten(row.text or '')})"
            unmatched.append(_unmatched(row, file, why))
    return Matched(outputs, unmatched)


def _unmatched(row: UnkeyedRow, file: str, why: str) -> InputError:
    return InputError(why, file=file, line=row.line, field=row.field)
