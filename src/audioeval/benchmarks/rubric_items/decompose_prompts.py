"""The prompts of `rubric decompose`: a caption -> atomic yes/no items, then a cleaning pass.

Our own wording (in English) of the AnyAudio-Judge decomposition design: one prompt per
domain (speech, sound, music, mix) sharing the principles (atomic, verifiable by listening,
faithful to the caption, complete, objective), the direction rule ("yes" means the audio
matches the caption, so a negated description becomes a negated question), the degree-word
rule, and for mixed audio one item per speaker attribute and per quoted line. `auto` lists
the four domains and lets the model name the one it used. Items are written in the
caption's language (the original always wrote Chinese). The cleaning prompt asks, per item,
whether it stays within the caption (keep) or adds something the caption never says
(remove).

Any change to a prompt's wording changes `PROMPT_VERSION`: it is part of the scorer's
signature, so a run folder refuses to mix items made by two versions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from audioeval.core.messages import Message
from audioeval.prompts.templates import PromptTemplate, render

PROMPT_VERSION = "rubric-decompose-v2"
DOMAINS = ("speech", "sound", "music", "mix")
AUTO = "auto"


@dataclass(frozen=True)
class DomainPrompt:
    """What one domain's prompt adds to the shared principles."""

    role: str
    dimensions: tuple[str, ...]
    rules: tuple[str, ...] = ()


DOMAIN_PROMPTS: dict[str, DomainPrompt] = {
    "speech": DomainPrompt(
        "an expert in voice and speaking style",
        (
            "gender",
            "pitch",
            "speaking rate",
            "volume",
            "age",
            "clarity",
            "fluency",
            "accent or dialect",
            "timbre",
            "emotion",
            "intonation",
        ),
    ),
    "sound": DomainPrompt(
        "an expert in acoustics and sound design",
        (
            "sound event type",
            "scene or environment",
            "main sound elements",
            "intensity or density",
            "spatial impression (distance, reverberation)",
            "timing and rhythm (order, repetition, duration)",
        ),
    ),
    "music": DomainPrompt(
        "an expert in music theory and production",
        (
            "genre",
            "mood",
            "tempo and meter",
            "instruments",
            "vocals (presence, gender, style, lyric language)",
            "key or mode",
        ),
    ),
    "mix": DomainPrompt(
        "an expert in analysing mixed audio (speech, sound effects and music together)",
        (
            "component types (speech, sound effects, music)",
            "attributes of each speaker",
            "spoken lines",
            "sound effect types",
            "scene",
            "order and timing of events",
            "music style, instruments and prominence",
            "layering (foreground and background)",
            "changes in level or intensity",
        ),
        (
            "Ask about one speaker per item; name the speaker as the caption does.",
            "Every quoted line of dialogue is its own item (does the speaker say ...?), tagged "
            "with its speaker; never merge two lines into one item.",
        ),
    ),
}

PRINCIPLES = (
    "Atomic: each item checks one feature of one dimension. Never join two features in one question.",
    "Verifiable by listening: a listener can answer each item from the audio alone. Avoid vague "
    "or purely subjective wording.",
    "Faithful: use only what the caption states or clearly implies. Never infer an unstated "
    "feature from a role, scene, genre or label (a 'grandfather' says nothing about pitch, an "
    "'office' nothing about reverberation, 'classical' nothing about vocals, a 'guitar' "
    "nothing about rock).",
    "Complete: every feature the caption describes is covered by at least one item.",
    "Objective: neutral wording, no leading questions.",
)

DIRECTION_RULE = (
    "Direction: every question is phrased so that 'yes' means the audio matches the caption. "
    "When the caption describes an absence or a negation (no music, not loud, without "
    "reverberation), ask the negated question (is there no music?), never its positive "
    "opposite."
)
DEGREE_RULE = (
    "Degree words: keep intensity qualifiers from the caption (very, slightly, barely audible, "
    "extremely) in the question, and make the degree explicit (very excited, not merely "
    "somewhat emotional)."
)
LANGUAGE_RULE = (
    "Language: write dimension, question and basis in the language of the caption (a Chinese "
    "caption gets Chinese items, an English caption English items). The JSON keys stay in "
    "English."
)
ITEM_FORMAT = (  # the English keys the official reader accepts (official-rules.md §3.2)
    '{"Dimension": "<the dimension checked>", "Question": "<a yes/no question ending with a '
    'question mark>", "Basis": "<the words of the caption the item checks>"}'
)


def _numbered(lines: Sequence[str]) -> str:
    return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, start=1))


def _shared_rules(extra: Sequence[str]) -> str:
    rules = [*PRINCIPLES, DIRECTION_RULE, DEGREE_RULE, *extra, LANGUAGE_RULE]
    return f"Rules:\n{_numbered(rules)}"


