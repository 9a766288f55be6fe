"""A predictions file as a model: each sample is answered with the output stored for its id.

For evaluating outputs produced elsewhere: audio (an MMAE `predictions.json` of edited
audio, as `audioeval mmae score --predictions` reads) or text (an MMAR / MMAU file with the
model's answer added to each item, as `audioeval mcq score` reads). The file is parsed by a
loader the engine passes in (the format's parser lives with its benchmark, a layer above
adapters): it returns the output of each id (an audio path, relative paths taken from
`audio_root`, or the answer text), and the errors of the items it could not read, which
become the failures of those ids. An id without an output is a recorded failure too.

Its signature holds the content hash of the file and, for audio, one hash over every output
clip it names (path relative to the audio root + content hash), so a run folder is never
resumed with another predictions file, or with edited audio that changed; and how the file
was read: its format (and whether it was named or found), the key the answers were read
from, and how items find their samples (`reading()` says the same in words).

It never reads a sample's input audio: a benchmark whose clips are absent is scored from the
file alone (`reads_input_audio`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple

from audioeval.adapters.base import AdapterHooks, ModelRequest, ModelSignature
from audioeval.adapters.unkeyed_rows import SampleKeys, UnkeyedRow, match_rows
from audioeval.core.errors import InputError, RunConfigError
from audioeval.core.model_output import ModelOutput, OutputFault
from audioeval.core.sample import Sample
from audioeval.core.shorten import shorten_path
from audioeval.store.file_digest import audio_digest, file_sha256

OUTPUT_FIELD = "messages[-1].content.audio_url"

class PredictionsRead(NamedTuple):
    """What a format's reader found in a file."""

    outputs: Mapping[str, str]
    """The output of each id (an audio path, or the answer text)."""
    errors: list[InputError]
    """The items that could not be read, each naming file, line, id and field."""
    key: str | None = None
    """The key the answers were read from (None: the format has none)."""
    rows: list[UnkeyedRow] = []
    """Outputs without ids, matched to each benchmark's samples (`unkeyed_rows.py`)."""
    note: str | None = None
    """What the reader says about the file's texts (e.g. that they are already normalised)."""


PredictionsLoader = Callable[[Path], PredictionsRead]


@dataclass(frozen=True)
class PredictionsReading:
    """How a predictions file is read, as written to the signature and said on the console."""

    format: str = "text"
    how: str = "named"
    """`named` (given by the user or the command) or `auto` (the one format matching the file)."""
    matching: str = "by id"

    def words(self, name: str, path: Path, key: str | None, note: str | None = None) -> str:
        found = "the one format it matches" if self.how == "auto" else "as named"
        held = f", answers under {key!r}" if key else ""
        said = f"; {note}" if note else ""
        return (
            f"{name}: {shorten_path(str(path))} read as {self.format} ({found}){held}, "
            f"matched {self.matching}{said}"
        )


