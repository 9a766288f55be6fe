"""The COCO caption metrics of audio captioning (AudioCaps, Clotho): BLEU-1..4, ROUGE-L, CIDEr-D,
METEOR, SPICE and SPIDEr, with pycocoevalcap's tools (its PTB tokenizer and its jars, run by one
JVM each).

Each scorer tokenises the caption and the references as the COCO evaluation does
(`caption_tokens`, each sentence once per process) and keeps in `stats` what its corpus
metrics need, so summaries and `audioeval rescore`'s aggregation never tokenise again:

| scorer    | stats                                                        | metrics            |
|-----------|--------------------------------------------------------------|--------------------|
| `coco_bleu` | bleu_testlen, bleu_reflen, bleu_guess[4], bleu_correct[4]  | bleu_1 … bleu_4    |
| `coco_rouge_l` | rouge_l (the item's pycocoevalcap ROUGE-L)              | rouge_l            |
| `cider_d` | candidate_tokens, reference_tokens                           | cider_d            |
| `meteor`  | meteor_stats (the jar's 23 segment statistics)               | meteor             |
| `spice`   | spice (the item's F), candidate_tokens, reference_tokens     | spice, spider      |

CIDEr-D is a corpus metric (document frequencies over the evaluated set's references), so
`cider_d` has no per-sample value; SPIDEr = (CIDEr-D + SPICE) / 2 reads both from `spice`'s
stats. A sample without an answer scores an empty caption (its references still count in
CIDEr-D's document frequencies). A sample whose reference is the empty string is not scored
(an input error), as UltraEval-Audio's caption aggregator leaves such pairs out.
"""

from __future__ import annotations

from audioeval.core.errors import InputError
from audioeval.core.sample import Sample
from audioeval.scoring.base import Prediction, Score, Scorer
from audioeval.scoring.caption_java import coco_version
from audioeval.scoring.fields import references
from audioeval.scoring.prediction import MissingDetail
from audioeval.scoring.scorer_hooks import ScorerSignature


class CaptionSignature(ScorerSignature, total=False):
    pycocoevalcap: str
    tokenizer: str
    reference_field: str
    beta: float  # coco_rouge_l
    references: str
    meteor: str
    spice: str


class CaptionDetail(MissingDetail, total=False):
    candidate_tokens: str


class _CaptionScorer(Scorer[CaptionDetail]):
    name = ""
    requires = ("Java",)  # the PTB tokenizer every caption metric reads through

    def __init__(self, *, reference_field: str | None = None) -> None:
        self.reference_field = reference_field

    def signature(self) -> CaptionSignature:
        from audioeval.scoring.caption_tokens import DESCRIPTION

        return {
            "scorer": self.name,
            "pycocoevalcap": coco_version(),
            "tokenizer": DESCRIPTION,
            "reference_field": self.reference_field or "references | reference",
        }

    def tokens(self, prediction: Prediction, sample: Sample) -> tuple[str, list[str]]:
        """The tokenised caption and references (references read first: a sample without
        them cannot be scored, whatever the answer)."""
        from audioeval.scoring.caption_tokens import ptb_tokens

        refs = references(sample, self.reference_field, self.name)
        field = self.reference_field or (
            "references" if sample.get("references") is not None else "reference"
        )
        if sample.get(field) == "":  # the COCO evaluation keeps only pairs with a truthy reference
            raise InputError(
                f"scorer {self.name!r}: the reference caption is empty (not scored)",
                file=sample.source or None,
                sample_id=sample.id,
                field=field,
            )
        return ptb_tokens(prediction.text or ""), [ptb_tokens(r) for r in refs]

    @staticmethod
    def detail(prediction: Prediction, candidate: str) -> CaptionDetail:
        out: CaptionDetail = {"candidate_tokens": candidate}
        if prediction.missing:
            out.update(missing=True, outcome=prediction.outcome)
        return out


