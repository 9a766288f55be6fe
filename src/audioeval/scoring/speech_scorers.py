"""Scorers of generated or reconstructed speech, with the embedded metric models.

- `asr_wer` / `asr_cer`: transcribe the output audio (Whisper tiny.en by default, or a
  configured local model), then WER/CER against the sample's reference text, exactly as the
  `wer`/`cer` scorers compute it (same normaliser, same sufficient statistics); under
  a scoring profile with the profile's TTS text chain (`ultraeval`: UltraEval-Audio's port of
  Seed-TTS-eval's, every language of CV3-Eval and MiniMax), feeding the mean of per-sample
  rates (`mean_wer` / `mean_cer`, see `error_rate.py`);
- `asr_includes`: transcribe a spoken answer, then the `includes` match against the answer;
- `asr_accuracy`: transcribe a spoken answer, read it with a `postprocess` chain of named steps
  (e.g. `extract_letter` for a spoken option letter), then the `accuracy` match; every `asr_*`
  scorer takes such a chain, and a transcript it cannot read is unparseable, wrong and counted
  (`mean:unparseable`); `audioeval rescore` scores the stored transcript again, with no ASR
  call, while the transcriber and the audio bytes are those that made it (`AsrThenText.rescore`);
- `sim`: cosine of speaker embeddings of the output and a reference clip (the sample's
  `reference_voice`, or its input `audio` for codecs);
- `dnsmos`: DNSMOS P.835 SIG/BAK/OVRL and P.808 of the output;
- `pesq_stoi`: PESQ-WB and STOI of the output against the input audio (codecs);
- `utmos`: not shipped offline; with `runtime: my-utmos.yaml` the user's own UTMOS runs as an
  isolated runtime (`runtime_mos.py`), without it asking for it is a clear error.

Each metric model loads once per process (`scoring/speech_models`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from audioeval.audio.decode import Clip, load_clip
from audioeval.core.errors import InputError, OptionalDependencyError
from audioeval.core.messages import AudioRef
from audioeval.core.sample import Sample
from audioeval.postprocess.step_library import StepSpec
from audioeval.postprocess.steps import PostprocessChain, build_chain
from audioeval.scoring.base import Prediction, Score, Scorer
from audioeval.scoring.prediction import NO_OUTPUT
from audioeval.scoring.profiles import DEFAULT_PROFILE
from audioeval.scoring.scorer_hooks import ScorerSignature
from audioeval.store.bounded_json import loads
from audioeval.store.file_digest import MISSING, file_sha256, json_digest

if TYPE_CHECKING:  # imported when a runtime is named: it starts no worker at import
    from audioeval.scoring.error_rate import ErrorRateSignature
    from audioeval.scoring.match import MatchSignature
    from audioeval.scoring.runtime_metric import RuntimeMetricSignature


def _output_path(prediction: Prediction, sample: Sample) -> str:
    if not prediction.audio_path:
        raise InputError("the model returned no audio", sample_id=sample.id, field="output.audio_path")
    return prediction.audio_path


def _output_clip(prediction: Prediction, sample: Sample) -> Clip:
    return load_clip(_output_path(prediction, sample), sample_id=sample.id, field="output.audio_path")


def _sample_clip(sample: Sample, name: str) -> Clip | None:
    ref: AudioRef | None = sample.audio.get(name)
    if ref is None:
        return None
    clip = load_clip(ref.path, sample_id=sample.id, field=name)
    if ref.is_slice:
        from audioeval.audio.slicing import cut

        clip = cut(clip, ref.start, ref.end)
    return clip


class TranscriptDetail(TypedDict, total=False):
    """What an `asr_*` scorer keeps beside its text scorer's own detail: the transcript, what
    made it (a digest of the transcriber's signature, the audio's SHA-256), and the answer its
    chain read from it (`why`: the step and reason when none)."""

    transcript: str
    answer: str | None
    asr_signature: str
    audio_sha256: str
    why: str


class AsrThenTextSignature(ScorerSignature, total=False):
    asr: str | RuntimeMetricSignature  # the transcriber's signature
    text: ErrorRateSignature | MatchSignature  # the text scorer's (wer, cer, includes, accuracy)
    postprocess: list[StepSpec]
    profile: str


class SpeechModelSignature(ScorerSignature, total=False):
    against: str
    backend: str
    runtime: RuntimeMetricSignature
    model: str
    pesq: str
    stoi: str


@dataclass
class AsrThenText(Scorer[TranscriptDetail]):
    """Transcribe the output audio, read the transcript with `postprocess` (empty: as it is),
    then score what it read with a text scorer.

    The transcriber is faster-whisper in this process (`model`: tiny.en by default, or a local
    CTranslate2 folder), or a metric runtime serving task `asr` (`runtime`: Paraformer-zh,
    Whisper-large-v3, … in an environment of their own; `runtime_metric.py`). The chain is the
    one every benchmark's reply goes through (`postprocess/steps.py`); a transcript it cannot
    read reaches the text scorer as a missing answer (wrong), counted in `stats["unparseable"]`.
    The detail keeps the transcript and what made it, so that rescoring reuses it (`rescore`).
    """

    name: str
    text_scorer: Scorer
    requires = ("metric model",)
    model: str | None = None
    language: str | None = "en"
    runtime: str | None = None
    postprocess: PostprocessChain = field(default_factory=PostprocessChain)
    _asr: Any = field(default=None, repr=False)

    @property
    def metrics(self) -> tuple[str, ...]:
        """Those of the text scorer of the transcript (asr_wer: wer)."""
        return tuple(self.text_scorer.metrics or ())

    @property
    def extra_metrics(self) -> tuple[str, ...]:
        """Those of the text scorer, and the share of unreadable transcripts under a chain."""
        extra = tuple(self.text_scorer.extra_metrics)
        return (*extra, "mean:unparseable") if self.postprocess.steps else extra

    @property
    def metric_renames(self) -> dict[str, str]:
        """Those of the text scorer (under profile ultraeval: wer is the mean of rates, `mean_wer`)."""
        return dict(self.text_scorer.metric_renames)

    def __post_init__(self) -> None:
        if self.runtime is not None:
            from audioeval.scoring.runtime_metric import metric_runtime

            self._asr = metric_runtime(self.runtime, "asr", self.name)

    def _transcriber(self) -> Any:
        if self._asr is None:
            from audioeval.scoring.speech_models.asr import AsrConfig, load_asr

            self._asr = load_asr(AsrConfig(model=self.model, language=self.language))
        return self._asr

    def signature(self) -> AsrThenTextSignature:
        text = self.text_scorer.signature()
        sig: AsrThenTextSignature = {"scorer": self.name, "asr": self._transcriber().signature, "text": text}
        if self.postprocess.steps:
            sig["postprocess"] = self.postprocess.describe()
        if "profile" in text:  # named only when not the default, as the text scorer does
            sig["profile"] = text["profile"]
        return sig

    def _transcript(self, prediction: Prediction, sample: Sample) -> str:
        if self.runtime is None:
            clip = _output_clip(prediction, sample)
            return self._transcriber().transcribe(clip.samples, clip.sample_rate)
        return self._asr.ask(AudioRef(_output_path(prediction, sample)), sample.id, self.name).strip()

    def _made_by(self, audio_path: str) -> dict[str, str]:
        """What a transcript depends on, kept beside it in the detail: a digest of the
        transcriber's signature (in full in the pair's signature.json) and the audio's SHA-256."""
        asr = json_digest(self._transcriber().signature)[:16]
        return {"asr_signature": asr, "audio_sha256": file_sha256(audio_path)}

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        made_by = self._made_by(_output_path(prediction, sample))
        return self._scored(self._transcript(prediction, sample), made_by, prediction, sample)

    def failed_output_score(self, sample: Sample, output_kind: str = "text") -> Score | None:
        """No usable output: the text scorer's score of an empty transcript."""
        return self.text_scorer.score(NO_OUTPUT, sample)

    def rescore(self, prediction: Prediction, sample: Sample, stored: TranscriptDetail) -> Score:
        """The score from the transcript in an earlier score's detail (`stored`), with no ASR
        call, when the same transcriber made it from the same audio bytes; transcribed again
        otherwise (another model, beam, language, runtime…, audio changed or gone, or a record
        written before the detail said what made its transcript)."""
        transcript = stored.get("transcript")
        if isinstance(transcript, str) and prediction.audio_path:
            made_by = self._made_by(prediction.audio_path)
            same = all(stored.get(key) == value for key, value in made_by.items())
            if same and made_by["audio_sha256"] != MISSING:
                return self._scored(transcript, made_by, prediction, sample)
        return self.score(prediction, sample)

    def _scored(
        self, transcript: str, made_by: dict[str, str], prediction: Prediction, sample: Sample
    ) -> Score:
        """The transcript read by the chain and scored by the text scorer."""
        if not self.postprocess.steps:
            inner = self.text_scorer.score(Prediction(transcript, transcript, prediction.audio_path), sample)
            return Score(inner.values, inner.stats, {**inner.detail, "transcript": transcript, **made_by})
        read = self.postprocess(transcript, sample)
        answer = Prediction(read.text, transcript, prediction.audio_path, read.outcome)
        inner = self.text_scorer.score(answer, sample)
        stats = {**inner.stats, "unparseable": int(read.text is None)}
        detail = {**inner.detail, "transcript": transcript, "answer": read.text, **made_by}
        if read.detail:
            detail["why"] = read.detail
        return Score(inner.values, stats, detail)


