"""Caption metrics (CIDEr-D, METEOR, SPICE, SPIDEr; BLEU and ROUGE-L are in
test_caption_coco_bleu_rouge.py): the corpus values against pycocoevalcap's own scorers, a
hand-computed CIDEr-D, bootstrap resamples that recompute document frequencies, and the errors
when Java or SPICE's CoreNLP models are missing."""

from __future__ import annotations

import math
import shutil
from typing import Any

import numpy as np
import pytest

from audioeval.benchmarks.resolved import resolve
from audioeval.benchmarks.spec import parse_spec
from audioeval.core.errors import OptionalDependencyError
from audioeval.core.sample import Sample
from audioeval.metrics import cider_d, jagged_sums
from audioeval.metrics.cider_d import cider_d_of_counts
from audioeval.metrics.corpus import aggregate, get_metric
from audioeval.scoring.base import Prediction
from audioeval.scoring.scorer_registry import build_scorer

WORDS = "a dog barks loudly while the rain falls on tin roof car passes by bird sings".split()


def _fixture(n: int = 120, seed: int = 3) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    """Tokenised references (1-5 a sample) and candidates (0-11 words, some empty)."""
    rng = np.random.default_rng(seed)

    def sentence() -> str:
        return " ".join(rng.choice(WORDS, size=int(rng.integers(0, 12))))

    gts = {i: [sentence() for _ in range(int(rng.integers(1, 6)))] for i in range(n)}
    res = {i: [sentence()] for i in range(n)}
    return gts, res


def _stats(gts: dict[int, list[str]], res: dict[int, list[str]]) -> list[dict[str, object]]:
    return [{"candidate_tokens": res[i][0], "reference_tokens": gts[i]} for i in gts]


def _coco(module: str):  # type: ignore[no-untyped-def]
    return pytest.importorskip(module, reason="pycocoevalcap is not installed (the `captions` extra)")


# --- CIDEr-D ------------------------------------------------------------------------------


def test_cider_d_by_hand() -> None:
    """N = 2 documents: every n-gram of "a b" occurs in one document's references, so
    idf = log 2 for all; sample 1 matches its reference in unigrams and bigrams (cosine 1 each,
    no 3- or 4-grams): 10 · mean(1, 1, 0, 0) = 5; sample 2 shares nothing: 0. CIDEr-D = 2.5."""
    stats = [
        {"candidate_tokens": "a b", "reference_tokens": ["a b"]},
        {"candidate_tokens": "c", "reference_tokens": ["d"]},
    ]
    assert get_metric("cider_d").compute(stats) == pytest.approx(2.5, abs=1e-12)
    # no shared n-gram anywhere (no overlap term at all): 0
    assert get_metric("cider_d").compute([{"candidate_tokens": "x", "reference_tokens": ["y"]}] * 2) == 0.0
    # n-grams in every document's references carry no information (idf 0): CIDEr-D 0
    same = [{"candidate_tokens": "a b", "reference_tokens": ["a b"]}] * 2
    assert get_metric("cider_d").compute(same) == 0.0
    # length penalty on bigram counts: "a b c" (2 bigrams) against "a b" (1): δ = 1
    longer = [stats[0] | {"candidate_tokens": "a b c"}, stats[1]]
    unigram = 2 / (math.sqrt(3) * math.sqrt(2))  # a, b matched of a, b, c
    bigram = 1 / math.sqrt(2)  # "a b" matched of "a b", "b c"
    expected = 10 * (unigram + bigram) / 4 * math.exp(-1 / 72) / 2
    assert get_metric("cider_d").compute(longer) == pytest.approx(expected, rel=1e-12)


def test_cider_d_equals_pycocoevalcap() -> None:
    cider = _coco("pycocoevalcap.cider.cider")
    gts, res = _fixture()
    theirs, _ = cider.Cider().compute_score(gts, res)
    ours = get_metric("cider_d").compute(_stats(gts, res))
    assert theirs > 0.1
    assert math.isclose(ours, theirs, rel_tol=1e-12)  # the same sums, added in another order


