"""Task defaults: the prompt, post-processing chain, scorers and metrics a benchmark of
each task gets unless its spec says otherwise."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from audioeval.core.registry import Registry

CJK_LANGUAGES = {"zh", "ja", "ko", "yue", "zh-cn", "zh-tw", "cmn"}
FAMILIES = ("understanding", "reasoning", "generation", "codec", "editing")
"""Task families: each has its own leaderboard (`engine/family_boards.py`); numbers of
different families are never averaged together."""


@dataclass(frozen=True)
class TaskDefaults:
    """What a task is: its inputs, its output modality, and how it is scored by default."""

    name: str
    description: str
    prompt: str
    postprocess: tuple[Any, ...]
    scorers: tuple[Any, ...]
    """Its default scorers; empty where a benchmark provides them (`TASK_SCORERS`)."""
    metrics: tuple[str, ...]
    """Its default metrics; empty where its scorers' declared metrics are (`Scorer.metrics`)."""
    headline: str
    """Its default headline; empty: the first of its metrics."""
    family: str
    """Its leaderboard: one of FAMILIES."""
    required_fields: tuple[str, ...] = ()
    output: str = "text"  # "text" | "audio"
    answer_among_choices: bool = False
    """Whether a sample's gold `answer` must be one of its `choices` (surrounding spaces
    aside): a sample whose answer is not is bad input, refused naming file, id and field."""


def _asr_scoring(language: str) -> tuple[tuple[Any, ...], tuple[str, ...], str]:
    if language.lower() in CJK_LANGUAGES:
        return ("cer",), ("cer",), "cer"
    return ("wer", "cer"), ("wer", "cer"), "wer"


