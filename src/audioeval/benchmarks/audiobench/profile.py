"""The `audiobench` scoring profile: AudioBench's rules behind the hooks of
`scoring/profiles.TextProfile`.

- `wer`/`cer`: its ASR text rules (`text_rules.py`); both count AudioBench's whitespace words
  (a Chinese text is spaced per ideograph first), and the corpus rate is Σ edits / Σ
  reference words, as its `compute_score` sums jiwer's measures.
- `bleu`: its speech translation sets (CoVoST 2), `evaluate`'s sacrebleu, which is
  `sacrebleu.corpus_bleu` with one reference per sample, default smoothing and no lower-casing:
  tokenizer `zh` into Chinese and `13a` otherwise, texts as given, and an empty prediction or
  reference becomes the word `empty` (their `if len(x) == 0`).
- `mcq_match`: its string match (`string_match.py`), the MMAR / MMAU token-set rule on the
  answer and choices with their `(A) ` labels cut.
- `accuracy` (classification) has no rule here: AudioBench judges those sets with a model."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from audioeval.benchmarks.audiobench import text_rules
from audioeval.benchmarks.audiobench.string_match import RULE, unlabelled
from audioeval.scoring.profiles import TextProfile

SOURCE = "AudioLLMs/AudioBench src/dataset_src/text_normalizer/preprocess_text.py"


def wer_tokens(text: str, unit: str, language: str) -> list[str]:
    """The profile hook: AudioBench's tokens (the same for `wer` and `cer`: it scores every
    ASR set with jiwer's word error rate over its normalised text)."""
    return text_rules.tokens(text, language)


def _jiwer() -> str:
    try:
        return version("jiwer")
    except PackageNotFoundError:  # pragma: no cover - jiwer is a dependency
        return "absent"


def wer_signature(unit: str) -> dict[str, str | list[str]]:
    """The profile hook: the chain per language family, the source and jiwer's version."""
    return {
        "source": SOURCE,
        "en": text_rules.describe("en"),
        "zh": text_rules.describe("zh"),
        "jiwer": _jiwer(),
    }


ST_SOURCE = "AudioLLMs/AudioBench src/dataset_src/covost2_*_test.py (compute_score)"


def bleu_tokenizer(target_language: str) -> str:
    """Their `sacrebleu.compute(..., tokenize=...)` per CoVoST 2 set: `zh` into Chinese
    (`covost2_en_zh_test`), `13a` into any other language (en, id, ta)."""
    return "zh" if target_language == "zh" else "13a"


JUDGED = (
    "AudioBench scores its {what} with a model judge (llama3_70b_judge and others): no rule of "
    "theirs to follow, and a judge is out of this profile's scope"
)

AUDIOBENCH = TextProfile(
    name="audiobench",
    description="AudioBench's conventions (AudioLLMs/AudioBench): ASR WER, ST BLEU, string match",
    wer_tokens=wer_tokens,
    wer_signature=wer_signature,
    bleu_tokenizer=bleu_tokenizer,
    bleu_empty="empty",
    mcq_texts=unlabelled,
    mcq_rule=RULE,
    uncovered={
        "accuracy": JUDGED.format(what="classification sets (emotion, gender, accent, music genre)"),
        "asr_wer": "AudioBench has no speech generation set",
        "asr_cer": "AudioBench has no speech generation set",
    },
)
