"""BLEU and chrF with sacrebleu, as per-sentence statistics that sum to the corpus score.

Each sample's statistics are exactly what `sacrebleu.corpus_bleu` / `corpus_chrf` collect
for that segment, so the corpus metrics computed from their sums equal sacrebleu's corpus
scores. References come from the `references` field (a list) or `reference`; several
references per sample are supported. The per-sample value shown is a sentence score
(BLEU with effective order, as `sacrebleu.sentence_bleu`).
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

from audioeval.core.errors import OptionalDependencyError
from audioeval.core.sample import Sample
from audioeval.postprocess.steps import PostprocessChain, SpecItem
from audioeval.scoring.base import Prediction, Score, as_normaliser
from audioeval.scoring.fields import references

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


class _References:
    """Shared handling of references, normaliser and missing predictions."""

    name = ""

    def __init__(
        self, normaliser: PostprocessChain | Sequence[SpecItem] | None, reference_field: str | None
    ) -> None:
        self.normaliser = as_normaliser(normaliser)
        self.reference_field = reference_field

    def texts(self, prediction: Prediction, sample: Sample) -> tuple[str, list[str], dict[str, Any]]:
        hypothesis = self.normaliser.normalise(prediction.text or "")
        refs = [self.normaliser.normalise(r) for r in references(sample, self.reference_field, self.name)]
        detail: dict[str, Any] = (
            {"missing": True, "outcome": prediction.outcome} if prediction.missing else {}
        )
        return hypothesis, refs, detail

    def _common_signature(self) -> dict[str, Any]:
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
    ) -> None:
        super().__init__(normaliser, reference_field)
        self.tokenize = tokenize
        self.lowercase = lowercase
        self._corpus = _make_bleu(tokenize, lowercase, effective_order=False)
        self._sentence = _make_bleu(tokenize, lowercase, effective_order=True)

    def signature(self) -> dict[str, Any]:
        return {
            "scorer": self.name,
            "tokenize": self.tokenize,
            "lowercase": self.lowercase,
            "smooth": "exp",
            "max_ngram_order": 4,
            **self._common_signature(),
        }

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        hypothesis, refs, detail = self.texts(prediction, sample)
        seg = self._corpus._extract_corpus_statistics([hypothesis], [[r] for r in refs])[0]
        order = self._corpus.max_ngram_order
        stats = {
            "sys_len": int(seg[0]),
            "ref_len": int(seg[1]),
            "correct": [int(x) for x in seg[2 : 2 + order]],
            "total": [int(x) for x in seg[2 + order :]],
        }
        value = float(self._sentence._compute_score_from_stats(seg).score)
        return Score({"bleu": value}, stats, detail)


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
        self.params = {"char_order": char_order, "word_order": word_order, "beta": beta}
        self.lowercase = lowercase
        self.whitespace = whitespace
        self._chrf = CHRF(
            char_order=char_order,
            word_order=word_order,
            beta=beta,
            lowercase=lowercase,
            whitespace=whitespace,
        )

    def signature(self) -> dict[str, Any]:
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
