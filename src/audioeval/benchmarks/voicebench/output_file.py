"""VoiceBench's output files, read as its `main.py` writes them (MatthewCYM/VoiceBench): one
JSON line per row of the subset, the dataset row without `audio` plus the model's `response`
(`api_judge.py` may add `score`, the judge's outputs, which are not read). Rows carry no id:
each finds its sample by its `prompt` (the spoken instruction's text), equal prompts in
order, as VoiceBench's own evaluators key rows by the prompt (`adapters/unkeyed_rows.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.adapters.predictions import PredictionsRead
from audioeval.adapters.unkeyed_rows import BY_TEXT, UnkeyedRow
from audioeval.benchmarks.prediction_formats import (
    TEXT_TASKS,
    Loader,
    PredictionFormat,
    json_items,
    unkeyed_rows,
)
from audioeval.benchmarks.sources.tool_outputs import reference_texts
from audioeval.core.errors import InputError


def _row(item: dict[str, Any], file: str, line: int) -> UnkeyedRow | InputError:
    if not isinstance(item.get("prompt"), str):
        return InputError("prompt must be text", file=file, line=line, field="prompt")
    if not isinstance(item.get("response"), str):
        return InputError("response must be text", file=file, line=line, field="response")
    return UnkeyedRow(item["response"], item["prompt"], line=line, field="prompt")


def _reader(key: str | None) -> Loader:
    if key not in (None, "response"):
        raise InputError("the voicebench_outputs format reads `response`", field="prediction_key")

    def read(path: Path) -> PredictionsRead:
        rows, errors = unkeyed_rows(path, _row)
        return PredictionsRead({}, errors, "response", rows)

    return read


def _matches(item: Any) -> bool:
    return isinstance(item, dict) and "prompt" in item and "response" in item and "prediction" not in item


FORMAT = PredictionFormat(
    _reader,
    "text",
    TEXT_TASKS,
    json_items(_matches),
    'VoiceBench main.py output lines: the subset row without audio plus "response"',
    BY_TEXT,
    reference_texts,
)
