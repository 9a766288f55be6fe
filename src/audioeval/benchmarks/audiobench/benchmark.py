"""AudioBench as a `Benchmark` (`benchmarks/contract.py`): the `audiobench` scoring profile
(`profile.py`), its score logs as predictions formats (`audiobench_wer_log`,
`audiobench_score_log`) and as a source type (`audiobench_log`: the log itself is the
benchmark), and its string-match rule (`audiobench_string_match`)."""

from __future__ import annotations

from typing import Any

from audioeval.adapters.unkeyed_rows import BY_TEXT
from audioeval.benchmarks.audiobench import logs
from audioeval.benchmarks.audiobench.profile import AUDIOBENCH
from audioeval.benchmarks.contract import Benchmark
from audioeval.benchmarks.prediction_formats import Loader, PredictionFormat, json_object
from audioeval.benchmarks.sources.source_formats import SourceFormat
from audioeval.core.errors import InputError
from audioeval.scoring.base import DeferredFactory


def _no_key(read: Loader, name: str) -> Any:
    def reader(key: str | None) -> Loader:
        if key is not None:
            raise InputError(
                f"the {name} format has one answer key; --prediction-key does not apply",
                field="prediction_key",
            )
        return read

    return reader


def _string_match() -> Any:
    from audioeval.benchmarks.audiobench.string_match import StringMatchScorer

    return StringMatchScorer


BENCHMARK = Benchmark(
    name="audiobench",
    description="AudioBench's ASR conventions (--profile audiobench) and its score logs, read as written",
    profiles=(AUDIOBENCH,),
    scorers={"audiobench_string_match": DeferredFactory(_string_match)},
    source_types={
        "audiobench_log": SourceFormat(
            logs.read_log_samples, "an AudioBench score log (WER log or `details`), one sample per row"
        )
    },
    prediction_formats={
        "audiobench_wer_log": PredictionFormat(
            _no_key(logs.read_wer_log, "audiobench_wer_log"),
            "text",
            frozenset({"asr"}),
            json_object(logs.is_wer_log),
            'an AudioBench WER log {"wer", "sample_wer": [{"reference", "prediction", "wer"}]}',
            BY_TEXT,
            logs.sample_keys,
        ),
        "audiobench_score_log": PredictionFormat(
            _no_key(logs.read_score_log, "audiobench_score_log"),
            "text",
            frozenset({"mcq", "spoken_qa", "classification", "captioning", "audio_chat"}),
            json_object(logs.is_score_log),
            'an AudioBench score log {"details": [{"question", "reference", "model_prediction"}]}',
            BY_TEXT,
            logs.sample_keys,
        ),
    },
)
