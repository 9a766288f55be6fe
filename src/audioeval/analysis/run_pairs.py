"""The benchmark × model pairs of several run directories, each pair once: the one reader
`audioeval leaderboard` and `audioeval rank` take their pairs from.

A model with the same benchmark in two run directories (a baseline such as `oracle` run
beside each system) is one pair when both are the same result: the same signature
(`signature.json`, where the data was read from aside) and the same latest record of every
sample (its content hash, prompt, output, post-processed answer, scores, failure and judge
answers; when it was made and how long it took aside). The first run directory's is kept.
Different results under one name are an error naming both run directories, what differs and
`--prefer RUN`; `prefer` (run directories) picks the preferred one's result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from audioeval.analysis.pair_identity import WHERE_READ
from audioeval.analysis.pair_records import LatestByFolder, pair_latest, read_summary
from audioeval.core.errors import InputError
from audioeval.core.json_value import JsonValue
from audioeval.core.record import SampleRecord
from audioeval.metrics.summary_blocks import PairSummary
from audioeval.store.run_folder import read_pair

VOLATILE = frozenset({"time", "latency_s", "cached", "endpoint"})
"""Record fields that say when and how fast a result was made, not what it is."""


@dataclass(frozen=True)
class RunPair:
    """A benchmark × model pair of a run directory: its stored summary."""

    run_dir: Path
    summary: PairSummary

    @property
    def key(self) -> tuple[str, str]:
        return str(self.summary["benchmark"]), str(self.summary["model"])

    @property
    def folder(self) -> Path:
        return self.run_dir / str(self.summary.get("folder", ""))


def _without(value: JsonValue, keys: frozenset[str]) -> JsonValue:
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


def _signature(pair: RunPair) -> dict[str, JsonValue] | None:
    """The pair's `signature.json` (through the run folder's checked reader) without where its
    data was read from (None without one)."""
    found = read_pair(pair.folder, None, lines=False).signature
    if found is None:
        return None
    whole = dict(found)
    bench = dict(whole.get("benchmark") or {})
    if isinstance(bench.get("source"), dict):
        bench["source"] = {k: v for k, v in bench["source"].items() if k not in WHERE_READ}
    whole["benchmark"] = bench
    return whole


def _record_content(rec: SampleRecord) -> JsonValue:
    """What a record says of its sample's result (see the module doc)."""
    data: dict[str, JsonValue] = dict(rec.to_json())
    sample = data.pop("sample", None) or {}
    if data.get("sample_sha256") is None:  # no content hash recorded: compare what it asked
        data["fields"] = sample.get("fields")
    return _without(data, VOLATILE)


def difference(a: RunPair, b: RunPair, latest: LatestByFolder) -> str | None:
    """What differs between the results of two pairs of one benchmark and model; None when
    they are the same result."""
    sig_a, sig_b = _signature(a), _signature(b)
    if sig_a != sig_b:
        fields = sorted(
            k for k in set(sig_a or {}) | set(sig_b or {}) if (sig_a or {}).get(k) != (sig_b or {}).get(k)
        )
        return f"their signatures differ ({', '.join(fields) or 'signature.json'})"
    recs_a, recs_b = pair_latest(a.folder, latest, a.run_dir), pair_latest(b.folder, latest, b.run_dir)
    if not recs_a and not recs_b:
        return "neither has records to compare"
    if set(recs_a) != set(recs_b):
        return f"they hold other samples ({len(recs_a)} and {len(recs_b)} records)"
    for sid in sorted(recs_a):
        if _record_content(recs_a[sid]) != _record_content(recs_b[sid]):
            return f"sample {sid!r} has another result"
    return None


def _same_dir(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()


def _chosen(key: tuple[str, str], results: list[list[RunPair]], prefer: Sequence[Path], why: str) -> RunPair:
    """The preferred one of several different results of one pair (each held by one or more
    run directories), or an error naming them."""
    preferred = [same[0] for same in results if any(_same_dir(p.run_dir, r) for p in same for r in prefer)]
    if len(preferred) == 1:
        return preferred[0]
    bench, model = key
    dirs = " and ".join(" = ".join(str(p.run_dir) for p in same) for same in results)
    if preferred:
        raise InputError(
            f"model {model!r} has benchmark {bench!r} with different results in {dirs}, and"
            " --prefer names more than one of them; prefer one",
            field="--prefer",
        )
    options = " or ".join(f"--prefer {same[0].run_dir}" for same in results)
    raise InputError(
        f"model {model!r} has benchmark {bench!r} in {dirs} with different results ({why});"
        f" choose one with {options}",
        file=str(results[-1][0].run_dir),
        field="--prefer",
    )


def read_run_pairs(
    run_dirs: Sequence[Path],
    prefer: Sequence[Path] = (),
    latest: LatestByFolder | None = None,
) -> list[RunPair]:
    """Every benchmark × model pair of the run directories, each once (see the module doc);
    `latest` keeps the records read, by pair folder."""
    latest = {} if latest is None else latest
    for p in prefer:
        if not any(_same_dir(p, r) for r in run_dirs):
            raise InputError("not one of the run directories given", file=str(p), field="--prefer")
    by_key: dict[tuple[str, str], list[RunPair]] = {}
    for run_dir in run_dirs:
        for res in read_summary(run_dir):
            if not (isinstance(res.get("model"), str) and isinstance(res.get("benchmark"), str)):
                raise InputError("a result without model and benchmark", file=str(run_dir / "summary.json"))
            pair = RunPair(run_dir, res)
            by_key.setdefault(pair.key, []).append(pair)
    out: list[RunPair] = []
    for key, found in by_key.items():
        results: list[list[RunPair]] = []  # each distinct result, with every pair holding it
        why = ""
        for pair in found:
            for same in results:
                found_why = difference(same[0], pair, latest)
                if found_why is None:
                    same.append(pair)
                    break
                why = why or found_why
            else:
                results.append([pair])
        out.append(results[0][0] if len(results) == 1 else _chosen(key, results, prefer, why))
    if not out:
        raise InputError("no benchmark × model result in the run directories", field="RUN_DIR")
    return out