TextScorerBuilder = Callable[..., Scorer]
"""`scorer_registry.build_scorer`: (name, args, *, where) -> the text scorer a transcript is
scored by (handed in by the registry, which this module may not import)."""


def asr_factory(text_name: str, name: str, build_text: TextScorerBuilder) -> Callable[..., Scorer]:
    """The factory of `name` (`asr_wer`, …): transcribe the output, then score the transcript
    with the text scorer `text_name`, built by `build_text`."""

    def make(
        *,
        model: str | None = None,
        runtime: str | None = None,
        language: str | None = None,
        normaliser: Any = None,
        profile: str = DEFAULT_PROFILE,
        postprocess: Any = None,
        **args: Any,
    ) -> Scorer:
        text_args = dict(args)
        if normaliser is not None:
            text_args["normaliser"] = normaliser
        if text_name in ("wer", "cer"):
            text_args["tts"] = True  # under a profile: its TTS text chain
            text_args["profile"] = profile
            if language is not None:
                text_args["language"] = language
        elif profile != DEFAULT_PROFILE:
            raise InputError(f"{name} has no scoring profile; drop `profile`", field=f"scorers.{name}")
        if model is not None and runtime is not None:
            raise InputError(
                "give either model (faster-whisper in this process) or runtime (an isolated runtime "
                "serving task asr), not both",
                field=f"scorers.{name}",
            )
        english = language in (None, "en") or language.startswith("en-")
        if model is None and runtime is None and not english:
            raise InputError(
                f"the embedded ASR model (Whisper tiny.en) is English-only, and this benchmark is in"
                f" {language!r}: name a multilingual CTranslate2 Whisper model, e.g. scorers: "
                f"[{{{name}: {{model: /models/whisper-large-v3-ct2}}}}], or a runtime serving task asr"
                f" (Paraformer-zh, …): [{{{name}: {{runtime: paraformer-zh.yaml}}}}]",
                field=f"scorers.{name}.model",
            )
        text = build_text(text_name, text_args, where=f"scorer {name}")
        chain = build_chain(postprocess, where="", field=f"scorers.{name}.postprocess")
        asr_language = language or "en"
        return AsrThenText(name, text, model=model, language=asr_language, runtime=runtime, postprocess=chain)

    return make


