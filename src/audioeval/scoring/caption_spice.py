"""SPICE 1.0 as the COCO caption evaluation runs it (pycocoevalcap's spice-1.0.jar), kept in one
JVM for the whole process (`caption_spice_lines.java`).

SPICE parses captions with Stanford CoreNLP 3.6.0, which pycocoevalcap does not ship: its
`get_stanford_models` downloads it on first use. audioeval never downloads it: it reads the
two jars from `$AUDIOEVAL_SPICE_CORENLP` (a folder), else from pycocoevalcap's `spice/lib/`
(where `get_stanford_models` puts them), and stops with `SPICE_HINT` when they are in neither.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

from audioeval.core.errors import OptionalDependencyError
from audioeval.scoring.caption_java import (
    JavaItemError,
    JavaToolError,
    LineProcess,
    coco_dir,
    shared_process,
)
from audioeval.store.bounded_json import loads

SPICE_JAR = "spice-1.0.jar"
CORENLP_JARS = ("stanford-corenlp-3.6.0.jar", "stanford-corenlp-3.6.0-models.jar")
CORENLP_ENV = "AUDIOEVAL_SPICE_CORENLP"
SPICE_HINT = (
    "SPICE (and SPIDEr, which needs it) needs Stanford CoreNLP 3.6.0, which is not installed and "
    f"is never downloaded: put {CORENLP_JARS[0]} and {CORENLP_JARS[1]} (from "
    "stanford-corenlp-full-2015-12-09.zip of the Stanford NLP group, or Maven "
    "edu.stanford.nlp:stanford-corenlp:3.6.0 and its `models` jar) in a folder and set "
    f"{CORENLP_ENV}=/that/folder, or drop the `spice` scorer and the `spice`/`spider` metrics"
)
_SOURCE = Path(__file__).with_name("caption_spice_lines.java")


def corenlp_jars() -> list[Path]:
    """The two CoreNLP 3.6.0 jars SPICE needs, or OptionalDependencyError naming what is missing."""
    configured = os.environ.get(CORENLP_ENV)
    folder = Path(configured) if configured else coco_dir() / "spice" / "lib"
    jars = [folder / name for name in CORENLP_JARS]
    missing = [str(j) for j in jars if not j.is_file()]
    if missing:
        where = f"${CORENLP_ENV} is {configured!r}; " if configured else f"${CORENLP_ENV} is not set; "
        raise OptionalDependencyError(f"{where}missing {', '.join(missing)}. {SPICE_HINT}")
    return jars


def _spice() -> LineProcess:
    folder = coco_dir() / "spice"
    classpath = os.pathsep.join([str(folder / SPICE_JAR), *(str(j) for j in corenlp_jars())])
    args = ["-Xmx8G", "-Dfile.encoding=UTF-8", "-cp", classpath, str(_SOURCE)]
    return shared_process("SPICE", args, folder)


class SpiceScores(TypedDict):
    """SPICE's scores of one kind of tuple (`All`): precision, recall and F."""

    pr: float
    re: float
    f: float


def spice_f(hypothesis: str, references: Sequence[str]) -> dict[str, float]:
    """SPICE's `All` precision, recall and F of one tokenised hypothesis against its references."""
    item = [{"image_id": 0, "test": hypothesis, "refs": list(references)}]
    (answer,) = _spice().ask([json.dumps(item)], 1)
    if answer.startswith("ERROR "):  # this item's failure (SpiceLines caught it): the sample's
        raise JavaItemError(f"SPICE failed on this caption: {answer[6:]}")
    try:
        scores: SpiceScores = loads(answer)[0]["scores"]["All"]
        return {k: float(scores[key]) for k, key in (("f", "f"), ("precision", "pr"), ("recall", "re"))}
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise JavaToolError(f"SPICE answered {answer[:200]!r}") from exc
