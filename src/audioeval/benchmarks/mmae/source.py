"""MMAE metadata as a source of `audioeval run` Samples (source type `mmae`).

Reading and validation are those of `audioeval mmae score` (`loading.load_metadata`), so a
malformed sample is reported with file, id and field and skipped. A sample becomes:

- `audio`: `input1`, `input2`, … (the user turns' clips) and `audio` (= `input1`, for the
  prompt), relative paths taken from `audio_root` (default: the metadata file's folder);
- `fields`: `instruction` (the user turns' text), `rubrics`, and what rebuilds the MMAE
  record for aggregation (`complexity`, `modality`, `granularity`, `operations`, `input_audio`);
- `taxonomy`: `modality`, `complexity`, `complexity_group` (single | multiple),
  `granularity` (local | global | mix) and `operation` (the list of its distinct
  `granularity:operation` keys: a multi-operation sample counts in each of its operations, as
  in `audioeval mmae score`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.benchmarks.mmae.loading import load_metadata, read_json_records, resolve_path
from audioeval.benchmarks.mmae.records import MmaeSample
from audioeval.benchmarks.mmae.rubric_votes import McqRubric
from audioeval.benchmarks.mmae.taxonomy import complexity_group, granularity_group, operation_keys
from audioeval.core.errors import AudioError, InputError
from audioeval.core.messages import AudioRef
from audioeval.core.sample import Sample
from audioeval.core.shorten import shorten_path
from audioeval.judge.audio_refs import find_mentions


def _instruction(obj: Any) -> str:
    """The text of the user turns, one turn a paragraph (multi-round edits keep their order)."""
    turns: list[str] = []
    messages = obj.get("messages") if isinstance(obj, dict) else None
    for msg in messages if isinstance(messages, list) else []:
        if not isinstance(msg, dict) or msg.get("role") != "user":
            continue
        content = msg.get("content")
        if isinstance(content, str):
            turns.append(content)
        elif isinstance(content, list):
            texts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
            turns.append(" ".join(t for t in texts if isinstance(t, str)))
    return "\n\n".join(t.strip() for t in turns if t and t.strip())


def sample_taxonomy(s: MmaeSample) -> dict[str, str | list[str]]:
    return {
        "modality": s.modality,
        "complexity": s.complexity,
        "complexity_group": complexity_group(s.complexity),
        "granularity": granularity_group(s.granularity),
        "operation": operation_keys(s.operations),  # none: in no operation group, as in `mmae score`
    }


def mmae_to_sample(s: MmaeSample, instruction: str, audio_root: Path, file: str) -> Sample:
    """The run Sample of a validated MMAE sample; AudioError when a referenced input is missing."""
    audio: dict[str, AudioRef] = {}
    for k, raw in enumerate(s.input_audio, start=1):
        audio[f"input{k}"] = AudioRef(str(resolve_path(raw, audio_root)))
    labels = {m.label for r in s.rubrics for m in find_mentions(r.question)}
    for label in sorted(labels - {"output"}):
        key = "input1" if label == "input" else label
        ref = audio.get(key)
        if ref is None or not Path(ref.path).is_file():
            k = int(key[len("input") :])
            raise AudioError(
                f"audio file not found: {shorten_path(ref.path) if ref else key}",
                file=file,
                sample_id=s.id,
                field=f"messages (user audio {k})",
            )
    if "input1" in audio:
        audio["audio"] = audio["input1"]
    fields = {
        "instruction": instruction,
        "rubrics": [
            {
                "category": r.category,
                "question": r.question,
                "right_choice": r.right_choice,
                "wrong_choices": list(r.wrong_choices),
                **({"check": r.check} if r.check is not None else {}),  # only declared: other samples unchanged
            }
            for r in s.rubrics
        ],
        "complexity": s.complexity,
        "modality": s.modality,
        "granularity": list(s.granularity),
        "operations": [{"granularity": g, "operation": o} for g, o in s.operations],
        "input_audio": list(s.input_audio),
    }
    return Sample(s.id, audio, fields, sample_taxonomy(s), file, item=s)


def mmae_item(sample: Sample) -> MmaeSample:
    """The validated MMAE item of a run Sample, for the scorers and the exporter: the one its
    loader made (`mmae_to_sample`), or, for a sample read back from records.jsonl, the one its
    stored fields give, parsed once and kept with the sample."""
    item = sample.item
    if isinstance(item, MmaeSample) and item.id == sample.id:
        return item
    item = mmae_from_fields(sample)
    sample.with_item(item)
    return item


def mmae_from_fields(sample: Sample) -> MmaeSample:
    """The MMAE record a run Sample read back from a file was made from (`mmae_item` keeps it)."""
    f = sample.fields
    try:
        rubrics = tuple(
            McqRubric(
                str(r["category"]),
                str(r["question"]),
                str(r["right_choice"]),
                tuple(r["wrong_choices"]),
                None if r.get("check") is None else str(r["check"]),
            )
            for r in f["rubrics"]
        )
        return MmaeSample(
            sample.id,
            str(f.get("complexity", "")),
            str(f.get("modality", "")),
            tuple(str(g) for g in f.get("granularity") or ()),
            tuple((str(o.get("granularity", "")), str(o["operation"])) for o in f.get("operations") or ()),
            tuple(str(p) for p in f.get("input_audio") or ()),
            rubrics,
        )
    except (KeyError, TypeError) as exc:
        raise InputError(
            f"not an MMAE sample (source type mmae): {exc}",
            file=sample.source,
            sample_id=sample.id,
            field="rubrics",
        ) from None


def load_mmae_samples(
    path: Path, *, audio_root: Path | None = None, limit: int | None = None
) -> tuple[list[Sample], list[InputError]]:
    """Samples of an MMAE metadata file, plus the errors of those skipped."""
    file = str(path)
    records = read_json_records(path, "metadata")  # read once: the samples, then their instructions
    samples_by_id, errors = load_metadata(path, records)
    texts: dict[str, str] = {}
    for obj in records:
        if isinstance(obj, dict) and isinstance(obj.get("id"), str) and obj["id"] in samples_by_id:
            texts.setdefault(obj["id"], _instruction(obj))  # the first of duplicate ids is kept
    root = audio_root or path.parent
    out: list[Sample] = []
    for sid, s in samples_by_id.items():
        if limit is not None and len(out) >= limit:
            break
        try:
            out.append(mmae_to_sample(s, texts.get(sid, ""), root, file))
        except InputError as exc:
            errors.append(exc)
    return out, errors
