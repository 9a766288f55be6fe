"""Word and character error rates (`wer`, `cer`) with jiwer, as summable edit counts.

Both sides pass through the same normalising chain. Unless the spec names one, the chain
follows the language (the scorer's `language` argument, else the sample's `language`
field, else English):

| language          | wer                              | cer                                    |
|-------------------|----------------------------------|----------------------------------------|
| en                | whisper_english                  | whisper_english (spaces count)         |
| zh, ja, ko, yue   | whisper_basic, cjk_split         | whisper_basic, remove_whitespace       |
| any other         | whisper_basic                    | whisper_basic (spaces count)           |

`stats` holds hits, substitutions, deletions, insertions and `ref_len` (hits +
substitutions + deletions); corpus WER is the summed edits over the summed `ref_len`.

An empty reference has `ref_len` 0: every hypothesis token is an insertion, counted in
the corpus numerator, and the per-sample value is 0.0 for an empty hypothesis, else 1.0
(no division by zero). A missing prediction (unparseable) is an empty hypothesis, so every
reference token is a deletion, and `detail["missing"]` is True. With several references
(a list in the reference field) the one with the fewest edits counts.

`profile="ultraeval"` replaces the chain and the tokens with UltraEval-Audio's
(`ultraeval_text.py`: Whisper English normaliser, SpeechIO-style Chinese normalisation,
sacrebleu `13a`/`zh` tokens); the statistics and the corpus rate stay the same. The profile
is in the signature only when it is not the default, so existing run folders stay valid.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

from audioeval.core.sample import Sample
from audioeval.postprocess.steps import PostprocessChain, SpecItem
from audioeval.scoring.base import Prediction, Score, as_normaliser
from audioeval.scoring.fields import text_list
from audioeval.scoring.ultraeval_text import DEFAULT_PROFILE, PROFILES

CJK_LANGUAGES = frozenset({"zh", "ja", "ko", "yue"})
_ALIASES = {"jp": "ja", "kr": "ko", "cmn": "zh", "cn": "zh", "english": "en", "chinese": "zh"}


def language_code(language: str | None) -> str:
    """A short language code: "zh-CN" -> "zh", "jp" -> "ja"; None -> "en"."""
    if not language:
        return "en"
    code = language.lower().replace("_", "-").split("-")[0]
    return _ALIASES.get(code, code)


def default_normaliser(unit: str, language: str | None) -> list[SpecItem]:
    """The normalising chain for a unit ("word" | "char") and language, per the table above."""
    lang = language_code(language)
    if lang in CJK_LANGUAGES:
        return ["whisper_basic", "remove_whitespace" if unit == "char" else "cjk_split"]
    return ["whisper_english"] if lang == "en" else ["whisper_basic"]


def edit_stats(reference: str, hypothesis: str, unit: str) -> dict[str, int]:
    """Hits, substitutions, deletions, insertions and reference length, words or characters."""
    ref_tokens = reference.split() if unit == "word" else list(reference.strip())
    if not ref_tokens:
        hyp_tokens = hypothesis.split() if unit == "word" else list(hypothesis.strip())
        return {"hits": 0, "substitutions": 0, "deletions": 0, "insertions": len(hyp_tokens), "ref_len": 0}
    import jiwer

    process = jiwer.process_words if unit == "word" else jiwer.process_characters
    out = process(reference, hypothesis)
    return {
        "hits": out.hits,
        "substitutions": out.substitutions,
        "deletions": out.deletions,
        "insertions": out.insertions,
        "ref_len": out.hits + out.substitutions + out.deletions,
    }


def _edits(stats: dict[str, int]) -> int:
    return stats["substitutions"] + stats["deletions"] + stats["insertions"]


def rate(stats: dict[str, int]) -> float:
    """Edits over reference length; for an empty reference 0.0 if nothing was inserted, else 1.0."""
    edits = _edits(stats)
    if stats["ref_len"] == 0:
        return 0.0 if edits == 0 else 1.0
    return edits / stats["ref_len"]


class ErrorRateScorer:
    """Error rate over words (`unit="word"`) or characters (`unit="char"`)."""

    def __init__(
        self,
        *,
        unit: str,
        normaliser: PostprocessChain | Sequence[SpecItem] | None = None,
        language: str | None = None,
        reference_field: str = "reference",
        profile: str = DEFAULT_PROFILE,
    ) -> None:
        if unit not in ("word", "char"):
            raise ValueError(f"unit must be 'word' or 'char', got {unit!r}")
        if profile not in PROFILES:
            raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
        if profile != DEFAULT_PROFILE and normaliser is not None:
            raise ValueError(f"profile {profile!r} sets the normaliser itself: drop `normaliser`")
        self.profile = profile
        self.name = "wer" if unit == "word" else "cer"
        self.metrics = (self.name,)
        self.unit = unit
        self.language = language
        self.reference_field = reference_field
        self._fixed = None if normaliser is None else as_normaliser(normaliser)
        self._by_language: dict[str, PostprocessChain] = {}

    def normaliser_for(self, sample: Sample) -> PostprocessChain:
        if self._fixed is not None:
            return self._fixed
        lang = language_code(self.language or sample.get("language"))
        if lang not in self._by_language:
            self._by_language[lang] = as_normaliser(default_normaliser(self.unit, lang))
        return self._by_language[lang]

    def signature(self) -> dict[str, Any]:
        sig: dict[str, Any] = {
            "scorer": self.name,
            "unit": self.unit,
            "language": self.language or "sample field 'language' (default en)",
            "reference_field": self.reference_field,
            "jiwer": version("jiwer"),
            "whisper_normalizer": version("whisper-normalizer"),
        }
        if self.profile != DEFAULT_PROFILE:
            from audioeval.scoring.ultraeval_text import chain_language, describe

            sig["profile"] = self.profile
            sig["normaliser"] = {
                lang: describe(chain_language(self.unit, lang)) for lang in ("en", "zh", "yue", "other")
            }
            return sig
        if self._fixed is not None:
            sig["normaliser"] = self._fixed.describe()
        else:
            sig["normaliser"] = {lang: default_normaliser(self.unit, lang) for lang in ("en", "zh", "other")}
        return sig

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        if self.profile != DEFAULT_PROFILE:
            return self._score_ultraeval(prediction, sample)
        chain = self.normaliser_for(sample)
        hypothesis = chain.normalise(prediction.text or "")
        candidates = []
        for ref in text_list(sample, self.reference_field, self.name):
            normalised = chain.normalise(ref)
            candidates.append((edit_stats(normalised, hypothesis, self.unit), normalised))
        return self._best(candidates, hypothesis, prediction)

    def _score_ultraeval(self, prediction: Prediction, sample: Sample) -> Score:
        """Their tokens, compared as words (tokens hold no spaces), so the stats are the same."""
        from audioeval.scoring.ultraeval_text import chain_language, ultraeval_tokens

        chain = chain_language(self.unit, language_code(self.language or sample.get("language")))
        hypothesis = " ".join(ultraeval_tokens(prediction.text or "", chain))
        candidates = []
        for ref in text_list(sample, self.reference_field, self.name):
            reference = " ".join(ultraeval_tokens(ref, chain))
            candidates.append((edit_stats(reference, hypothesis, "word"), reference))
        return self._best(candidates, hypothesis, prediction)

    def _best(
        self, candidates: list[tuple[dict[str, int], str]], hypothesis: str, prediction: Prediction
    ) -> Score:
        """The score against the reference with the fewest edits."""
        stats, reference = min(candidates, key=lambda c: _edits(c[0]))
        detail: dict[str, Any] = {"reference": reference, "hypothesis": hypothesis}
        if prediction.missing:
            detail["missing"] = True
            detail["outcome"] = prediction.outcome
        return Score({self.name: rate(stats)}, dict(stats), detail)


def wer_scorer(
    *,
    normaliser: PostprocessChain | Sequence[SpecItem] | None = None,
    language: str | None = None,
    reference_field: str = "reference",
    profile: str = DEFAULT_PROFILE,
) -> ErrorRateScorer:
    """`wer`: word error rate."""
    return ErrorRateScorer(
        unit="word",
        normaliser=normaliser,
        language=language,
        reference_field=reference_field,
        profile=profile,
    )


def cer_scorer(
    *,
    normaliser: PostprocessChain | Sequence[SpecItem] | None = None,
    language: str | None = None,
    reference_field: str = "reference",
    profile: str = DEFAULT_PROFILE,
) -> ErrorRateScorer:
    """`cer`: character error rate."""
    return ErrorRateScorer(
        unit="char",
        normaliser=normaliser,
        language=language,
        reference_field=reference_field,
        profile=profile,
    )
