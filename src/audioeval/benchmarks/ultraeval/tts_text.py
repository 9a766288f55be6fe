"""UltraEval-Audio's TTS WER text (`audio_evals/evaluator/seed_tts_eval_asr_wer.py`, their
port of Seed-TTS-eval's `process_one`), used by Seed-TTS-Eval, CV3-Eval and MiniMax tasks.

Per utterance: every character of zhon's CJK punctuation and of ASCII punctuation except `'`
is deleted (not replaced by a space), then one `"  "` → `" "` pass; then

- zh, ja, yue, th, ko: the text as its characters with whitespace dropped (case kept);
- any other language: lower-cased words.

A zh transcript is converted traditional → simplified (`zhconv`, zh-cn) first; the
reference never is. The rate is jiwer's WER over the whitespace words of the two texts, and
the corpus value is the mean of per-utterance rates (`cer%` for the character languages,
`wer%` otherwise; here `mean_cer` / `mean_wer` after the scorer).
"""

from __future__ import annotations

import string
from importlib.metadata import PackageNotFoundError, version

CHARACTER_LANGUAGES = frozenset({"zh", "ja", "yue", "th", "ko"})

# zhon 2.1.1 `zhon.hanzi.punctuation` (data; it includes the ideographic space U+3000)
_ZHON_PUNCTUATION = (
    "＂＃＄％＆＇（）＊＋，－／：；＜＝＞＠［＼］＾＿｀｛｜｝～｟｠｢｣､\u3000、〃〈〉《》「」『』【】〔〕〖〗〘〙〚〛"
    "〜〝〞〟〰〾〿–—‘’‛“”„‟…‧﹏﹑﹔·．！？｡。"
)
_STRIP = str.maketrans({c: None for c in _ZHON_PUNCTUATION + string.punctuation if c != "'"})


def tts_text(text: str, language: str, transcript: bool = False) -> str:
    """Their text for jiwer, for a language code; `transcript`: the ASR output (a zh one is
    converted traditional → simplified first)."""
    if transcript and language == "zh":
        import zhconv

        text = zhconv.convert(text, "zh-cn")
    text = text.translate(_STRIP).replace("  ", " ")
    if language in CHARACTER_LANGUAGES:
        return " ".join(c for c in text if c.strip())
    return text.lower()


def tts_signature() -> dict[str, str | list[str]]:
    """The chain, for a scorer's signature."""
    try:
        zhconv = version("zhconv")
    except PackageNotFoundError:
        zhconv = "not installed"
    return {
        "steps": ["zh transcript: zhconv_zh-cn", "delete zhon 2.1.1 + ASCII punctuation except '"],
        "characters": sorted(CHARACTER_LANGUAGES),
        "words": "any other language, lower-cased",
        "corpus": "mean of per-sample rates",
        "jiwer": version("jiwer"),
        "zhconv": zhconv,
    }
