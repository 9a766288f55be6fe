"""What differs between MMAR and MMAU: prediction keys, breakdown axes, printed titles."""

from __future__ import annotations

from dataclasses import dataclass

from audioeval.core.registry import Registry


@dataclass(frozen=True)
class Axis:
    """One breakdown: the item field, the official printed title, and its fixed group order.

    `fixed` groups are always listed (n = 0 prints 0.00 %), in this order; other values are
    appended in first-seen order. With `required`, an item lacking the field is bad input
    (the official script raises KeyError); otherwise it belongs to no group of this axis.
    """

    name: str
    field: str
    title: str
    fixed: tuple[str, ...] = ()
    required: bool = True


@dataclass(frozen=True)
class McqBenchmark:
    """A multiple-choice benchmark definition."""

    name: str
    prediction_keys: tuple[str, ...]
    axes: tuple[Axis, ...]
    audio_field: str
    metadata_file: str
    thinking_key: str | None = None
    rubrics: bool = False

    def axis(self, name: str) -> Axis:
        return next(a for a in self.axes if a.name == name)


MMAR = McqBenchmark(
    name="mmar",
    prediction_keys=("answer_prediction", "model_prediction"),
    axes=(
        Axis(
            "modality",
            "modality",
            "Modality-wise Accuracy:",
            (
                "sound",
                "music",
                "speech",
                "mix-sound-music",
                "mix-sound-speech",
                "mix-music-speech",
                "mix-sound-music-speech",
            ),
        ),
        Axis(
            "category",
            "category",
            "Category-wise Accuracy:",
            ("Signal Layer", "Perception Layer", "Semantic Layer", "Cultural Layer"),
        ),
        Axis("sub-category", "sub-category", "Sub-category-wise Accuracy:", required=False),
    ),
    audio_field="audio_path",
    metadata_file="MMAR-meta.jsonl",
    thinking_key="thinking_prediction",
    rubrics=True,
)

MMAU = McqBenchmark(
    name="mmau",
    prediction_keys=("model_output", "model_prediction"),
    axes=(
        Axis("task", "task", "Task-wise Accuracy:", ("sound", "music", "speech")),
        Axis("difficulty", "difficulty", "Difficulty-wise Accuracy:", ("easy", "hard", "medium")),
        Axis("sub-category", "sub-category", "Sub-category-wise Accuracy:", required=False),
    ),
    audio_field="audio_id",
    metadata_file="mmau-test-mini.json",
)

BENCHMARKS: Registry[McqBenchmark] = Registry("benchmark", [(b.name, b) for b in (MMAR, MMAU)])


def get_benchmark(name: str) -> McqBenchmark:
    """The definition for `name` (case-insensitive); InputError naming the known ones."""
    bench = BENCHMARKS.find(name.strip().lower())
    if bench is None:
        raise BENCHMARKS.unknown(name, field="benchmark")
    return bench
