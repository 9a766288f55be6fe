"""Prompt templates: validated YAML data rendered by sandboxed Jinja2 (StrictUndefined).

A template file holds `name` (written into run signatures), an optional `description`,
an optional `system` text, the `user` text, and `audio` (`before` or `after` the user
text, or `none`). YAML never holds code: the Jinja sandbox blocks attribute tricks and an
undefined variable is an error, never an empty string.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from audioeval.core.errors import InputError
from audioeval.core.messages import AudioPart, AudioRef, ContentPart, Message, TextPart
from audioeval.store.text_input import read_text_input
from audioeval.store.yaml_file import parse_yaml_mapping

_KEYS = {"name", "description", "system", "user", "audio"}
_AUDIO_PLACES = ("before", "after", "none")


@dataclass(frozen=True)
class PromptTemplate:
    """A parsed template; `digest` hashes its text so a changed template changes the key."""

    name: str
    user: str
    system: str | None = None
    audio: str = "before"
    description: str = ""
    source: str = ""

    @property
    def digest(self) -> str:
        text = f"{self.system}\x00{self.user}\x00{self.audio}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@functools.lru_cache(maxsize=1)
def _env() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False, trim_blocks=True
    )


@functools.lru_cache(maxsize=256)
def _compiled(text: str) -> Any:
    """A template text compiled once per process: compiling takes about a millisecond,
    rendering a compiled template a few microseconds (a run renders every sample's prompt)."""
    return _env().from_string(text)


def parse_template(text: str, source: str) -> PromptTemplate:
    """Validate YAML text as a template; errors name the source and the field."""
    data = parse_yaml_mapping(text, source, "prompt template")
    unknown = sorted(set(map(str, data)) - _KEYS)
    if unknown:
        raise InputError(f"unknown key(s) {unknown}; allowed: {sorted(_KEYS)}", file=source)
    for key in ("name", "user"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise InputError("required, a non-empty string", file=source, field=key)
    if data.get("system") is not None and not isinstance(data["system"], str):
        raise InputError("must be a string", file=source, field="system")
    audio = data.get("audio", "before")
    if audio not in _AUDIO_PLACES:
        raise InputError(f"must be one of {list(_AUDIO_PLACES)}", file=source, field="audio")
    env = _env()
    for key in ("system", "user"):
        if data.get(key):
            try:
                env.parse(data[key])
            except Exception as exc:  # jinja2.TemplateSyntaxError
                raise InputError(f"template syntax error: {exc}", file=source, field=key) from None
    return PromptTemplate(
        data["name"], data["user"], data.get("system"), audio, str(data.get("description") or ""), source
    )


def load_template(name_or_path: str | Path) -> PromptTemplate:
    """A template file, or a template shipped with audioeval by name (e.g. `mcq_choices`)."""
    p = Path(name_or_path)
    # a bare name is a shipped template first: a file or folder of that name in the working
    # directory (an output folder called `asr`, say) does not shadow it
    if p.suffix in (".yaml", ".yml") or len(p.parts) > 1:
        return parse_template(read_text_input(p, "prompt template"), str(p))
    shipped = resources.files("audioeval.prompts").joinpath("templates", f"{name_or_path}.yaml")
    if not shipped.is_file():
        if p.is_file():
            return parse_template(read_text_input(p, "prompt template"), str(p))
        raise InputError(
            f"no prompt template named {str(name_or_path)!r}; shipped: {', '.join(shipped_templates())}",
            field="template",
        )
    return parse_template(shipped.read_text(encoding="utf-8"), f"audioeval:{name_or_path}")


def shipped_templates() -> list[str]:
    folder = resources.files("audioeval.prompts").joinpath("templates")
    names = (f.name for f in folder.iterdir())
    return sorted(n.removesuffix(".yaml") for n in names if n.endswith(".yaml"))


def render(
    template: PromptTemplate,
    variables: dict[str, Any],
    audio: AudioRef | None = None,
    *,
    sample_id: str | None = None,
) -> list[Message]:
    """System and user messages; the audio part goes where the template says."""
    from jinja2 import TemplateError

    try:
        system = _compiled(template.system).render(**variables) if template.system else None
        user = _compiled(template.user).render(**variables)
    except TemplateError as exc:
        raise InputError(
            f"prompt template {template.name!r} could not be rendered: {exc}",
            file=template.source,
            sample_id=sample_id,
        ) from None
    parts: list[ContentPart] = [TextPart(user)]
    if audio is not None and template.audio != "none":
        part = AudioPart(audio)
        parts = [part, *parts] if template.audio == "before" else [*parts, part]
    messages = [Message.text("system", system)] if system else []
    return [*messages, Message("user", tuple(parts))]
