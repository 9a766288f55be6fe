"""This benchmark's own file formats, contributed through its `Benchmark` by name:

- the source type `keyword_tsv`, its data: one line per clip, `id<TAB>audio<TAB>keywords`
  (audio relative to the file's folder, keywords separated by commas; `#` lines are comments);
- the predictions format `caption_tsv`, a model's captions produced elsewhere: one line per
  clip, `id<TAB>caption`, read by `--model predictions:FILE` (found by `auto`, or named with
  `--predictions-format caption_tsv`).

A line that cannot be read is an error naming the file, the line, the id and the field; the
other lines are read.
"""

from __future__ import annotations

from pathlib import Path

from audioeval.adapters.predictions import PredictionsRead
from audioeval.benchmarks.prediction_formats import Loader, PredictionFormat
from audioeval.benchmarks.sources.source_formats import SourceFormat, SourceRequest
from audioeval.core.errors import InputError
from audioeval.core.messages import AudioRef
from audioeval.core.sample import Sample


def _lines(path: Path) -> list[tuple[int, list[str]]]:
    """(line number, tab-separated cells) of every line that is not blank or a comment."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"unreadable: {exc}", file=str(path)) from None
    return [
        (n, line.split("\t"))
        for n, line in enumerate(text.splitlines(), 1)
        if line.strip() and not line.startswith("#")
    ]


def read_clips(asked: SourceRequest) -> tuple[list[Sample], list[InputError]]:
    """The samples of a `keyword_tsv` file."""
    path, limit = asked.path, asked.limit
    root = asked.audio_root or path.parent
    samples: list[Sample] = []
    errors: list[InputError] = []
    for n, cells in _lines(path):
        if limit is not None and len(samples) >= limit:
            break
        sid = cells[0].strip()
        if len(cells) != 3 or not sid:
            errors.append(
                InputError(
                    "expected id<TAB>audio<TAB>keywords", file=str(path), line=n, sample_id=sid or None
                )
            )
            continue
        audio = Path(cells[1].strip())
        keywords = [k.strip() for k in cells[2].split(",") if k.strip()]
        if not keywords:
            errors.append(InputError("no keyword", file=str(path), line=n, sample_id=sid, field="keywords"))
            continue
        clip = AudioRef(str(audio if audio.is_absolute() else root / audio))
        samples.append(Sample(sid, {"audio": clip}, {"keywords": keywords}, {}, str(path)))
    return samples, errors


def _captions(key: str | None) -> Loader:
    if key is not None:
        raise InputError("caption_tsv has one caption per line: no prediction key", field="prediction_key")

    def read(path: Path) -> PredictionsRead:
        captions: dict[str, str] = {}
        errors: list[InputError] = []
        for n, cells in _lines(path):
            sid = cells[0].strip()
            if len(cells) != 2 or not sid:
                errors.append(
                    InputError("expected id<TAB>caption", file=str(path), line=n, sample_id=sid or None)
                )
            elif sid in captions:
                errors.append(InputError("id repeated", file=str(path), line=n, sample_id=sid, field="id"))
            else:
                captions[sid] = cells[1].strip()
        return PredictionsRead(captions, errors)

    return read


def _is_caption_tsv(path: Path) -> bool:
    """A first line of two tab-separated cells (a JSON file starts with `{` or `[`)."""
    try:
        lines = _lines(path)
    except InputError:
        return False
    return bool(lines) and len(lines[0][1]) == 2 and not lines[0][1][0].lstrip().startswith(("{", "["))


SOURCE_TYPES = {
    "keyword_tsv": SourceFormat(read_clips, "id<TAB>audio<TAB>keywords lines, one per clip"),
}
PREDICTION_FORMATS = {
    "caption_tsv": PredictionFormat(
        _captions, "text", frozenset({"captioning"}), _is_caption_tsv, "id<TAB>caption lines"
    ),
}
