"""VoiceBench's reference-QA judge (scorer `voicebench_qa`, VoiceBench sd-qa): is the candidate
answer correct, given the question and the reference answer? A single Yes or No.

VoiceBench asks GPT-4o-mini three times (`n=3`, temperature 0.5, top_p 0.95) with its own
prompt and takes the majority answer. Here: three votes with that sampling, the VoiceBench
prompt's semantics (`templates/judge_voicebench_qa.yaml` in this folder: question, reference,
candidate; "only Yes or No"), each answer read by `parse_yes_no`; the sample is correct when a
strict majority of the valid votes says yes (`strict_majority`). VoiceBench counts any other
string as a third answer in its vote; here it is an invalid vote, asked again up to
`max_attempts`. `qa_judge` is the general reference-QA judge: its prompt tells the judge to
ignore wording and spoken-style phrasing, which VoiceBench's does not, hence a scorer of its own.

Value: `judge_correct` (1.0 or 0.0), metric `mean:judge_correct` (VoiceBench prints it × 100).
"""

from __future__ import annotations

from audioeval.adapters.chat_wire import SamplingFields
from audioeval.benchmarks.voicebench.judge_sampling import JUDGE_SAMPLING, JUDGE_VOTES
from audioeval.core.sample import Sample
from audioeval.judge.answer_judge import AnswerJudge, AnswerJudgeSignature, YesNoVotes


class VoiceBenchQaScorer(YesNoVotes, AnswerJudge):
    name = "voicebench_qa"
    prompt = "judge_voicebench_qa"
    default_votes = JUDGE_VOTES
    default_sampling = JUDGE_SAMPLING

    def __init__(
        self,
        *,
        question_field: str = "instruction",
        answer_field: str = "answer",
        votes: int | None = None,
        max_attempts: int | None = None,
        sampling: SamplingFields | None = None,
        asr_model: str | None = None,
        language: str | None = "en",
    ) -> None:
        self.fields = (question_field, answer_field)
        super().__init__(
            votes=votes, max_attempts=max_attempts, sampling=sampling, asr_model=asr_model, language=language
        )

    def extra_signature(self) -> AnswerJudgeSignature:
        return {"majority": "strict majority of valid yes/no votes"}

    def variables(self, sample: Sample, candidate: str, view: str) -> dict[str, str]:
        question, reference = (self.field(sample, name) for name in self.fields)
        return {"question": question, "reference": reference, "response": candidate}
