"""Is the Hugging Face hub reachable? Asked once, before a hub name is loaded, so an offline
machine gets one clear line at once instead of the datasets library's retries (~30 s).

`HF_HUB_OFFLINE` / `HF_DATASETS_OFFLINE` set: the user says offline; the datasets library
then reads its local cache without touching the network, and we do not probe. Otherwise one
TCP connection to the hub's host (`HF_ENDPOINT`, default https://huggingface.co), with a
short timeout, tells whether it can be reached.
"""

from __future__ import annotations

import os
import socket
from urllib.parse import urlsplit

PROBE_TIMEOUT_S = 3.0
TRUE = {"1", "true", "yes", "on"}


def declared_offline() -> bool:
    return any(os.environ.get(v, "").strip().lower() in TRUE for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"))


def hub_endpoint() -> str:
    return os.environ.get("HF_ENDPOINT", "").strip() or "https://huggingface.co"


def hub_unreachable(timeout_s: float = PROBE_TIMEOUT_S) -> str | None:
    """Why the hub cannot be reached (one connection attempt), or None when it can."""
    url = urlsplit(hub_endpoint())
    host = url.hostname or "huggingface.co"
    port = url.port or (80 if url.scheme == "http" else 443)
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return None
    except OSError as exc:
        return f"{host}:{port}: {exc.strerror or type(exc).__name__}"
