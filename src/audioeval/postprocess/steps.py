"""The registry of named post-processing steps and the chains a benchmark spec builds from it.

A spec names a chain as a list: `["strip_think", "whisper_english"]`, with arguments as a
one-key mapping: `[{"json_field": {"field": "answer"}}]`. Text steps (normalisers) map text
to text and can be applied to references too; parsing steps (`extract_choice`, `yes_no`,
`json_field`, …) may find no answer, which ends the chain with outcome "unparseable".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from audioeval.core.errors import InputError
from audioeval.core.registry import Registry
from audioeval.core.sample import Sample
from audioeval.postprocess import step_library as lib
from audioeval.postprocess import text_steps
from audioeval.postprocess.markdown import strip_markdown
from audioeval.postprocess.outcome import OK, UNPARSEABLE, Processed, Unparseable
from audioeval.postprocess.spec_args import build
from audioeval.postprocess.step_library import Step, StepFactory, StepSpec
from audioeval.postprocess.think_tags import strip_think

SpecItem = str | Mapping[str, Any]

STEPS: Registry[StepFactory] = Registry(
    "post-processing step",
    [
        ("strip", lib.text_step("strip", str.strip)),
        ("strip_think", lib.text_step("strip_think", strip_think)),
        ("strip_markdown", lib.text_step("strip_markdown", strip_markdown)),
        ("first_line", lib.text_step("first_line", text_steps.first_line)),
        ("lower", lib.text_step("lower", str.lower)),
        ("upper", lib.text_step("upper", str.upper)),
        ("squeeze_whitespace", lib.text_step("squeeze_whitespace", text_steps.squeeze)),
        ("remove_whitespace", lib.text_step("remove_whitespace", text_steps.remove_whitespace)),
        ("remove_punctuation", lib.remove_punctuation),
        ("cjk_split", lib.text_step("cjk_split", text_steps.cjk_split)),
        ("whisper_english", lib.text_step("whisper_english", text_steps.whisper_english)),
        ("whisper_basic", lib.whisper_basic),
        ("extract_choice", lib.extract_choice_step),
        ("extract_letter", lib.extract_letter_step),
        ("yes_no", lib.yes_no),
        ("json_field", lib.json_field_step),
        ("regex", lib.regex),
    ],
    spec_names=True,
)


@dataclass(frozen=True)
class PostprocessChain:
    """Steps applied in order; the first parsing step that finds nothing ends the chain."""

    steps: tuple[Step, ...] = ()

    def __call__(self, text: str, sample: Sample | None = None) -> Processed:
        for step in self.steps:
            result = step.fn(text, sample)
            if isinstance(result, Unparseable):
                return Processed(None, UNPARSEABLE, f"{step.name}: {result.reason}")
            text = result
        return Processed(text, OK)

    @property
    def normalises(self) -> bool:
        """True when every step is a text-to-text normaliser (usable on references)."""
        return all(step.normalises for step in self.steps)

    def normalise(self, text: str) -> str:
        """The text after a normalising chain (hypothesis or reference alike)."""
        if not self.normalises:
            names = [s.name for s in self.steps if not s.normalises]
            raise ValueError(f"steps {names} parse answers and cannot normalise a reference")
        out = self(text)
        assert out.text is not None
        return out.text

    def describe(self) -> list[StepSpec]:
        """The chain as a spec list (non-default arguments only); `build_chain` reads it back."""
        return [step.describe() for step in self.steps]


def _split_item(item: object, *, where: str, field: str) -> tuple[str, dict[str, Any]]:
    if isinstance(item, str):
        return item, {}
    if isinstance(item, Mapping) and len(item) == 1:
        ((name, args),) = item.items()
        if args is None:
            return str(name), {}
        if isinstance(args, Mapping):
            return str(name), dict(args)
    raise InputError(
        f"a step is a name or a one-key mapping {{name: {{argument: value}}}}, got {item!r}",
        file=where or None,
        field=field,
    )


def build_step(item: SpecItem, *, where: str, field: str) -> Step:
    """One step from its spec item (`"lower"` or `{"regex": {"pattern": "…"}}`)."""
    name, args = _split_item(item, where=where, field=field)
    factory = STEPS.get(name, where=where, field=field)
    step: Step = build("post-processing step", name, factory, args, where=where, field=field)
    return step


def build_chain(
    spec_list: Sequence[SpecItem] | None, *, where: str, field: str = "postprocess"
) -> PostprocessChain:
    """A chain from a spec list; errors name the file (`where`) and `field[i]`."""
    if spec_list is None:
        return PostprocessChain()
    if isinstance(spec_list, str | Mapping) or not isinstance(spec_list, Sequence):
        raise InputError(f"expected a list of steps, got {spec_list!r}", file=where or None, field=field)
    return PostprocessChain(
        tuple(build_step(item, where=where, field=f"{field}[{i}]") for i, item in enumerate(spec_list))
    )


def build_normaliser(
    spec_list: Sequence[SpecItem] | None, *, where: str, field: str = "normaliser"
) -> PostprocessChain:
    """A chain of text-to-text steps only, to apply to hypotheses and references alike."""
    chain = build_chain(spec_list, where=where, field=field)
    for i, step in enumerate(chain.steps):
        if not step.normalises:
            raise InputError(
                f"step {step.name!r} parses answers and cannot normalise references; "
                "put it in the benchmark's postprocess chain instead",
                file=where or None,
                field=f"{field}[{i}]",
            )
    return chain


def normalise(text: str, chain: PostprocessChain) -> str:
    """`chain.normalise(text)`: the same normalisation for a hypothesis and its reference."""
    return chain.normalise(text)