@dataclass
class SimScorer(Scorer):
    """Speaker similarity of the output to `against` (`reference_voice`, falling back to `audio`).

    Embeddings come from a built-in backend (`dvector`, `resemblyzer`) or from a metric runtime
    serving task `speaker_embedding` (`runtime`: a WavLM speaker-verification model, …), whose
    worker answers each clip's embedding as a JSON list of numbers.
    """

    against: str = "reference_voice"
    backend: str = "dvector"
    name: str = "sim"
    metrics = ("mean:sim",)
    requires = ("metric model",)
    runtime: str | None = None
    _runtime: Any = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.runtime is not None:
            from audioeval.scoring.runtime_metric import metric_runtime

            self._runtime = metric_runtime(self.runtime, "speaker_embedding", self.name)
            self.backend = f"runtime:{self._runtime.spec.name}"

    def signature(self) -> SpeechModelSignature:
        sig: SpeechModelSignature = {"scorer": self.name, "against": self.against, "backend": self.backend}
        return {**sig, "runtime": self._runtime.signature} if self._runtime is not None else sig

    def _reference(self, sample: Sample) -> tuple[str, AudioRef] | None:
        for name in (self.against, "audio") if self.against == "reference_voice" else (self.against,):
            ref = sample.audio.get(name)
            if ref is not None:
                return name, ref
        return None

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        found = self._reference(sample)
        if found is None:
            # Nothing to compare with: the metric is undefined for this sample, not zero.
            return Score({}, {"sim": None}, {"sim": "no reference clip"})
        if self._runtime is not None:
            cos = self._runtime_cosine(prediction, sample, found[1])
            return Score({"sim": cos}, {"sim": cos}, {"backend": self.backend})
        from audioeval.scoring.speech_models.speaker_sim import speaker_similarity

        reference = _sample_clip(sample, found[0])
        assert reference is not None
        out = _output_clip(prediction, sample)
        sim = speaker_similarity(
            out.samples, out.sample_rate, reference.samples, reference.sample_rate, backend=self.backend
        )
        return Score({"sim": sim.cosine}, {"sim": sim.cosine}, {"backend": sim.backend})

    def _runtime_cosine(self, prediction: Prediction, sample: Sample, ref: AudioRef) -> float:
        from audioeval.scoring.speech_models.speaker_sim import cosine

        output = self._embedding(AudioRef(_output_path(prediction, sample)), sample.id)
        return cosine(output, self._embedding(ref, sample.id))

    def _embedding(self, audio: AudioRef, sample_id: str) -> Any:

        import numpy as np

        text = self._runtime.ask(audio, sample_id, self.name)
        try:
            vec = np.asarray(loads(text), dtype=np.float64)
        except (ValueError, TypeError) as exc:
            raise InputError(
                f"runtime {self._runtime.spec.name!r} answered {text[:80]!r}, not a JSON list of numbers",
                sample_id=sample_id,
                field=self.name,
            ) from exc
        if vec.ndim != 1 or vec.size == 0 or not np.all(np.isfinite(vec)) or not np.any(vec):
            raise InputError(
                f"runtime {self._runtime.spec.name!r} answered an embedding of shape {vec.shape} that is "
                "empty, not 1-D, zero or not finite",
                sample_id=sample_id,
                field=self.name,
            )
        return vec


