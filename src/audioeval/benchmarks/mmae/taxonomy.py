"""MMAE taxonomy groups: which group a sample is in for each taxonomy key its run samples
carry (`source.sample_taxonomy`); the breakdowns and crosses are declared in `preset.py` and
computed by the engine."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def complexity_group(complexity: str) -> str:
    return "single" if complexity == "single" else "multiple"


def granularity_group(granularity: Sequence[str]) -> str:
    """'local', 'global', or 'mix' when a sample lists both (the paper's Mix share)."""
    values = sorted({g.lower() for g in granularity})
    if not values:
        return "unspecified"
    return values[0] if len(values) == 1 else "mix"


def operation_keys(operations: Iterable[tuple[str, str]]) -> list[str]:
    """One group per distinct operation of a sample's (granularity, operation) pairs, keyed
    `granularity:operation` (alteration exists at both granularities)."""
    return sorted({f"{granularity}:{operation}" if granularity else operation for granularity, operation in operations})