def _domain_system(domain: str) -> str:
    spec = DOMAIN_PROMPTS[domain]
    return (
        f"You are {spec.role}. You turn a caption describing an audio clip into a list of "
        "atomic yes/no questions that a listener answers by hearing the clip.\n\n"
        f"{_shared_rules(spec.rules)}\n\n"
        f"Dimensions to consider (only those the caption mentions; others may be added when "
        f"the caption describes them): {', '.join(spec.dimensions)}.\n\n"
        "Reply with JSON only, no other text:\n"
        f'{{"Question_List": [{ITEM_FORMAT}, ...]}}'
    )


def _auto_system() -> str:
    menus = "\n".join(f"- {name}: {', '.join(DOMAIN_PROMPTS[name].dimensions)}" for name in DOMAINS)
    mix_rules = " ".join(DOMAIN_PROMPTS["mix"].rules)
    return (
        "You are an expert in speech, sound, music and mixed audio. You turn a caption "
        "describing an audio clip into a list of atomic yes/no questions that a listener "
        "answers by hearing the clip.\n\n"
        "First decide which domain the caption describes: speech (one voice and how it "
        "speaks), sound (sound events and scenes), music, or mix (several kinds together, such "
        f"as dialogue with effects or music; when unsure, mix). For mix: {mix_rules}\n\n"
        f"{_shared_rules(())}\n\n"
        f"Dimensions to consider per domain (only those the caption mentions):\n{menus}\n\n"
        "Reply with JSON only, no other text:\n"
        f'{{"domain": "speech|sound|music|mix", "Question_List": [{ITEM_FORMAT}, ...]}}'
    )


def decompose_system(domain: str) -> str:
    """The system prompt of a domain, or of `auto`."""
    return _auto_system() if domain == AUTO else _domain_system(domain)


class CleanItem(TypedDict):
    """An item as the cleaning pass lists it: its id (from 0), dimension and question."""

    id: int
    dimension: str
    question: str


class DecomposeVariables(TypedDict):
    """What a prompt template file gets, for either step (`step`: decompose or clean)."""

    step: str
    caption: str
    domain: str
    items: list[CleanItem]


def decompose_variables(caption: str, domain: str) -> DecomposeVariables:
    """What a prompt template file (`prompt_file`) gets for the decomposition: `step`
    ("decompose"), `caption`, `domain` (speech, sound, music, mix or auto)."""
    return {"step": "decompose", "caption": caption, "domain": domain, "items": []}


def clean_variables(caption: str, items: Sequence[tuple[str, str]]) -> DecomposeVariables:
    """... and for the cleaning pass: `step` ("clean"), `caption`, `domain` (""), and `items`,
    each with `id` (0, 1, …: the ids the answer must give, from 0 as the official reader
    reads them), `dimension` and `question`."""
    listed = [CleanItem(id=i, dimension=d, question=q) for i, (d, q) in enumerate(items)]
    return {"step": "clean", "caption": caption, "domain": "", "items": listed}


def decompose_messages(caption: str, domain: str, template: PromptTemplate | None = None) -> list[Message]:
    """The decomposition request of one caption (a template file: one for both steps, which
    tells them apart by `step`)."""
    if template is not None:
        return render(template, dict(decompose_variables(caption, domain)))
    return [Message.text("system", decompose_system(domain)), Message.text("user", f"Caption:\n{caption}")]


CLEAN_SYSTEM = (
    "You check yes/no listening questions that were written from a caption of an audio clip. "
    "For each numbered question decide:\n"
    "- keep: everything it asks about is stated in the caption or clearly implied by it. A "
    "rephrasing, a translation or a negated form of what the caption says is keep.\n"
    "- remove: it introduces a concept, attribute or detail that the caption never mentions.\n\n"
    "Reply with JSON only, no other text, one entry per question:\n"
    '{"results": [{"id": 0, "judgment": "keep"}, {"id": 1, "judgment": "remove"}, ...]}'
)


def clean_messages(
    caption: str, items: Sequence[tuple[str, str]], template: PromptTemplate | None = None
) -> list[Message]:
    """The cleaning request: the caption and the numbered (dimension, question) items."""
    if template is not None:
        return render(template, dict(clean_variables(caption, items)))
    listed = "\n".join(
        f"{i}. " + (f"[{dimension}] " if dimension else "") + question
        for i, (dimension, question) in enumerate(items)  # ids from 0: the official reader's
    )
    user = f"Caption:\n{caption}\n\nQuestions:\n{listed}"
    return [Message.text("system", CLEAN_SYSTEM), Message.text("user", user)]
