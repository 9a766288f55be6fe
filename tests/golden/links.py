"""Which key in which file of a run folder means the same quantity as which key in another.

Each `Link` names one quantity written in two files and yields, for a run folder, every
`Pair` of places that hold it (`FILE::PATH` and value on each side). Units are compared as the
files declare them: a pair summary's `unit` (`fraction` is shown × 100 in percent), the
report's `unit` and `scale` (what a stored per-sample value is multiplied by to be shown in
that unit), and for the benchmark files that declare none, the unit their documentation gives
(`taxonomy.json`: percent, two decimals; `per_sample.json`: 0–1; `mcq_summary.json`:
percent; `judge_eval_summary.json`: `units`, rounded to 2 or 4 decimals). A value rounded by
its file is equal when the other side rounds to it.

`RunFolder` reads the files of one golden run (its folder, its leaderboard, its report).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from tests.golden.figures import chunk_data, page_data

Value = Any


@dataclass(frozen=True)
class Pair:
    """One quantity in two places: `a` and `b` are `FILE::PATH`; `x` and `y` the values in a
    common unit; `digits`: the decimals one side was rounded to (None: not rounded)."""

    a: str
    x: Value
    b: str
    y: Value
    digits: int | None = None

    def equal(self, rel_tol: float = 1e-9) -> bool:
        return _equal(self.x, self.y, self.digits, rel_tol)

    def describe(self) -> str:
        return f"{self.a} = {self.x!r}  vs  {self.b} = {self.y!r}"


def _equal(x: Value, y: Value, digits: int | None, rel_tol: float) -> bool:
    if isinstance(x, list | tuple) and isinstance(y, list | tuple):
        return len(x) == len(y) and all(_equal(p, q, digits, rel_tol) for p, q in zip(x, y, strict=True))
    if (
        isinstance(x, bool)
        or isinstance(y, bool)
        or not (isinstance(x, int | float) and isinstance(y, int | float))
    ):
        return x == y
    if digits is not None:
        return abs(x - y) <= 0.5 * 10**-digits + 1e-9 * max(abs(x), abs(y), 1.0)
    return math.isclose(x, y, rel_tol=rel_tol, abs_tol=1e-12)


def scaled(value: Value, factor: float) -> Value:
    """A figure (or a CI) times `factor`; None and text as they are."""
    if isinstance(value, list | tuple):
        return [scaled(v, factor) for v in value]
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    return value * factor


PERCENT_OF_UNIT = {"fraction": 100.0, "percent": 1.0}
"""A pair summary's declared unit -> the factor to percent."""


def to_percent(metric: dict[str, Any]) -> float:
    unit = metric.get("unit")
    assert unit in PERCENT_OF_UNIT, f"a metric in {unit!r} is not a share: {metric}"
    return PERCENT_OF_UNIT[unit]


class RunFolder:
    """The files of one golden run: `root/runs/<name>/…`, `root/leaderboards/<name>/…`."""

    def __init__(self, root: Path, name: str) -> None:
        self.root, self.name = root, name
        self.folder = root / "runs" / name
        self._cache: dict[str, Any] = {}

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def json(self, rel: str) -> Any:
        """A JSON (or JSONL: a list of lines) file of the run folder."""
        if rel not in self._cache:
            path = self.folder / rel
            text = path.read_text(encoding="utf-8")
            self._cache[rel] = (
                [json.loads(x) for x in text.splitlines() if x.strip()]
                if path.suffix == ".jsonl"
                else json.loads(text)
            )
        return self._cache[rel]

    def has(self, rel: str) -> bool:
        return (self.folder / rel).is_file()

    def where(self, rel: str, path: str) -> str:
        return f"runs/{self.name}/{rel}::{path}"

    @property
    def summary(self) -> dict[str, Any]:
        return self.json("summary.json")

    def pairs(self) -> list[tuple[str, str, str]]:
        """(benchmark, model, folder) of every pair of the run, as `summary.json` lists them."""
        return [(r["benchmark"], r["model"], r["folder"]) for r in self.summary["results"]]

    def pair_summary(self, folder: str) -> dict[str, Any]:
        return self.json(f"{folder}/summary.json")

    def only_pair(self) -> tuple[str, str, str]:
        pairs = self.pairs()
        assert len(pairs) == 1, f"{self.name}: {len(pairs)} pairs, one expected"
        return pairs[0]

    @cached_property
    def leaderboard(self) -> dict[str, Any]:
        path = self.root / "leaderboards" / self.name / "leaderboard.json"
        return json.loads(path.read_text(encoding="utf-8"))

    def leaderboard_where(self, path: str) -> str:
        return f"leaderboards/{self.name}/leaderboard.json::{path}"

    @cached_property
    def report(self) -> dict[str, Any]:
        """The report page's data: its pairs by key (`benchmark/model`)."""
        data = page_data(self.folder / "report" / "index.html")["samples-data"]
        return {p["key"]: (i, p) for i, p in enumerate(data["pairs"])}

    def report_where(self, path: str) -> str:
        return f"runs/{self.name}/report/index.html::$.samples-data{path}"

    def report_samples(self, index: int) -> dict[str, tuple[str, dict[str, Any]]]:
        """A report pair's sample details (its chunk files) by id, with the chunk's name."""
        out = {}
        for path in sorted((self.folder / "report" / "samples").glob(f"p{index}-c*.js")):
            for row in chunk_data(path):
                out[row["id"]] = (self.rel(path), row)
        return out


