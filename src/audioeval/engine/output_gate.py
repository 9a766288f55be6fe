"""The one gate every model output passes before the pipeline uses it.

Every adapter's answer (an OpenAI-compatible chat, speech, transcription or Realtime model, a
runtime worker, a replay, a predictions file, a baseline, a generator) goes through
`gate_output` in `sample_pipeline.run_sample` (and in `rescore`, for stored outputs) before
it is post-processed, scored or stored as an answer. It refuses:

- text where text is due that is not a string (a number, NaN, a list): `bad output`;
- text over `MAX_ANSWER_CHARS`: `bad output` (the text is not stored);
- text that is an HTML page (it starts with `<!DOCTYPE html` or `<html`): `bad output` (an
  error page answered with 200; where the wire has a content type, `engine/chat_client.py`
  refuses a `text/html` body the same way);
- empty or blank text, or text that is only a `<think>` block: `no output` (kept with the
  error, as the model said it);
- no audio where audio is due, or an audio file that is missing, empty or does not decode:
  `no output` / `bad output`;
- a latency that is not a finite number: `bad output`.

An answer its adapter already found not to be one arrives failed, with its fault
(`ModelOutput.fault`), and passes as it is: a 2xx body that does not parse as the format
asked for, a web page by its content type (`engine/chat_client.py`), a Realtime frame that is
not an event, speech that does not decode, a predictions file's item that cannot be read.

A refused output is a failed output (`FailureKind` of the same name), counted, never scored,
and asked again on a rerun; the response cache takes the same rule (`usable_text`) as its
check, so a refused answer is never cached and a cached one the rule refuses is asked again.
"""

from __future__ import annotations

import dataclasses
import math

from audioeval.audio.decode import require_readable_file
from audioeval.core.errors import AudioError, InputError
from audioeval.core.model_output import ModelOutput, OutputFault
from audioeval.postprocess.think_tags import strip_think

MAX_ANSWER_CHARS = 1_000_000
"""The longest text answer stored (docs/reliability.md, "Bounds"): about 150,000 words, far
beyond any transcript, translation or reply we score. A longer answer, from a live model or a
file, is refused at the gate (a failure of that sample naming the source, id and field, never
truncated and scored), so one answer cannot take gigabytes of memory, a scorer minutes, or a
report hundreds of MB."""

HTML_STARTS = ("<!doctype html", "<html")
NO_CONTENT = "the model answered with no content (empty, blank or only a <think> block)"
"""The `error` of an answer that says nothing: kept with its `text`, counted as no output."""


def text_fault(text: object) -> tuple[OutputFault, str] | None:
    """Why `text` is not a text answer (the fault and one line), or None when it is one."""
    if not isinstance(text, str):
        if isinstance(text, float) and not math.isfinite(text):
            return OutputFault.BAD_OUTPUT, f"the answer is {text!r} (a number that is not finite), not text"
        return OutputFault.BAD_OUTPUT, f"the answer is a {type(text).__name__}, not text"
    if len(text) > MAX_ANSWER_CHARS:
        return (
            OutputFault.BAD_OUTPUT,
            f"answer of {len(text):,} characters, over the bound of {MAX_ANSWER_CHARS:,} on a stored answer",
        )
    head = text.lstrip()[:16].lower()
    if head.startswith(HTML_STARTS):
        return OutputFault.BAD_OUTPUT, "the answer is an HTML page, not an answer (an error page?)"
    if not strip_think(text).strip():
        return OutputFault.NO_OUTPUT, NO_CONTENT
    return None


def usable_text(text: str) -> bool:
    """Whether a text answer passes the gate: the response cache's check for text answers."""
    return text_fault(text) is None


def _audio_fault(path: str) -> tuple[OutputFault, str] | None:
    """Why the audio file at `path` is not an audio answer (missing, empty, undecodable, NaN or
    ±inf samples: `audio/decode.require_readable_file`, from its header but for files of
    floating-point samples), or None."""
    try:
        require_readable_file(path)
    except AudioError as exc:
        return OutputFault.BAD_OUTPUT, exc.message
    return None


def output_fault(
    output: ModelOutput, expects: str, *, blank_is_an_answer: bool = False
) -> tuple[OutputFault, str, str] | None:
    """(fault, field, why) of an output the gate refuses, or None. `expects`: the task's
    output, "text" or "audio"; `blank_is_an_answer`: the adapter declares an empty text its
    answer (the `constant` baseline, a system that says nothing)."""
    if output.latency_s is not None and not (
        isinstance(output.latency_s, int | float) and math.isfinite(output.latency_s)
    ):
        return (
            OutputFault.BAD_OUTPUT,
            "output.latency_s",
            f"latency {output.latency_s!r} is not a finite number",
        )
    if expects == "audio":
        if output.audio_path is None:
            said = None if output.text is None else text_fault(output.text)
            if said is not None and said[0] is OutputFault.BAD_OUTPUT:
                return said[0], "output.text", said[1]
            return OutputFault.NO_OUTPUT, "output.audio_path", "the model answered with no audio"
        if not isinstance(output.audio_path, str):
            return OutputFault.BAD_OUTPUT, "output.audio_path", "the audio path is not text"
        found = _audio_fault(output.audio_path)
        return None if found is None else (found[0], "output.audio_path", found[1])
    if output.text is None:
        if output.audio_path is not None:
            return None  # an audio answer to a text task: the scorers say what they need
        return OutputFault.NO_OUTPUT, "output.text", "the model answered with neither text nor audio"
    found = text_fault(output.text)
    if found is None or (blank_is_an_answer and found[0] is OutputFault.NO_OUTPUT and found[1] == NO_CONTENT):
        return None
    return found[0], "output.text", found[1]


def gate_output(
    output: ModelOutput, expects: str, *, source: str, sample_id: str, blank_is_an_answer: bool = False
) -> ModelOutput:
    """`output` as the pipeline may use it: unchanged when usable or already failed, else
    failed with its fault, an error naming the field and why, and a detail naming `source`
    (the model; for audio, the output file), the sample id and the field. A bad answer's text is not kept (it may be megabytes); a blank one is."""
    if output.error is not None:
        return output
    found = output_fault(output, expects, blank_is_an_answer=blank_is_an_answer)
    if found is None:
        return output
    fault, field, why = found
    file = (
        output.audio_path if field == "output.audio_path" and isinstance(output.audio_path, str) else source
    )
    where = InputError(why, file=file, sample_id=sample_id, field=field)
    # The record names the sample and its pair the model; the detail holds all three.
    error = NO_CONTENT if why == NO_CONTENT else f"{fault.value}: field {field!r}: {why}"
    keep_text = fault is OutputFault.NO_OUTPUT and isinstance(output.text, str)
    latency = output.latency_s if field != "output.latency_s" else None
    return dataclasses.replace(
        output,
        text=output.text if keep_text else None,
        audio_path=output.audio_path if field != "output.audio_path" else None,
        latency_s=latency,
        error=error,
        error_detail=where.as_record(),
        fault=fault,
    )
