"""MMAE's three rates, declared once (`Benchmark.metrics`): the Instruction Following Rate,
the Consistency Rate and the Exact Match Rate, shown everywhere as IFR, CR and EMR, in percent.

Each sample's rate is a 0–1 value of its score (`values`: `IFR`, `CR`, `EMR`, as
`per_sample.json` has them); its statistic, what the pair's metric averages, is that rate × 100
(`stats`: `ifr`, `cr`, `em`), so the metrics `mean:ifr`, `mean:cr`, `mean:em` are percentages
and a sample's 0.5 is shown as 50 %. The metric names stay as stored runs have them."""

from __future__ import annotations

from audioeval.metrics.declaration import MeanDeclaration, MicroDeclaration, PerSample

PER_SAMPLE_SCALE = 100.0
"""A sample's 0–1 rate × this = its statistic, in the metrics' unit (percent)."""

IFR = MeanDeclaration("ifr", "IFR", "percent", per_sample=PerSample("IFR", PER_SAMPLE_SCALE))
CR = MeanDeclaration("cr", "CR", "percent", per_sample=PerSample("CR", PER_SAMPLE_SCALE))
EMR = MeanDeclaration("em", "EMR", "percent", per_sample=PerSample("EMR", PER_SAMPLE_SCALE))
RATES = (IFR, CR, EMR)
"""In the order of every table: IFR, CR, EMR."""
MICRO_RATES = (
    MicroDeclaration("if_rubrics", "IFR (micro)", "fraction"),
    MicroDeclaration("cr_rubrics", "CR (micro)", "fraction"),
)
"""The rates over every scored rubric rather than per sample (`overall.micro`): each sample's
stats hold its rubrics passed and scored, `[passed, scored]`; shown as shares in percent."""
RANKED_BY = (EMR, IFR, CR)
"""The MMAE challenge's ranking: by EMR, then IFR, then CR."""

EDITING_BOARD = {
    "name": "editing",
    "title": "Editing (MMAE)",
    "family": "editing",
    "description": "IFR, CR and EMR (%); no average, ranked as the MMAE challenge ranks",
    "columns": [{"metric": rate.name} for rate in RATES],  # labelled by their display names
    "average": False,
    "rank_by": [rate.display for rate in RANKED_BY],
}
"""The editing family's board (`Benchmark.boards`), in place of the generic one."""