Pairs = Iterator[Pair]


@dataclass(frozen=True)
class Link:
    """One quantity written in two files (`a`, `b`: where, in words), and the runs it is
    checked on; `pairs` finds every place of it in a run folder."""

    name: str
    a: str
    b: str
    runs: tuple[str, ...]
    pairs: Callable[[RunFolder], Pairs]


# --- every run: the run summary, its boards, the leaderboard, the report ---


def _same_subtree(ra: str, a: Any, rb: str, b: Any) -> Pairs:
    """Every figure of `a` against the figure at the same path in `b` (a key only in `a`
    pairs with a missing value)."""
    if isinstance(a, dict):
        for key, sub in a.items():
            other = b.get(key, "<missing>") if isinstance(b, dict) else "<missing>"
            yield from _same_subtree(f"{ra}.{key}", sub, f"{rb}.{key}", other)
    elif isinstance(a, list) and a and all(isinstance(x, dict) for x in a):
        for i, sub in enumerate(a):
            other = b[i] if isinstance(b, list) and i < len(b) else "<missing>"
            yield from _same_subtree(f"{ra}[{i}]", sub, f"{rb}[{i}]", other)
    elif (
        a is None
        or isinstance(a, bool | int | float)
        or (isinstance(a, list) and all(isinstance(x, int | float) for x in a))
    ):
        yield Pair(ra, a, rb, b)


def pair_in_run_summary(run: RunFolder) -> Pairs:
    """summary.json `results[B,M]` is the pair's own summary.json, figure by figure."""
    for i, (bench, model, folder) in enumerate(run.pairs()):
        block = run.summary["results"][i]
        own = run.pair_summary(folder)
        yield from _same_subtree(
            run.where(f"{folder}/summary.json", "$"),
            own,
            run.where("summary.json", f"$.results[{bench},{model}]"),
            block,
        )


def _metric_of(metrics: dict[str, Any], key: str) -> str:
    """The metric a short key names (`accuracy`, or `robust_correct` for `mean:robust_correct`)."""
    for name in (key, f"mean:{key}"):
        if name in metrics:
            return name
    raise AssertionError(f"no metric {key!r} among {sorted(metrics)}")


def scores_table(run: RunFolder) -> Pairs:
    """summary.json `scores[B][M][k]` is the pair's `metrics[k or mean:k].value`."""
    for bench, model, folder in run.pairs():
        metrics = run.pair_summary(folder)["metrics"]
        for key, value in run.summary["scores"][bench][model].items():
            name = _metric_of(metrics, key)
            yield Pair(
                run.where("summary.json", f"$.scores.{bench}.{model}.{key}"),
                value,
                run.where(f"{folder}/summary.json", f"$.metrics.{name}.value"),
                metrics[name]["value"],
            )


def run_headline(run: RunFolder) -> Pairs:
    """A one-pair run's summary.json top level (`<k>`, `<k>_ci`, `n`, `scored`, `failed`) is
    that pair's."""
    _, _, folder = run.only_pair()
    own = run.pair_summary(folder)
    for key in ("n", "scored", "failed"):
        yield Pair(
            run.where("summary.json", f"$.{key}"),
            run.summary.get(key, "<missing>"),
            run.where(f"{folder}/summary.json", f"$.{key}"),
            own[key],
        )
    for name, metric in own["metrics"].items():
        short = name.removeprefix("mean:")
        for top, sub in ((short, "value"), (f"{short}_ci", "ci")):
            yield Pair(
                run.where("summary.json", f"$.{top}"),
                run.summary.get(top, "<missing>"),
                run.where(f"{folder}/summary.json", f"$.metrics.{name}.{sub}"),
                metric[sub],
            )


def board_cells(run: RunFolder) -> Pairs:
    """summary.json `boards[F].rows[M].cells[col]` value, ci, n are the pair's
    `metrics[col.metric]`; `rows[M].pairs[B]` scored, failed, failed_outputs its counts."""
    folders = {(b, m): f for b, m, f in run.pairs()}
    for fam, board in run.summary["boards"].items():
        columns = {c["key"]: c for c in board["columns"]}
        for row in board["rows"]:
            model = row["model"]
            at = f"$.boards.{fam}.rows[model={model}]"
            for key, cell in row["cells"].items():
                col = columns[key]
                own = run.pair_summary(folders[(col["benchmark"], model)])
                metric = own["metrics"][col["metric"]]
                where = run.where(
                    f"{folders[(col['benchmark'], model)]}/summary.json", f"$.metrics.{col['metric']}"
                )
                for sub in ("value", "ci", "n"):
                    yield Pair(
                        run.where("summary.json", f"{at}.cells.{key}.{sub}"),
                        cell.get(sub),
                        f"{where}.{sub}",
                        metric[sub],
                    )
            for bench, counts in row["pairs"].items():
                folder = folders[(bench, model)]
                own = run.pair_summary(folder)
                ours = {
                    "scored": own["scored"],
                    "failed": own["failed"],
                    "failed_outputs": own["failed_outputs"]["n"],
                }
                for sub, value in ours.items():
                    path = "failed_outputs.n" if sub == "failed_outputs" else sub
                    yield Pair(
                        run.where("summary.json", f"{at}.pairs.{bench}.{sub}"),
                        counts[sub],
                        run.where(f"{folder}/summary.json", f"$.{path}"),
                        value,
                    )


