"""Replaying the outputs of a stored run as a model: rescoring under another spec, or
comparing post-processing chains, without calling the model again."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from audioeval.adapters.base import AdapterHooks, ModelRequest, ModelSignature
from audioeval.core.errors import InputError, RunConfigError
from audioeval.core.model_output import ModelOutput
from audioeval.store.file_digest import json_digest
from audioeval.store.run_folder import Unvouched
from audioeval.store.stored_outputs import read_stored_outputs

RECORDS_FILE = "records.jsonl"


@dataclass
class Replay(AdapterHooks):
    """Answers each sample with the stored output of the same id in `records.jsonl`."""

    name: str
    folder: Path
    max_concurrency: int = 64
    outputs: dict[str, ModelOutput] = field(default_factory=dict)
    reads_input_audio: bool = False  # its answers are stored: a sample's clips need not be there
    _digest: str | None = None  # of the outputs replayed, once they are loaded
    unvouched: dict[str | None, Unvouched] = field(default_factory=dict)
    """Stored lines the run folder's reader cannot vouch for, by the sample id they name."""
    unvouched_lines: list[Unvouched] = field(default_factory=list)
    """Every such line, in file order."""

    def signature(self) -> ModelSignature:
        """The folder and a hash of the outputs replayed (other outputs, other numbers)."""
        self._load()
        return {
            "model": self.name,
            "type": "replay",
            "folder": str(self.folder),
            "outputs_sha256": self._digest,
        }

    def _load(self) -> None:
        """Read the stored outputs once (the signature and the run read the same file)."""
        if self._digest is not None:
            return
        # A run's pair folder through the run folder's checked reader, or lines {"id", "output"}.
        stored = read_stored_outputs(self.folder)
        self.outputs = stored.outputs
        self.unvouched_lines = stored.lines
        self.unvouched = {}
        for problem in stored.lines:
            self.unvouched.setdefault(problem.sample_id, problem)
        self._digest = json_digest({sid: [o.text, o.audio_path] for sid, o in self.outputs.items()})

    async def start(self) -> None:
        path = self.folder / RECORDS_FILE
        if not path.is_file():
            raise RunConfigError(f"{path} not found: replay needs a stored benchmark × model folder")
        self._load()

    async def generate(self, request: ModelRequest) -> ModelOutput:
        rec = self.outputs.get(request.sample.id)
        if rec is None:
            why = self.unvouched.get(request.sample.id)
            return ModelOutput(
                error=f"replay: no stored output for id {request.sample.id!r} in {self.folder}"
                + (f" (a line it cannot vouch for: {why})" if why is not None else "")
            )
        return ModelOutput(text=rec.text, audio_path=rec.audio_path, cached=True)

    def input_errors(self, asked: Collection[str], known: Collection[str]) -> list[InputError]:
        """The stored lines it could not vouch for (file, line, why): listed with the run."""
        self._load()
        return [InputError(p.why, file=str(p.file), line=p.line) for p in self.unvouched_lines]

    async def aclose(self) -> None:
        return None

