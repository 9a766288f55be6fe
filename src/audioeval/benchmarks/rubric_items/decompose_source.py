"""A captions file as the samples of a run (`rubric decompose` on the run engine).

Rows `{id, caption, domain?}`, JSONL (or a JSON list). Every row is checked before anything
is asked: the first bad row is an error naming the file, line, id and field; an empty or
repeated id is refused. Each caption becomes a Sample whose `reference` is the caption (the
`caption` model echoes it, and the `rubric_decompose` scorer decomposes that answer) and,
when the row names one, whose `domain` overrides `--domain` for that caption.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from audioeval.benchmarks.rubric_items.decompose_prompts import AUTO, DOMAINS
from audioeval.benchmarks.spec import BenchmarkSpec, SourceSpec
from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.store.json_items import read_items

if TYPE_CHECKING:
    from audioeval.benchmarks.rubric_items.decompose_scorer import DecomposeArgs

BENCHMARK = "rubric_decompose"
TEMPLATE = "rubric_caption"  # prompts/templates/rubric_caption.yaml
DOMAIN_CHOICES = (AUTO, *DOMAINS)


class CaptionFields(TypedDict, total=False):
    """A caption's Sample fields: the caption (`reference`), and its own `domain` if it has one."""

    reference: str
    domain: str


@dataclass(frozen=True, slots=True)
class Caption:
    id: str
    caption: str
    domain: str | None  # None: `--domain`
    line: int


def _caption(obj: Any, line: int, file: str) -> Caption:
    if not isinstance(obj, dict):
        raise InputError(f"row is a {type(obj).__name__}, not an object", file=file, line=line)
    sid = obj.get("id")
    if isinstance(sid, int) and not isinstance(sid, bool):
        sid = str(sid)
    if not isinstance(sid, str) or not sid.strip():
        raise InputError("missing, empty or non-string id", field="id", file=file, line=line)

    def bad(message: str, field: str) -> InputError:
        return InputError(message, field=field, file=file, line=line, sample_id=sid)

    caption = obj.get("caption")
    if not isinstance(caption, str) or not caption.strip():
        raise bad("missing, empty or non-string caption", "caption")
    domain = obj.get("domain")
    if domain is not None and domain not in DOMAIN_CHOICES:
        raise bad(f"domain must be one of {', '.join(DOMAIN_CHOICES)}, got {domain!r}", "domain")
    return Caption(sid, caption, domain, line)


def load_captions(path: Path) -> list[Caption]:
    """Every row of a captions file, checked (InputError at the first bad one)."""
    rows, _ = read_items(path, "captions")
    file = str(path)
    captions: list[Caption] = []
    first_line: dict[str, int] = {}
    for obj, line in rows:
        row = _caption(obj, line, file)
        if row.id in first_line:
            raise InputError(
                f"id repeated (first on line {first_line[row.id]}); ids must be unique",
                file=file,
                line=line,
                sample_id=row.id,
                field="id",
            )
        first_line[row.id] = line
        captions.append(row)
    if not captions:
        raise InputError("no captions in the file", file=file)
    return captions


def caption_samples(captions: list[Caption], file: str) -> list[Sample]:
    """One Sample per caption, in file order (the line stays out: moving a row changes nothing)."""
    out = []
    for c in captions:
        fields = CaptionFields(reference=c.caption)
        if c.domain is not None:
            fields["domain"] = c.domain
        out.append(Sample(c.id, {}, dict(fields), {}, file))
    return out


def decompose_spec(captions: Path, scorer: DecomposeArgs) -> BenchmarkSpec:
    """The run spec of `rubric decompose`: the captions echoed by the model, decomposed by the
    `rubric_decompose` scorer (`scorer`: its arguments), exported by `rubric_decompose`."""
    return BenchmarkSpec(
        name=BENCHMARK,
        task="captioning",
        description="captions decomposed into atomic yes/no rubric items by a text LLM",
        source=SourceSpec(type="jsonl", path=str(captions.expanduser().resolve())),
        prompt=TEMPLATE,
        postprocess=[],
        scorers=[{"rubric_decompose": dict(scorer)}],
        metrics=["mean:rubric_items", "mean:fallback"],
        exports="rubric_decompose",
    )