def leaderboard_boards(run: RunFolder) -> Pairs:
    """`audioeval leaderboard RUN`'s leaderboard.json boards are the run's summary.json boards
    (every figure of their columns and rows; the leaderboard adds `score`, the row's average
    under another name, its CI and the adjacent p-values)."""
    boards = run.leaderboard["boards"]
    for fam, board in run.summary["boards"].items():
        theirs = boards.get(fam, {})
        yield from _same_subtree(
            run.where("summary.json", f"$.boards.{fam}.columns"), board["columns"],
            run.leaderboard_where(f"$.boards.{fam}.columns"), theirs.get("columns"),
        )  # fmt: skip
        by_model = {r["model"]: r for r in theirs.get("rows", [])}
        for row in board["rows"]:
            model = row["model"]
            other = by_model.get(model, {})
            at = f"$.boards.{fam}.rows[model={model}]"
            yield from _same_subtree(run.where("summary.json", at), row, run.leaderboard_where(at), other)
            if board.get("average") and not board.get("rank_by"):
                yield Pair(
                    run.where("summary.json", f"{at}.average"),
                    row.get("average"),
                    run.leaderboard_where(f"{at}.score"),
                    other.get("score"),
                )


def report_counts(run: RunFolder) -> Pairs:
    """The report's sample browser: `pairs[B/M].total` is the pair's `n`; its samples marked
    `failed` are the pair's `failed`; its score unit is the headline metric's `unit`."""
    for bench, model, folder in run.pairs():
        own = run.pair_summary(folder)
        index, page = run.report[f"{bench}/{model}"]
        at = f".pairs[key={bench}/{model}]"
        where = run.where(f"{folder}/summary.json", "$")
        yield Pair(run.report_where(f"{at}.total"), page["total"], f"{where}.n", own["n"])
        failed = sum(1 for s in page["samples"] if s["st"] == "failed")
        yield Pair(
            run.report_where(f"{at}.samples[st=failed] (count)"), failed, f"{where}.failed", own["failed"]
        )
        yield Pair(
            run.report_where(f"{at}.unit"),
            page["unit"],
            f"{where}.metrics.{own['headline']}.unit",
            own["metrics"][own["headline"]]["unit"],
        )


# --- MCQ: `mcq score` (mcq_summary.json, per_item.jsonl, disagreements.jsonl) ---


def _mcq(run: RunFolder) -> tuple[dict[str, Any], str, dict[str, Any]]:
    _, _, folder = run.only_pair()
    return run.json("mcq_summary.json"), folder, run.pair_summary(folder)


MCQ_MODES = {"official": "accuracy", "robust": "mean:robust_correct"}
"""An `mcq_summary.json` mode (its accuracy in percent) -> the pair summary's metric of it
(a share of the items: declared `fraction`)."""


def _mcq_metric(run: RunFolder, mode: str, sub: str) -> Pairs:
    """One mode's accuracy (`value`), CI (`ci`) or count (`n`) in both files, in percent; the
    metric's declared unit is checked to be a share (a unit that is not is a mismatch of its
    own, and the value is then compared as a 0–1 share)."""
    mcq, folder, own = _mcq(run)
    name = MCQ_MODES[mode]
    metric = own["metrics"][name]
    where = run.where(f"{folder}/summary.json", f"$.metrics.{name}")
    if sub != "n" and metric.get("unit") not in PERCENT_OF_UNIT:
        yield Pair(
            run.where("mcq_summary.json", f"$.overall.{mode} (a share, in percent)"),
            "fraction",
            f"{where}.unit",
            metric.get("unit"),
        )
    factor = 1.0 if sub == "n" else PERCENT_OF_UNIT.get(metric.get("unit"), 100.0)
    path = {"value": f"$.overall.{mode}.accuracy", "ci": f"$.overall.{mode}.ci", "n": "$.overall.n"}[sub]
    theirs = (
        mcq["overall"]["n"] if sub == "n" else mcq["overall"][mode][{"value": "accuracy", "ci": "ci"}[sub]]
    )
    digits = None if sub == "n" else 2  # mcq_summary.json rounds its percentages to 2 decimals
    yield Pair(
        run.where("mcq_summary.json", path), theirs, f"{where}.{sub}", scaled(metric[sub], factor), digits
    )


def mcq_official_accuracy(run: RunFolder) -> Pairs:
    """mcq_summary.json `overall.official.accuracy` (%) is the pair's `metrics.accuracy.value`
    (a fraction: × 100)."""
    yield from _mcq_metric(run, "official", "value")


def mcq_official_ci(run: RunFolder) -> Pairs:
    """mcq_summary.json `overall.official.ci` (%) is `metrics.accuracy.ci` (× 100)."""
    yield from _mcq_metric(run, "official", "ci")


def mcq_robust_accuracy(run: RunFolder) -> Pairs:
    """mcq_summary.json `overall.robust.accuracy` (%) is `metrics["mean:robust_correct"].value`
    (the share of items the robust reading finds correct)."""
    yield from _mcq_metric(run, "robust", "value")


def mcq_robust_ci(run: RunFolder) -> Pairs:
    """mcq_summary.json `overall.robust.ci` (%) is `metrics["mean:robust_correct"].ci`."""
    yield from _mcq_metric(run, "robust", "ci")


