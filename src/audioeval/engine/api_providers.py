"""What differs between OpenAI, Azure OpenAI and Gemini's OpenAI-compatible API on the wire.

A model of type `openai` names its `provider` (`openai`, `azure`, `gemini`), or leaves it
out and it is read from the URL's host (`*.openai.azure.com` / `*.cognitiveservices.azure.com`:
azure; `generativelanguage.googleapis.com`: gemini; anything else: openai, which also covers
vLLM and every other OpenAI-compatible server).

| provider | base URL requests are appended to | key sent as | query | audio parts |
|---|---|---|---|---|
| openai | the URL as given (`…/v1`) | `Authorization: Bearer KEY` | none | as configured (`audio_url` default) |
| azure | `https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT` (the deployment is the served model; a URL that already names one is kept) | `api-key: KEY` | `?api-version=…` | as configured |
| gemini | `https://generativelanguage.googleapis.com/v1beta/openai` | `Authorization: Bearer KEY` | none | `input_audio` (`format: wav`) always |

The Realtime API over WebSocket is reached at `{base}/realtime?model=NAME` (openai, with
`OpenAI-Beta: realtime=v1`) or `https://RESOURCE.openai.azure.com/openai/realtime?
api-version=…&deployment=NAME` (azure, `api-key`). The API key comes from `api_key_env`,
whose default follows the provider (`OPENAI_API_KEY`, `AZURE_OPENAI_API_KEY`,
`GEMINI_API_KEY`) when the config does not name one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote, urlsplit

from audioeval.engine.endpoint_auth import request_url

Provider = Literal["openai", "azure", "gemini"]
GEMINI_BASE_URL = "https://generativelanguage.googleapis.com/v1beta/openai"
AZURE_API_VERSION = "2024-10-21"
"""Azure OpenAI's generally available data-plane API version (chat, audio transcriptions)."""
AZURE_REALTIME_API_VERSION = "2024-10-01-preview"
KEY_ENVS: dict[str, str] = {
    "openai": "OPENAI_API_KEY",
    "azure": "AZURE_OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
}


def detect_provider(url: str) -> Provider:
    host = (urlsplit(url).hostname or "").lower()
    if host.endswith((".openai.azure.com", ".cognitiveservices.azure.com")):
        return "azure"
    if host == "generativelanguage.googleapis.com":
        return "gemini"
    return "openai"


@dataclass(frozen=True, slots=True)
class ProviderWire:
    """How requests of one model go out: base URLs, the header the key goes in, a query."""

    provider: Provider
    urls: list[str]
    key_header: str = "Authorization"
    query: str = ""
    force_input_audio: bool = False

    def realtime_url(self, base: str, model: str) -> str:
        """The WebSocket URL of the Realtime API at one base URL."""
        if self.provider == "azure":
            root = base.split("/openai/", 1)[0]
            return (
                f"{root}/openai/realtime?api-version={AZURE_REALTIME_API_VERSION}&deployment={quote(model)}"
            )
        return request_url(base, "/realtime", f"model={quote(model)}")

    def realtime_headers(self) -> dict[str, str]:
        return {} if self.provider == "azure" else {"OpenAI-Beta": "realtime=v1"}


def azure_base(url: str, deployment: str) -> str:
    """The deployment's base URL on an Azure OpenAI resource."""
    url = url.rstrip("/")
    if "/openai/deployments/" in url:
        return url
    return f"{url.split('/openai', 1)[0]}/openai/deployments/{quote(deployment)}"


def provider_wire(
    provider: Provider | None, urls: list[str], served_model: str, api_version: str | None = None
) -> ProviderWire:
    """The wire form of a model's provider (`provider` None: read from its first URL)."""
    chosen: Provider = provider or (detect_provider(urls[0]) if urls else "openai")
    if chosen == "azure":
        version = api_version or AZURE_API_VERSION
        return ProviderWire(
            "azure",
            [azure_base(u, served_model) for u in urls],
            key_header="api-key",
            query=f"?api-version={quote(version)}",
        )
    if chosen == "gemini":
        return ProviderWire(
            "gemini", [u.rstrip("/") for u in urls] or [GEMINI_BASE_URL], force_input_audio=True
        )
    return ProviderWire("openai", [u.rstrip("/") for u in urls])
