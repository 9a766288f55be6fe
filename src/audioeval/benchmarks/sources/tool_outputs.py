"""The per-sample output files of evaluation tools that are no benchmark, read as the tools
write them (predictions formats `lmms_eval_samples`, `kimi_evalkit_results`).

- **lmms-eval `--log_samples`** (EvolvingLMMs-Lab/lmms-eval `lmms_eval/loggers/
  evaluation_tracker.py`, `save_results_samples`): `<date>_samples_<task>.jsonl`, one line per
  document and filter: `doc_id` (its index in the task's documents), `target` (the reference,
  as text), `filtered_resps` (the answer after the task's filter, in a list; `resps` kept only
  when it differs), `filter`, `metrics`, `doc_hash`, `prompt_hash`, `target_hash`, `input`,
  and each metric's value. A file of several filters needs `--prediction-key FILTER`.
- **Kimi-Audio-Evalkit** (MoonshotAI/Kimi-Audio-Evalkit `run_audio.py`, `merge_one_dataset`):
  `<model>_<dataset>.jsonl`, the dataset's rows (`index`, `audio_path`, `question`, `answer`,
  `subset`, ...) with `prediction` and `real_prompt` added; a row the model did not answer has
  `prediction` `"null"` and an empty `real_prompt`.

Neither carries our sample ids: rows find their samples by reference text (lmms-eval's
`target`, the kit's `answer`), equal texts in order (`adapters/unkeyed_rows.py`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from audioeval.adapters.predictions import PredictionsRead
from audioeval.adapters.unkeyed_rows import BY_TEXT, UnkeyedRow
from audioeval.benchmarks.prediction_formats import (
    PREDICTION_FORMATS,
    TEXT_TASKS,
    Loader,
    PredictionFormat,
    json_items,
    unkeyed_rows,
)
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.store.bounded_json import loads

LETTERS = "ABCDEFGHIJ"
"""The option letters lmms-eval's multiple-choice tasks use, in order."""

SAMPLE_TEXT_FIELDS = ("reference", "answer", "instruction", "prompt", "question")


def reference_texts(sample: Sample) -> Iterator[str]:
    """The texts of a sample a row of another tool may name: its reference(s), answer,
    instruction, prompt or question."""
    for name in SAMPLE_TEXT_FIELDS:
        value = sample.get(name)
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str) and text:
                yield text


def _first_text(value: Any) -> str | None:
    """The text in lmms-eval's sanitised `filtered_resps` (a list, maybe of lists)."""
    while isinstance(value, list) and value:
        value = value[0]
    return value if isinstance(value, str) else None


def _lmms_reader(key: str | None) -> Loader:
    def read(path: Path) -> PredictionsRead:
        filters = _filters(path)
        if key is None and len(filters) > 1:
            raise InputError(
                f"the file holds the answers of several filters ({', '.join(sorted(filters))}): name one "
                "with --prediction-key",
                file=str(path),
                field="prediction_key",
            )
        if key is not None and key not in filters:
            raise InputError(
                f"no line has the filter {key!r} (the file has {', '.join(sorted(filters))})",
                file=str(path),
                field="prediction_key",
            )
        wanted = key if key is not None else next(iter(filters), None)

        def row(item: dict[str, Any], file: str, line: int) -> UnkeyedRow | InputError | None:
            if item.get("filter") != wanted:
                return None
            answer = _first_text(item.get("filtered_resps"))
            if answer is None:
                return InputError(
                    "filtered_resps holds no text", file=file, line=line, field="filtered_resps"
                )
            target = _target_text(item, file, line)
            if isinstance(target, InputError):
                return target
            return UnkeyedRow(answer, target, line=line, field="target")

        rows, errors = unkeyed_rows(path, row, row_id="doc_id")
        return PredictionsRead({}, errors, wanted, rows)

    return read


def _choices(doc: Any) -> list[str] | None:
    """The options of a logged `doc`: its `choices`, a list or a JSON text of one (lmms-eval's
    MMAU documents keep them as JSON text); None when it logs none."""
    choices = doc.get("choices") if isinstance(doc, dict) else None
    if isinstance(choices, str):
        try:
            choices = loads(choices)
        except ValueError:
            return None
    if isinstance(choices, list) and choices and all(isinstance(c, str) for c in choices):
        return choices
    return None


