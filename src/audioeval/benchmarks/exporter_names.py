"""The registered exporters of benchmark files (`pair_exports.py`), by name: a spec's
`exports:` is checked against them when it is resolved.

Empty until `benchmarks/plugins.load_benchmarks()` registers each benchmark's `exporters`
(`benchmarks/contract.py`); whatever looks an exporter up calls it first.
"""

from __future__ import annotations

from audioeval.benchmarks.pair_exports import Exporter
from audioeval.core.registry import Registry

EXPORTERS: Registry[Exporter] = Registry("exporter")
"""Scorer or `exports:` name -> the function exporting its pairs' files."""
