"""Pieces shared by the command groups: endpoint lists, audio part style, the console."""

from __future__ import annotations

from enum import StrEnum

import typer
from rich.console import Console


class AudioPartStyle(StrEnum):
    audio_url = "audio_url"
    input_audio = "input_audio"


def parse_urls(value: str | None, hint: str) -> list[str]:
    """A comma-separated endpoint list; an empty one is a usage error naming the flag."""
    urls = [u.strip() for u in (value or "").split(",") if u.strip()]
    if not urls:
        raise typer.BadParameter("no endpoint URL given", param_hint=hint)
    return urls


def make_console() -> Console:
    """The terminal's console, or a 120-column one when output is piped (tables stay legible)."""
    console = Console()
    return console if console.is_terminal else Console(width=120)
