"""The summaries of a run folder, sealed when written and checked when read (part of the run
folder's checked reader, `store/run_folder.py`): each `summary.json` (the run's, each pair's)
carries a digest of its own content (`content_sha256`), and each pair summary the digests of
the pair files it was computed from (`files_sha256`: records.jsonl, signature.json,
sample_ids.json). A summary edited by hand, or whose pair files changed after it was
computed, is refused with the file named: `audioeval rescore` rebuilds it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from audioeval.core.errors import RunConfigError
from audioeval.core.json_value import JsonValue
from audioeval.store.bounded_json import loads
from audioeval.store.file_digest import file_sha256, json_digest
from audioeval.store.json_file import read_json_object
from audioeval.store.run_folder import IDS_FILE, RECORDS_FILE, SUMMARY_FILE, RunFolderError, Unvouched
from audioeval.store.signature import SIGNATURE_FILE

CONTENT_KEY = "content_sha256"
FILES_DIGEST_KEY = "files_sha256"


def sealed(data: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """`data` with the digest of its content (`CONTENT_KEY`), as a summary is written."""
    plain = {k: v for k, v in data.items() if k != CONTENT_KEY}
    return {**plain, CONTENT_KEY: json_digest(loads(json.dumps(plain, allow_nan=False)))}


def _seal_problem(data: Mapping[str, JsonValue]) -> str | None:
    stored = data.get(CONTENT_KEY)
    if stored is None:
        return "has no content digest: not as audioeval wrote it"
    if sealed(data).get(CONTENT_KEY) != stored:
        return "was changed after audioeval wrote it (its content digest differs)"
    return None


def read_summary(path: Path, run_id: str | None) -> dict[str, JsonValue] | None:
    """A summary.json written by the engine (run or pair), checked against its content digest
    in a folder with a run id; None when there is none. RunFolderError when it cannot be read
    or was changed by hand."""
    if not path.exists():
        return None
    try:
        data = read_json_object(path)
    except RunConfigError as exc:
        raise RunFolderError(
            [Unvouched(path, None, str(exc).removeprefix(f"{path}: "))], REBUILD_HINT
        ) from None
    if run_id is not None:
        why = _seal_problem(data)
        if why is not None:
            raise RunFolderError([Unvouched(path, None, why)], REBUILD_HINT)
    return data


REBUILD_HINT = "`audioeval rescore RUN` rebuilds the summaries from the records it can vouch for"


SUMMARISED_FILES = (RECORDS_FILE, SIGNATURE_FILE, IDS_FILE)
"""The pair files a pair summary is computed from, whose digests it records."""


def pair_files_digest(folder: Path) -> dict[str, str | None]:
    """The digest of each pair file a summary is computed from (None: the file is absent)."""
    return {
        name: file_sha256(folder / name) if (folder / name).is_file() else None for name in SUMMARISED_FILES
    }


def check_summary_records(run_dir: Path, results: Sequence[Mapping[str, JsonValue]], run_id: str | None) -> None:
    """RunFolderError when a pair's records.jsonl, signature.json or sample_ids.json changed
    after the summary was computed from it (a line added, removed or edited, a signature
    replaced): the summary's figures would not be those files'."""
    if run_id is None:
        return
    problems = []
    for res in results:
        folder = run_dir / str(res.get("folder", ""))
        stored = res.get(FILES_DIGEST_KEY)
        now = pair_files_digest(folder)
        for name in SUMMARISED_FILES:
            if not isinstance(stored, dict) or stored.get(name) != now[name]:
                why = "deleted" if now[name] is None else "changed"
                problems.append(
                    Unvouched(folder / name, None, f"{why} after {SUMMARY_FILE} was computed from it")
                )
    if problems:
        raise RunFolderError(problems, REBUILD_HINT)