@dataclass
class DnsmosScorer(Scorer):
    name: str = "dnsmos"
    metrics = ("mean:dnsmos_ovrl", "mean:dnsmos_p808")
    requires = ("metric model",)

    def signature(self) -> SpeechModelSignature:
        from audioeval.scoring.speech_models.dnsmos import load_dnsmos

        return {"scorer": self.name, "model": load_dnsmos().signature}

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        from audioeval.scoring.speech_models.dnsmos import load_dnsmos

        out = _output_clip(prediction, sample)
        s = load_dnsmos().score(out.samples, out.sample_rate)
        values = {"dnsmos_ovrl": s.ovrl, "dnsmos_sig": s.sig, "dnsmos_bak": s.bak, "dnsmos_p808": s.p808}
        return Score(values, dict(values), {"windows": s.windows, "clipped": s.clipped})


@dataclass
class PesqStoiScorer(Scorer):
    """PESQ-WB and STOI of the output against the sample's input audio (reference-based)."""

    against: str = "audio"
    name: str = "pesq_stoi"
    metrics = ("mean:pesq", "mean:stoi")

    def signature(self) -> SpeechModelSignature:
        return {"scorer": self.name, "against": self.against, "pesq": "wideband 16 kHz", "stoi": "classic"}

    def score(self, prediction: Prediction, sample: Sample) -> Score:
        from audioeval.audio.decode import resample
        from audioeval.scoring.speech_models.reference_quality import reference_quality

        reference = _sample_clip(sample, self.against)
        if reference is None:
            raise InputError("no reference audio to compare with", sample_id=sample.id, field=self.against)
        out = resample(_output_clip(prediction, sample), reference.sample_rate)
        n = min(len(out.samples), len(reference.samples))
        q = reference_quality(reference.samples[:n], out.samples[:n], reference.sample_rate)
        values = {"pesq": q.pesq_wb, "stoi": q.stoi}
        return Score(values, dict(values), {})


def utmos(*, runtime: str | None = None) -> Scorer:
    """UTMOS from a runtime the user provides (`scoring/runtime_mos.py`); none ships offline."""
    if runtime is None:
        raise OptionalDependencyError(
            "UTMOS weights do not ship in any registry package, so audioeval has no UTMOS of its own; "
            "if you have one, run it as an isolated runtime and name its spec: "
            'scorers: [{utmos: {runtime: my-utmos.yaml}}] (docs/runtimes.md, section "Metric runtimes"); '
            "otherwise use dnsmos (P.835 and P.808)"
        )
    from audioeval.scoring.runtime_mos import RuntimeMosScorer

    return RuntimeMosScorer("utmos", runtime)
