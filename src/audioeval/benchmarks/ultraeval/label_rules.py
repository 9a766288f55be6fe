"""UltraEval-Audio's accuracy matching (`audio_evals/evaluator/base.py`: `EM`, `PrefixMatch`,
`ExistMatch`, each rewriting the prediction before `accuracy_score`) and its BLEU tokenizer
per direction (`audio_evals/agg/base.py`, `BLEU`)."""

from __future__ import annotations

TEXTS = {
    "exact": "strip (case kept; a numeric gold compares as float)",
    "prefix": "lower, strip; the prediction cut to the gold's length",
    "exist": "strip, lower; the prediction becomes the gold on a hit",
}


def their_match(match: str, pred: str, gold: str, numeric: bool = False) -> tuple[bool, str, str]:
    """(hit, the prediction as rewritten, the gold as compared). A prediction that is no
    number against a numeric gold is a miss."""
    if match == "prefix":
        p, g = pred.lower().strip(), gold.lower().strip()
        return p[: len(g)] == g, p[: len(g)], g
    if match == "exist":
        p, g = pred.strip().lower(), gold.strip().lower()
        return g in p, g if g in p else p, g
    p, g = pred.strip(), gold.strip()
    if numeric:
        try:
            return float(p) == float(g), g if float(p) == float(g) else p, g
        except ValueError:
            return False, p, g
    return p == g, p, g


def bleu_tokenizer(target_language: str) -> str:
    """`zh` for a Chinese target, `13a` for any other (their `bleu-zh` / `bleu` tasks)."""
    return "zh" if target_language == "zh" else "13a"
