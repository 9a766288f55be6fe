"""Scoring profiles: named sets of text conventions that the profiled scorers follow.

A profile (`profile:` in a spec, `--profile` on run and rescore) replaces how `wer`/`cer`,
`asr_wer`/`asr_cer`, `bleu`, `accuracy` and (where the profile has a multiple-choice rule)
`mcq_match` read their texts. The default, `audioeval`, is
ours and has no hooks: each scorer keeps its own code. Another profile is a `TextProfile`,
registered by the benchmark whose rules it holds (on its `Benchmark.profiles`, registered by
`benchmarks/plugins.load_benchmarks()`), so this layer holds no benchmark's rule. A scorer looks its
profile up by name when it is built; an unknown name is an error listing the known ones,
and a profile without the hook a scorer needs is an error naming both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from audioeval.core.registry import Registry

DEFAULT_PROFILE = "audioeval"

Hook = TypeVar("Hook")


@dataclass(frozen=True)
class TextProfile:
    """The hooks of a profile; a hook left None: the profile does not cover that scorer."""

    name: str
    description: str
    wer_tokens: Callable[[str, str, str], list[str]] | None = None
    """(text, unit "word" | "char", language code) -> the tokens the edit distance compares
    (ASR `wer`/`cer`; the corpus rate stays Σ edits / Σ reference tokens)."""
    wer_signature: Callable[[str], dict[str, Any]] | None = None
    """(unit) -> the chain per language and library versions, for the scorer's signature."""
    tts_text: Callable[[str, str, bool], str] | None = None
    """(text, language code, is_transcript) -> the text whose whitespace words jiwer compares,
    for a transcript of generated speech (`asr_wer`/`asr_cer`); the corpus value is then the
    mean of per-utterance rates (`mean_wer` / `mean_cer`)."""
    tts_signature: Callable[[], dict[str, Any]] | None = None
    bleu_tokenizer: Callable[[str], str] | None = None
    """(target language code) -> the sacrebleu tokenizer of that direction; texts as given,
    and a pair with an empty reference is not scored."""
    accuracy_match: Callable[[str, str, str, bool], tuple[bool, str, str]] | None = None
    """(match, prediction, gold, gold_is_numeric) -> (hit, prediction as rewritten, gold)."""
    accuracy_texts: dict[str, str] | None = None
    """match rule -> how it reads the texts, for the signature."""
    bleu_empty: str | None = None
    """Under `bleu_tokenizer`: the word an empty hypothesis or reference becomes (AudioBench:
    `empty`); None: a pair whose reference is empty is not scored (UltraEval-Audio)."""
    mcq_texts: Callable[[str, list[str]], tuple[str, list[str]]] | None = None
    """(answer, choices) -> the answer and choices as the profile's multiple-choice match reads
    them (`mcq_match`: the match itself stays the MMAR / MMAU token-set rule); None: `mcq_match`
    keeps the benchmark's official reading under this profile."""
    mcq_rule: str = ""
    """What `mcq_texts` does and where it comes from, for the signature."""
    uncovered: Mapping[str, str] = field(default_factory=dict)
    """scorer -> why the profile has no rule for it (said in the error)."""


PROFILES: Registry[TextProfile] = Registry("scoring profile", spec_names=True)
PROFILES.register(DEFAULT_PROFILE, TextProfile(DEFAULT_PROFILE, "audioeval's own conventions"))


def register_profile(name: str, profile: TextProfile) -> None:
    """Add a profile; a name already registered is an error, never a silent replacement."""
    if profile.name != name:
        raise ValueError(f"profile registered as {name!r} calls itself {profile.name!r}")
    PROFILES.register(name, profile)


def profile_names() -> list[str]:
    """The registered profile names, the default first."""
    return list(PROFILES.names())


def get_profile(name: str) -> TextProfile:
    """The profile named `name`; ValueError listing the known profiles when there is none."""
    found = PROFILES.find(name)
    if found is None:
        raise ValueError(f"unknown scoring profile {name!r}: one of {', '.join(profile_names())}")
    return found


def profile_hook(name: str, hook: Callable[[TextProfile], Hook | None], scorer: str) -> Hook | None:
    """A profile's hook for a scorer, read by `hook` (`lambda p: p.wer_tokens`); None under the
    default profile; ValueError when the profile is unknown or does not cover the scorer."""
    profile = get_profile(name)
    if name == DEFAULT_PROFILE:
        return None
    found = hook(profile)
    if found is None:
        why = profile.uncovered.get(scorer)
        raise ValueError(f"scoring profile {name!r} has no rule for {scorer}" + (f": {why}" if why else ""))
    return found
