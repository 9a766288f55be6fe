"""A benchmark ready to run (`ResolvedBenchmark`): its spec merged with its task's defaults,
every name resolved to registered code (template, post-processing chain, scorers, metrics).
`benchmarks/resolved.resolve` builds it, once every benchmark is loaded; what a benchmark's
own code reads of it (its exporter, its preset) needs nothing loaded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

from audioeval.benchmarks.sources.source_formats import contributed
from audioeval.benchmarks.spec import BenchmarkSpec
from audioeval.benchmarks.tasks import TaskDefaults
from audioeval.metrics.corpus import CorpusMetric
from audioeval.metrics.judge_reliability import judges_of
from audioeval.metrics.output_health import HEALTH_AGAINST_INPUT, HEALTH_ALONE
from audioeval.metrics.pair_summary import PairMetrics
from audioeval.postprocess.steps import PostprocessChain
from audioeval.prompts.templates import PromptTemplate, load_template
from audioeval.scoring.base import Scorer, declared_metrics
from audioeval.scoring.hook_guard import checked_signature


class SummaryHeader(TypedDict):
    """What a pair summary says of its benchmark before its counts and metrics."""

    benchmark: str
    task: str
    headline: str
    output: str
    family: str

@dataclass
class ResolvedBenchmark:
    spec: BenchmarkSpec
    where: str
    task: TaskDefaults
    template: PromptTemplate
    chain: PostprocessChain
    scorers: list[Scorer]
    metrics: list[CorpusMetric]
    headline: str
    templates: dict[str, PromptTemplate] = field(default_factory=dict)
    plugins: dict[str, dict[str, str]] = field(default_factory=dict)
    """Benchmark (family) name -> distribution, version and entry point of each installed
    package providing its spec or a scorer (`plugins.plugin_origins`, read by `resolve`)."""

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def loader_checks_inputs(self) -> bool:
        """Whether the loader of this benchmark's source already checked every input clip a
        sample names (`SourceFormat.checks_inputs`): the engine then reads none again."""
        reader = contributed(self.spec.source.type)
        return reader is not None and reader.checks_inputs

    def signature(self) -> dict[str, Any]:
        """Every choice that moves this benchmark's numbers."""
        return {
            "benchmark": self.spec.name,
            "task": self.spec.task,
            "language": self.spec.language,
            # not `decompose`: the rubrics it makes are in the samples (their hashes), and its
            # endpoint may change between runs like any endpoint; not `local_name`: which
            # folder under the data root holds the copy is, like the data root, where the
            # data is read from, and a copy holding other data changes the samples' hashes
            "source": self.spec.source.model_dump(
                exclude={"decompose", "local_name", *(() if self.spec.source.options else ("options",))}
            ),
            "fields": self.spec.fields,
            "variables": self.spec.variables,
            "template": self.template.name,
            "template_digest": self.template.digest,
            "postprocess": self.chain.describe(),
            "scorers": [checked_signature(s) for s in self.scorers],
            "metrics": [m.name for m in self.metrics],
            **self.plugins_signature(),
        }

    def plugins_signature(self) -> dict[str, dict[str, dict[str, str]]]:
        """`plugins`: the distribution, version and entry point of each installed package that
        provides this benchmark's spec or one of its scorers (none for built-in ones, whose
        signature is then as it was): a plugin upgraded in place gives another signature."""
        return {"plugins": dict(self.plugins)} if self.plugins else {}

    def summary_plan(self) -> PairMetrics:
        """The metrics a pair summary computes, its breakdown keys, and the scorers that feed
        each metric (as they declare them, in the spec's order), and the judged scorers whose
        reliability it reports."""
        feeds: dict[str, list[str]] = {}
        for scorer in self.scorers:
            declared = declared_metrics(scorer)
            for metric in declared[1] if declared is not None else ():
                feeds.setdefault(metric, []).append(scorer.name)
        return PairMetrics(
            self.metrics,
            self.spec.taxonomy,
            feeds,
            judges_of(self.scorers),
            groups={key: g.as_plan() for key, g in self.spec.groups.items()},
            excluded_failed_outputs=self.spec.failed_outputs == "excluded",
            crosses={name: tuple(keys) for name, keys in self.spec.crosses.items()},
            output_health=self._output_health(),
        )

    def _output_health(self) -> str:
        """How a pair's audio outputs are measured for health: against the input where the
        output is a version of it (codec, editing), else alone; text outputs are not."""
        if self.task.output != "audio":
            return ""
        return HEALTH_AGAINST_INPUT if self.task.family in ("codec", "editing") else HEALTH_ALONE

    def summary_header(self) -> SummaryHeader:
        """What a pair summary says of the benchmark before its counts and metrics."""
        return {
            "benchmark": self.name,
            "task": self.spec.task,
            "headline": self.headline,
            "output": self.task.output,
            "family": self.task.family,
        }

    def template_for(self, name: str | None) -> PromptTemplate:
        """The benchmark's template, or another one named by a model or a sample."""
        if not name:
            return self.template
        if name not in self.templates:
            self.templates[name] = load_template(name)
        return self.templates[name]
