"""What a scorer receives (`Prediction`) and returns (`core/record.Score`), the `Scorer`
base class (its hooks and defaults: `scoring/scorer_hooks.py`), and the registry of scorers.

A scorer looks at one sample and returns display values plus the sufficient statistics a
corpus metric sums (edit counts, n-gram counts, a 0/1 correct flag); it never averages.
The registry holds factory objects; a heavy scorer module (jiwer, sacrebleu, a metric model)
is imported when first built, through a `DeferredFactory` whose loader imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from audioeval.core.errors import InputError
from audioeval.core.record import Score as Score  # re-exported: what a scorer returns
from audioeval.core.registry import Registry
from audioeval.postprocess.spec_args import build, check_args
from audioeval.postprocess.steps import PostprocessChain, SpecItem, build_normaliser
from audioeval.scoring.hook_guard import call_hook, check_declarations
from audioeval.scoring.judged import PROMPT_FILE, JudgedScorer, load_judge_prompt, takes_prompt_file
from audioeval.scoring.scorer_hooks import Scorer

UNPARSEABLE = "unparseable"


@dataclass(frozen=True, slots=True)
class Prediction:
    """The model's answer after post-processing.

    `text` is None when post-processing found no answer (`outcome` then says why in
    words such as "unparseable"); `raw` is the model's text before post-processing;
    `audio_path` is generated audio, for scorers of speech output.
    """

    text: str | None
    raw: str | None
    audio_path: str | None = None
    outcome: str = "ok"

    @property
    def missing(self) -> bool:
        """True when there is no answer text to score (scored as an empty answer)."""
        return self.text is None


ScorerFactory = Callable[..., Scorer]
"""A registered scorer: a `Scorer` subclass, or a function that returns a `Scorer` instance."""


def declared_metrics(scorer: Scorer) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(default metrics, every metric) a scorer's statistics feed; None when it declares none
    (`Scorer.metrics` left None: every task metric stays)."""
    if scorer.metrics is None:
        return None
    return tuple(scorer.metrics), (*scorer.metrics, *scorer.extra_metrics)


class DeferredFactory:
    """A scorer factory imported when first built: `load` is a function that imports the
    scorer's module inside its body and returns the factory (so jiwer, sacrebleu and metric
    models stay out of import time). The factory is an object, never a module path in a string."""

    def __init__(self, load: Callable[[], ScorerFactory]) -> None:
        self.load = load

    def resolve(self) -> ScorerFactory:
        return self.load()

    def __call__(self, **kwargs: Any) -> Scorer:
        return self.resolve()(**kwargs)


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
        ("asr_wer", DeferredFactory(lambda: _speech().asr_wer)),
        ("asr_cer", DeferredFactory(lambda: _speech().asr_cer)),
        ("asr_includes", DeferredFactory(lambda: _speech().asr_includes)),
        ("asr_accuracy", DeferredFactory(lambda: _speech().asr_accuracy)),
        ("sim", DeferredFactory(lambda: _speech().SimScorer)),
        ("dnsmos", DeferredFactory(lambda: _speech().DnsmosScorer)),
        ("pesq_stoi", DeferredFactory(lambda: _speech().PesqStoiScorer)),
        ("utmos", DeferredFactory(lambda: _speech().utmos)),
    ],
    spec_names=True,
)
"""Judged scorers (async, given a judge generate() by the engine) and a benchmark's own scorers
register from their own layers, when `benchmarks/plugins.load_benchmarks()` runs: whatever
resolves scorer names calls it first."""


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


def as_normaliser(
    spec: PostprocessChain | Sequence[SpecItem] | None, default: Sequence[SpecItem] = ()
) -> PostprocessChain:
    """A normalising chain from a built chain, a spec list, or the default when None."""
    if isinstance(spec, PostprocessChain):
        if not spec.normalises:
            raise ValueError(f"normaliser {spec.describe()} holds steps that parse answers")
        return spec
    return build_normaliser(list(default) if spec is None else spec, where="", field="normaliser")
