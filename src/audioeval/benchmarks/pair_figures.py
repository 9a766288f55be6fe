"""What a benchmark's exporter reads of its pair summary (`metrics/pair_summary.py`), read
once into typed values: each metric's value, CI, n and ratio terms (`Figure`), overall and in
every breakdown group, and the pair's counts. Exporters format these; they compute nothing."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from audioeval.metrics.summary_blocks import MetricBlock, PairSummary


@dataclass(frozen=True)
class Figure:
    """One metric over one group: its value (None: undefined), its CI, the samples, and the
    terms of a ratio metric (`value = total / count`: the correct answers, the samples)."""

    value: float | None = None
    ci: tuple[float | None, float | None] | None = None
    n: int = 0
    total: float | None = None
    count: float | None = None

    @classmethod
    def of(cls, block: MetricBlock | None) -> Figure:
        if not block:
            return cls()
        ci = block.get("ci")
        return cls(
            block.get("value"),
            None if not ci else (ci[0], ci[1]),
            int(block.get("n") or 0),
            block.get("total"),
            block.get("count"),
        )


Group = Mapping[str, Figure]
"""A group's figures by metric name (a metric it lacks reads as an empty `Figure`)."""


@dataclass(frozen=True)
class PairFigures:
    """A pair summary's figures: overall (`metrics`), per breakdown key and group, the samples
    (`n`), the failed outputs (their count and ids)."""

    metrics: dict[str, Figure]
    breakdowns: dict[str, dict[str, dict[str, Figure]]] = field(default_factory=dict)
    n: int | None = None
    failed_outputs: int = 0
    failed_output_ids: tuple[str, ...] = ()

    @classmethod
    def of(cls, pair: PairSummary) -> PairFigures:
        without = pair.get("failed_outputs") or {}
        return cls(
            {name: Figure.of(block) for name, block in (pair.get("metrics") or {}).items()},
            {
                key: {g: {name: Figure.of(b) for name, b in blocks.items()} for g, blocks in groups.items()}
                for key, groups in (pair.get("breakdowns") or {}).items()
            },
            pair.get("n"),
            int(without.get("n", 0)),
            tuple(without.get("ids") or ()),
        )

    def group(self, key: str, name: str) -> dict[str, Figure]:
        """The figures of one group of a breakdown (none: no sample of it in the metrics)."""
        return self.breakdowns.get(key, {}).get(name, {})