class CocoBleuScorer(_CaptionScorer):
    """`coco_bleu`: pycocoevalcap's `Bleu_1`..`Bleu_4` (corpus BLEU of summed n-gram statistics,
    `closest` reference length: `caption_bleu`); a sample's values are pycocoevalcap's per-item
    BLEU."""

    name = "coco_bleu"
    metrics = ("bleu_1", "bleu_2", "bleu_3", "bleu_4")

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        from audioeval.scoring.caption_bleu import bleu_of_sums, bleu_stats, stats_row

        candidate, refs = self.tokens(prediction, sample)
        stats = bleu_stats(candidate, refs)
        own = bleu_of_sums([stats_row(stats)])[0]
        values = {f"bleu_{k + 1}": float(v) for k, v in enumerate(own)}
        return Score(values, stats, self.detail(prediction, candidate))


class CocoRougeLScorer(_CaptionScorer):
    """`coco_rouge_l`: pycocoevalcap's `ROUGE_L` of the item (β = 1.2; `rouge.coco_rouge_l`);
    the corpus value is the mean over items."""

    name = "coco_rouge_l"
    metrics = ("rouge_l",)

    def signature(self) -> CaptionSignature:
        return {**super().signature(), "beta": 1.2, "references": "best precision and best recall"}

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        from audioeval.scoring.rouge import coco_rouge_l

        candidate, refs = self.tokens(prediction, sample)
        value = coco_rouge_l(candidate, refs)
        return Score({"rouge_l": value}, {"rouge_l": value}, self.detail(prediction, candidate))


class CiderDScorer(_CaptionScorer):
    """`cider_d`: the tokens CIDEr-D's corpus metric needs (n-grams 1-4, σ = 6, clipped)."""

    name = "cider_d"
    metrics = ("cider_d",)

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        candidate, refs = self.tokens(prediction, sample)
        stats = {"candidate_tokens": candidate, "reference_tokens": refs}
        return Score({"candidate_words": len(candidate.split())}, stats, self.detail(prediction, candidate))


class MeteorScorer(_CaptionScorer):
    """`meteor`: METEOR 1.5's segment statistics (the jar's `SCORE`) and segment score."""

    name = "meteor"
    metrics = ("meteor",)

    def signature(self) -> CaptionSignature:
        from audioeval.scoring.caption_meteor import DESCRIPTION

        return {**super().signature(), "meteor": DESCRIPTION}

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        import numpy as np

        from audioeval.scoring.caption_meteor import meteor_of_sums, meteor_stats

        candidate, refs = self.tokens(prediction, sample)
        stats = meteor_stats(candidate, refs)
        value = float(meteor_of_sums(np.asarray([stats]))[0])
        return Score({"meteor": value}, {"meteor_stats": stats}, self.detail(prediction, candidate))


class SpiceScorer(_CaptionScorer):
    """`spice`: SPICE's F of the caption's scene-graph tuples against the references' (needs
    Stanford CoreNLP 3.6.0: `caption_spice.SPICE_HINT`), and the tokens SPIDEr's CIDEr-D needs."""

    name = "spice"
    metrics = ("spice", "spider")
    extra_metrics = ("cider_d",)

    def signature(self) -> CaptionSignature:
        from audioeval.scoring.caption_spice import CORENLP_JARS, SPICE_JAR

        return {**super().signature(), "spice": f"{SPICE_JAR} -subset, {CORENLP_JARS[0]}"}

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        from audioeval.scoring.caption_spice import corenlp_jars, spice_f

        corenlp_jars()  # the missing models stop the run before anything is tokenised
        candidate, refs = self.tokens(prediction, sample)
        f = spice_f(candidate, refs)
        stats = {"spice": f["f"], "candidate_tokens": candidate, "reference_tokens": refs}
        values = {"spice": f["f"], "spice_precision": f["precision"], "spice_recall": f["recall"]}
        return Score(values, stats, self.detail(prediction, candidate))
