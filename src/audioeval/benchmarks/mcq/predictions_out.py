"""The two ends of `mcq predict`: the benchmark spec the `audioeval run` engine runs, and
the predictions file built from the engine's records."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from audioeval.benchmarks.mcq.definitions import McqBenchmark
from audioeval.benchmarks.mcq.loading import McqItem
from audioeval.benchmarks.spec import BenchmarkSpec, SourceSpec
from audioeval.core.errors import InputError
from audioeval.core.record import SampleRecord, latest_records
from audioeval.postprocess.options import LETTERS
from audioeval.postprocess.think_tags import split_think
from audioeval.store.atomic import write_json_atomic, write_jsonl_atomic


def check_prompt_fields(items: Sequence[McqItem], bench: McqBenchmark, file: str) -> None:
    """Every item has a string question and a non-empty audio path, else bad input
    (file, line, id, field)."""
    for item in items:
        where = {"file": file, "line": item.line, "sample_id": item.id}
        if not isinstance(item.record.get("question"), str):
            raise InputError("missing or non-string question", field="question", **where)
        rel = item.record.get(bench.audio_field)
        if not isinstance(rel, str) or not rel:
            raise InputError("missing or non-string audio path", field=bench.audio_field, **where)


def _template_ref(template: str) -> str:
    """A template file as an absolute path (so the spec is the same from any folder); a
    shipped template's name as is."""
    p = Path(template).expanduser()
    if p.suffix in (".yaml", ".yml") or p.exists():
        return str(p.resolve())
    return template


def predict_spec(
    bench: McqBenchmark, metadata: Path, audio_root: Path, template: str, *, jsonl: bool
) -> BenchmarkSpec:
    """The `mcq` benchmark spec of one metadata file: its audio paths relative to
    `audio_root`, prompted with `template`, scored with the official string match.

    The prompt sees the item's `question`, `choices`, `answer` and the other canonical
    fields, and `letters` (A-Z) for lettered choices.
    """
    return BenchmarkSpec(
        name=bench.name,
        task="mcq",
        source=SourceSpec(
            type="jsonl" if jsonl else "json",
            path=str(metadata.expanduser().resolve()),
            audio_root=str(audio_root.expanduser().resolve()),
        ),
        fields={"audio": bench.audio_field},
        taxonomy=[axis.field for axis in bench.axes],
        variables={"letters": list(LETTERS)},
        prompt=_template_ref(template),
    )


def answers_from_records(records: Iterable[SampleRecord]) -> dict[str, str]:
    """id -> raw answer of every sample whose latest engine record holds a model answer
    (a failed call, or a sample never asked, has none)."""
    answers = {}
    for sid, rec in latest_records(records).items():
        output = rec.output
        if output is not None and output.error is None and isinstance(output.text, str):
            answers[sid] = output.text
    return answers


def write_predictions(
    out: Path, items: Sequence[McqItem], bench: McqBenchmark, raw: Mapping[str, str], *, jsonl: bool
) -> None:
    """The metadata with each answer under the benchmark's first prediction key.

    The answer is the reply without `<think>` blocks; MMAR also gets the reasoning under
    `thinking_prediction`. Items without an answer get no prediction key.
    """
    key = bench.prediction_keys[0]
    rows = []
    for item in items:
        rec = {
            k: v for k, v in item.record.items() if k not in bench.prediction_keys and k != bench.thinking_key
        }
        if item.id in raw:
            answer, thinking = split_think(raw[item.id])
            rec[key] = answer
            if bench.thinking_key:
                rec[bench.thinking_key] = thinking
        rows.append(rec)
    if jsonl:
        write_jsonl_atomic(out, rows)
    else:
        write_json_atomic(out, rows)
