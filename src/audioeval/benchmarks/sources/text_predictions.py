"""Text outputs produced elsewhere (`--model predictions:hyps.jsonl`): a JSONL file or a JSON
list of `{"id": …, "text": …}`, one per sample of any text task (ASR hypotheses,
translations, captions, answers).

Each item is checked: an object, a non-empty string (or integer) `id`, a string `text`. A bad
item, and the second of two items with the same id (the first is kept), is an error naming
the file, the line, the id and the field: that id fails (recorded, counted, never scored),
the others are read. What a text is worth as an answer (empty, blank, over the bound on a
stored answer, an HTML page) is the engine's output gate's to say, as for every model. An id
the benchmark does not have answers no sample and is reported; a sample with no item fails.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.core.errors import InputError
from audioeval.store.json_items import read_items

ID, TEXT = "id", "text"


def _id(item: dict[str, Any]) -> str | None:
    value = item.get(ID)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value if isinstance(value, str) and value.strip() else None


def text_predictions_by_id(path: Path) -> tuple[dict[str, str], list[InputError]]:
    """The text of each id, and the errors of the items that could not be read."""
    items, _ = read_items(path, "predictions")
    file = str(path)
    texts: dict[str, str] = {}
    first_line: dict[str, int] = {}
    errors: list[InputError] = []
    for item, line in items:
        if not isinstance(item, dict):
            errors.append(InputError(f"item is a {type(item).__name__}, not an object", file=file, line=line))
            continue
        sid = _id(item)
        if sid is None:
            errors.append(InputError("missing, empty or non-string id", file=file, line=line, field=ID))
            continue
        if sid in first_line:
            errors.append(
                InputError(
                    f"id repeated (first on line {first_line[sid]}); the first is kept",
                    file=file,
                    line=line,
                    sample_id=sid,
                    field=ID,
                )
            )
            continue
        first_line[sid] = line
        text = item.get(TEXT)
        if not isinstance(text, str):
            why = "missing" if TEXT not in item else f"a {type(text).__name__}, not a string"
            errors.append(InputError(f"text is {why}", file=file, line=line, sample_id=sid, field=TEXT))
            continue
        texts[sid] = text
    return texts, errors