def _lettered(choices: list[str]) -> bool:
    """Every option starts with its own letter and `.`, `)` or `:` ("A. dog", "B) cat")."""
    return all(
        len(c) >= 2 and c[0].upper() == LETTERS[i] and c[1] in ".):" for i, c in enumerate(choices[: len(LETTERS)])
    ) and len(choices) <= len(LETTERS)


def _target_text(item: dict[str, Any], file: str, line: int) -> str | InputError:
    """The reference text of a line: `target` as written, or, for a multiple-choice document
    whose target is a letter (lmms-eval's MMAR task writes "B"), the text of the option at that
    letter's position in the logged `doc.choices` (without its "B. " label). A lone letter is
    the letter when the options carry their letters, else it is read as an option's text when
    it is one (MMAU has note names as options), else as a letter; on a line that logs no
    `doc.choices` it is the text as written."""
    target = item.get("target")
    if not isinstance(target, str):
        return InputError("target must be text", file=file, line=line, field="target")
    letter = target.strip()
    if len(letter) != 1 or not letter.isalpha() or not letter.isupper():
        return target
    choices = _choices(item.get("doc"))
    doc_id = item.get("doc_id")
    if choices is None:
        # no options logged: the target is text as written (a one-word transcript "I"); on a
        # multiple-choice benchmark a letter then matches no item's answer and is listed unmatched
        return target
    lettered = _lettered(choices)
    texts = [c[2:].strip() if lettered else c for c in choices]
    if not lettered and letter in texts:
        return letter  # an option's own text
    index = LETTERS.find(letter)
    if not 0 <= index < len(texts):
        return InputError(
            f"doc_id {doc_id!r}: target {letter!r} is no option of its {len(texts)} choices "
            f"(doc.choices: {', '.join(LETTERS[: len(texts)])})",
            file=file,
            line=line,
            field="target",
        )
    return texts[index]


def _filters(path: Path) -> set[str]:
    from audioeval.store.json_items import read_items

    items, _ = read_items(path, "predictions")
    return {str(o.get("filter")) for o, _ in items if isinstance(o, dict) and "filter" in o}


def _is_lmms(item: Any) -> bool:
    return isinstance(item, dict) and all(k in item for k in ("doc_id", "target", "filtered_resps"))


def _kimi_reader(key: str | None) -> Loader:
    if key is not None:
        raise InputError(
            "the kimi_evalkit_results format reads `prediction`; --prediction-key does not apply",
            field="prediction_key",
        )

    def row(item: dict[str, Any], file: str, line: int) -> UnkeyedRow | InputError | None:
        answer, prediction = item.get("answer"), item.get("prediction")
        if not isinstance(answer, str):
            return InputError("answer must be text", file=file, line=line, field="answer")
        if not isinstance(prediction, str):
            return InputError("prediction must be text", file=file, line=line, field="prediction")
        if prediction == "null" and item.get("real_prompt") == "":
            why = f"no prediction: the kit wrote 'null' for index {item.get('index')!r} (not answered)"
            return InputError(why, file=file, line=line, field="prediction")
        return UnkeyedRow(prediction, answer, line=line, field="answer")

    def read(path: Path) -> PredictionsRead:
        rows, errors = unkeyed_rows(path, row, row_id="index")
        return PredictionsRead({}, errors, "prediction", rows)

    return read


def _is_kimi(item: Any) -> bool:
    return isinstance(item, dict) and all(k in item for k in ("index", "answer", "prediction", "real_prompt"))


FORMATS = {
    "lmms_eval_samples": PredictionFormat(
        _lmms_reader,
        "text",
        TEXT_TASKS,
        json_items(_is_lmms),
        'lmms-eval --log_samples lines {"doc_id", "target", "filtered_resps", "filter"}',
        BY_TEXT,
        reference_texts,
    ),
    "kimi_evalkit_results": PredictionFormat(
        _kimi_reader,
        "text",
        TEXT_TASKS,
        json_items(_is_kimi),
        'Kimi-Audio-Evalkit results {"index", "question", "answer", "prediction", "real_prompt"}',
        BY_TEXT,
        reference_texts,
    ),
}


def register_formats() -> None:
    """The output files of evaluation tools that are no benchmark, as generic predictions
    formats (by `plugins.load_benchmarks`, before any benchmark's own: a name taken here is
    taken for every plugin)."""
    for name, fmt in FORMATS.items():
        if name not in PREDICTION_FORMATS:
            PREDICTION_FORMATS.register(name, fmt)
