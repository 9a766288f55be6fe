"""Reading a price file (`--prices FILE`): the bounded YAML reader, then the table's checks
(`core/prices.PriceTable.from_mapping`), errors naming the file and the entry."""

from __future__ import annotations

from pathlib import Path

from audioeval.core.prices import PriceTable
from audioeval.store.yaml_file import read_yaml_mapping


def read_price_file(path: Path) -> PriceTable:
    """The price table of `path` (InputError naming the file, and the entry that is wrong)."""
    return PriceTable.from_mapping(read_yaml_mapping(path, "price file"), str(path))
