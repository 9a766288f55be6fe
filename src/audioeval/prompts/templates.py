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


MAX_RENDERED_CHARS = 4_000_000
"""The most characters one rendered prompt text may hold (far beyond any model's context): a
template that would render more (`{{ 'a' * 10**9 }}`, a loop over a huge range) is refused
with a message naming it, instead of taking gigabytes. The sandbox also refuses a `range`
over more than 100,000 numbers."""


class PromptSizeError(Exception):
    """A template would render more than MAX_RENDERED_CHARS characters."""


@functools.lru_cache(maxsize=1)
def _env() -> Any:
    from jinja2 import StrictUndefined
    from jinja2.sandbox import SandboxedEnvironment

    class BoundedEnvironment(SandboxedEnvironment):
        """The sandbox, with `*` and `**` refused where they would build a huge value."""

        intercepted_binops = frozenset({"*", "**"})

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            if operator == "**" and isinstance(right, int) and abs(right) > 1000:
                raise PromptSizeError(f"the power {right} is too large for a prompt")
            if operator == "*" and isinstance(left, int) and isinstance(right, (str, list, tuple)):
                left, right = right, left
            if operator == "*" and isinstance(left, (str, list, tuple)) and isinstance(right, int):
                if len(left) * right > MAX_RENDERED_CHARS:
                    raise PromptSizeError(
                        f"repeating a value {right} times would exceed {MAX_RENDERED_CHARS:,} characters"
                    )
            return super().call_binop(context, operator, left, right)

    return BoundedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False, trim_blocks=True
    )


def _render_bounded(text: str, variables: dict[str, Any]) -> str:
    """The rendered text; PromptSizeError past MAX_RENDERED_CHARS, OverflowError from the
    sandbox's range limit."""
    chunks, size = [], 0
    for chunk in _compiled(text).generate(**variables):
        size += len(chunk)
        if size > MAX_RENDERED_CHARS:
            raise PromptSizeError(f"the rendered text would exceed {MAX_RENDERED_CHARS:,} characters")
        chunks.append(chunk)
    return "".join(chunks)


@functools.lru_cache(maxsize=256)
def _compiled(text: str) -> Any:
    """A template text compiled once per process: compiling takes about a millisecond,
    rendering a compiled template a few microseconds (a run renders every sample's prompt)."""
    return _env().from_string(text)


def render_text(text: str, variables: dict[str, Any]) -> str | None:
    """Why one template text cannot be rendered with these variables (e.g. "'foo' is
    undefined"), or None when it can: how a judged scorer checks a prompt file once at load."""
    from jinja2 import TemplateError

    try:
        _render_bounded(text, variables)
    except (TemplateError, PromptSizeError, OverflowError) as exc:
        return str(exc)
    return None


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


_TEMPLATE_FOLDERS: list[tuple[str, str]] = [("audioeval.prompts", "templates")]
"""(package, folder) pairs searched in order for a template named without a path: audioeval's
shared task templates first, then the folders benchmarks add with `add_template_folder` (a
benchmark's judge prompts live in its own folder)."""


def add_template_folder(package: str, folder: str = "templates") -> None:
    """Let `load_template` find templates shipped in `package`'s `folder` by name; a second call
    with the same pair is a no-op, and a name already shipped elsewhere is an error."""
    if (package, folder) in _TEMPLATE_FOLDERS:
        return
    new = _names_in(package, folder)
    clash = sorted(set(new) & set(shipped_templates()))
    if clash:
        raise ValueError(f"template(s) {', '.join(clash)} in {package}/{folder} are already shipped")
    _TEMPLATE_FOLDERS.append((package, folder))


def _names_in(package: str, folder: str) -> list[str]:
    entry = resources.files(package).joinpath(folder)
    if not entry.is_dir():
        return []
    return [f.name.removesuffix(".yaml") for f in entry.iterdir() if f.name.endswith(".yaml")]


def _shipped(name: str) -> tuple[Any, str] | None:
    for package, folder in _TEMPLATE_FOLDERS:
        entry = resources.files(package).joinpath(folder, f"{name}.yaml")
        if entry.is_file():
            return entry, f"audioeval:{name}" if package == "audioeval.prompts" else f"{package}:{name}"
    return None


def load_template(name_or_path: str | Path) -> PromptTemplate:
    """A template file, or a template shipped with audioeval (or a benchmark) by name (e.g.
    `mcq_choices`)."""
    p = Path(name_or_path)
    # a bare name is a shipped template first: a file or folder of that name in the working
    # directory (an output folder called `asr`, say) does not shadow it
    if p.suffix in (".yaml", ".yml") or len(p.parts) > 1:
        return parse_template(read_text_input(p, "prompt template"), str(p))
    found = _shipped(str(name_or_path))
    if found is None:
        if p.is_file():
            return parse_template(read_text_input(p, "prompt template"), str(p))
        raise InputError(
            f"no prompt template named {str(name_or_path)!r}; shipped: {', '.join(shipped_templates())}",
            field="template",
        )
    entry, source = found
    return parse_template(entry.read_text(encoding="utf-8"), source)


def shipped_templates() -> list[str]:
    names: set[str] = set()
    for package, folder in _TEMPLATE_FOLDERS:
        names.update(_names_in(package, folder))
    return sorted(names)


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
        system = _render_bounded(template.system, variables) if template.system else None
        user = _render_bounded(template.user, variables)
    except (TemplateError, PromptSizeError, OverflowError) as exc:  # OverflowError: a sandboxed range
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