def test_cider_d_resample_recomputes_document_frequencies() -> None:
    """A resample's CIDEr-D is pycocoevalcap's CIDEr-D of the resampled list itself (a sample
    drawn twice is two documents)."""
    scorer_mod = _coco("pycocoevalcap.cider.cider_scorer")
    gts, res = _fixture(60, seed=5)
    counts = np.bincount(np.random.default_rng(0).integers(0, 60, 60), minlength=60)
    theirs = scorer_mod.CiderScorer()
    for i, drawn in enumerate(counts):
        for _ in range(drawn):
            theirs += (res[i][0], gts[i])
    expected, _ = theirs.compute_score()
    values = cider_d_of_counts(_stats(gts, res))(np.stack([counts, np.ones(60)]))
    assert math.isclose(values[0], expected, rel_tol=1e-12)
    assert values[0] != values[1]


def _zipf_fixture(n: int = 50, seed: int = 7) -> list[dict[str, Any]]:
    """Captions of 0-14 words from a Zipf vocabulary of 300 words: n-grams in one sample's
    references only, in several samples', and candidate n-grams in no reference."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, 301)
    p /= p.sum()

    def sentence() -> str:
        return " ".join(f"w{k}" for k in rng.choice(300, size=int(rng.integers(0, 15)), p=p))

    return [
        {
            "candidate_tokens": sentence(),
            "reference_tokens": [sentence() for _ in range(int(rng.integers(1, 6)))],
        }
        for _ in range(n)
    ]


def _reference_cider_d(stats: list[dict[str, Any]], counts: np.ndarray) -> float:
    """CIDEr-D of the set holding sample i counts[i] times, straight from pycocoevalcap's loops
    (`CiderScorer.compute_cider`), each document weighted by its count."""

    def grams(text: object) -> dict[tuple[str, ...], int]:
        words = str(text).split()
        out: dict[tuple[str, ...], int] = {}
        for k in range(1, 5):
            for i in range(len(words) - k + 1):
                out[tuple(words[i : i + k])] = out.get(tuple(words[i : i + k]), 0) + 1
        return out

    docs = [(grams(s["candidate_tokens"]), [grams(r) for r in s["reference_tokens"]]) for s in stats]
    total = float(sum(counts))
    if total == 0:
        return math.nan
    df: dict[tuple[str, ...], float] = {}
    for (_, refs), c in zip(docs, counts, strict=True):
        for g in set().union(*refs):
            df[g] = df.get(g, 0.0) + c

    def vec(counted: dict[tuple[str, ...], int]) -> tuple[list[dict], list[float], int]:
        v: list[dict] = [{} for _ in range(4)]
        norm = [0.0] * 4
        for g, tf in counted.items():
            v[len(g) - 1][g] = tf * (math.log(total) - math.log(max(1.0, df.get(g, 0.0))))
            norm[len(g) - 1] += v[len(g) - 1][g] ** 2
        return v, [math.sqrt(x) for x in norm], sum(tf for g, tf in counted.items() if len(g) == 2)

    weighted = 0.0
    for (hyp, refs), c in zip(docs, counts, strict=True):
        vh, nh, lh = vec(hyp)
        val = [0.0] * 4
        for ref in refs:
            vr, nr, lr = vec(ref)
            for k in range(4):
                sim = sum(min(vh[k][g], vr[k][g]) * vr[k][g] for g in vh[k] if g in vr[k])
                if nh[k] != 0 and nr[k] != 0:
                    sim /= nh[k] * nr[k]
                val[k] += sim * math.exp(-((lh - lr) ** 2) / (2 * 6.0**2))
        weighted += c * sum(val) / 4 / len(refs) * 10.0
    return weighted / total


@pytest.mark.parametrize("fixture", ["small vocabulary", "zipf vocabulary"])
@pytest.mark.parametrize(
    ("max_cells", "dense_after"), [(cider_d.MAX_CELLS, jagged_sums.DENSE_AFTER), (40, 2)]
)
def test_cider_d_of_counts_equals_a_plain_implementation(
    fixture: str, max_cells: int, dense_after: int, monkeypatch
) -> None:
    """On random draws (samples left out, others drawn several times), the set itself, one
    sample drawn n times and no draw at all; in one chunk, and in many with most sums as
    dense products (`jagged_sums`)."""
    monkeypatch.setattr(cider_d, "MAX_CELLS", max_cells)
    monkeypatch.setattr(jagged_sums, "DENSE_AFTER", dense_after)
    stats = _stats(*_fixture(40, seed=11)) if fixture == "small vocabulary" else _zipf_fixture()
    n = len(stats)
    rng = np.random.default_rng(4)
    one = np.zeros(n)
    one[3] = n
    counts = np.vstack([rng.multinomial(n, np.full(n, 1 / n), size=12), np.ones(n), one, np.zeros(n)])
    ours = cider_d.cider_d_of_counts(stats)(counts)
    expected = np.array([_reference_cider_d(stats, c) for c in counts])
    assert (counts[:12] == 0).any(axis=1).all() and (counts[:12] > 1).any(axis=1).all()
    assert np.isnan(ours[-1]) and np.isnan(expected[-1])
    assert (expected[:-1] > 0).sum() >= 12
    np.testing.assert_allclose(ours[:-1], expected[:-1], rtol=1e-12, atol=0)


CIDER_OF_DRAWS = """
import hashlib
import numpy as np
from audioeval.metrics.cider_d import cider_d_of_counts
from tests.caption_sets import clotho_like
counts = np.random.default_rng(0).multinomial(200, np.full(200, 1 / 200), size=300)
print(hashlib.sha256(cider_d_of_counts(clotho_like(200))(counts).tobytes()).hexdigest())
"""


def test_cider_d_is_the_same_bits_in_every_process() -> None:
    """No order of summation follows Python's per-process string hashing (an order of the
    n-grams' weight classes taken from a set gives three different results here): a summary
    and a later `audioeval rescore` of it print the same digits."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    digests = {
        subprocess.run(
            [sys.executable, "-c", CIDER_OF_DRAWS],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(digests) == 1 and len(digests.pop().strip()) == 64


def test_cider_d_bootstrap_ci() -> None:
    gts, res = _fixture()
    stats = _stats(gts, res)
    mv = aggregate("cider_d", stats, resamples=200, seed=1)
    assert mv.value == get_metric("cider_d").compute(stats)
    assert mv.ci_low is not None and mv.ci_high is not None
    assert mv.ci_low < mv.value < mv.ci_high
    assert aggregate("cider_d", stats, resamples=200, seed=1) == mv  # deterministic by seed
    with pytest.raises(ValueError, match="whole set"):  # no summed table for the additive paths
        get_metric("cider_d").prepare(stats)


def test_cider_d_names_a_missing_stats_key() -> None:
    with pytest.raises(ValueError, match="candidate_tokens"):
        get_metric("cider_d").compute([{"rouge_l": 0.5}])


def test_spider_is_the_mean_of_cider_d_and_spice() -> None:
    gts, res = _fixture(40)
    spice = np.random.default_rng(2).random(40)
    stats = [s | {"spice": float(f)} for s, f in zip(_stats(gts, res), spice, strict=True)]
    cider = get_metric("cider_d").compute(stats)
    spider = aggregate("spider", stats, resamples=100)
    assert spider.value == pytest.approx((cider + spice.mean()) / 2, rel=1e-12)
    assert spider.ci_low is not None and spider.ci_low < spider.value
    assert aggregate("spice", stats, resamples=0).value == pytest.approx(spice.mean())


# --- the captioning task --------------------------------------------------------------------


def test_captioning_defaults_and_spice_opt_in() -> None:
    bench = resolve(
        parse_spec(
            {"name": "caps", "task": "captioning", "source": {"type": "jsonl", "path": "caps.jsonl"}}, "t"
        ),
        "t",
    )
    assert [s.name for s in bench.scorers] == ["coco_bleu", "coco_rouge_l", "cider_d", "meteor"]
    assert bench.headline == "cider_d"
    spec = {
        "name": "caps",
        "task": "captioning",
        "source": {"type": "jsonl", "path": "caps.jsonl"},
        "scorers": ["coco_bleu", "coco_rouge_l", "cider_d", "meteor", "spice"],
        "headline": "spider",
    }
    bench = resolve(parse_spec(spec, "t"), "t")
    bleus = ["bleu_1", "bleu_2", "bleu_3", "bleu_4"]
    assert [m.name for m in bench.metrics] == [*bleus, "rouge_l", "cider_d", "meteor", "spice", "spider"]
    assert bench.summary_plan().feeds["spider"] == ["spice"]


def test_spice_without_corenlp_names_the_jars_and_the_variable(tmp_path, monkeypatch) -> None:
    _coco("pycocoevalcap.cider.cider")
    monkeypatch.setenv("AUDIOEVAL_SPICE_CORENLP", str(tmp_path))
    scorer = build_scorer("spice", where="t")
    with pytest.raises(OptionalDependencyError) as err:
        scorer.score(Prediction("a dog barks", "a dog barks"), Sample("s", fields={"reference": "a dog"}))
    message = str(err.value)
    for part in (
        "stanford-corenlp-3.6.0.jar",
        "stanford-corenlp-3.6.0-models.jar",
        "AUDIOEVAL_SPICE_CORENLP",
    ):
        assert part in message
    assert "SPIDEr" in message and str(tmp_path) in message


def test_missing_java_says_how_to_install_it(monkeypatch) -> None:
    from audioeval.scoring.caption_java import java_command

    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "")
    with pytest.raises(OptionalDependencyError, match="default-jre-headless"):
        java_command()


