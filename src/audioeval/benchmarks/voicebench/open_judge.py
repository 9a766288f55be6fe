"""VoiceBench's open-ended judge (scorer `voicebench_open`: alpacaeval, commoneval, wildvoice).

VoiceBench (`api_judge.py`, `src/evaluator/open.py` @ 5338154) asks GPT-4o-mini for a 1-5
rating of the reply, three samples (`n=3`, temperature 0.5, top_p 0.95, max_tokens 1024), reads
each answer as `float(answer)`, else the integer in "[[n]]", and averages all ratings. Here: the
same rubric in our own wording (`templates/judge_voicebench_open.yaml`; VoiceBench's own text can
be given as a file), three votes with that sampling, each read as a bare number else "[[n]]"
(`postprocess/ratings.rating`), averaged. Where VoiceBench differs: an answer it cannot read
aborts its whole evaluation and a rating off the scale (or "nan") enters its mean; here either
is an invalid vote, asked again up to `max_attempts`, so no non-finite value enters a mean.
"""

from __future__ import annotations

from audioeval.benchmarks.voicebench.judge_sampling import JUDGE_SAMPLING, JUDGE_VOTES
from audioeval.judge.chat_rating import RatingJudge


class VoiceBenchOpenScorer(RatingJudge):
    """VoiceBench's open-ended judge: 1-5, the score alone, three votes averaged."""

    name = "voicebench_open"
    prompt = "judge_voicebench_open"
    value = "open_rating"
    low, high, bare_number = 1.0, 5.0, True
    default_votes = JUDGE_VOTES
    default_sampling = JUDGE_SAMPLING
