"""The latest record of each sample of a pair folder, as the analyses of many runs read it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from audioeval.core.record import latest_records
from audioeval.store.run_folder import RunFolderError, read_pair, read_run_file, run_id_of
from audioeval.store.run_summaries import REBUILD_HINT


def pair_latest(folder: Path, cache: dict[Path, dict[str, Any]], run_dir: Path) -> dict[str, Any]:
    """The latest record of each sample of a pair folder that the run folder's checked reader
    vouches for (of its `sample_ids.json`, when it has one), read once per folder into `cache`;
    none without `records.jsonl`. RunFolderError when the pair's files cannot be used."""
    if folder not in cache:
        found = read_pair(folder, run_id_of(read_run_file(run_dir)))
        if found.refused:
            raise RunFolderError(found.refused, REBUILD_HINT)
        cache[folder] = latest_records(found.records)
    return cache[folder]
