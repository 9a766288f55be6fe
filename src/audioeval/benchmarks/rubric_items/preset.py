"""`audioeval rubric decompose` as data (`benchmarks/preset.py`): captions -> atomic yes/no
rubric items, by a text LLM asked as the run's judge.

The plan checks the rubrics file's path and reads the captions file (`decompose_source.py`;
a bad line is an error before anything is written) as the samples of a `rubric_decompose`
benchmark; the model is `caption`, the echo baseline (each caption answers with itself); the
text LLM is the run judge (the shared judge options, role "LLM", with `--judge-seed`), asked
by the `rubric_decompose` judged scorer (decomposition, cleaning; `--judge-temperature` and
`--judge-max-tokens` are the decomposition's, the scorer's arguments). A rerun keeps the
records of captions whose text and domain are unchanged (`rescore_changed_samples`). The
rubrics file and `decompose_summary.json` are exports of the records (`decompose_export.py`,
told the settings by the plan's `export_info`); `outcome` reads the summary back. The run
directory defaults to `OUTPUT.run/` beside the rubrics file. (`presets/rubrics_on_the_fly.py`
runs the same decomposition inside `audioeval run`.)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markup import escape

from audioeval.benchmarks.preset import (
    REQUIRED,
    PlanModel,
    Preset,
    PresetOption,
    PresetOutcome,
    PresetPlan,
    PresetValues,
    SharedValues,
    read_options,
    run_folder_beside,
)
from audioeval.core.errors import InputError
from audioeval.store.bounded_json import loads

if TYPE_CHECKING:
    from audioeval.benchmarks.rubric_items.decompose_scorer import DecomposeArgs

MODEL: PlanModel = {"name": "caption", "type": "baseline", "baseline": "echo"}
SUMMARY_FILE = "decompose_summary.json"  # decompose_export.SUMMARY_FILE (kept light here)

OPTIONS = (
    PresetOption("captions", "--captions", Path, help="JSONL (or a JSON list) of {id, caption, domain?}; ids unique."),
    PresetOption(
        "output", "--output", Path,
        help="The rubrics file to write: one JSON line per decomposed caption, in input order.",
    ),
    PresetOption(
        "domain", "--domain", str, "mix", choices=("auto", "speech", "sound", "music", "mix"),
        help="The prompt of captions without a domain of their own (default mix, as the official "
        "decomposer); auto (ours) lets the LLM name it.",
    ),
    PresetOption("max_items", "--max-items", int, None, optional=True, minimum=1,
                 help="Items kept per caption at most (ours; default: no cap, as the official)."),
    PresetOption("dedupe", "--dedupe", bool, False, help="Drop repeated questions (ours; the official keeps them)."),
    PresetOption(
        "judge_max_attempts", "--judge-max-attempts", int, 3, minimum=1,
        help="Calls per step (decomposition, cleaning) until a usable answer; then the caption fails.",
    ),
    PresetOption("judge_seed", "--judge-seed", int, None, optional=True, help="Sampling seed sent with every request."),
)  # fmt: skip


@dataclass(frozen=True)
class DecomposeOptions:
    """`rubric decompose`'s own options (`OPTIONS` declares their flags, defaults and help), typed."""

    captions: Path
    output: Path
    domain: str
    max_items: int | None
    dedupe: bool
    judge_max_attempts: int
    judge_seed: int | None

    @classmethod
    def of(cls, values: PresetValues) -> DecomposeOptions:
        """The options among a preset's values (one not given: its declared default)."""
        return read_options(cls, OPTIONS, values)

    @property
    def run_dir(self) -> Path:
        """The run directory when `--output-dir` is not given: `OUTPUT.run/` beside the rubrics file."""
        return run_folder_beside(Path(self.output))


SHARED = (
    "judge", "judge_model", "judge_api_key_env", "judge_concurrency", "judge_timeout",
    "judge_temperature", "judge_max_tokens", "judge_prompt", "output_dir", "cache", "no_cache",
    "progress", "max_failed", "no_probe",
)  # fmt: skip
# OUTPUT.run/; nothing to bootstrap; the official token budget per domain
DEFAULTS = {"judge": REQUIRED, "judge_model": REQUIRED, "output_dir": None, "resamples": 0, "judge_max_tokens": None}
HELPS = {
    "judge": "Comma-separated OpenAI-compatible endpoints of the text LLM (http://host:port/v1).",
    "judge_model": "Served model name, e.g. Qwen3-30B-A3B-Instruct.",
    "judge_concurrency": "LLM requests in flight.",
    "judge_timeout": "Seconds per LLM call, retries of transport errors included.",
    "judge_temperature": "Decomposition temperature (default 0, greedy, as the official; the cleaning "
    "pass always samples at 0.2 with 1024 tokens, as the official).",
    "judge_max_tokens": "Decomposition tokens at most (default: the official budget: speech 2048, sound "
    "and music 4096, mix and auto 6000).",
    "output_dir": "The run directory: records, LLM answers, cache, decompose_summary.json (failed "
    "captions with the reason). Default: OUTPUT.run/ beside the rubrics file. Rerun to resume; "
    "`audioeval rescore` on it rewrites the rubrics file with no LLM call.",
    "cache": "LLM response cache file, keyed by request content only: share one across run "
    "directories and runs to ask nothing twice (default: in the run directory).",
}
ALIASES = {  # the older --llm* spellings
    "--llm": "--judge",
    "--llm-model": "--judge-model",
    "--llm-api-key-env": "--judge-api-key-env",
    "--llm-concurrency": "--judge-concurrency",
    "--llm-timeout": "--judge-timeout",
    "--llm-temperature": "--judge-temperature",
    "--llm-max-tokens": "--judge-max-tokens",
    "--llm-seed": "--judge-seed",
    "--max-attempts": "--judge-max-attempts",
    "--judge-cache": "--cache",
}


