"""The wire documents of OpenAI-compatible chat completions (vLLM, OpenAI, vLLM-Omni), declared
once: the request body `adapters/openai_chat.py` writes and the response it reads, used by every
model adapter and judge that builds or reads them.

Only the documented fields audioeval sends or reads are named. A response is untrusted input:
its readers (`reply_text`, `reply_first_token`, `reply_audio`) check every field's type before
using it, so these types say what a well-formed answer holds, not what arrived.
"""

from __future__ import annotations

from typing import Literal, TypedDict


class TextContent(TypedDict):
    type: Literal["text"]
    text: str


class InputAudio(TypedDict):
    data: str  # base64 WAV
    format: Literal["wav"]


class InputAudioContent(TypedDict):
    """OpenAI's audio part."""

    type: Literal["input_audio"]
    input_audio: InputAudio


class AudioUrl(TypedDict):
    url: str  # data:audio/wav;base64,…


class AudioUrlContent(TypedDict):
    """vLLM's audio part."""

    type: Literal["audio_url"]
    audio_url: AudioUrl


class AudioHashContent(TypedDict):
    """An audio part in a request's identity (the base of a cache key): its content hash."""

    type: Literal["audio"]
    sha256: str


ContentPart = TextContent | InputAudioContent | AudioUrlContent | AudioHashContent


class ChatMessage(TypedDict):
    """A request message: a system message of text only is a plain string."""

    role: str
    content: str | list[ContentPart]


class AudioOutputRequest(TypedDict, total=False):
    voice: str
    format: Literal["wav"]


class SamplingFields(TypedDict, total=False):
    """The request settings a chat request may carry: those a model request may be given
    (`core/request_settings.SETTINGS`, checked there) and a judge's own logprobs request."""

    temperature: float
    top_p: float
    top_k: int
    min_p: float
    max_tokens: int
    max_completion_tokens: int
    min_tokens: int
    seed: int | None
    presence_penalty: float
    frequency_penalty: float
    repetition_penalty: float
    length_penalty: float
    stop: str | list[str]
    stop_token_ids: list[int]
    ignore_eos: bool
    skip_special_tokens: bool
    spaces_between_special_tokens: bool
    logit_bias: dict[str, float]
    chat_template_kwargs: dict[str, str | int | float | bool | None]
    reasoning_effort: str
    logprobs: bool
    top_logprobs: int
    modalities: list[str]
    audio: AudioOutputRequest


class ChatRequest(SamplingFields, total=False):
    """The JSON body of a POST to `{base_url}/chat/completions`."""

    model: str
    messages: list[ChatMessage]


class AudioOutputFields(TypedDict):
    """The request fields that ask a chat model to answer in speech."""

    modalities: list[str]
    audio: AudioOutputRequest


class TopLogprob(TypedDict):
    token: str
    logprob: float


class TokenLogprob(TypedDict, total=False):
    token: str
    logprob: float
    top_logprobs: list[TopLogprob]


class ChoiceLogprobs(TypedDict, total=False):
    content: list[TokenLogprob] | None


class MessageAudio(TypedDict, total=False):
    id: str
    data: str  # base64 audio of the answer
    transcript: str
    expires_at: int


class ResponseMessage(TypedDict, total=False):
    role: str
    content: str | list[TextContent] | None
    audio: MessageAudio | None


class Choice(TypedDict, total=False):
    index: int
    message: ResponseMessage
    logprobs: ChoiceLogprobs | None
    finish_reason: str | None


class PromptTokensDetails(TypedDict, total=False):
    """`usage.prompt_tokens_details` (OpenAI; vLLM sends none): the prompt's audio tokens."""

    audio_tokens: int
    cached_tokens: int


class CompletionTokensDetails(TypedDict, total=False):
    """`usage.completion_tokens_details` (OpenAI): the answer's audio and reasoning tokens."""

    audio_tokens: int
    reasoning_tokens: int
    accepted_prediction_tokens: int
    rejected_prediction_tokens: int


class Usage(TypedDict, total=False):
    """A chat completion's `usage` (read by `adapters/api_usage.chat_usage`)."""

    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    prompt_tokens_details: PromptTokensDetails
    completion_tokens_details: CompletionTokensDetails


class ChatResponse(TypedDict, total=False):
    """The JSON body of a chat completion's answer."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[Choice]
    usage: Usage


class FirstToken(TypedDict):
    """A judge's logprobs answer as audioeval stores it: the text, and the first token's top
    logprobs as [token, logprob] pairs (None when the server sent none)."""

    text: str
    top_logprobs: list[list[str | float]] | None


class SpeechRequest(TypedDict, total=False):
    """The JSON body of a POST to `{base_url}/audio/speech` (text to speech, WAV back)."""

    model: str
    input: str
    response_format: Literal["wav"]
    voice: str
