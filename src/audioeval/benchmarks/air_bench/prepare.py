"""The local copy of AIR-Bench that its specs read, made from AIR-Bench's own download.

    python -m audioeval.benchmarks.air_bench.prepare foundation $AUDIOEVAL_DATA/air-bench-foundation
    python -m audioeval.benchmarks.air_bench.prepare chat $AUDIOEVAL_DATA/air-bench-chat

The folder holds AIR-Bench's `Foundation/` (or `Chat/`) folder as downloaded (the Hugging Face
dataset qyang1021/AIR-Bench-Dataset), with its `Foundation_meta.json` (`Chat_meta.json`) inside
it or beside it. Each item becomes one line of `manifest.jsonl` in the folder, every key kept:
- foundation: `choice_c` and `choice_d` written (null when the item has none), `task_id` =
  task_name + "_" + dataset_name, `audio` = `Foundation/<task_name>_<dataset_name>/<path>`
  (for task Audio_Grounding the path's extension is .flac, as AIR-Bench's inference reads it);
- chat: `id` = uniq_id and `audio` = `Chat/<task_name>_<dataset_name>/<path>`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from audioeval.core.errors import InputError
from audioeval.store.atomic import write_text_atomic
from audioeval.store.json_items import read_items

PARTS = {"foundation": "Foundation", "chat": "Chat"}


def _meta(folder: Path, part: str) -> Path:
    name = f"{part}_meta.json"
    for path in (folder / part / name, folder / name):
        if path.is_file():
            return path
    raise InputError(
        f"{name} not found in {folder / part} nor in {folder}: download AIR-Bench "
        "(the Hugging Face dataset qyang1021/AIR-Bench-Dataset) into this folder first",
        file=str(folder),
    )


def foundation_row(item: dict[str, Any]) -> dict[str, Any]:
    task, dataset, path = item["task_name"], item["dataset_name"], str(item["path"])
    if task == "Audio_Grounding":
        path = str(Path(path).with_suffix(".flac"))
    return {
        **item,
        "choice_c": item.get("choice_c"),
        "choice_d": item.get("choice_d"),
        "task_id": f"{task}_{dataset}",
        "audio": f"Foundation/{task}_{dataset}/{path}",
    }


def chat_row(item: dict[str, Any]) -> dict[str, Any]:
    return {
        **item,
        "id": item["uniq_id"],
        "audio": f"Chat/{item['task_name']}_{item['dataset_name']}/{item['path']}",
    }


def prepare(kind: str, folder: Path) -> Path:
    """Write `<folder>/manifest.jsonl` from AIR-Bench's meta file; the manifest's path."""
    if kind not in PARTS:
        raise InputError(f"unknown AIR-Bench part {kind!r}: foundation or chat")
    meta = _meta(folder, PARTS[kind])
    convert = foundation_row if kind == "foundation" else chat_row
    needed = ("task_name", "dataset_name", "path") + (("uniq_id",) if kind == "chat" else ())
    lines = []
    items, _ = read_items(meta, what="AIR-Bench meta")
    for row, line in items:
        if not isinstance(row, dict):
            raise InputError(
                f"an item must be an object, got {type(row).__name__}", file=str(meta), line=line
            )
        missing = [k for k in needed if row.get(k) is None]
        if missing:
            raise InputError(
                f"item without {', '.join(missing)}", file=str(meta), line=line, field=missing[0]
            )
        lines.append(json.dumps(convert(row), ensure_ascii=False))
    out = folder / "manifest.jsonl"
    write_text_atomic(out, "".join(line + "\n" for line in lines))
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        out = prepare(args[0], Path(args[1]).expanduser())
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