_TASK_DEFAULTS: dict[str, TaskDefaults] = {
    t.name: t
    for t in (
        TaskDefaults(
            "asr",
            "speech recognition: transcript scored by WER (CER for Chinese, Japanese, Korean)",
            "asr",
            ("strip_think", "strip"),
            ("wer", "cer"),
            ("wer", "cer"),
            "wer",
            "understanding",
            ("audio", "reference"),
        ),
        TaskDefaults(
            "ast",
            "speech translation: BLEU and chrF (sacrebleu) against the reference translation",
            "ast",
            ("strip_think", "strip"),
            ("bleu", "chrf"),
            ("bleu", "chrf"),
            "bleu",
            "understanding",
            ("audio", "reference"),
        ),
        TaskDefaults(
            "classification",
            "audio classification (emotion, gender, genre, instrument, sound event …): accuracy, macro-F1",
            "classification",
            ("strip_think", "extract_choice"),
            ("accuracy",),
            ("accuracy", "macro_f1"),
            "accuracy",
            "understanding",
            ("audio", "answer", "choices"),
        ),
        TaskDefaults(
            "captioning",
            "audio captioning: the COCO caption metrics (pycocoevalcap's Bleu_1..Bleu_4, ROUGE_L, "
            "CIDEr-D as headline, METEOR) against one or more reference captions, in every profile; "
            "SPICE and SPIDEr with the `spice` scorer (needs Stanford CoreNLP 3.6.0)",
            "captioning",
            ("strip_think", "strip"),
            ("coco_bleu", "coco_rouge_l", "cider_d", "meteor"),
            ("bleu_1", "bleu_2", "bleu_3", "bleu_4", "rouge_l", "cider_d", "meteor"),
            "cider_d",
            "understanding",
            ("audio",),
        ),
        TaskDefaults(
            "spoken_qa",
            "spoken question answering: the answer is scored by inclusion of the gold answer",
            "spoken_qa",
            ("strip_think", "strip"),
            ("includes", "accuracy"),
            ("includes", "accuracy"),
            "includes",
            "understanding",
            ("audio", "answer"),
        ),
        TaskDefaults(
            "mcq",
            "multiple-choice audio reasoning (MMAU / MMAR): the official string match",
            "mcq_choices",
            ("strip_think",),
            ("mcq_match",),
            ("accuracy",),
            "accuracy",
            "reasoning",
            ("question", "choices", "answer"),
            answer_among_choices=True,
        ),
        TaskDefaults(
            "spoken_safety",
            "harmful spoken requests (AdvBench): the refusal rate of the text reply, by refusal phrases",
            "spoken_instruction",
            ("strip_think", "strip"),
            ("refusal",),
            ("mean:refusal_rate",),
            "mean:refusal_rate",
            "understanding",
            ("audio",),
        ),
        TaskDefaults(
            "spoken_chat",
            "open-ended spoken requests (VoiceBench alpacaeval, commoneval, wildvoice): the text "
            "reply rated by an LLM judge, needs --judge",
            "spoken_instruction",
            ("strip_think", "strip"),
            ("chat_rating",),
            ("mean:chat_rating",),
            "mean:chat_rating",
            "understanding",
            ("audio",),
        ),
        TaskDefaults(
            "spoken_chat_audio",
            "open-ended spoken requests answered in speech (SpeechAlpacaEval): the reply's "
            "transcript rated by an LLM judge, needs --judge",
            "spoken_instruction",
            (),
            ("chat_rating",),
            ("mean:chat_rating",),
            "mean:chat_rating",
            "generation",
            ("audio",),
            output="audio",
        ),
        TaskDefaults(
            "audio_chat",
            "open questions about a clip (AIR-Bench chat): the answer scored beside the reference "
            "answer by an LLM judge reading the clip's description, needs --judge",
            "audio_chat",
            ("strip_think", "strip"),
            (),  # the benchmark providing the judge gives them (`Benchmark.task_scorers`)
            (),  # and the metrics are those its scorer declares (the first is the headline)
            "",
            "understanding",
            ("audio", "question", "answer"),
        ),
        TaskDefaults(
            "tts",
            "text to speech: ASR-WER of the output against its text, DNSMOS, and SIM to a prompt voice when given",
            "tts",
            (),
            ("asr_wer", "dnsmos", "sim"),
            ("wer", "mean:dnsmos_ovrl", "mean:dnsmos_p808", "mean:sim"),
            "wer",
            "generation",
            ("reference",),
            output="audio",
        ),
        TaskDefaults(
            "vc",
            "voice conversion / zero-shot TTS: ASR-WER and SIM to the reference voice, DNSMOS",
            "tts",
            (),
            ("asr_wer", "sim", "dnsmos"),
            ("wer", "mean:sim", "mean:dnsmos_ovrl", "mean:dnsmos_p808"),
            "wer",
            "generation",
            ("reference", "reference_voice"),
            output="audio",
        ),
        TaskDefaults(
            "spoken_qa_audio",
            "spoken QA answered in speech: the transcript scored by inclusion of the gold answer, DNSMOS",
            "spoken_qa",
            (),
            ("asr_includes", "dnsmos"),
            ("includes", "mean:dnsmos_ovrl", "mean:dnsmos_p808"),
            "includes",
            "generation",
            ("audio", "answer"),
            output="audio",
        ),
        TaskDefaults(
            "codec",
            "audio codec round trip: semantics (ASR-WER), timbre (SIM to the input), acoustics "
            "(DNSMOS P.835/P.808), and reference-based PESQ-WB / STOI",
            "codec",
            (),
            ({"asr_wer": {}}, {"sim": {"against": "audio"}}, "dnsmos", "pesq_stoi"),
            ("wer", "mean:sim", "mean:dnsmos_ovrl", "mean:dnsmos_p808", "mean:pesq", "mean:stoi"),
            "wer",
            "codec",
            ("audio", "reference"),
            output="audio",
        ),
        TaskDefaults(
            "audio_instruct",
            "audio made from a caption (instruct TTS, sound, music), judged by its rubric: "
            "mean P(yes) of yes/no items put to an audio judge (AnyAudio-Judge style), needs --judge",
            "audio_instruct",
            (),
            ("rubric_items",),
            ("mean:rubric_score",),
            "mean:rubric_score",
            "generation",
            ("reference", "rubric"),
            output="audio",
        ),
        TaskDefaults(
            "audio_edit",
            "instruction-guided audio editing (MMAE): rubric MCQs put to an audio judge; "
            "IFR, CR and EMR (× 100) per sample, needs --judge",
            "audio_edit",
            (),
            (),  # the benchmark providing the judge gives them (`Benchmark.task_scorers`)
            (),  # and the metrics are those its scorer declares (the first is the headline)
            "",
            "editing",
            ("instruction", "rubrics"),
            output="audio",
        ),
    )
}
TASKS: Registry[TaskDefaults] = Registry("task", _TASK_DEFAULTS.items())

TASK_SCORERS: Registry[tuple[Any, ...]] = Registry("default scorers of task")
"""Task name -> the default scorers a benchmark provides for a task that has none of its own
(a judge that lives with its benchmark); `benchmarks/plugins.py` registers them."""


def default_scorers(task: TaskDefaults) -> tuple[Any, ...]:
    """The scorers a spec of this task gets when it names none: the task's own, else those a
    benchmark provides (`Benchmark.task_scorers`, registered when the benchmarks are loaded:
    `resolved.resolve` loads them first), else none (the spec must name them)."""
    if task.scorers:
        return task.scorers
    return TASK_SCORERS.find(task.name) or ()


ONE_RIGHT_REPLY = ("asr", "ast", "classification", "spoken_qa", "mcq")
"""Tasks whose answer has one right reply: their requests are greedy (temperature 0) unless
the benchmark spec's `generation:` or the user's settings say otherwise. Other tasks send no
sampling field of their own (the server's default) unless a spec or the user sets one."""


def default_generation(task: str) -> dict[str, float]:
    """The generation settings a task's requests carry by default (docs/benchmarks.md)."""
    return {"temperature": 0.0} if task in ONE_RIGHT_REPLY else {}


def get_task(name: str, *, where: str | None = None) -> TaskDefaults:
    return TASKS.get(name, where=where, field="task")


def asr_defaults_for(language: str) -> tuple[tuple[Any, ...], tuple[str, ...], str]:
    """ASR scorers, metrics and headline by language (CER only for CJK languages)."""
    return _asr_scoring(language)
