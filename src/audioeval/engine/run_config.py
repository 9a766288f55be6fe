"""Run configs: `audioeval run examples/understanding.yaml` is the command line as data.

```yaml
benchmarks: [librispeech-test-clean, mmau-test-mini]
models:
  - whisper-tiny.en
  - qwen2-audio@http://gpu:8000/v1
  - {name: qwen2-audio-b, urls: [http://a:8000/v1, http://b:8000/v1], served_model: Qwen/Qwen2-Audio-7B-Instruct}
task: asr                 # for ad-hoc manifests
output_dir: runs/understanding
limit: 100
data_root: ~/data
generation: {temperature: 0, max_tokens: 512, seed: 0, top_p: 1}   # also system_prompt: TEXT, core/request_settings.py
resamples: 1000
judge: {urls: [http://j:8001/v1], model: Qwen3Omni-Instruct, concurrency: 16}   # or judge: URL[,URL]
exclude_missing: false    # true: samples without a usable output stay out of the metrics
profile: ultraeval        # scoring profile of every benchmark's wer/cer (default: each spec's)
```
Relative manifest, spec and data_root paths are taken from the config's folder; output_dir
from the current directory, as on the command line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from audioeval.core.bounds import MAX_COUNT, MAX_RESAMPLES
from audioeval.core.errors import InputError
from audioeval.core.request_settings import checked_settings
from audioeval.core.settings import DEFAULTS
from audioeval.core.validation import describe_validation
from audioeval.engine.model_specs import ModelConfig, parse_model_entry
from audioeval.engine.run_judge import JudgeSettings, split_urls
from audioeval.store.yaml_file import read_yaml_mapping


class RunFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    benchmarks: list[str] | str
    models: list[Any]
    task: str | None = None
    output_dir: str | None = None
    limit: int | None = Field(None, ge=1, le=MAX_COUNT)
    data_root: str | None = None
    generation: dict[str, Any] = Field(
        default_factory=dict, description="settings of every model request (core/request_settings.py)"
    )
    resamples: int = Field(DEFAULTS["resamples"], ge=0, le=MAX_RESAMPLES)
    judge: str | list[str] | dict[str, Any] | None = None
    exclude_missing: bool = False
    profile: str | None = None  # a registered scoring profile, checked by `with_profile`


class LoadedRunConfig(BaseModel):
    benchmarks: list[str]
    models: list[ModelConfig]
    task: str | None
    output_dir: Path | None
    limit: int | None
    data_root: Path | None
    generation: dict[str, Any]
    resamples: int
    judge: JudgeSettings | None = None
    exclude_missing: bool = False
    profile: str | None = None


def parse_judge_entry(value: Any, where: str) -> JudgeSettings | None:
    """`judge:` of a run config: URL[,URL], a list of URLs, or a mapping of JudgeSettings."""
    if value is None:
        return None
    data = dict(value) if isinstance(value, dict) else {"urls": value}
    try:
        if "urls" in data:
            data["urls"] = split_urls(data["urls"])
        return JudgeSettings.model_validate(data)
    except InputError as exc:
        raise InputError(exc.message, file=where, field="judge.urls") from None
    except ValidationError as exc:
        msg, loc = describe_validation(exc.errors(), JudgeSettings.model_fields)
        raise InputError(msg, file=where, field=f"judge.{loc}") from None


def _local(base: Path, value: str) -> str:
    p = Path(value).expanduser()
    if p.is_absolute() or not (p.suffix or "/" in value):
        return value
    candidate = base / p
    return (
        str(candidate)
        if candidate.exists() or p.suffix in (".yaml", ".yml", ".jsonl", ".json", ".csv")
        else value
    )


def load_run_config(path: Path) -> LoadedRunConfig:
    where = str(path)
    data = read_yaml_mapping(path, "run config")
    try:
        cfg = RunFile.model_validate(data)
    except ValidationError as exc:
        msg, loc = describe_validation(exc.errors(), RunFile.model_fields)
        raise InputError(msg, file=where, field=loc) from None
    base = path.parent
    benches = cfg.benchmarks.split(",") if isinstance(cfg.benchmarks, str) else cfg.benchmarks
    return LoadedRunConfig(
        benchmarks=[_local(base, b.strip()) for b in benches if b.strip()],
        models=[parse_model_entry(m, where, i) for i, m in enumerate(cfg.models)],
        task=cfg.task,
        output_dir=Path(cfg.output_dir).expanduser() if cfg.output_dir else None,
        limit=cfg.limit,
        data_root=(base / Path(cfg.data_root).expanduser()) if cfg.data_root else None,
        generation=checked_settings(cfg.generation, field="generation", file=where),
        resamples=cfg.resamples,
        judge=parse_judge_entry(cfg.judge, where),
        exclude_missing=cfg.exclude_missing,
        profile=cfg.profile,
    )
