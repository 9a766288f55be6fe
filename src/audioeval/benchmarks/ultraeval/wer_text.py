"""UltraEval-Audio's `compute_wer` text chain (`audio_evals/lib/wer.py`): the tokens whose
edit distance their ASR WER/CER counts.

Per utterance, for their compute_wer language `lang`:

1. `EN`: their English normaliser (`english_normaliser.py`) for every language;
2. `yue`: traditional → simplified (`zhconv`, zh-cn);
3. `zh` and `yue`: their Chinese normaliser `CN` (cn_tn with every option off);
4. sacrebleu tokens, lower-cased: `zh` for zh and yue (each Hanzi a token, Latin runs stay
   words), `ja-mecab` for jp, `13a` otherwise (en, kr, any other language).

The corpus rate is Σ token edits / Σ reference tokens (the scorer's sums).
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from audioeval.benchmarks.ultraeval.chinese_textnorm import normalise_chinese
from audioeval.benchmarks.ultraeval.english_normaliser import english_normalise
from audioeval.core.errors import OptionalDependencyError

TOKENIZERS = {"zh": "zh", "yue": "zh", "jp": "ja-mecab"}
"""Their compute_wer language -> sacrebleu tokenizer; any other language: 13a."""


def chain_language(unit: str, language: str) -> str:
    """Their compute_wer language for a scorer's unit and a language code, as their ASR tasks
    pass it: zh (`asr-zh`), yue, jp (`asr-jp`), kr (`asr-kr`); English and any other language
    "en" (13a), except that their `cer` evaluator is zh's, so `cer` elsewhere takes zh."""
    named = {"zh": "zh", "yue": "yue", "ja": "jp", "ko": "kr"}
    if language in named:
        return named[language]
    return "zh" if unit == "char" else "en"


def chinese_normalise(text: str) -> str:
    """`CN(text)` with their options (every option off): `chinese_textnorm.py`."""
    return normalise_chinese(text)


@cache
def _tokenizer(name: str) -> Any:
    if name == "zh":
        from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

        return TokenizerZh()
    if name == "ja-mecab":
        try:
            from sacrebleu.tokenizers.tokenizer_ja_mecab import TokenizerJaMecab

            return TokenizerJaMecab()
        except (ImportError, RuntimeError) as exc:
            raise OptionalDependencyError(
                "UltraEval-Audio tokenizes Japanese with sacrebleu's ja-mecab (MeCab + ipadic): "
                'pip install "sacrebleu[ja]"'
            ) from exc
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    return Tokenizer13a()


def ultraeval_tokens(text: str, chain: str) -> list[str]:
    """The tokens their edit distance compares, for their compute_wer language `chain`."""
    text = english_normalise(text)
    if chain == "yue":
        import zhconv

        text = zhconv.convert(text, "zh-cn")
    if chain in ("zh", "yue"):
        text = chinese_normalise(text)
    return str(_tokenizer(TOKENIZERS.get(chain, "13a"))(text)).lower().split()


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def describe(chain: str) -> dict[str, str | list[str]]:
    """The chain and the versions of the libraries it uses, for a scorer's signature."""
    steps = ["openai_whisper_english+fullwidth_latin_parens"]
    libs = {"whisper_normalizer": _version("whisper-normalizer"), "sacrebleu": _version("sacrebleu")}
    if chain == "yue":
        steps.append("zhconv_zh-cn")
        libs["zhconv"] = _version("zhconv")
    if chain in ("zh", "yue"):
        steps.append("cn_tn")
    steps.append("sacrebleu_" + TOKENIZERS.get(chain, "13a"))
    return {"steps": steps, **libs}


def wer_tokens(text: str, unit: str, language: str) -> list[str]:
    """The profile hook: tokens of `text` for a scorer's unit and a language code."""
    return ultraeval_tokens(text, chain_language(unit, language))


def wer_signature(unit: str) -> dict[str, dict[str, str | list[str]]]:
    """The profile hook: the chain of each language family, for a scorer's signature."""
    langs = ("en", "zh", "yue", "ja", "ko", "other")
    return {lang: describe(chain_language(unit, lang)) for lang in langs}