def mcq_n(run: RunFolder) -> Pairs:
    """mcq_summary.json `overall.n` (the items scored) is the `n` of both metrics."""
    for mode in MCQ_MODES:
        yield from _mcq_metric(run, mode, "n")


def mcq_counts(run: RunFolder) -> Pairs:
    """mcq_summary.json `counts`: `items` is the pair's `n`, `scored` its `scored`,
    `without_prediction` its `failed_outputs.n`."""
    mcq, folder, own = _mcq(run)
    for ours, theirs, value in (
        ("items", "n", own["n"]),
        ("scored", "scored", own["scored"]),
        ("without_prediction", "failed_outputs.n", own["failed_outputs"]["n"]),
    ):
        yield Pair(
            run.where("mcq_summary.json", f"$.counts.{ours}"),
            mcq["counts"][ours],
            run.where(f"{folder}/summary.json", f"$.{theirs}"),
            value,
        )


def mcq_board(run: RunFolder) -> Pairs:
    """mcq_summary.json `overall.official.accuracy` (%) is the reasoning board's cell of the
    benchmark (its `normalised`, the accuracy × 100) in summary.json and leaderboard.json."""
    mcq, _, _ = _mcq(run)
    bench, model, _ = run.only_pair()
    official = mcq["overall"]["official"]["accuracy"]
    for doc, in_run in ((run.summary, True), (run.leaderboard, False)):
        board = doc["boards"]["reasoning"]
        row = next(r for r in board["rows"] if r["model"] == model)
        key = next(c["key"] for c in board["columns"] if c["benchmark"] == bench)
        path = f"$.boards.reasoning.rows[model={model}].cells.{key}.normalised"
        at = run.where("summary.json", path) if in_run else run.leaderboard_where(path)
        yield Pair(
            run.where("mcq_summary.json", "$.overall.official.accuracy"),
            official,
            at,
            row["cells"][key]["normalised"],
            2,  # mcq_summary.json rounds to 2 decimals
        )


def mcq_per_item(run: RunFolder) -> Pairs:
    """per_item.jsonl `official` / `robust` of each item are the report's per-sample scores
    (`mcq_match` / `mcq_robust` in the sample details; the index `sc` is the official one);
    disagreements.jsonl holds the same two values for its items."""
    bench, model, _ = run.only_pair()
    index, page = run.report[f"{bench}/{model}"]
    shown = {s["id"]: s for s in page["samples"]}
    details = run.report_samples(index)
    for item in run.json("per_item.jsonl"):
        sid = item["id"]
        at = run.where("per_item.jsonl", f"$[id={sid}]")
        yield Pair(
            f"{at}.official",
            item["official"],
            run.report_where(f".pairs[key={bench}/{model}].samples[id={sid}].sc"),
            shown[sid]["sc"],
        )
        chunk, row = details[sid]
        scores = {s[0]: s[2] for s in row["scores"]}
        for mode, scorer in (("official", "mcq_match"), ("robust", "mcq_robust")):
            yield Pair(
                f"{at}.{mode}", item[mode], f"{chunk}::$[id={sid}].scores[{scorer}]", scores.get(scorer)
            )
    by_id = {x["id"]: x for x in run.json("per_item.jsonl")}
    for item in run.json("disagreements.jsonl"):
        for mode in ("official", "robust"):
            yield Pair(
                run.where("disagreements.jsonl", f"$[id={item['id']}].{mode}"), item[mode],
                run.where("per_item.jsonl", f"$[id={item['id']}].{mode}"), by_id[item["id"]][mode],
            )  # fmt: skip
    mcq, _, _ = _mcq(run)
    yield Pair(
        run.where("mcq_summary.json", "$.disagreements.n"),
        mcq["disagreements"]["n"],
        run.where("disagreements.jsonl", "(lines)"),
        len(run.json("disagreements.jsonl")),
    )


# --- MMAE: `mmae score` (taxonomy.json, per_sample.json, results.jsonl) ---

MMAE_RATES = {"IFR": "mean:ifr", "CR": "mean:cr", "EMR": "mean:em"}
"""taxonomy.json's rate -> the pair summary's metric of it (both in percent)."""
TAXONOMY_DIGITS = 2


def _mmae(run: RunFolder) -> tuple[dict[str, Any], str, dict[str, Any]]:
    _, _, folder = run.only_pair()
    return run.json("taxonomy.json"), folder, run.pair_summary(folder)


def _mmae_groups(run: RunFolder) -> Iterator[tuple[str, dict[str, Any], str, dict[str, Any] | None]]:
    """(taxonomy path, taxonomy block, summary path, summary metrics) of the overall figures
    and every group of the axes both files hold (a group only in taxonomy.json pairs with
    None)."""
    tax, folder, own = _mmae(run)
    where = f"{folder}/summary.json"
    yield "$.overall", tax["overall"], f"{where}::$.metrics", own["metrics"]
    for axis, groups in own["breakdowns"].items():
        for group in sorted(set(groups) | set(tax.get(axis, {}))):
            block = tax.get(axis, {}).get(group)
            yield f"$.{axis}.{group}", block or {}, f"{where}::$.breakdowns.{axis}.{group}", groups.get(group)


