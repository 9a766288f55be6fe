"""What a sample counts for when the system under test gave no usable output.

A model that returned nothing, failed, or produced audio that cannot be read has failed the
sample; the headline counts it (the run's `failed_outputs`, shown beside the headline):

- text scorers score an absent answer: WER/CER count every reference word (character) as
  deleted, accuracy-type scorers (accuracy, includes, MCQ match) count it wrong, BLEU and
  chrF score an empty hypothesis, ROUGE-L 0;
- a scorer of a transcript (`asr_wer`, `asr_cer`, `asr_includes`) scores an empty transcript;
- a scorer with its own rule (its `failed_output_score` hook, e.g. the MMAE rubric judge:
  every rubric 0) applies it; a judged scorer without one is not scored (counted);
- other scorers of audio (SIM, DNSMOS, PESQ/STOI, UTMOS) have no honest value for a missing
  clip: the sample stays out of their means, and is counted.
"""

from __future__ import annotations

from audioeval.core.errors import InputError
from audioeval.core.record import Score
from audioeval.core.sample import Sample
from audioeval.scoring.hook_guard import ScorerHookError, call_hook
from audioeval.scoring.prediction import NO_OUTPUT as NO_OUTPUT  # re-exported: the absent answer
from audioeval.scoring.scorer_hooks import Scorer


def failed_output_score(scorer: Scorer, sample: Sample, output_kind: str) -> Score | None:
    """The score of a sample without a usable output (the scorer's `failed_output_score`
    hook, through the hook guard), or None when the scorer has none or the sample itself
    cannot be scored; ScorerHookError when the hook raised or returned a wrong value (a NaN,
    a string statistic)."""
    try:
        return call_hook(scorer, "failed_output_score", sample, output_kind)
    except ScorerHookError:
        raise
    except InputError:  # the sample itself cannot be scored (e.g. no reference): not counted
        return None


def failed_output_scores(
    scorers: list[Scorer], sample: Sample, output_kind: str, errors: list[ScorerHookError] | None = None
) -> dict[str, Score]:
    """The score (values and stats) of each scorer that has one for a failed output; a scorer
    whose hook failed has none, and its error is added to `errors` (raised when None)."""
    out: dict[str, Score] = {}
    for scorer in scorers:
        try:
            result = failed_output_score(scorer, sample, output_kind)
        except ScorerHookError as exc:
            if errors is None:
                raise
            errors.append(exc)
            continue
        if result is not None:
            out[scorer.name] = Score(result.values, result.stats)
    return out
