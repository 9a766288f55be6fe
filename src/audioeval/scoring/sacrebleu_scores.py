"""BLEU and chrF with sacrebleu, as per-sentence statistics that sum to the corpus score.

Each sample's statistics are exactly what `sacrebleu.corpus_bleu` / `corpus_chrf` collect
for that segment, so the corpus metrics computed from their sums equal sacrebleu's corpus
scores. References come from the `references` field (a list) or `reference`; several
references per sample are supported. The per-sample value shown is a sentence score
(BLEU with effective order, as `sacrebleu.sentence_bleu`).

A scoring `profile` other than the default (BLEU only; `scoring/profiles.py`) follows the
profile's `bleu_tokenizer` hook (`ultraeval`: UltraEval-Audio's `corpus_bleu` call, `zh` when
the sample's `target_language` is Chinese and `13a` for another language): the tokenizer
follows the direction (the `tokenize` argument when the sample names none; a value that is
neither a language code nor a known name is an InputError); no normaliser and no lower-casing; and a pair whose reference is the empty string is dropped,
here an InputError, so the sample is recorded as not scored, never as a wrong answer; or, under
a profile with `bleu_empty` (`audiobench`: their `compute_score`), an empty hypothesis or
reference becomes that word and is scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version
from typing import Any, TypedDict

from audioeval.core.errors import InputError, OptionalDependencyError
from audioeval.core.sample import Sample
from audioeval.postprocess.step_library import StepSpec
from audioeval.postprocess.steps import PostprocessChain, SpecItem
from audioeval.scoring.base import Prediction, Score, Scorer, as_normaliser
from audioeval.scoring.error_rate import sample_language
from audioeval.scoring.fields import references
from audioeval.scoring.prediction import MissingDetail
from audioeval.scoring.profiles import DEFAULT_PROFILE, get_profile, profile_hook
from audioeval.scoring.scorer_hooks import ScorerSignature

_EXTRAS = {"ja-mecab": "ja", "ko-mecab": "ko", "spm": "", "flores101": "", "flores200": "", "spBLEU-1K": ""}


def _make_bleu(tokenize: str, lowercase: bool, effective_order: bool) -> Any:
    from sacrebleu.metrics import BLEU

    if tokenize not in BLEU.TOKENIZERS:
        raise ValueError(f"tokenize must be one of {', '.join(BLEU.TOKENIZERS)}; got {tokenize!r}")
    try:
        return BLEU(tokenize=tokenize, lowercase=lowercase, effective_order=effective_order)
    except (RuntimeError, ImportError) as exc:
        extra = _EXTRAS.get(tokenize, "")
        hint = f'pip install "sacrebleu[{extra}]"' if extra else "see sacrebleu's documentation"
        raise OptionalDependencyError(
            f"sacrebleu tokenizer {tokenize!r} needs extra packages: {hint}"
        ) from exc


class SacrebleuSignature(ScorerSignature, total=False):
    reference_field: str
    normaliser: list[StepSpec]
    sacrebleu: str
    tokenize: str  # bleu
    lowercase: bool
    smooth: str
    max_ngram_order: int
    profile: str
    empty_reference: str
    empty_hypothesis: str
    char_order: int  # chrf
    word_order: int
    beta: int
    whitespace: bool


class ChrfParams(TypedDict):
    char_order: int
    word_order: int
    beta: int


class _References(Scorer[MissingDetail]):
    """Shared handling of references, normaliser and missing predictions."""

    name = ""

    def __init__(
        self, normaliser: PostprocessChain | Sequence[SpecItem] | None, reference_field: str | None
    ) -> None:
        self.normaliser = as_normaliser(normaliser)
        self.reference_field = reference_field

    def texts(self, prediction: Prediction, sample: Sample) -> tuple[str, list[str], MissingDetail]:
        hypothesis = self.normaliser.normalise(prediction.text or "")
        refs = [self.normaliser.normalise(r) for r in references(sample, self.reference_field, self.name)]
        detail: MissingDetail = (
            {"missing": True, "outcome": prediction.outcome} if prediction.missing else {}
        )
        return hypothesis, refs, detail

    def _common_signature(self) -> SacrebleuSignature:
        return {
            "reference_field": self.reference_field or "references | reference",
            "normaliser": self.normaliser.describe(),
            "sacrebleu": version("sacrebleu"),
        }


class BleuScorer(_References):
    """`bleu`: BLEU-4 statistics (hypothesis/reference lengths, n-gram matches and totals)."""

    name = "bleu"
    metrics = ("bleu",)

    def __init__(
        self,
        *,
        tokenize: str = "13a",
        lowercase: bool = False,
        reference_field: str | None = None,
        normaliser: PostprocessChain | Sequence[SpecItem] | None = None,
        profile: str = DEFAULT_PROFILE,
    ) -> None:
        self._direction = profile_hook(profile, lambda p: p.bleu_tokenizer, "bleu")
        if profile != DEFAULT_PROFILE and (normaliser is not None or lowercase):
            raise ValueError(
                f"profile {profile!r} compares the texts as given: drop `normaliser` and `lowercase`"
            )
        super().__init__(normaliser, reference_field)
        self.profile = profile
        self._empty = get_profile(profile).bleu_empty if profile != DEFAULT_PROFILE else None
        self.tokenize = tokenize
        self.lowercase = lowercase
        self._bleu: dict[str, tuple[Any, Any]] = {}
        self._pair(tokenize)

    def _pair(self, tokenize: str) -> tuple[Any, Any]:
        """(corpus, sentence) BLEU objects of a tokenizer, made once."""
        if tokenize not in self._bleu:
            self._bleu[tokenize] = (
                _make_bleu(tokenize, self.lowercase, effective_order=False),
                _make_bleu(tokenize, self.lowercase, effective_order=True),
            )
        return self._bleu[tokenize]

    def signature(self) -> SacrebleuSignature:
        sig: SacrebleuSignature = {
            "scorer": self.name,
            "tokenize": self.tokenize,
            "lowercase": self.lowercase,
            "smooth": "exp",
            "max_ngram_order": 4,
            **self._common_signature(),
        }
        if self.profile != DEFAULT_PROFILE:
            sig["profile"] = self.profile
            by = {lang: self._direction(lang) for lang in ("zh", "en", "other")}
            sig["tokenize"] = f"by target_language {by} (none given: {self.tokenize})"
            sig["empty_reference"] = "not scored" if self._empty is None else f"the word {self._empty!r}"
            if self._empty is not None:
                sig["empty_hypothesis"] = f"the word {self._empty!r}"
        return sig

    def tokenizer_for(self, sample: Sample) -> str:
        """The tokenizer of a sample: the `tokenize` argument, or under profile ultraeval the one
        of its translation direction (the profile's hook)."""
        target = sample.get("target_language")
        if self.profile == DEFAULT_PROFILE or target is None or target == "":
            return self.tokenize
        # a name it cannot read is an InputError, never 13a by default (Chinese as 13a words)
        return str(self._direction(sample_language(sample, None, "target_language")))

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        hypothesis, refs, detail = self.texts(prediction, sample)
        if self.profile != DEFAULT_PROFILE and self._empty is not None:
            hypothesis, refs = hypothesis or self._empty, [r or self._empty for r in refs]
        elif self.profile != DEFAULT_PROFILE:
            refs = self._non_empty(refs, sample)
        tokenize = self.tokenizer_for(sample)
        corpus, sentence = self._pair(tokenize)
        seg = corpus._extract_corpus_statistics([hypothesis], [[r] for r in refs])[0]
        order = corpus.max_ngram_order
        stats = {
            "sys_len": int(seg[0]),
            "ref_len": int(seg[1]),
            "correct": [int(x) for x in seg[2 : 2 + order]],
            "total": [int(x) for x in seg[2 + order :]],
        }
        value = float(sentence._compute_score_from_stats(seg).score)
        if tokenize != self.tokenize:
            detail = {**detail, "tokenize": tokenize}
        return Score({"bleu": value}, stats, detail)

    def _non_empty(self, refs: list[str], sample: Sample) -> list[str]:
        """The references that are not the empty string; none left: the pair is dropped."""
        kept = [r for r in refs if r != ""]
        if not kept:
            raise InputError(
                f"the reference is empty; under profile {self.profile} the pair is not scored",
                file=sample.source or None,
                sample_id=sample.id,
                field=self.reference_field or "reference",
            )
        return kept


class ChrfScorer(_References):
    """`chrf`: chrF (or chrF++ with `word_order=2`) n-gram statistics."""

    name = "chrf"
    metrics = ("chrf",)

    def __init__(
        self,
        *,
        char_order: int = 6,
        word_order: int = 0,
        beta: int = 2,
        lowercase: bool = False,
        whitespace: bool = False,
        reference_field: str | None = None,
        normaliser: PostprocessChain | Sequence[SpecItem] | None = None,
    ) -> None:
        from sacrebleu.metrics import CHRF

        super().__init__(normaliser, reference_field)
        for arg, val in (("char_order", char_order), ("word_order", word_order), ("beta", beta)):
            if not isinstance(val, int) or val < 0:
                raise ValueError(f"{arg} must be a non-negative integer, got {val!r}")
        self.params: ChrfParams = {"char_order": char_order, "word_order": word_order, "beta": beta}
        self.lowercase = lowercase
        self.whitespace = whitespace
        self._chrf = CHRF(
            char_order=char_order,
            word_order=word_order,
            beta=beta,
            lowercase=lowercase,
            whitespace=whitespace,
        )

    def signature(self) -> SacrebleuSignature:
        return {
            "scorer": self.name,
            **self.params,
            "lowercase": self.lowercase,
            "whitespace": self.whitespace,
            **self._common_signature(),
        }

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        hypothesis, refs, detail = self.texts(prediction, sample)
        seg = self._chrf._extract_corpus_statistics([hypothesis], [[r] for r in refs])[0]
        stats = {"counts": [int(x) for x in seg], **self.params}
        value = float(self._chrf._compute_score_from_stats(seg).score)
        return Score({"chrf": value}, stats, detail)