def _mmae_rates(run: RunFolder, sub: str) -> Pairs:
    """`sub`: `value`, `ci`, or `count` (the samples a rate is the mean of: `<rate>_n`)."""
    for tpath, block, spath, metrics in _mmae_groups(run):
        for rate, metric in MMAE_RATES.items():
            key = {"value": rate, "ci": f"{rate}_ci", "count": f"{rate}_n"}[sub]
            if metrics is None:  # a group with no scored sample is not in the breakdowns
                theirs = 0 if sub == "count" else None
            else:
                theirs = metrics.get(metric, {}).get(sub, 0 if sub == "count" else "<missing>")
            yield Pair(
                run.where("taxonomy.json", f"{tpath}.{key}"), block.get(key, "<missing>"),
                f"runs/{run.name}/{spath}.{metric}.{sub}", theirs, None if sub == "count" else TAXONOMY_DIGITS,
            )  # fmt: skip


def mmae_rates(run: RunFolder) -> Pairs:
    """taxonomy.json IFR / CR / EMR (percent, 2 decimals) overall and per group are the pair's
    `mean:ifr` / `mean:cr` / `mean:em` values (unit percent), overall and in `breakdowns`."""
    yield from _mmae_rates(run, "value")


def mmae_ci(run: RunFolder) -> Pairs:
    """taxonomy.json `<rate>_ci` is the pair metric's `ci`, overall and per group."""
    yield from _mmae_rates(run, "ci")


def mmae_n(run: RunFolder) -> Pairs:
    """taxonomy.json `<rate>_n` (the samples the rate is the mean of: a sample without a
    consistency rubric has no CR) is the pair metric's `count` (value = total / count), and a
    group's `n` (its samples) the metric's `n`, overall and per group."""
    yield from _mmae_rates(run, "count")
    for tpath, block, spath, metrics in _mmae_groups(run):
        for metric in MMAE_RATES.values():
            theirs = 0 if metrics is None else metrics.get(metric, {}).get("n", "<missing>")
            yield Pair(
                run.where("taxonomy.json", f"{tpath}.n"), block.get("n", "<missing>"),
                f"runs/{run.name}/{spath}.{metric}.n", theirs,
            )  # fmt: skip


def mmae_counts(run: RunFolder) -> Pairs:
    """taxonomy.json `overall.n` is the pair's `n`; `failed_outputs.n` and
    `overall.n_failed_outputs` its `failed_outputs.n`; `reliability` its `reliability`."""
    tax, folder, own = _mmae(run)
    where = f"{folder}/summary.json"
    yield Pair(
        run.where("taxonomy.json", "$.overall.n"), tax["overall"]["n"], run.where(where, "$.n"), own["n"]
    )
    for path, value in (
        ("$.failed_outputs.n", tax["failed_outputs"]["n"]),
        ("$.overall.n_failed_outputs", tax["overall"]["n_failed_outputs"]),
    ):
        yield Pair(
            run.where("taxonomy.json", path),
            value,
            run.where(where, "$.failed_outputs.n"),
            own["failed_outputs"]["n"],
        )
    yield from _same_subtree(
        run.where("taxonomy.json", "$.reliability"),
        tax["reliability"],
        run.where(where, "$.reliability"),
        own.get("reliability"),
    )


def mmae_per_sample(run: RunFolder) -> Pairs:
    """per_sample.json `rubric_scores[i]` of a sample is results.jsonl's `score` of
    (id, rubric_index i) and the report's `rubrics[i].score` in the sample's details."""
    bench, model, _ = run.only_pair()
    index, _ = run.report[f"{bench}/{model}"]
    details = run.report_samples(index)
    lines = {(x["id"], x["rubric_index"]): x for x in run.json("results.jsonl")}
    for sample in run.json("per_sample.json"):
        sid = sample["id"]
        if sample["output_failed"] is not None:
            continue  # no output: its rubrics were never judged (per_sample.json scores them 0)
        chunk, row = details[sid]
        for i, score in enumerate(sample["rubric_scores"]):
            at = run.where("per_sample.json", f"$[id={sid}].rubric_scores[{i}]")
            line = lines.get((sid, i))
            yield Pair(
                at,
                score,
                run.where("results.jsonl", f"$[id={sid},rubric_index={i}].score"),
                line["score"] if line else "<missing>",
            )
            rubrics = row["rubrics"]
            yield Pair(
                at,
                score,
                f"{chunk}::$[id={sid}].rubrics[{i}].score",
                rubrics[i]["score"] if i < len(rubrics) else "<missing>",
            )


def mmae_per_sample_shown(run: RunFolder) -> Pairs:
    """per_sample.json IFR of a sample (0–1) is what the report's sample browser shows for it:
    its index `sc` × the pair's `scale`, in the pair's declared `unit` (percent: × 100)."""
    bench, model, _ = run.only_pair()
    _, page = run.report[f"{bench}/{model}"]
    assert page["score_key"] == "ifr" and page["unit"] == "percent", page["score_key"]
    shown = {s["id"]: s for s in page["samples"]}
    for sample in run.json("per_sample.json"):
        sid = sample["id"]
        sc = shown[sid]["sc"]
        if sample["output_failed"] is None and sc is not None:
            yield Pair(
                run.where("per_sample.json", f"$[id={sid}].IFR (× 100: percent)"), scaled(sample["IFR"], 100.0),
                run.report_where(f".pairs[key={bench}/{model}].samples[id={sid}].sc (× scale {page['scale']}: {page['unit']})"),
                scaled(sc, page["scale"]),
            )  # fmt: skip