# --- the Java tools: PTB tokenizer and METEOR ----------------------------------------------

needs_java = pytest.mark.skipif(
    shutil.which("java") is None, reason="no Java runtime on PATH (`make java-deps` installs it)"
)
CAPTIONS = {
    "a": ["A dog barks, loudly (twice).", '"Hello," she said... it\'s 3:30 -- ok?'],
    "b": ["Café naïve résumé!", "Rain falls on a tin roof; thunder rumbles.\nA car passes."],
    "c": ["", "A man speaks while birds chirp in the background"],
    "d": ["Water is running & splashing", "Someone types on a keyboard -- quickly; then stops"],
}


@needs_java
def test_ptb_tokens_equal_pycocoevalcap() -> None:
    tokenizer = _coco("pycocoevalcap.tokenizer.ptbtokenizer")
    from audioeval.scoring.caption_tokens import ptb_tokens

    theirs = tokenizer.PTBTokenizer().tokenize({k: [{"caption": c} for c in v] for k, v in CAPTIONS.items()})
    assert {k: [ptb_tokens(c) for c in v] for k, v in CAPTIONS.items()} == theirs
    assert ptb_tokens("A dog barks (twice).") == "a dog barks -lrb- twice -rrb-"


@needs_java
def test_meteor_corpus_equals_pycocoevalcap() -> None:
    meteor = _coco("pycocoevalcap.meteor.meteor")
    from audioeval.scoring.caption_tokens import ptb_tokens

    gts = {k: [ptb_tokens(c) for c in v[1:]] + ["a dog is barking"] for k, v in CAPTIONS.items()}
    res = {k: [ptb_tokens(v[0])] for k, v in CAPTIONS.items()}
    theirs, per_segment = meteor.Meteor().compute_score(gts, res)
    scorer = build_scorer("meteor", where="t")
    scores = [
        scorer.score(
            Prediction(CAPTIONS[k][0], None), Sample(k, fields={"references": [*v[1:], "a dog is barking"]})
        )
        for k, v in CAPTIONS.items()
    ]
    assert [s.values["meteor"] for s in scores] == per_segment
    mv = aggregate("meteor", [s.stats for s in scores], resamples=50)
    assert mv.value == theirs  # the jar's score of the summed segment statistics
    assert mv.ci_low is not None and mv.ci_low <= mv.value <= mv.ci_high