@dataclass
class PredictionsFile(AdapterHooks):
    """Answers each sample with the stored output (audio or text) of the same id."""

    name: str
    path: Path
    read: PredictionsLoader
    audio_root: Path | None = None
    tasks: frozenset[str] | None = frozenset({"audio_edit"})
    max_concurrency: int = 16
    output: Literal["audio", "text"] = "audio"
    reading: PredictionsReading = field(default_factory=PredictionsReading)
    key: str | None = None
    """The key the answers were read from (known once the file is read)."""
    outputs: dict[str, str] = field(default_factory=dict)
    errors: dict[str, InputError] = field(default_factory=dict)
    unreadable: list[InputError] = field(default_factory=list)
    reads_input_audio: bool = False
    sample_keys: SampleKeys | None = None
    """The texts of a sample a row without an id may name (formats without ids)."""
    rows: list[UnkeyedRow] = field(default_factory=list)
    note: str | None = None
    unmatched: dict[str, list[InputError]] = field(default_factory=dict)
    """The rows without ids that no sample took, by benchmark."""

    _loaded: bool = False
    _signature: ModelSignature | None = None
    # An empty answer in a file is what the system answered (the official MMAR / MMAU scripts
    # count it wrong), and asking the file again gives the same: the output gate scores it.
    blank_is_an_answer = True

    def signature(self) -> ModelSignature:
        """The file's and its clips' content hashes, taken once: the engine asks for the
        signature several times a run (run.json, the folder check, each pair), and hashing
        every output clip again each time cost ~0.15 s per call at 2,000 clips."""
        if self._signature is None:
            self._signature = self._content_signature()
        return self._signature.copy()

    def describe(self) -> str:
        """One line: the file, its format and how it was chosen, the key, the matching rule."""
        return self.reading.words(self.name, self.path, self.key, self.note)

    def _read_as(self) -> ModelSignature:
        return {
            "format": self.reading.format,
            "format_chosen": self.reading.how,
            "prediction_key": self.key,
            "matching": self.reading.matching,
            **({"note": self.note} if self.note else {}),
            **({"rows_matched": self._rows_matched()} if self.rows else {}),
        }

    def _rows_matched(self) -> dict[str, int]:
        """How many rows without ids found a sample, by benchmark."""
        return {b: len(self.rows) - len(u) for b, u in sorted(self.unmatched.items())}

    def _content_signature(self) -> ModelSignature:
        root = self.audio_root or self.path.parent
        if self.path.is_file():
            self._load()
        if self.output == "text":
            return {
                "model": self.name,
                "type": "predictions",
                "output": "text",
                "file": str(self.path.resolve()),
                "predictions_sha256": file_sha256(self.path),
                **self._read_as(),
            }
        return {
            "model": self.name,
            "type": "predictions",
            "file": str(self.path.resolve()),
            "audio_root": str(self.audio_root) if self.audio_root else None,
            "predictions_sha256": file_sha256(self.path),
            "outputs_sha256": audio_digest(self.outputs.values(), root),
            **self._read_as(),
        }

    def load(self) -> None:
        """Read the file now (InputError naming it when it cannot be): before anything runs."""
        self._load()

    def _load(self) -> None:
        if self._loaded:
            return
        read = self.read(self.path)
        outputs, errors, self.key = read.outputs, read.errors, read.key
        self.rows, self.note = list(read.rows), read.note
        root = self.audio_root or self.path.parent
        for sid, raw in outputs.items():
            if self.output == "text":
                self.outputs[sid] = raw
                continue
            p = Path(raw).expanduser()
            self.outputs[sid] = str(p if p.is_absolute() else root / p)
        for err in errors:
            if err.sample_id is not None and err.sample_id not in self.outputs:
                self.errors.setdefault(err.sample_id, err)
            else:
                self.unreadable.append(err)
        self._loaded = True

    def match(self, benchmark: str, samples: list[Sample]) -> None:
        """Give each output without an id to its sample of `benchmark` (`unkeyed_rows.py`);
        called for every benchmark the file is scored on, before the run's signature."""
        self._load()
        if not self.rows or benchmark in self.unmatched:
            return
        if self.sample_keys is None:
            raise InputError(
                f"the {self.reading.format} format holds outputs without ids and gives no way to match them",
                file=str(self.path),
            )
        found = match_rows(self.rows, samples, self.sample_keys, str(self.path), benchmark)
        for sid, text in found.outputs.items():
            self.outputs.setdefault(sid, text)
        self.unmatched[benchmark] = found.unmatched

    async def start(self) -> None:
        if not self.path.is_file():
            raise RunConfigError(f"{self.path}: predictions file not found")
        self._load()

    async def generate(self, request: ModelRequest) -> ModelOutput:
        sid = request.sample.id
        path = self.outputs.get(sid)
        file = str(self.path)
        if path is None:
            err = self.errors.get(sid)
            if err is not None:  # the file answers this id with what is not an answer
                return _failed(f"predictions: {err.describe()}", err, OutputFault.BAD_OUTPUT)
            why = InputError("sample has no prediction", file=file, sample_id=sid, field="id")
            return _failed(f"predictions: {self.path}: no prediction for id {sid!r}", why)
        if self.output == "text":
            return ModelOutput(text=path)
        if not Path(path).is_file():
            missing = InputError(
                f"audio file not found: {shorten_path(path)}", file=file, sample_id=sid, field=OUTPUT_FIELD
            )
            return _failed(
                f"predictions: {self.path}, id {sid!r}, field {OUTPUT_FIELD!r}: "
                f"audio file not found: {shorten_path(path)}",
                missing,
            )
        return ModelOutput(audio_path=path)

    def input_errors(self, asked: Collection[str], known: Collection[str]) -> list[InputError]:
        """The file's items that answer no sample: unreadable ones, and ids of no sample
        (`known`: every id of the benchmark, its unreadable samples included)."""
        self._load()
        out = list(self.unreadable)
        if self.unmatched:  # a row that no benchmark of the run took
            out += min(self.unmatched.values(), key=len)
        out += [e for sid, e in self.errors.items() if sid not in asked]
        out += [
            InputError("prediction id not in the metadata", file=str(self.path), sample_id=sid, field="id")
            for sid in self.outputs
            if sid not in asked and sid not in known
        ]
        return out

    async def aclose(self) -> None:
        return None


def _failed(message: str, where: InputError, fault: OutputFault | None = None) -> ModelOutput:
    """No usable output, with where the problem is (file, id, field) kept for the record."""
    return ModelOutput(error=message, error_detail=where.as_record(), fault=fault)
