"""MMAE taxonomy groups: which group a sample is in for each taxonomy key its run samples
carry (`source.sample_taxonomy`); the breakdowns and crosses are declared in `preset.py` and
computed by the engine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Row = Mapping[str, Any]


def complexity_group(complexity: str) -> str:
    return "single" if complexity == "single" else "multiple"


def granularity_group(granularity: Sequence[str]) -> str:
    """'local', 'global', or 'mix' when a sample lists both (the paper's Mix share)."""
    values = sorted({g.lower() for g in granularity})
    if not values:
        return "unspecified"
    return values[0] if len(values) == 1 else "mix"


def operation_keys(row: Row) -> list[str]:
    """One group per distinct operation, keyed `granularity:operation` (alteration exists
    at both granularities)."""
    keys = {
        f"{op['granularity']}:{op['operation']}" if op["granularity"] else op["operation"]
        for op in row["operations"]
    }
    return sorted(keys)