def scorer_args(opts: DecomposeOptions, shared: SharedValues) -> DecomposeArgs:
    return {
        "domain": opts.domain,
        "max_items": opts.max_items,
        "max_attempts": opts.judge_max_attempts,
        "dedupe": bool(opts.dedupe),
        "temperature": shared.judge_temperature,
        "max_tokens": shared.judge_max_tokens,
    }


def plan(values: PresetValues) -> PresetPlan:
    """The captions read and checked, as the samples of a `rubric_decompose` run."""
    from audioeval.benchmarks.rubric_items.decompose_export import RUN_INFO_KEY, DecomposeSettings
    from audioeval.benchmarks.rubric_items.decompose_prompts import PROMPT_VERSION
    from audioeval.benchmarks.rubric_items.decompose_source import (
        caption_samples,
        decompose_spec,
        load_captions,
    )
    from audioeval.benchmarks.sources.loader import SampleSet
    from audioeval.store.file_digest import file_sha256
    from audioeval.store.run_lock import check_output_file

    opts, shared = DecomposeOptions.of(values), values.settings
    captions, output = Path(opts.captions), Path(opts.output)
    check_output_file(output, "the rubrics file (--output)")
    if output.expanduser().resolve() == captions.expanduser().resolve():
        raise InputError(
            "the rubrics file would replace the captions file; give another path", field="--output"
        )
    read = load_captions(captions)  # bad input fails before a folder is made
    prompt = shared.judge_prompt
    args = scorer_args(opts, shared)
    info: DecomposeSettings = {
        "captions": str(captions),
        "captions_sha256": file_sha256(captions),
        "output": str(output.expanduser().resolve()),
        "llm_model": shared.judge_model,
        "prompt_version": PROMPT_VERSION if prompt is None else None,
        **(DecomposeSettings() if prompt is None else DecomposeSettings(prompt_file=str(prompt))),
        **args,
        "seed": opts.judge_seed,
    }
    return PresetPlan(
        decompose_spec(captions, args),
        str(captions),
        MODEL,
        samples=SampleSet(caption_samples(read, str(captions)), [], str(captions)),
        rescore_changed_samples=True,
        export_info={RUN_INFO_KEY: info},
        # the judge settings' own sampling (the decomposition's is the scorer's), role "LLM"
        judge={"temperature": None, "max_tokens": 1024, "seed": opts.judge_seed, "role": "LLM"},
    )


def outcome(folder: Path, values: PresetValues) -> PresetOutcome:
    """`decompose_summary.json` read back: the counts; failed captions are the failed work."""
    s = loads((folder / SUMMARY_FILE).read_text(encoding="utf-8"))
    counts, failed = s["counts"], s.get("failed") or []
    notes = [
        f"{counts['decomposed']}/{counts['captions']} caption(s) decomposed ({counts['fallback']} by "
        f"fallback, {counts.get('unparsed', 0)} unparsed, {counts['failed']} failed), "
        f"{counts['items']} item(s); decomposed now {s.get('decomposed_now', 0)}, reused "
        f"{s.get('reused', 0)}, LLM calls {s.get('llm_calls', 0)}, cache hits {s.get('cache_hits', 0)}.",
        f"Rubrics: {escape(str(s.get('output')))}  Summary: {escape(str(folder / SUMMARY_FILE))}",
    ]
    first = f"id {failed[0]['id']!r}: {failed[0]['error']}" if failed else None
    return PresetOutcome(
        s,
        counts["captions"],
        counts["failed"],
        counts["decomposed"],
        first_failure=first,
        notes=notes,
        unit="caption",
    )


DECOMPOSE = Preset(
    command=("rubric", "decompose"),
    help='Decompose each caption into atomic yes/no items {dimension, question, basis} ("yes" = the '
    "audio matches the caption), in the caption's language: one request for the items, read as the "
    "AnyAudio-Judge decomposer reads it, one cleaning pass (keep/remove per item); when nothing "
    "survives, the caption itself is the single item (fallback). Cached and resumable.",
    plan=plan,
    outcome=outcome,
    options=OPTIONS,
    shared=SHARED,
    defaults=DEFAULTS,
    helps=HELPS,
    aliases=ALIASES,
    title="rubric decompose",
    output_dir=lambda values: DecomposeOptions.of(values).run_dir,
)
