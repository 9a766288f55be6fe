"""The registry of scorers: every scorer name a spec may give, with its factory.

The built-in scorers are listed here as `DeferredFactory` objects whose loaders import their
module when first built (jiwer, sacrebleu and metric models stay out of import time); the
scorer modules import `scoring/base.py`, never this module, so the registry sits above them.
Judged scorers (async, given a judge generate() by the engine) and a benchmark's own scorers
register from their own layers through `register_scorer`, when
`benchmarks/plugins.load_benchmarks()` runs: whatever resolves scorer names calls it first.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from audioeval.core.errors import InputError
from audioeval.core.registry import Registry
from audioeval.postprocess.spec_args import build, check_args
from audioeval.postprocess.steps import PostprocessChain, build_normaliser
from audioeval.scoring.base import DeferredFactory, ScorerFactory
from audioeval.scoring.hook_guard import call_hook, check_declarations
from audioeval.scoring.judged import PROMPT_FILE, JudgedScorer, load_judge_prompt, takes_prompt_file
from audioeval.scoring.scorer_hooks import Scorer


def _error_rate() -> Any:
    from audioeval.scoring import error_rate

    return error_rate


def _sacrebleu() -> Any:
    from audioeval.scoring import sacrebleu_scores

    return sacrebleu_scores


def _match() -> Any:
    from audioeval.scoring import match

    return match


def _captions() -> Any:
    from audioeval.scoring import caption_scorers

    return caption_scorers


def _mcq() -> Any:
    from audioeval.scoring import mcq_match, mcq_robust

    return mcq_match, mcq_robust


def _speech() -> Any:
    from audioeval.scoring import speech_scorers

    return speech_scorers


def _rouge() -> Any:
    from audioeval.scoring import rouge

    return rouge


SCORERS: Registry[ScorerFactory] = Registry(
    "scorer",
    [
        ("wer", DeferredFactory(lambda: _error_rate().wer_scorer)),
        ("cer", DeferredFactory(lambda: _error_rate().cer_scorer)),
        ("bleu", DeferredFactory(lambda: _sacrebleu().BleuScorer)),
        ("chrf", DeferredFactory(lambda: _sacrebleu().ChrfScorer)),
        ("accuracy", DeferredFactory(lambda: _match().AccuracyScorer)),
        ("includes", DeferredFactory(lambda: _match().IncludesScorer)),
        ("rouge_l", DeferredFactory(lambda: _rouge().RougeLScorer)),
        # Audio captioning: the COCO caption metrics (pycocoevalcap's tokenizer and jars, Java).
        ("coco_bleu", DeferredFactory(lambda: _captions().CocoBleuScorer)),
        ("coco_rouge_l", DeferredFactory(lambda: _captions().CocoRougeLScorer)),
        ("cider_d", DeferredFactory(lambda: _captions().CiderDScorer)),
        ("meteor", DeferredFactory(lambda: _captions().MeteorScorer)),
        ("spice", DeferredFactory(lambda: _captions().SpiceScorer)),
        ("mcq_match", DeferredFactory(lambda: _mcq()[0].McqMatchScorer)),
        ("mcq_robust", DeferredFactory(lambda: _mcq()[1].McqRobustScorer)),
        # Speech output (TTS, voice conversion, spoken answers, codecs): embedded metric models.
        ("asr_wer", DeferredFactory(lambda: _speech().asr_factory("wer", "asr_wer", build_scorer))),
        ("asr_cer", DeferredFactory(lambda: _speech().asr_factory("cer", "asr_cer", build_scorer))),
        ("asr_includes", DeferredFactory(lambda: _speech().asr_factory("includes", "asr_includes", build_scorer))),
        ("asr_accuracy", DeferredFactory(lambda: _speech().asr_factory("accuracy", "asr_accuracy", build_scorer))),
        ("sim", DeferredFactory(lambda: _speech().SimScorer)),
        ("dnsmos", DeferredFactory(lambda: _speech().DnsmosScorer)),
        ("pesq_stoi", DeferredFactory(lambda: _speech().PesqStoiScorer)),
        ("utmos", DeferredFactory(lambda: _speech().utmos)),
    ],
    spec_names=True,
)


def register_scorer(name: str, factory: ScorerFactory) -> None:
    """Add a scorer factory (a class, a function, or a `DeferredFactory` whose loader imports
    a heavy module when first built) to `SCORERS`. A name that is already registered is an
    error, never silently replaced; a "module:attr" string is refused (pass the object)."""
    if name in SCORERS:
        raise ValueError(f"scorer {name!r} is already registered")
    if isinstance(factory, str) or not callable(factory):
        raise TypeError(f"register scorer {name!r} with its factory object, not {factory!r}")
    SCORERS.register(name, factory)


def scorer_factory(name: str, *, where: str, field: str = "scorers") -> ScorerFactory:
    """The registered factory of a scorer name (a deferred one imported now)."""
    factory = SCORERS.get(name, where=where, field=field)
    return factory.resolve() if isinstance(factory, DeferredFactory) else factory


def build_scorer(
    name: str, args: Mapping[str, Any] | None = None, *, where: str, field: str = "scorers"
) -> Scorer:
    """A scorer from its registered name and spec arguments; errors name `where` and `field`."""
    factory = SCORERS.get(name, where=where, field=field)
    target = factory.resolve() if isinstance(factory, DeferredFactory) else factory
    args = dict(args or {})
    if args.get("normaliser") is not None and not isinstance(args["normaliser"], PostprocessChain):
        check_args("scorer", name, target, args, where=where, field=field)
        args["normaliser"] = build_normaliser(args["normaliser"], where=where, field=f"{field}.normaliser")
    prompt_file = args.pop(PROMPT_FILE, None) if takes_prompt_file(target) else None
    scorer = build("scorer", name, target, args, where=where, field=field)
    if not isinstance(scorer, Scorer):
        raise InputError(
            f"scorer {name!r} built a {type(scorer).__name__}, not a Scorer: its class must derive "
            "from audioeval.scoring.base.Scorer (or audioeval.scoring.judged.JudgedScorer for a "
            "scorer that asks a judge), whose hooks it then overrides",
            file=where or None,
            field=field,
        )
    if prompt_file is not None and isinstance(scorer, JudgedScorer):  # its prompt from a file
        call_hook(scorer, "use_prompt", load_judge_prompt(prompt_file, scorer))
    return check_declarations(scorer)


