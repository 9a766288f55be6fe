"""A fake OpenAI-compatible model that answers in speech, for tests of audio output.

- `POST /v1/chat/completions` with `modalities` holding "audio": the answer is spoken with
  espeak-ng and returned as OpenAI does (`message.audio = {data: base64 WAV, transcript}`,
  `content: null`), or, with `split_choices`, as vLLM-Omni does (one choice with the text, one
  with the audio). What it says: the text after "Say this text aloud:" (TTS prompts); for a
  question with an audio part, it decodes the clip and answers "The tone is high." or "The
  tone is low." by its dominant frequency (above or below 500 Hz).
- `POST /v1/audio/speech`: `input` spoken with the asked voice, answered as WAV bytes.
- Switches in the text: `[mute]` answers in text only (no audio), `[garbage]` sends audio
  bytes that are not audio, `[silent]` speaks silence, `[clipped]` speaks ten times too loud,
  clipped at full scale.
Voices: `alloy` → espeak-ng `en-us`, `nova` → `en-us+f3`; any other name is an espeak voice.
"""

from __future__ import annotations

import base64
import io
import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import soundfile as sf

from audioeval.audio.tts_espeak import synthesize_espeak
from tests.fakes.mcq_server import dominant_hz
from tests.fakes.openai_http import FakeServer, JsonHandler, decode_audio_part

VOICES = {"alloy": "en-us", "nova": "en-us+f3"}


@dataclass
class FakeSpeechStats:
    chat: int = 0
    speech: int = 0
    voices: list[str | None] = field(default_factory=list)
    modalities: list[Any] = field(default_factory=list)
    clips_decoded: int = 0


def _wav(text: str, voice: str | None) -> bytes:
    audio = synthesize_espeak(text, voice=VOICES.get(voice or "alloy", voice or "en-us"))
    if "[silent]" in text:
        audio = np.zeros_like(np.asarray(audio, dtype=np.float32))
    elif "[clipped]" in text:
        audio = np.clip(10 * np.asarray(audio, dtype=np.float32), -1.0, 32767 / 32768)
    buf = io.BytesIO()
    sf.write(buf, np.asarray(audio, dtype=np.float32), 16000, format="WAV", subtype="PCM_16")
    return buf.getvalue()


class FakeSpeaker:
    def __init__(self, *, split_choices: bool = False) -> None:
        self.split_choices = split_choices
        self.stats = FakeSpeechStats()
        self.lock = threading.Lock()

    def _what_to_say(self, body: dict[str, Any]) -> tuple[str, str]:
        """(what to say, the prompt's text)."""
        texts, hz = [], None
        for message in body["messages"]:
            content = message["content"]
            for part in content if isinstance(content, list) else [{"type": "text", "text": content}]:
                if part["type"] == "text":
                    texts.append(part["text"])
                else:
                    _, wav = decode_audio_part(part)
                    samples, rate = sf.read(io.BytesIO(wav), dtype="float32")
                    hz = dominant_hz(samples, rate)
                    with self.lock:
                        self.stats.clips_decoded += 1
        prompt = " ".join(texts)
        if "Say this text aloud:" in prompt:
            return prompt.split("Say this text aloud:", 1)[1].strip(), prompt
        if hz is None:
            return "I heard nothing.", prompt
        return ("The tone is high." if hz > 500 else "The tone is low."), prompt

    def chat(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.stats.chat += 1
            self.stats.modalities.append(body.get("modalities"))
            self.stats.voices.append((body.get("audio") or {}).get("voice"))
        say, prompt = self._what_to_say(body)
        message: dict[str, Any] = {"role": "assistant", "content": say}
        if "audio" in (body.get("modalities") or []) and "[mute]" not in prompt:
            data = (
                b"RIFFnot audio at all"
                if "[garbage]" in prompt
                else _wav(say, (body.get("audio") or {}).get("voice"))
            )
            audio = {
                "id": "audio_1",
                "data": base64.b64encode(data).decode(),
                "expires_at": 0,
                "transcript": say,
            }
            if self.split_choices:
                choices = [
                    {"index": 0, "message": message, "finish_reason": "stop"},
                    {"index": 1, "message": {"role": "assistant", "content": None, "audio": audio}},
                ]
                return {"id": "chatcmpl-1", "object": "chat.completion", "choices": choices}
            message = {"role": "assistant", "content": None, "audio": audio}
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }

    def speech(self, body: dict[str, Any]) -> bytes:
        with self.lock:
            self.stats.speech += 1
            self.stats.voices.append(body.get("voice"))
        assert body.get("response_format") == "wav", body
        text = body["input"]
        return b"\x00\x01garbage" if "[garbage]" in text else _wav(text, body.get("voice"))


class _Handler(JsonHandler):
    def do_POST(self) -> None:
        body = self.read_json()
        if body is None:
            return
        app: FakeSpeaker = self.server.app
        if self.path.endswith("/chat/completions"):
            self.send_json(200, app.chat(body))
        elif self.path.endswith("/audio/speech"):
            data = app.speech(body)
            self.send_response(200)
            self.send_header("Content-Type", "audio/wav")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})


class FakeSpeechServer(FakeServer):
    def __init__(self, *, split_choices: bool = False) -> None:
        super().__init__(_Handler, FakeSpeaker(split_choices=split_choices))

    @property
    def stats(self) -> FakeSpeechStats:
        return self.app.stats
