"""Every scorer registered from above the scoring layer (the judged ones), in one import.

`scoring/base.py` registers the scorers of its own layer; scorers that need the judge layer
or a benchmark's own code register from their packages. Whatever resolves scorer names
(`benchmarks/resolved.py`, `audioeval list scorers`) imports this module first.
"""

from __future__ import annotations

import audioeval.benchmarks.mcq.scorer_registration  # noqa: F401
import audioeval.benchmarks.mmae.scorer_registration  # noqa: F401
import audioeval.benchmarks.rubric_items.scorer_registration  # noqa: F401
import audioeval.judge.scorer_registration  # noqa: F401
