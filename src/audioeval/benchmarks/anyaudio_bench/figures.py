"""The metrics of judge-eval's pair summary, by name (the preset's spec names them; the summary
formats them). Light on purpose: the preset is read when the benchmarks load."""

SCORE_METRICS = ("mean:rubric_score", "auroc", "ece", "mean:label_yes")
"""What the pair summary of the judged rows computes whatever the threshold: the mean score,
AUROC, ECE and the share of yes labels (`metrics/binary_judge.py`)."""
THRESHOLD_METRICS = ("accuracy", "balanced_accuracy", "macro_accuracy", "mean:said_yes")
"""What it computes at a threshold each row's record holds its verdict at (the default or
`--threshold`, known before judging: `items_scorer.py`; else `tuned.py`)."""
METRICS = (*SCORE_METRICS, *THRESHOLD_METRICS)