@needs_java
@pytest.mark.parametrize(
    "pairs",
    [
        [("a dog barks", ["a dog barks"]), ("a cat meows loudly", ["a cat meows", "the cat is loud"])],
        [("a dog barks", ["a dog barks"]), ("rain falls", ["rain falls"])],  # every segment perfect
        [("a dog barks", ["a dog barks"])],  # one perfect segment alone
        [("barks a dog", ["a dog barks"]), ("the rain", ["rain falls on a roof"])],  # none perfect
        [("a dog barks", ["the dog", "a dog barks"]), ("dog a", ["a dog"])],  # perfect on one reference
    ],
)
def test_meteor_corpus_adds_no_chunk_for_a_perfect_match(pairs: list[tuple[str, list[str]]]) -> None:
    """The jar's corpus score does not add the chunk of a segment matching its reference
    completely (`MeteorStats.addStats`): "a dog barks" exact + "a cat meows loudly" is
    pycocoevalcap's corpus METEOR, not the score of the plain sum of the two rows."""
    meteor = _coco("pycocoevalcap.meteor.meteor")
    gts = {str(i): refs for i, (_, refs) in enumerate(pairs)}
    res = {str(i): [hyp] for i, (hyp, _) in enumerate(pairs)}
    theirs, _ = meteor.Meteor().compute_score(gts, res)
    scorer = build_scorer("meteor", where="t")
    scores = [
        scorer.score(Prediction(h, None), Sample(str(i), fields={"references": r}))
        for i, (h, r) in enumerate(pairs)
    ]
    assert aggregate("meteor", [s.stats for s in scores], resamples=0).value == pytest.approx(
        theirs, abs=1e-12
    )


