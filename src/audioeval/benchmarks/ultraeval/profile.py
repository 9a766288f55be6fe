"""The `ultraeval` scoring profile: UltraEval-Audio's text rules behind the hooks of
`scoring/profiles.TextProfile` (docs/fidelity.md lists what each covers)."""

from __future__ import annotations

from audioeval.benchmarks.ultraeval.label_rules import TEXTS, bleu_tokenizer, their_match
from audioeval.benchmarks.ultraeval.tts_text import tts_signature, tts_text
from audioeval.benchmarks.ultraeval.wer_text import wer_signature, wer_tokens
from audioeval.scoring.profiles import TextProfile

ULTRAEVAL = TextProfile(
    name="ultraeval",
    description="UltraEval-Audio's conventions (OpenBMB/UltraEval-Audio)",
    wer_tokens=wer_tokens,
    wer_signature=wer_signature,
    tts_text=tts_text,
    tts_signature=tts_signature,
    bleu_tokenizer=bleu_tokenizer,
    accuracy_match=their_match,
    accuracy_texts=TEXTS,
)
