"""Grouping samples for breakdowns: which groups a taxonomy value names, and members per group.

The one grouping of every breakdown (corpus metrics of `audioeval run`, MMAE taxonomy
tables, MMAR/MMAU axes). A sample is in every group its keys name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

Item = TypeVar("Item")


def taxonomy_groups(value: Any, *, missing: str | None = None) -> list[str]:
    """The groups of one taxonomy value: each distinct element of a list (a multi-operation
    MMAE sample counts in every operation it has), else the value itself; a missing value is
    in the group `missing`, or in none."""
    if value is None:
        return [] if missing is None else [missing]
    if isinstance(value, list | tuple):
        return list(dict.fromkeys(str(v) for v in value if v is not None))
    return [str(value)]


def group_by(
    items: Iterable[Item],
    keys: Callable[[Item], Iterable[str]],
    *,
    fixed: Sequence[str] = (),
) -> dict[str, list[Item]]:
    """Members per group, in item order: the `fixed` groups first (kept when empty), then
    the others in the order they are first seen."""
    groups: dict[str, list[Item]] = {name: [] for name in fixed}
    for item in items:
        for key in keys(item):
            groups.setdefault(key, []).append(item)
    return groups