def test_a_whole_set_headline_is_bootstrapped_not_held(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`audioeval rank` over a captioning run: CIDEr-D (the captioning headline) is not a sum of
    per-sample statistics: its cells are resampled through the metric's function of draw counts,
    like every other headline. (A test of the ranking, kept beside the METEOR test: the run's
    default scorers start the METEOR jar, whose paraphrase table takes ~10 s of CPU to load
    once per process.)"""
    from typer.testing import CliRunner

    from audioeval.analysis.score_table import bootstrap_tables, table_from_runs
    from audioeval.cli.main import app
    from tests.fakes.mcq_server import tone_wav
    from tests.run_helpers import write_jsonl

    folder = tmp_path / "caps"
    folder.mkdir()
    captions = ["a dog barks loudly", "a dog barks twice", "rain falls on a roof", "a car passes by"]
    rows = []
    for i, caption in enumerate(captions):
        tone_wav(folder / f"c{i}.wav", 200 + 40 * i, seconds=0.2)
        rows.append({"id": f"c{i}", "audio": f"c{i}.wav", "caption": caption})
    manifest = write_jsonl(folder / "caps.jsonl", rows)
    out = tmp_path / "run"
    res = CliRunner().invoke(
        app,
        [
            "run",
            "-m",
            "constant:a dog barks,constant:rain on a roof",
            "--task",
            "captioning",
            "-b",
            str(manifest),
        ]
        + ["-o", str(out), "--resamples", "0", "--no-progress"],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    built = table_from_runs([out])
    assert [c.name for c in built.table.columns] == ["caps:cider_d"]
    resampled = bootstrap_tables(built, resamples=200, seed=0)
    assert resampled is not None and resampled.held == ()
    dog = resampled.values[:, built.table.models.index("constant:a dog barks"), 0]
    assert dog.std() > 0.0  # each resample recomputed its own value


@needs_java
def test_cider_d_scorer_keeps_tokens_for_rescoring() -> None:
    _coco("pycocoevalcap.cider.cider")
    scorer = build_scorer("cider_d", where="t")
    sample = Sample("s", fields={"references": ["A dog barks.", "A DOG is barking!"]})
    score = scorer.score(Prediction("The dog, barking.", "The dog, barking."), sample)
    assert score.stats == {
        "candidate_tokens": "the dog barking",
        "reference_tokens": ["a dog barks", "a dog is barking"],
    }
    other = Sample("t", fields={"reference": "Rain falls on a roof."})
    missing = scorer.score(Prediction(None, "???", outcome="unparseable"), other)
    assert missing.stats == {"candidate_tokens": "", "reference_tokens": ["rain falls on a roof"]}
    assert missing.detail["missing"] is True
    assert get_metric("cider_d").compute([score.stats, missing.stats]) > 0


# --- the kept Java process: hangs, deaths, large requests, threads, one item's error ------------

FAKE_TOOL = """
import java.io.*;
import java.nio.charset.StandardCharsets;
public class FakeTool {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, "UTF-8");
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("hang")) { Thread.sleep(600_000); }
            if (line.equals("exit")) { System.err.println("fake tool gives up"); System.exit(3); }
            if (line.startsWith("[{")) { out.print("ERROR java.lang.IllegalStateException: no parse\\n"); }
            else if (line.length() > 1000) { out.print(line.length() + "\\n"); }
            else { out.print(line.toUpperCase() + "\\n"); }
            out.flush();
        }
    }
}
"""


@pytest.fixture(scope="module")
def fake_tool_classes(tmp_path_factory):  # type: ignore[no-untyped-def]
    """FakeTool compiled once for the module: started from its source file, each JVM (one per
    test, and one per restart) compiled it again, about 1 s of CPU each."""
    import subprocess

    from audioeval.scoring.caption_java import java_command

    folder = tmp_path_factory.mktemp("fake_tool")
    source = folder / "FakeTool.java"
    source.write_text(FAKE_TOOL)
    javac = [java_command(), "-m", "jdk.compiler/com.sun.tools.javac.Main"]
    subprocess.run([*javac, "-d", str(folder / "classes"), str(source)], check=True, capture_output=True)
    return folder / "classes"


@pytest.fixture
def fake_tool(fake_tool_classes, tmp_path):  # type: ignore[no-untyped-def]
    from audioeval.scoring.caption_java import LineProcess

    tool = LineProcess("fake tool", ["-cp", str(fake_tool_classes), "FakeTool"], tmp_path, timeout=20.0)
    yield tool
    tool.close()


@needs_java
def test_a_hung_tool_is_killed_and_replaced(fake_tool) -> None:  # type: ignore[no-untyped-def]
    """A tool that stops answering fails the request within its timeout (it does not block the
    scorer for ever) and the next request gets a fresh process."""
    from audioeval.scoring.caption_java import JavaToolError

    assert fake_tool.ask(["a"], 1) == ["A"]  # the JVM has started
    fake_tool.timeout = 2.0
    with pytest.raises(JavaToolError, match=r"fake tool .*did not answer within 2 s"):
        fake_tool.ask(["hang"], 1)
    fake_tool.timeout = 20.0
    assert fake_tool.ask(["b"], 1) == ["B"]


@needs_java
def test_a_tool_that_died_names_its_stderr_and_is_restarted(fake_tool) -> None:  # type: ignore[no-untyped-def]
    from audioeval.scoring.caption_java import JavaToolError

    with pytest.raises(JavaToolError, match=r"exit code 3; its stderr: fake tool gives up"):
        fake_tool.ask(["exit"], 1)
    assert fake_tool.ask(["c"], 1) == ["C"]


@needs_java
def test_large_requests_and_concurrent_callers(fake_tool) -> None:  # type: ignore[no-untyped-def]
    from concurrent.futures import ThreadPoolExecutor

    big = "x" * 3_000_000  # far more than a pipe holds
    assert fake_tool.ask([big], 1) == [str(len(big))]
    words = [f"w{i}" for i in range(200)]
    with ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(lambda w: fake_tool.ask([w], 1)[0], words))
    assert answers == [w.upper() for w in words]


@needs_java
def test_a_spice_error_on_one_caption_fails_that_sample_only(fake_tool, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """SPICE's own error about one item (the fake answers "ERROR …" to SPICE's JSON request) is
    that sample's failure, recorded as not scored, not an error of set-up that stops the run
    (`AudioevalError`); the tool goes on answering."""
    from audioeval.core.errors import AudioevalError
    from audioeval.scoring import caption_spice

    monkeypatch.setattr(caption_spice, "_spice", lambda: fake_tool)
    with pytest.raises(Exception, match="SPICE failed on this caption: .*no parse") as err:
        caption_spice.spice_f("a dog barks", ["a dog"])
    assert not isinstance(err.value, AudioevalError)
    assert fake_tool.ask(["d"], 1) == ["D"]