# --- judge-eval (judge_eval_summary.json, per_row.jsonl) ---

JUDGE_EVAL_PAIR = "judge-bench"
"""The benchmark of the judged rows (the dev split's pair, `judge-bench-dev`, only tunes)."""


def _judge_eval(run: RunFolder) -> tuple[dict[str, Any], str, dict[str, Any]]:
    folder = next(f for b, _, f in run.pairs() if b == JUDGE_EVAL_PAIR)
    return run.json("judge_eval_summary.json"), folder, run.pair_summary(folder)


def judge_eval_scores(run: RunFolder) -> Pairs:
    """judge_eval_summary.json `official.overall_mean_score` and `per_subset_mean_score[s]`
    are the pair's headline (`mean:rubric_score`) overall and in `breakdowns.subset[s]`;
    `overall.mean_score` and `subsets[s].mean_score` the same, rounded to 4 decimals."""
    s, folder, own = _judge_eval(run)
    headline = own["headline"]
    where = f"{folder}/summary.json"
    value = own["metrics"][headline]["value"]
    at = run.where(where, f"$.metrics.{headline}.value")
    yield Pair(
        run.where("judge_eval_summary.json", "$.official.overall_mean_score"),
        s["official"]["overall_mean_score"],
        at,
        value,
    )
    yield Pair(
        run.where("judge_eval_summary.json", "$.overall.mean_score"), s["overall"]["mean_score"], at, value, 4
    )
    for subset, score in s["official"]["per_subset_mean_score"].items():
        block = own["breakdowns"].get("subset", {}).get(subset, {}).get(headline, {})
        at = run.where(where, f"$.breakdowns.subset.{subset}.{headline}.value")
        yield Pair(
            run.where("judge_eval_summary.json", f"$.official.per_subset_mean_score.{subset}"),
            score,
            at,
            block.get("value"),
        )
        yield Pair(
            run.where("judge_eval_summary.json", f"$.subsets.{subset}.mean_score"),
            s["subsets"][subset]["mean_score"],
            at,
            block.get("value"),
            4,
        )


def judge_eval_counts(run: RunFolder) -> Pairs:
    """judge_eval_summary.json `n_scored` is the pair's `n`, `failed.n` its `failed`;
    `subsets[s].n` and `types[t].n` its breakdowns' `n`; `reliability` its `reliability`."""
    s, folder, own = _judge_eval(run)
    headline = own["headline"]
    where = f"{folder}/summary.json"
    yield Pair(
        run.where("judge_eval_summary.json", "$.n_scored"), s["n_scored"], run.where(where, "$.n"), own["n"]
    )
    yield Pair(
        run.where("judge_eval_summary.json", "$.failed.n"),
        s["failed"]["n"],
        run.where(where, "$.failed"),
        own["failed"],
    )
    for axis, key in (("subset", "subsets"), ("type", "types")):
        for group, block in s[key].items():
            theirs = own["breakdowns"].get(axis, {}).get(group, {}).get(headline, {}).get("n")
            yield Pair(
                run.where("judge_eval_summary.json", f"$.{key}.{group}.n"),
                block["n"],
                run.where(where, f"$.breakdowns.{axis}.{group}.{headline}.n"),
                theirs,
            )
    yield from _same_subtree(
        run.where("judge_eval_summary.json", "$.reliability"),
        s["reliability"],
        run.where(where, "$.reliability"),
        own.get("reliability"),
    )


JUDGE_EVAL_PERCENT = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced_accuracy",
    "yes_rate": "mean:said_yes",
}
"""judge_eval_summary.json figures in percent (2 decimals) -> the pair summary's metric (a
share, `fraction`), computed at a threshold known before judging."""
JUDGE_EVAL_UNIT = {"auroc": "auroc", "mean_score": "mean:rubric_score"}
"""Its 0–1 figures (4 decimals) -> the pair summary's metric, whatever the threshold."""


def _judge_eval_group(
    run: RunFolder, tpath: str, block: dict[str, Any], spath: str, blocks: dict[str, Any]
) -> Pairs:
    """One group of judge_eval_summary.json (`overall`, a subset) against the pair summary's
    metric blocks of it (`blocks`: none for a group without a scored row)."""
    at_threshold = "accuracy" in run.pair_summary(_judge_eval(run)[1])["metrics"]
    labels = blocks.get("mean:label_yes", {})
    n, n_yes = labels.get("n", 0), labels.get("total", 0)
    for key, theirs in (("n", n), ("n_yes", n_yes), ("n_no", n - n_yes)):
        yield Pair(run.where("judge_eval_summary.json", f"{tpath}.{key}"), block.get(key, "<missing>"),
                   f"{spath}.mean:label_yes (n, total: the yes labels)", theirs)  # fmt: skip
    for key, metric in JUDGE_EVAL_UNIT.items():
        own = blocks.get(metric, {})
        yield Pair(run.where("judge_eval_summary.json", f"{tpath}.{key}"), block.get(key, "<missing>"),
                   f"{spath}.{metric}.value", own.get("value"), 4)  # fmt: skip
    own = blocks.get("auroc", {})
    yield Pair(run.where("judge_eval_summary.json", f"{tpath}.auroc_ci"), block.get("auroc_ci", "<missing>"),
               f"{spath}.auroc.ci", own.get("ci"), 4)  # fmt: skip
    if not at_threshold:
        return
    for key, metric in JUDGE_EVAL_PERCENT.items():
        own = blocks.get(metric, {})
        yield Pair(run.where("judge_eval_summary.json", f"{tpath}.{key}"), block.get(key, "<missing>"),
                   f"{spath}.{metric}.value (× 100)", scaled(own.get("value"), 100.0), 2)  # fmt: skip
        if key != "yes_rate":
            yield Pair(run.where("judge_eval_summary.json", f"{tpath}.{key}_ci"), block.get(f"{key}_ci", "<missing>"),
                       f"{spath}.{metric}.ci (× 100)", scaled(own.get("ci"), 100.0), 2)  # fmt: skip


