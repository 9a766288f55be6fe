"""The multiple-choice rubric judge prompt (our wording of the MMAE paper's Appendix C), or a
prompt template file (`prompt_file`) rendered with the same pieces: `question` (the rubric
question as written, `<audio …>` references included), `choices` (the shuffled options as
"A. text" lines), `options` and `letters` (the same as lists, in the order shown) and `labels`
(the clip labels attached, e.g. `<audio output>`). The clips go, each as a `LABEL: ` line with
its audio, where the template's `audio` says (`before` or `after` its user text)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypedDict

from audioeval.core.messages import AudioPart, AudioRef, ContentPart, Message, TextPart
from audioeval.judge.audio_refs import ClipMention
from audioeval.judge.option_shuffle import ShuffledOptions
from audioeval.prompts.templates import PromptTemplate, render

PROMPT_VERSION = "mcq-judge-v1"

SYSTEM_PROMPT = """\
You are an audio analysis assistant. Answer strictly from the content of the audio clips \
you are given, never from assumptions about what they should contain.

Audio clips are referred to as <audio LABEL>, for example <audio output> or <audio input1>. \
A bare reference means the whole clip. A reference followed by [start:end] means the time \
slice of that clip between start and end seconds, e.g. <audio output[4.0s:5.7s]>. An omitted \
start means the beginning of the clip, an omitted end means its end, and negative values \
count back from the end of the clip. The slicing semantics follow Python-style [start:end] \
conventions.

Guidelines:
- Use only what is present in the audio or can be directly inferred from it.
- Do not invent details. If the audio does not give enough information, say so.
- Point to the parts of the audio your judgement rests on.
- Transcribe or summarise speech when that helps.
- Acknowledge noise or ambiguity where present.
- Be concise."""

INSTRUCTIONS = """\
Based on the objective content of the audio above, answer the following multiple-choice \
question. First perceive, analyse and reason, then choose exactly one option. Return only \
JSON with keys "reason" and "choice". Put the reason first and the final choice last. The \
choice must be the single uppercase letter of the chosen option."""


def attachments(
    mentions: Sequence[ClipMention],
    resolve: Callable[[str], str],
    *,
    slice_clips: bool,
) -> list[tuple[str, AudioRef]]:
    """(label text, audio) pairs to attach, each distinct clip once, `output` first, then the
    inputs by number (whatever order the question names them in): the rubrics of a sample then
    send the same clips in the same order, so their requests share the prefix a serving
    engine's prefix cache reuses (a rubric naming only `output` sends a prefix of one naming
    `output` and `input1`).

    By default every referenced clip is sent whole under its bare label and the judge applies
    the slice notation; with `slice_clips` each referenced slice is cut and sent under the
    label as written in the question. `resolve` maps a label (`output`, `input1`) to a path.
    """
    out: list[tuple[str, AudioRef]] = []
    seen: set[str] = set()
    for m in sorted(mentions, key=lambda m: _clip_rank(m.label)):  # stable: a clip's slices as named
        if slice_clips and m.is_slice:
            label, ref = m.text, AudioRef(resolve(m.label), m.start, m.end)
        else:
            label, ref = f"<audio {m.label}>", AudioRef(resolve(m.label))
        if label not in seen:
            seen.add(label)
            out.append((label, ref))
    return out


CLIP_ORDER = "output first, then inputs by number"


def _clip_rank(label: str) -> int:
    """`output` 0, `input` / `input1` 1, `inputN` N."""
    if label == "output":
        return 0
    number = label.removeprefix("input")
    return int(number) if number.isdigit() else 1


class PromptVariables(TypedDict):
    """What a prompt template file is rendered with (docs/judging.md lists them)."""

    question: str
    choices: str
    options: list[str]
    letters: list[str]
    labels: list[str]


def prompt_variables(question: str, options: ShuffledOptions, labels: list[str]) -> PromptVariables:
    """What a prompt template file is rendered with."""
    return {
        "question": question,
        "choices": options.render(),
        "options": list(options.texts),
        "letters": list(options.letters),
        "labels": labels,
    }


def _clip_parts(clips: list[tuple[str, AudioRef]]) -> list[ContentPart]:
    parts: list[ContentPart] = []
    for i, (label, ref) in enumerate(clips):
        parts.append(TextPart(("\n" if i else "") + f"{label}: "))
        parts.append(AudioPart(ref))
    return parts


def build_judge_messages(
    question: str,
    options: ShuffledOptions,
    clips: list[tuple[str, AudioRef]],
    template: PromptTemplate | None = None,
) -> list[Message]:
    parts = _clip_parts(clips)
    if template is not None:
        rendered = render(template, prompt_variables(question, options, [label for label, _ in clips]))
        text = rendered[-1].parts[0]
        user = [text, *parts] if template.audio == "after" else [*parts, text]
        return [*rendered[:-1], Message(role="user", parts=tuple(user))]
    parts.append(TextPart(f"\n\n{INSTRUCTIONS}\n\nQuestion: {question}\n\nChoices:\n{options.render()}"))
    return [Message.text("system", SYSTEM_PROMPT), Message(role="user", parts=tuple(parts))]
