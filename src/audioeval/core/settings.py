"""The one declaration of the settings shared by `audioeval run`, every preset command (`mmae
score`, `mcq score`, `judge-eval`, …) and the Python API (`audioeval.evaluate`): each one's
name, flags, type, default, bounds and help, once.

Every front door is generated from this table: the typer options of `run`, `codec`, `rescore`
and of every preset (`cli/setting_options.py`), the shared option groups a preset exposes
(`benchmarks/preset.SHARED_OPTIONS`) and the values its runner fills in
(`presets/preset_run.SHARED_DEFAULTS`), the keyword defaults and the checks of the Python API
(`api.py`) and the defaults of `engine/evaluate.EvalRequest`, `JudgeSettings`, `ModelConfig`
and the run config's `resamples`. The numeric checks of every flag
(`cli/number_flags.py`) read their bounds here. A flag has one meaning: one setting per flag
name (two settings may share a flag only when they are the same setting of two roles, as
`--audio-part` of the judge and of the model under test, with one type, default, bounds and
help). tests/test_settings_declared_once.py walks every command and the API against it.

A preset may give a shared setting its own default (`Preset.defaults`: MMAR-Rubrics' judge
model, or `REQUIRED` for a value it cannot do without) and its own help wording
(`Preset.helps`); never its own bounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audioeval.core.bounds import (
    MAX_CONCURRENCY,
    MAX_COST,
    MAX_COUNT,
    MAX_RESAMPLES,
    MAX_SAMPLE_RATE,
    MAX_SECONDS,
    MAX_SEED,
    MAX_TEMPERATURE,
    MAX_TOKENS,
)
from audioeval.core.checks import number_problem
from audioeval.core.errors import InputError

GROUPS = ("judge", "run", "model", "data")
"""`judge`: the judge's endpoints and settings; `run`: the run's folder, cache, seed, resamples,
failure limit; `model`: the model under test at OpenAI-compatible endpoints; `data`: which
samples and where their data live."""


@dataclass(frozen=True)
class Setting:
    """One shared setting."""

    name: str
    """The value's name: the typer parameter, the key of a preset's values."""
    group: str
    flags: tuple[str, ...]
    """Its flags, the canonical one first (`--progress/--no-progress`: an on/off pair)."""
    type: type
    """`int`, `float`, `str`, `bool` or `Path`."""
    default: Any
    help: str
    optional: bool = False
    """The value may be None (not given)."""
    minimum: float | None = None
    """The smallest value of a number (none: 0)."""
    maximum: float | None = None
    """The largest value of a number (a constant of `core/bounds.py`, where every bound's
    value lives; this table says which setting it bounds)."""
    choices: tuple[str, ...] = ()
    """The values a `str` setting accepts (none: any)."""
    hidden: bool = False
    """Accepted, not shown in help (an older spelling's own setting)."""
    keyword: str | None = None
    """Its keyword in the Python API (`audioeval.evaluate`), also the `EvalRequest` field of the
    same name where there is one (None: not a keyword; the endpoint settings of the model
    under test are a `ModelConfig`'s own); `negated`: the keyword is the positive form of the
    flag (`use_cache` for `--no-cache`)."""
    negated: bool = False
    api_default: Any = ...
    """The Python API's default where it differs from the commands' (`progress`: a library
    call is quiet unless asked); ... : the same."""

    @property
    def flag(self) -> str:
        """The canonical flag, as errors name it (`--progress` of `--progress/--no-progress`)."""
        return self.flags[0].split("/")[0]

    @property
    def numeric(self) -> bool:
        return self.type in (int, float)

    @property
    def lowest(self) -> float:
        return 0.0 if self.minimum is None else self.minimum

    def problem(self, value: Any) -> str | None:
        """Why `value` is not a value of this setting, or None (None is fine when optional)."""
        if value is None:
            return None if self.optional else "must be given"
        if self.numeric:
            if isinstance(value, bool) or not isinstance(value, int | float):
                return f"must be a number, got {type(value).__name__}"
            if self.type is int and not isinstance(value, int):
                return f"must be a whole number, got {value!r}"
            return number_problem(value, minimum=self.lowest, maximum=self.maximum)
        if self.choices and value not in self.choices:
            return f"must be one of {', '.join(self.choices)}, got {value!r}"
        return None

    @property
    def keyword_default(self) -> Any:
        """The API keyword's default."""
        if self.api_default is not ...:
            return self.api_default
        return (not self.default) if self.negated else self.default


JUDGE_PROMPT_HELP = (
    "A prompt template file (YAML: name, system, user, audio) for every judged scorer, in place "
    "of its built-in prompt, e.g. the benchmark's official prompt (docs/judging.md lists the "
    "variables each scorer passes); its digest joins the signature."
)
MAX_FAILED_HELP = (
    "Failed samples accepted before the command exits with code 4: a share written with a "
    "decimal point or % (0.05, 5%, 1.0 = any) or a whole count (3). Default 0: none."
)
PRICES_HELP = (
    "A price file (YAML: model name or glob -> $ per million input_text, input_audio, output_text, "
    "output_audio tokens, or per audio_minute; docs/cost.md): summaries, boards and pages show what "
    "each model and judge cost. A model it does not price has an unknown cost, never 0."
)
MAX_CALLS_HELP = (
    "Stop cleanly after this many requests (models and judge) in this command: requests in flight "
    "finish, exit code 7; the same command again resumes."
)
MAX_COST_HELP = (
    "Stop cleanly once this many dollars are spent in this command (at --prices): requests in "
    "flight finish, exit code 7; the same command again resumes."
)
DRY_RUN_HELP = (
    "Plan the run and print what it will ask (requests, audio seconds, rough tokens) and roughly "
    "cost, without any request or file written."
)
AUDIO_PART_HELP = "How audio is sent: audio_url (vLLM data URI) or input_audio (OpenAI)."
AUDIO_PARTS = ("audio_url", "input_audio")

_J, _R, _M, _D = GROUPS[0], GROUPS[1], GROUPS[2], GROUPS[3]

SETTINGS: tuple[Setting, ...] = (
    # the judge
    Setting("judge", _J, ("--judge",), str, None, "OpenAI-compatible judge endpoint(s) URL[,URL] of judged benchmarks.", optional=True, keyword="judge"),
    Setting("judge_model", _J, ("--judge-model",), str, "Qwen3Omni-Instruct", "Served judge model name.", keyword="judge_model"),
    Setting("judge_concurrency", _J, ("--judge-concurrency",), int, 16, "Judge requests in flight, over all endpoints.", minimum=1, maximum=MAX_CONCURRENCY, keyword="judge_concurrency"),
    Setting("judge_timeout", _J, ("--judge-timeout",), float, 300.0, "Seconds per judge request, retries of transport errors included.", minimum=0.001, maximum=MAX_SECONDS, keyword="judge_timeout"),
    Setting("judge_api_key_env", _J, ("--judge-api-key-env",), str, "OPENAI_API_KEY", "Environment variable holding the judge endpoints' API key, if they need one.", keyword="judge_api_key_env"),
    Setting("audio_part", _J, ("--audio-part",), str, "audio_url", AUDIO_PART_HELP, choices=AUDIO_PARTS),
    Setting("judge_sample_rate", _J, ("--judge-sample-rate",), int, 16000, "Resample clips sent to the judge (0 keeps the native rate).", maximum=MAX_SAMPLE_RATE),
    Setting("judge_temperature", _J, ("--judge-temperature",), float, None, "Judge sampling temperature (default: the server's).", optional=True, maximum=MAX_TEMPERATURE),
    Setting("judge_max_tokens", _J, ("--judge-max-tokens",), int, 1024, "Judge max_tokens.", optional=True, minimum=1, maximum=MAX_TOKENS),
    Setting("judge_prompt", _J, ("--judge-prompt",), Path, None, JUDGE_PROMPT_HELP, optional=True, keyword="judge_prompt"),
    # the run
    Setting("output_dir", _R, ("--output-dir", "-o"), Path, None, "The run directory (default: named after the settings); rerun to resume.", optional=True, keyword="output_dir"),
    Setting("seed", _R, ("--seed",), int, 0, "Seed of the bootstrap and of the judge's per-vote option shuffles.", maximum=MAX_SEED, keyword="seed"),
    Setting("cache", _R, ("--cache",), Path, None, "Response cache file (judge and model answers), keyed by request content only: share one across output folders and runs to ask nothing twice (default: in the output folder).", optional=True, keyword="cache"),
    Setting("no_cache", _R, ("--no-cache",), bool, False, "Do not read or write the response cache.", keyword="use_cache", negated=True),
    Setting("resamples", _R, ("--resamples",), int, 1000, "Bootstrap resamples of the confidence intervals (0: none).", maximum=MAX_RESAMPLES, keyword="resamples"),
    Setting("progress", _R, ("--progress/--no-progress",), bool, True, "Show the progress bar.", keyword="progress", api_default=False),
    Setting("exclude_missing", _R, ("--exclude-missing",), bool, False, "Leave samples without a usable output (model failed or returned nothing, no prediction, unreadable audio) out of the metrics, instead of counting them as wrong; they are still counted.", keyword="exclude_missing"),
    Setting("max_failed", _R, ("--max-failed",), str, "0", MAX_FAILED_HELP),
    Setting("prices", _R, ("--prices",), Path, None, PRICES_HELP, optional=True, keyword="prices"),
    Setting("max_calls", _R, ("--max-calls",), int, None, MAX_CALLS_HELP, optional=True, minimum=1, maximum=MAX_COUNT, keyword="max_calls"),
    Setting("max_cost", _R, ("--max-cost",), float, None, MAX_COST_HELP, optional=True, maximum=MAX_COST, keyword="max_cost"),
    Setting("dry_run", _R, ("--dry-run",), bool, False, DRY_RUN_HELP),
    Setting("no_probe", _R, ("--no-probe",), bool, False, "Do not check each endpoint (GET /models) before the run.", keyword="probe", negated=True),
    # the model under test
    Setting("model", _M, ("--model", "-m"), str, None, "The model under test: NAME@URL[,URL] (served model name at OpenAI-compatible endpoints).", optional=True),
    Setting("base_urls", _M, ("--base-urls",), str, None, "The endpoints, with a served name in --model.", optional=True, hidden=True),
    Setting("concurrency", _M, ("--concurrency",), int, 8, "Requests in flight per model, over all its endpoints.", minimum=1, maximum=MAX_CONCURRENCY),
    Setting("timeout", _M, ("--timeout",), float, 300.0, "Seconds per model request, retries of transport errors included.", minimum=0.001, maximum=MAX_SECONDS),
    Setting("api_key_env", _M, ("--api-key-env",), str, "OPENAI_API_KEY", "Environment variable holding the models' API key."),
    Setting("temperature", _M, ("--temperature",), float, None, "Sampling temperature (default: the server's; same as --gen-kwargs temperature=…).", optional=True, maximum=MAX_TEMPERATURE, keyword="temperature"),
    Setting("max_tokens", _M, ("--max-tokens",), int, None, "Tokens per answer at most (default: the server's; same as --gen-kwargs max_tokens=…).", optional=True, minimum=1, maximum=MAX_TOKENS, keyword="max_tokens"),
    Setting("sample_rate", _M, ("--sample-rate",), int, 16000, "Resample audio before sending (0 keeps the native rate).", maximum=MAX_SAMPLE_RATE),
    Setting("model_audio_part", _M, ("--audio-part",), str, "audio_url", AUDIO_PART_HELP, choices=AUDIO_PARTS),
    # the data
    Setting("limit", _D, ("--limit",), int, None, "Only the first N samples of each benchmark.", optional=True, minimum=1, maximum=MAX_COUNT, keyword="limit"),
    Setting("data_root", _D, ("--data-root",), Path, None, "Folder holding local benchmark data (default $AUDIOEVAL_DATA).", optional=True, keyword="data_root"),
)  # fmt: skip

SETTING: dict[str, Setting] = {s.name: s for s in SETTINGS}
"""Each setting by its value name."""

USAGE_AND_COST = ("prices", "max_calls", "max_cost", "dry_run")
"""The settings of what a run asks and costs (docs/cost.md): `run` and every preset offer them,
whatever other shared options a preset names (`benchmarks/preset.Preset.exposes`)."""
if not set(USAGE_AND_COST) <= set(SETTING):
    raise RuntimeError(f"USAGE_AND_COST names no setting: {sorted(set(USAGE_AND_COST) - set(SETTING))}")

DEFAULTS: dict[str, Any] = {s.name: s.default for s in SETTINGS}
"""Each setting's default, by value name."""

KEYWORD_DEFAULTS: dict[str, Any] = {s.keyword: s.keyword_default for s in SETTINGS if s.keyword}
"""Each Python API keyword's default."""


def group_names(group: str) -> tuple[str, ...]:
    """The value names of a group, in the table's order."""
    return tuple(s.name for s in SETTINGS if s.group == group)


def setting_of_flag(flag: str) -> Setting | None:
    """The setting a flag (canonical or one of its spellings) stands for, or None."""
    for setting in SETTINGS:
        if any(flag in f.split("/") for f in setting.flags):
            return setting
    return None


def flag_bounds(flag: str) -> tuple[float | None, float | None]:
    """The declared (smallest, largest) value of the numeric flag `flag` (None: not declared)."""
    setting = setting_of_flag(flag)
    return (setting.minimum, setting.maximum) if setting is not None else (None, None)


def check_keywords(values: dict[str, Any]) -> None:
    """Each Python API keyword's value against its setting (type, bounds, choices):
    `InputError` naming the first keyword that is wrong."""
    by_keyword = {s.keyword: s for s in SETTINGS if s.keyword}
    for keyword, value in values.items():
        setting = by_keyword[keyword]
        if setting.type is bool:
            problem = None if isinstance(value, bool) else f"must be True or False, got {value!r}"
        else:
            problem = setting.problem(value)
        if problem:
            raise InputError(problem, field=keyword)
