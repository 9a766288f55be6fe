"""Replaying the outputs of a stored run as a model: rescoring under another spec, or
comparing post-processing chains, without calling the model again."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audioeval.adapters.base import ModelRequest
from audioeval.core.errors import RunConfigError
from audioeval.core.model_output import ModelOutput
from audioeval.store.file_digest import json_digest
from audioeval.store.jsonl import read_jsonl

RECORDS_FILE = "records.jsonl"


@dataclass
class Replay:
    """Answers each sample with the stored output of the same id in `records.jsonl`."""

    name: str
    folder: Path
    max_concurrency: int = 64
    outputs: dict[str, ModelOutput] = field(default_factory=dict)
    reads_input_audio: bool = False  # its answers are stored: a sample's clips need not be there
    _digest: str | None = None  # of the outputs replayed, once they are loaded

    def signature(self) -> dict[str, Any]:
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
        # Only each line's id and output are read: a folder of a run, or lines {"id", "output"}.
        for rec in read_jsonl(self.folder / RECORDS_FILE).records:
            out = rec.get("output")
            if isinstance(rec.get("id"), str) and isinstance(out, dict) and out.get("error") is None:
                self.outputs[rec["id"]] = ModelOutput.from_record(out)
        self._digest = json_digest({sid: [o.text, o.audio_path] for sid, o in self.outputs.items()})

    async def start(self) -> None:
        path = self.folder / RECORDS_FILE
        if not path.is_file():
            raise RunConfigError(f"{path} not found: replay needs a stored benchmark × model folder")
        self._load()

    async def generate(self, request: ModelRequest) -> ModelOutput:
        rec = self.outputs.get(request.sample.id)
        if rec is None:
            return ModelOutput(
                error=f"replay: no stored output for id {request.sample.id!r} in {self.folder}"
            )
        return ModelOutput(text=rec.text, audio_path=rec.audio_path, cached=True)

    async def aclose(self) -> None:
        return None