def judge_eval_figures(run: RunFolder) -> Pairs:
    """judge_eval_summary.json `overall`, `subsets[s]` and `types[t]` are the pair summary's
    figures overall and in `breakdowns.subset[s]` / `breakdowns.type[t]`: n and the yes and no
    labels (`mean:label_yes` n and total), AUROC and its CI, the mean score (0–1, 4 decimals),
    `ece` the pair's; at a threshold known before judging also accuracy, balanced accuracy,
    the yes rate (`mean:said_yes`), the macro accuracy (`macro_accuracy`) and their CIs (%,
    2 decimals), and the official accuracies (× 100, unrounded, generate mode)."""
    s, folder, own = _judge_eval(run)
    where = f"runs/{run.name}/{folder}/summary.json::$"
    metrics, breakdowns = own["metrics"], own["breakdowns"]
    yield from _judge_eval_group(run, "$.overall", s["overall"], f"{where}.metrics", metrics)
    for subset, block in s["subsets"].items():
        blocks = breakdowns.get("subset", {}).get(subset, {})
        yield from _judge_eval_group(
            run, f"$.subsets.{subset}", block, f"{where}.breakdowns.subset.{subset}", blocks
        )
    yield Pair(run.where("judge_eval_summary.json", "$.ece"), s["ece"], f"{where}.metrics.ece.value",
               metrics["ece"]["value"], 4)  # fmt: skip
    if "accuracy" not in metrics:
        return
    for key, metric, sub in (
        ("accuracy_macro", "macro_accuracy", "value"),
        ("accuracy_macro_ci", "macro_accuracy", "ci"),
    ):
        yield Pair(run.where("judge_eval_summary.json", f"$.overall.{key}"), s["overall"][key],
                   f"{where}.metrics.{metric}.{sub} (× 100)", scaled(metrics[metric][sub], 100.0), 2)  # fmt: skip
    for name, block in s["types"].items():
        own_block = breakdowns.get("type", {}).get(name, {}).get("accuracy", {})
        at = f"{where}.breakdowns.type.{name}.accuracy"
        yield Pair(run.where("judge_eval_summary.json", f"$.types.{name}.accuracy"), block["accuracy"],
                   f"{at}.value (× 100)", scaled(own_block.get("value"), 100.0), 2)  # fmt: skip
        yield Pair(run.where("judge_eval_summary.json", f"$.types.{name}.accuracy_ci"), block["accuracy_ci"],
                   f"{at}.ci (× 100)", scaled(own_block.get("ci"), 100.0), 2)  # fmt: skip
    official = s["official"]
    if official["mode"] == "all_at_once":
        yield Pair(run.where("judge_eval_summary.json", "$.official.overall_acc"), official["overall_acc"],
                   f"{where}.metrics.accuracy.value (× 100)", scaled(metrics["accuracy"]["value"], 100.0))  # fmt: skip
        for subset, value in official["per_subset_acc"].items():
            own_block = breakdowns.get("subset", {}).get(subset, {}).get("accuracy", {})
            yield Pair(run.where("judge_eval_summary.json", f"$.official.per_subset_acc.{subset}"), value,
                       f"{where}.breakdowns.subset.{subset}.accuracy.value (× 100)",
                       scaled(own_block.get("value"), 100.0))  # fmt: skip


def judge_eval_per_row(run: RunFolder) -> Pairs:
    """per_row.jsonl `score` of a row is the report's per-sample score (index `sc`)."""
    _, folder, own = _judge_eval(run)
    key = f"{JUDGE_EVAL_PAIR}/{own['model']}"
    _, page = run.report[key]
    shown = {x["id"]: x for x in page["samples"]}
    for row in run.json("per_row.jsonl"):
        uid = row["uuid"]
        yield Pair(
            run.where("per_row.jsonl", f"$[uuid={uid}].score"),
            row["score"],
            run.report_where(f".pairs[key={key}].samples[id={uid}].sc"),
            shown.get(uid, {}).get("sc", "<missing>"),
        )


# --- codec (summary.json `codecs`) ---


def codec_table(run: RunFolder) -> Pairs:
    """summary.json `codecs[M][k]` is the pair's `metrics[k or mean:k].value`."""
    folders = {m: f for _, m, f in run.pairs()}
    for model, values in run.summary["codecs"].items():
        metrics = run.pair_summary(folders[model])["metrics"]
        for key, value in values.items():
            name = _metric_of(metrics, key)
            yield Pair(
                run.where("summary.json", f"$.codecs.{model}.{key}"),
                value,
                run.where(f"{folders[model]}/summary.json", f"$.metrics.{name}.value"),
                metrics[name]["value"],
            )


