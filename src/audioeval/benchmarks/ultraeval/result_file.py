"""UltraEval-Audio's result files, read as its recorder writes them (OpenBMB/UltraEval-Audio
`audio_evals/eval_task.py`, `EvalTask._eval`; `res/<model>/<dataset>/<timestamp>.jsonl`): one
JSON line per stage of each sample, `{"type", "id", "data"}`, where `id` is the sample's
position in their dataset and `type` is `prompt`, `inference` (`data.content`: the model's raw
output), `post_process` (`data.content`: the output their evaluator scored), `eval` (`data`:
the per-sample score, with `pred` and `ref`) or `error` (`data.info`: a traceback).

The answer read is the post-processed output (`--prediction-key inference`: the raw one);
each sample of the file finds ours by its `ref` text, equal texts in order
(`adapters/unkeyed_rows.py`); a sample they recorded as an error is listed, not scored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.adapters.predictions import PredictionsRead
from audioeval.adapters.unkeyed_rows import BY_TEXT, UnkeyedRow
from audioeval.benchmarks.prediction_formats import TEXT_TASKS, Loader, PredictionFormat, json_items
from audioeval.benchmarks.sources.tool_outputs import reference_texts
from audioeval.core.errors import InputError
from audioeval.store.json_items import read_items

STAGES = ("prompt", "inference", "post_process", "eval", "error")
ANSWER_STAGES = ("post_process", "inference")


def _ref(data: Any) -> str | None:
    ref = data.get("ref") if isinstance(data, dict) else None
    if isinstance(ref, list) and ref:
        ref = ref[0]
    return ref if isinstance(ref, str) else None


def _reader(key: str | None) -> Loader:
    stage = key or "post_process"
    if stage not in ANSWER_STAGES:
        raise InputError(
            f"the ultraeval_results format reads the stage post_process or inference, not {key!r}",
            field="prediction_key",
        )

    def read(path: Path) -> PredictionsRead:
        file = str(path)
        items, _ = read_items(path, "predictions")
        by_id: dict[Any, dict[str, tuple[Any, int]]] = {}
        errors: list[InputError] = []
        for obj, line in items:
            if not isinstance(obj, dict) or obj.get("type") not in STAGES:
                errors.append(
                    InputError(f"not a stage line ({', '.join(STAGES)})", file=file, line=line, field="type")
                )
                continue
            by_id.setdefault(obj.get("id"), {})[obj["type"]] = (obj.get("data"), line)
        rows: list[UnkeyedRow] = []
        for sid, stages in by_id.items():
            line = min(at for _, at in stages.values())
            if "error" in stages:
                errors.append(InputError(f"UltraEval-Audio recorded an error for its sample {sid!r}", file=file,
                                         line=stages["error"][1], field="data.info"))  # fmt: skip
                continue
            answer = stages.get(stage, (None, line))[0]
            content = answer.get("content") if isinstance(answer, dict) else None
            ref = _ref(stages.get("eval", (None, line))[0])
            if not isinstance(content, str):
                errors.append(InputError(f"no text {stage} output for its sample {sid!r}", file=file, line=line,
                                         field=f"{stage}.data.content"))  # fmt: skip
            elif ref is None:
                errors.append(InputError(f"no eval line with a text ref for its sample {sid!r}", file=file,
                                         line=line, field="eval.data.ref"))  # fmt: skip
            else:
                rows.append(UnkeyedRow(content, ref, line=line, field="eval.data.ref"))
        return PredictionsRead({}, errors, stage, rows)

    return read


def _matches(item: Any) -> bool:
    return isinstance(item, dict) and item.get("type") in STAGES and "id" in item and "data" in item


FORMAT = PredictionFormat(
    _reader,
    "text",
    TEXT_TASKS,
    json_items(_matches),
    'UltraEval-Audio result lines {"type": prompt|inference|post_process|eval|error, "id", "data"}',
    BY_TEXT,
    reference_texts,
)
