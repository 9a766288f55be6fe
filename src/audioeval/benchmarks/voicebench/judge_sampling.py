"""How VoiceBench's `api_judge.py` (commit 5338154) asks its judge, GPT-4o-mini, for both of
its judges (`open_judge.py`, `qa_judge.py`): three samples (`n=3`) at temperature 0.5, top_p
0.95, max_tokens 1024."""

from __future__ import annotations

from audioeval.adapters.chat_wire import SamplingFields

JUDGE_VOTES = 3
JUDGE_SAMPLING: SamplingFields = {"temperature": 0.5, "top_p": 0.95, "max_tokens": 1024}