ALL = (
    "demo",
    "demo_asr",
    "demo_mcq",
    "mmae",
    "mmae_clean",
    "mcq_mmar_missing",
    "mcq_mmar_full",
    "mcq_mmau_missing",
    "judge_eval",
    "judge_eval_fixed",
    "codec",
)
JUDGE_EVAL = ("judge_eval", "judge_eval_fixed")
MCQ = ("mcq_mmar_missing", "mcq_mmar_full", "mcq_mmau_missing")
MMAE = ("mmae", "mmae_clean")
ONE_PAIR = (*MMAE, *MCQ)

LINKS = (
    Link("pair_in_run_summary", "summary.json results[B,M]", "B/M/summary.json", ALL, pair_in_run_summary),
    Link(
        "scores_table",
        "summary.json scores[B][M][k]",
        "B/M/summary.json metrics[k | mean:k].value",
        ALL,
        scores_table,
    ),
    Link(
        "run_headline",
        "summary.json <k>, <k>_ci, n, scored, failed",
        "the one pair's summary.json",
        ONE_PAIR,
        run_headline,
    ),
    Link(
        "board_cells",
        "summary.json boards[F].rows[M].cells / pairs",
        "B/M/summary.json metrics[col.metric], counts",
        ALL,
        board_cells,
    ),
    Link("leaderboard_boards", "summary.json boards", "leaderboard.json boards", ALL, leaderboard_boards),
    Link(
        "report_counts",
        "report samples-data pairs[B/M] total, failed, unit",
        "B/M/summary.json n, failed, headline unit",
        ALL,
        report_counts,
    ),
    Link(
        "mcq_official_accuracy",
        "mcq_summary.json overall.official.accuracy (%)",
        "summary.json metrics.accuracy.value",
        MCQ,
        mcq_official_accuracy,
    ),
    Link(
        "mcq_official_ci",
        "mcq_summary.json overall.official.ci (%)",
        "summary.json metrics.accuracy.ci",
        MCQ,
        mcq_official_ci,
    ),
    Link(
        "mcq_robust_accuracy",
        "mcq_summary.json overall.robust.accuracy (%)",
        "summary.json metrics.mean:robust_correct value, unit",
        MCQ,
        mcq_robust_accuracy,
    ),
    Link(
        "mcq_robust_ci",
        "mcq_summary.json overall.robust.ci (%)",
        "summary.json metrics.mean:robust_correct ci",
        MCQ,
        mcq_robust_ci,
    ),
    Link("mcq_n", "mcq_summary.json overall.n", "summary.json metrics n", MCQ, mcq_n),
    Link(
        "mcq_counts", "mcq_summary.json counts", "summary.json n, scored, failed_outputs.n", MCQ, mcq_counts
    ),
    Link(
        "mcq_board",
        "mcq_summary.json overall.official.accuracy (%)",
        "summary.json / leaderboard.json reasoning cell normalised",
        MCQ,
        mcq_board,
    ),
    Link(
        "mcq_per_item",
        "per_item.jsonl, disagreements.jsonl",
        "report sample scores, mcq_summary disagreements.n",
        MCQ,
        mcq_per_item,
    ),
    Link(
        "mmae_rates",
        "taxonomy.json IFR/CR/EMR (%)",
        "summary.json mean:ifr/cr/em value (%)",
        MMAE,
        mmae_rates,
    ),
    Link("mmae_ci", "taxonomy.json <rate>_ci", "summary.json mean:* ci", MMAE, mmae_ci),
    Link("mmae_n", "taxonomy.json <rate>_n, n", "summary.json mean:* count, n", MMAE, mmae_n),
    Link(
        "mmae_counts",
        "taxonomy.json n, failed outputs, reliability",
        "summary.json n, failed_outputs.n, reliability",
        MMAE,
        mmae_counts,
    ),
    Link(
        "mmae_per_sample",
        "per_sample.json rubric_scores",
        "results.jsonl score, report rubrics score",
        MMAE,
        mmae_per_sample,
    ),
    Link(
        "mmae_per_sample_shown",
        "per_sample.json IFR (0-1)",
        "report sample sc x scale (declared unit)",
        MMAE,
        mmae_per_sample_shown,
    ),
    Link(
        "judge_eval_scores",
        "judge_eval_summary.json mean scores",
        "summary.json mean:rubric_score",
        JUDGE_EVAL,
        judge_eval_scores,
    ),
    Link(
        "judge_eval_figures",
        "judge_eval_summary.json overall, subsets, types, ece, official accuracy",
        "summary.json metrics and breakdowns (auroc, ece, accuracy, balanced_accuracy, ...)",
        JUDGE_EVAL,
        judge_eval_figures,
    ),
    Link(
        "judge_eval_counts",
        "judge_eval_summary.json n_scored, failed, groups n, reliability",
        "summary.json n, failed, breakdowns n, reliability",
        JUDGE_EVAL,
        judge_eval_counts,
    ),
    Link("judge_eval_per_row", "per_row.jsonl score", "report sample sc", JUDGE_EVAL, judge_eval_per_row),
    Link(
        "codec_table", "summary.json codecs[M][k]", "B/M/summary.json metrics value", ("codec",), codec_table
    ),
)
