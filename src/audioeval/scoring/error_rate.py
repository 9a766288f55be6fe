"""Word and character error rates (`wer`, `cer`) with jiwer, as summable edit counts.

Both sides pass through the same normalising chain. Unless the spec names one, the chain
follows the language: the sample's `language` field when it has one (a row of a manifest
may carry its own), else the scorer's `language` argument (the benchmark's), else English.
A `wer` scorer thus counts words of an English row and characters of a Chinese one:

| language          | wer                              | cer                                    |
|-------------------|----------------------------------|----------------------------------------|
| en                | whisper_english                  | whisper_english (spaces count)         |
| zh, ja, ko, yue   | whisper_basic, cjk_split         | whisper_basic, cjk_split (tokens)      |
| any other         | whisper_basic                    | whisper_basic (spaces count)           |

A CJK `cer` counts each CJK character as a token and a run of Latin letters or digits as one
token ("iphone" is 1), as WeNet's, ESPnet's, AudioBench's and UltraEval-Audio's scorers count;
`cer` with `latin: letter` keeps the older rule (whitespace removed, every character a token,
so "iphone" is 6), by name and in the signature.

`stats` holds hits, substitutions, deletions, insertions and `ref_len` (hits +
substitutions + deletions); corpus WER is the summed edits over the summed `ref_len`.

An empty reference has `ref_len` 0: every hypothesis token is an insertion, counted in
the corpus numerator, and the per-sample value is 0.0 for an empty hypothesis, else 1.0
(no division by zero). A missing prediction (unparseable) is an empty hypothesis, so every
reference token is a deletion, and `detail["missing"]` is True. With several references
(a list in the reference field) the one with the fewest edits counts.

A scoring `profile` other than the default (`scoring/profiles.py`; `ultraeval` is registered
by benchmarks/ultraeval/) replaces the chain and the tokens with the profile's `wer_tokens`;
the statistics and the corpus rate stay the same, and a sample whose reference is empty
after normalisation is not scored (an InputError: their evaluator fails on it). With
`tts=True` (set by `asr_wer`/`asr_cer`, a transcript of generated speech) it is the profile's
`tts_text` instead, `stats` also hold the per-sample rate under the scorer's name, and the
scorer feeds `mean_wer` / `mean_cer` (the mean of those rates) in place of the corpus rate.
The profile is in the signature only when it is not the default, so existing run folders
stay valid.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib.metadata import version
from typing import Any

from audioeval.core.errors import InputError, NotScorable
from audioeval.core.sample import Sample
from audioeval.postprocess.steps import PostprocessChain, SpecItem
from audioeval.scoring.base import Prediction, Score, Scorer, as_normaliser
from audioeval.scoring.fields import text_list
from audioeval.scoring.prediction import MissingDetail
from audioeval.scoring.profiles import DEFAULT_PROFILE, profile_hook
from audioeval.scoring.scorer_hooks import ScorerSignature

CJK_LANGUAGES = frozenset({"zh", "ja", "ko", "yue"})
_ALIASES = {"jp": "ja", "kr": "ko", "cmn": "zh", "cn": "zh"}
# language names as datasets write them (FLEURS: "English", "Mandarin Chinese", …)
_NAMES = {
    "english": "en",
    "chinese": "zh",
    "mandarin": "zh",
    "mandarin chinese": "zh",
    "cantonese": "yue",
    "cantonese chinese": "yue",
    "japanese": "ja",
    "korean": "ko",
}
_CODE = re.compile(r"[a-z]{2,3}")


# a language name (not a code) names one of the languages with a chain of their own by one
# of these words ("Simplified Chinese", "English (US)"); any other name is "another language"
_NAME_WORDS = (("cantonese", "yue"), ("chinese", "zh"), ("mandarin", "zh"), ("japanese", "ja"))
_NAME_WORDS += (("korean", "ko"), ("english", "en"))
_OTHER_NAME = re.compile(r"[a-z][a-z ()'-]*")
OTHER_LANGUAGE = "other"


def language_code(language: str | None) -> str:
    """A short language code: "zh-CN" -> "zh", "jp" -> "ja", "Mandarin Chinese" -> "zh"; None -> "en".

    A name of any other language ("French", "Swahili") is "other": scored by the chain of a
    language that is neither English nor Chinese, Japanese, Korean or Cantonese."""
    if not language:
        return "en"
    text = str(language).strip().lower().replace("_", "-")
    if text in _NAMES:
        return _NAMES[text]
    if " " in text or "(" in text or len(text.split("-")[0]) > 3:
        found = {code for word, code in _NAME_WORDS if word in text}
        if "yue" in found:  # "Yue Chinese (Cantonese)"
            found.discard("zh")
        if len(found) == 1:
            return found.pop()
        if not found and _OTHER_NAME.fullmatch(text):
            return OTHER_LANGUAGE
    code = text.split("-")[0]
    return _ALIASES.get(code, code)


def sample_language(sample: Sample, fallback: str | None, field: str = "language") -> str:
    """The language code of a sample: its own `field` (`language`) when set, else `fallback`
    (the benchmark's). A value that is neither a code nor a known name is an InputError."""
    value = sample.get(field)
    if value is None or value == "":
        return language_code(fallback)
    code = language_code(value)
    if code != OTHER_LANGUAGE and not _CODE.fullmatch(code):
        raise InputError(
            f"{field} {value!r} is not a language code (en, zh, zh-CN, yue, …) or a known name",
            file=getattr(sample, "source", None) or None,
            sample_id=getattr(sample, "id", None),
            field=field,
        )
    return code


LATIN_RULES = ("word", "letter")
"""How a CJK `cer` counts Latin text: a run of letters or digits as one token, or each letter."""


def default_normaliser(unit: str, language: str | None, latin: str = "word") -> list[SpecItem]:
    """The normalising chain for a unit ("word" | "char") and language, per the table above."""
    lang = language_code(language)
    if lang in CJK_LANGUAGES:
        return ["whisper_basic", "remove_whitespace" if unit == "char" and latin == "letter" else "cjk_split"]
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


class ErrorRateSignature(ScorerSignature, total=False):
    unit: str
    language: str
    reference_field: str | None
    jiwer: str
    whisper_normalizer: str
    profile: str
    tts: str
    normaliser: Any  # the chain (a spec list, one per language), or a profile's own description
    cjk_tokens: str


class ErrorRateDetail(MissingDetail, total=False):
    reference: str  # the reference with the fewest edits, normalised
    hypothesis: str


class ErrorRateScorer(Scorer[ErrorRateDetail]):
    """Error rate over words (`unit="word"`) or characters (`unit="char"`)."""

    def __init__(
        self,
        *,
        unit: str,
        normaliser: PostprocessChain | Sequence[SpecItem] | None = None,
        language: str | None = None,
        reference_field: str = "reference",
        profile: str = DEFAULT_PROFILE,
        tts: bool = False,
        latin: str = "word",
    ) -> None:
        if unit not in ("word", "char"):
            raise ValueError(f"unit must be 'word' or 'char', got {unit!r}")
        if latin not in LATIN_RULES:
            raise ValueError(f"latin must be one of {', '.join(LATIN_RULES)}, got {latin!r}")
        self.latin = latin
        self.name = "wer" if unit == "word" else "cer"
        self._tts_text: Any = None
        self._tokens: Any = None
        if tts:
            self._tts_text = profile_hook(profile, lambda p: p.tts_text, f"{self.name} of generated speech")
        else:
            self._tokens = profile_hook(profile, lambda p: p.wer_tokens, self.name)
        if profile != DEFAULT_PROFILE and normaliser is not None:
            raise ValueError(f"profile {profile!r} sets the normaliser itself: drop `normaliser`")
        self.profile = profile
        self.seed_tts = self._tts_text is not None
        # a profile's TTS value is the mean of per-sample rates (`mean_wer`), not Σ edits / Σ words;
        # a benchmark's `wer` is then that mean (`benchmarks/resolved.profile_metric_names`)
        self.metrics = (f"mean_{self.name}",) if self.seed_tts else (self.name,)
        self.metric_renames = {self.name: f"mean_{self.name}"} if self.seed_tts else {}
        self.unit = unit
        self.language = language
        self.reference_field = reference_field
        self._fixed = None if normaliser is None else as_normaliser(normaliser)
        self._by_language: dict[str, PostprocessChain] = {}

    def normaliser_for(self, sample: Sample) -> PostprocessChain:
        if self._fixed is not None:
            return self._fixed
        lang = sample_language(sample, self.language)
        if lang not in self._by_language:
            self._by_language[lang] = as_normaliser(default_normaliser(self.unit, lang, self.latin))
        return self._by_language[lang]

    def token_unit(self, sample: Sample) -> str:
        """What one token is for this sample under the default chain: a whitespace word, or a
        character; a CJK `cer` counting Latin words whole compares the `cjk_split` tokens."""
        if self.unit == "char" and self._fixed is None and self.latin == "word":
            if language_code(sample_language(sample, self.language)) in CJK_LANGUAGES:
                return "word"
        return self.unit

    def signature(self) -> ErrorRateSignature:
        sig: ErrorRateSignature = {
            "scorer": self.name,
            "unit": self.unit,
            "language": self.language or "sample field 'language' (default en)",
            "reference_field": self.reference_field,
            "jiwer": version("jiwer"),
            "whisper_normalizer": version("whisper-normalizer"),
        }
        if self.profile != DEFAULT_PROFILE:
            sig["profile"] = self.profile
            if self.seed_tts:
                sig["tts"] = "mean of per-utterance rates"
                tts_chain = profile_hook(self.profile, lambda p: p.tts_signature, self.name)
                sig["normaliser"] = tts_chain() if tts_chain is not None else None
            else:
                wer_chain = profile_hook(self.profile, lambda p: p.wer_signature, self.name)
                sig["normaliser"] = wer_chain(self.unit) if wer_chain is not None else None
            return sig
        if self._fixed is not None:
            sig["normaliser"] = self._fixed.describe()
        else:
            sig["normaliser"] = {
                lang: default_normaliser(self.unit, lang, self.latin) for lang in ("en", "zh", "other")
            }
            if self.unit == "char":
                sig["cjk_tokens"] = (
                    "each CJK character; a Latin run one token"
                    if self.latin == "word"
                    else "each character, whitespace removed"
                )
        return sig

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        if self.profile != DEFAULT_PROFILE:
            return self._score_profile(prediction, sample)
        chain = self.normaliser_for(sample)
        unit = self.token_unit(sample)
        hypothesis = chain.normalise(prediction.text or "")
        candidates = []
        for ref in text_list(sample, self.reference_field, self.name):
            normalised = chain.normalise(ref)
            candidates.append((edit_stats(normalised, hypothesis, unit), normalised))
        return self._best(candidates, hypothesis, prediction)

    def _score_profile(self, prediction: Prediction, sample: Sample) -> Score:
        """Their tokens, compared as words (tokens hold no spaces), so the stats are the same.
        A reference with no tokens is left out; a sample with none left is not scored."""
        lang = sample_language(sample, self.language)
        if self.seed_tts:
            return self._score_seed_tts(prediction, sample, lang)
        hypothesis = " ".join(self._tokens(prediction.text or "", self.unit, lang))
        candidates = []
        for ref in text_list(sample, self.reference_field, self.name):
            reference = " ".join(self._tokens(ref, self.unit, lang))
            if reference:
                candidates.append((edit_stats(reference, hypothesis, "word"), reference))
        return self._best(self._scorable(candidates, sample), hypothesis, prediction)

    def _score_seed_tts(self, prediction: Prediction, sample: Sample, lang: str) -> Score:
        """The profile's TTS text: jiwer's WER of one utterance over the whitespace words of the
        two texts; the rate goes into `stats` too, for the corpus mean of rates."""
        hypothesis = self._tts_text(prediction.text or "", lang, True)
        candidates = []
        for ref in text_list(sample, self.reference_field, self.name):
            reference = self._tts_text(ref, lang, False)
            if reference.split():
                candidates.append((edit_stats(reference, hypothesis, "word"), reference))
        score = self._best(self._scorable(candidates, sample), hypothesis, prediction)
        return Score(score.values, {**score.stats, self.name: score.values[self.name]}, score.detail)

    def _scorable(
        self, candidates: list[tuple[dict[str, int], str]], sample: Sample
    ) -> list[tuple[dict[str, int], str]]:
        """The candidates, or NotScorable when every reference is empty after normalisation:
        under a profile this scorer does not score such a sample (their evaluator fails on it);
        the sample's other scorers still do (their English ASR runs only its WER)."""
        if not candidates:
            raise NotScorable(
                f"the reference is empty after normalisation; under profile {self.profile} the "
                "sample is not scored",
                file=getattr(sample, "source", None) or None,
                sample_id=getattr(sample, "id", None),
                field=self.reference_field,
            )
        return candidates

    def _best(
        self, candidates: list[tuple[dict[str, int], str]], hypothesis: str, prediction: Prediction
    ) -> Score:
        """The score against the reference with the fewest edits."""
        stats, reference = min(candidates, key=lambda c: _edits(c[0]))
        detail: ErrorRateDetail = {"reference": reference, "hypothesis": hypothesis}
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
    tts: bool = False,
) -> ErrorRateScorer:
    """`wer`: word error rate (`tts`: of a transcript of generated speech, see the module doc)."""
    return ErrorRateScorer(
        unit="word",
        normaliser=normaliser,
        language=language,
        reference_field=reference_field,
        profile=profile,
        tts=tts,
    )


def cer_scorer(
    *,
    normaliser: PostprocessChain | Sequence[SpecItem] | None = None,
    language: str | None = None,
    reference_field: str = "reference",
    profile: str = DEFAULT_PROFILE,
    tts: bool = False,
    latin: str = "word",
) -> ErrorRateScorer:
    """`cer`: character error rate (`tts`: of a transcript of generated speech, see the module
    doc); `latin: letter` counts each Latin letter of a CJK text (the older default)."""
    return ErrorRateScorer(
        unit="char",
        normaliser=normaliser,
        language=language,
        reference_field=reference_field,
        profile=profile,
        tts=tts,
        latin=latin,
    )
