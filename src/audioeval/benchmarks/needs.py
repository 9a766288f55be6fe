"""What a benchmark needs beyond audioeval itself, read from its spec and its scorers (never
typed beside it): `audioeval list benchmarks` shows it.

- `judge`: a scorer asks a judge model (`Scorer.needs_judge`): give `--judge URL`;
- `download (Hugging Face)`: the source is a hub dataset, fetched on first use (or read from
  its local copy under the data root);
- `local data`: the source is a file or folder not shipped beside the spec: fetch or prepare it
  (the spec's `origin` and `prepare` say how; a missing source names them);
- what a scorer declares it requires (`Scorer.requires`): `metric model`, `Java`.

No built-in benchmark needs a GPU: metric models run on the CPU (a GPU only speeds them).
"""

from __future__ import annotations

from pathlib import Path

from audioeval.benchmarks.spec import BenchmarkSpec
from audioeval.scoring.scorer_hooks import Scorer

HUB_TYPES = frozenset({"hf"})


def _data_need(spec: BenchmarkSpec, where: str) -> str | None:
    src = spec.source
    if src.type in HUB_TYPES:
        return "download (Hugging Face)"
    path = Path(src.path).expanduser()
    shipped = path if path.is_absolute() else Path(where).parent / path
    return None if shipped.exists() and not (src.prepare or src.origin) else "local data"


def benchmark_needs(spec: BenchmarkSpec, where: str, scorers: list[Scorer]) -> list[str]:
    """The needs of a benchmark (see the module doc), in that order, each once."""
    out = ["judge"] if any(s.needs_judge for s in scorers) else []
    data = _data_need(spec, where)
    out += [data] if data else []
    for scorer in scorers:
        out += [str(x) for x in scorer.requires or ()]
    return list(dict.fromkeys(out))
