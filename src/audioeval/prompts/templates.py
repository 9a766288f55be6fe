"""Prompt templates: validated YAML data rendered by sandboxed Jinja2 (StrictUndefined).

A template file holds `name` (written into run signatures), an optional `description`,
an optional `system` text, the `user` text, and `audio` (`before` or `after` the user
text, or `none`). YAML never holds code: the Jinja sandbox blocks attribute tricks and an
undefined variable is an error, never an empty string.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import time
from collections import OrderedDict
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

MAX_TEMPLATE_STEPS = 1_000_000
"""The most steps (loop iterations and calls, macros included) one rendering may
take: two nested loops each under the range cap, or a macro calling itself twice, would run
for minutes; a prompt template takes a few hundred."""

MAX_CALL_DEPTH = 64
"""The deepest nesting of calls in one rendering (a macro that calls itself)."""

MAX_RENDER_SECONDS = 10.0
"""The longest one rendering may take, checked every 1,024 steps (a backstop to the steps)."""


class PromptBoundError(Exception):
    """A template that would take more than one of the bounds above to render."""


class PromptSizeError(PromptBoundError):
    """A template would render more than MAX_RENDERED_CHARS characters."""


class TemplateCodeError(Exception):
    """A Python error raised inside a template (`{{ 1 // 0 }}`), with the template's line and
    expression."""


class _Budget:
    """The steps, call depth and deadline of one rendering."""

    __slots__ = ("deadline", "depth", "steps")

    def __init__(self) -> None:
        self.steps = 0
        self.depth = 0
        self.deadline = time.monotonic() + MAX_RENDER_SECONDS

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_TEMPLATE_STEPS:
            raise PromptBoundError(
                f"rendering takes more than {MAX_TEMPLATE_STEPS:,} steps (loop iterations and calls)"
            )
        if not self.steps & 1023 and time.monotonic() > self.deadline:
            raise PromptBoundError(f"rendering takes more than {MAX_RENDER_SECONDS:g} s")


_BUDGET: contextvars.ContextVar[_Budget | None] = contextvars.ContextVar("template_budget", default=None)


def _budget() -> _Budget:
    budget = _BUDGET.get()
    if budget is None:  # rendered outside `_render_bounded` (never in audioeval): bounded all the same
        budget = _Budget()
        _BUDGET.set(budget)
    return budget


@functools.lru_cache(maxsize=1)
def _env() -> Any:
    from jinja2 import StrictUndefined, nodes
    from jinja2.compiler import CodeGenerator
    from jinja2.sandbox import SandboxedEnvironment

    class CountedLoops(CodeGenerator):
        """Every `for` loop iterates through `environment.counted`, one step per item."""

        def visit_For(self, node: Any, frame: Any) -> None:
            if not getattr(node, "counted", False):
                node.iter = nodes.Call(nodes.EnvironmentAttribute("counted"), [node.iter], [], None, None)
                node.counted = True
            super().visit_For(node, frame)

    class BoundedEnvironment(SandboxedEnvironment):
        """The sandbox, with `*` and `**` refused where they would build a huge value, and
        every loop item and call counted against the rendering's budget."""

        intercepted_binops = frozenset({"*", "**"})
        code_generator_class = CountedLoops

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

        def call(self, context: Any, obj: Any, *args: Any, **kwargs: Any) -> Any:
            budget = _budget()
            budget.tick()
            budget.depth += 1
            try:
                if budget.depth > MAX_CALL_DEPTH:
                    raise PromptBoundError(
                        f"calls nested more than {MAX_CALL_DEPTH} deep (a macro calling itself?)"
                    )
                return super().call(context, obj, *args, **kwargs)
            finally:
                budget.depth -= 1

        @staticmethod
        def counted(items: Any) -> Any:
            budget = _budget()
            for item in items:
                budget.tick()
                yield item

    return BoundedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False, trim_blocks=True
    )


def _render_bounded(text: str, variables: dict[str, Any]) -> str:
    """The rendered text; PromptSizeError past MAX_RENDERED_CHARS, PromptBoundError past
    the steps, call depth or time of a rendering, OverflowError from the sandbox's range
    limit, TemplateCodeError for any other Python error raised inside the template."""
    chunks, size = [], 0
    token = _BUDGET.set(_Budget())
    try:
        for chunk in _compiled(text).generate(**variables):
            size += len(chunk)
            if size > MAX_RENDERED_CHARS:
                raise PromptSizeError(f"the rendered text would exceed {MAX_RENDERED_CHARS:,} characters")
            chunks.append(chunk)
    except _render_errors():
        raise
    except RecursionError:
        raise PromptBoundError("calls nested too deep") from None
    except Exception as exc:
        raise TemplateCodeError(_where_in_template(exc, text)) from None
    finally:
        _BUDGET.reset(token)
    return "".join(chunks)


def _where_in_template(exc: Exception, text: str) -> str:
    """`line N: Kind: message in `expression`` for a Python error raised inside a template
    (the last frame of the template's code in its traceback gives the line)."""
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    what = f"{type(exc).__name__}: {exc}"
    lines = text.splitlines()
    if line is None or not 0 < line <= len(lines):
        return f"{what} (a Python error inside the template)"
    source = " ".join(lines[line - 1].split())
    source = source if len(source) <= 120 else source[:117] + "..."
    return f"line {line}: {what} in `{source}`"


@functools.lru_cache(maxsize=256)
def _compiled(text: str) -> Any:
    """A template text compiled once per process: compiling takes about a millisecond,
    rendering a compiled template a few microseconds (a run renders every sample's prompt)."""
    return _env().from_string(text)


_ABSENT = object()  # a name the variables do not hold (in a memo key)
_ONLY_STR = frozenset({str})  # the types of a list of strings
_PURE_FILTERS = frozenset(
    "abs capitalize center count d default first float format indent int join last length "
    "list lower replace reverse round string sum title trim truncate unique upper wordcount".split()
)
_PURE_TESTS = frozenset(
    "defined undefined none boolean true false integer float number string mapping sequence "
    "iterable lower upper even odd divisibleby eq equalto ne lt lessthan le gt greaterthan ge in "
    "== != < <= > >=".split()
)
_LOOP_FIELDS = frozenset("index index0 revindex revindex0 first last length depth depth0".split())
_PLAIN_NODES = (
    "Template Output TemplateData Const Name Keyword For If CondExpr And Or Not Neg Pos Add Sub "
    "Mul Div FloorDiv Mod Pow Concat Compare Operand Slice Tuple List Dict Pair Assign"
).split()


def _plain(node: Any, in_loop: bool = False) -> bool:
    """Whether a template's output is a function of the values of the names it reads: no
    calls, no attribute but a for-loop's counters, only filters and tests of their values."""
    from jinja2 import nodes

    kind = type(node).__name__
    if isinstance(node, nodes.Filter | nodes.Test):
        names = _PURE_FILTERS if isinstance(node, nodes.Filter) else _PURE_TESTS
        if node.name not in names or node.dyn_args or node.dyn_kwargs:
            return False
        if any(k.key == "attribute" for k in node.kwargs):
            return False
    elif isinstance(node, nodes.Getattr):
        return (
            in_loop
            and isinstance(node.node, nodes.Name)
            and node.node.name == "loop"
            and node.attr in _LOOP_FIELDS
        )
    elif isinstance(node, nodes.Getitem):  # a name's item could fall back to its attribute
        return _plain(node.node, in_loop) and _position(node.arg, in_loop)
    elif kind not in _PLAIN_NODES:
        return False
    inner = in_loop or isinstance(node, nodes.For)
    return all(_plain(child, inner) for child in node.iter_child_nodes())


def _position(node: Any, in_loop: bool) -> bool:
    """Whether an item's subscript is a number or a slice: a whole number, a loop counter,
    a sum or difference of those; a slice of plain bounds."""
    from jinja2 import nodes

    if isinstance(node, nodes.Const):
        return type(node.value) is int
    if isinstance(node, nodes.Slice):
        return _plain(node, in_loop)
    if isinstance(node, nodes.Add | nodes.Sub):
        return _position(node.left, in_loop) and _position(node.right, in_loop)
    if isinstance(node, nodes.Neg):
        return _position(node.node, in_loop)
    return isinstance(node, nodes.Getattr) and _plain(node, in_loop)


@functools.lru_cache(maxsize=256)
def _reads(text: str) -> tuple[str, ...] | None:
    """Every name a template text reads, sorted; None when its output may depend on more than
    their values (`_plain`), or the text does not parse."""
    from jinja2 import TemplateError, nodes

    try:
        tree = _env().parse(text)
        if not _plain(tree):
            return None
    except (TemplateError, RecursionError):  # rendering it reports the error; too deep to tell
        return None
    return tuple(sorted({n.name for n in tree.find_all(nodes.Name) if n.ctx == "load"}))


class _Unkeyed(Exception):
    """A value that is not plain data (a memo key cannot stand for it)."""


def _key_of(value: Any) -> Any:
    """A hashable stand-in of a plain value that tells apart what renders differently: the
    type of each number (1, 1.0, True), a float by its repr (0.0, -0.0, nan), a list from a
    tuple, a dict's order. _Unkeyed for any other value."""
    kind = type(value)
    if kind is str:
        return value
    if kind is list or kind is tuple:
        if _ONLY_STR.issuperset(map(type, value)):
            return kind, tuple(value)
        return kind, tuple(_key_of(v) for v in value)
    if kind is int or kind is bool or value is None:
        return kind, value
    if kind is float:
        return kind, repr(value)
    if kind is dict:
        return kind, tuple((_key_of(k), _key_of(v)) for k, v in value.items())
    raise _Unkeyed


class RenderedTexts:
    """Rendered template texts, kept by what each text reads, for one pair of one run (the
    engine's `PairContext` holds one; never shared between runs, so nothing a run changes,
    a test's MAX_RENDERED_CHARS say, reaches another).

    A text is rendered once per distinct set of values of the names it reads (`_reads`):
    many samples share a prompt (ten predictions of one question). Kept only for a text
    whose output is a function of those values (`_plain`) and values of plain data
    (`_key_of`); a render that fails is not kept, so it fails again on every sample, as
    without the memo. At most `limit` texts are kept, the oldest dropped first."""

    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit
        self._texts: OrderedDict[Any, str] = OrderedDict()

    def render(self, text: str, variables: dict[str, Any]) -> str:
        names = _reads(text)
        if names is None:
            return _render_bounded(text, variables)
        try:
            key = (text, *[_key_of(variables[n]) if n in variables else _ABSENT for n in names])
        except (_Unkeyed, RecursionError):  # not plain data, or a list that holds itself
            return _render_bounded(text, variables)
        found = self._texts.get(key)
        if found is None:
            found = _render_bounded(text, variables)
            if len(self._texts) >= self.limit:
                self._texts.popitem(last=False)
            self._texts[key] = found
        return found


@functools.cache
def _render_errors() -> tuple[type[Exception], ...]:
    """What a template that cannot be rendered raises (OverflowError: a sandboxed range;
    TemplateCodeError: any other Python error inside it, with its line); jinja2
    is imported when first needed, and this tuple is only built when one is raised."""
    from jinja2 import TemplateError

    return (TemplateError, PromptBoundError, TemplateCodeError, OverflowError)


def render_text(text: str, variables: dict[str, Any]) -> str | None:
    """Why one template text cannot be rendered with these variables (e.g. "'foo' is
    undefined"), or None when it can: how a judged scorer checks a prompt file once at load."""
    try:
        _render_bounded(text, variables)
    except _render_errors() as exc:
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
    memo: RenderedTexts | None = None,
) -> list[Message]:
    """System and user messages; the audio part goes where the template says. With `memo`,
    texts are rendered through it (the same texts, rendered once per distinct values)."""
    text_of = _render_bounded if memo is None else memo.render
    field = "system"
    try:
        system = text_of(template.system, variables) if template.system else None
        field = "user"
        user = text_of(template.user, variables)
    except _render_errors() as exc:
        raise InputError(
            f"prompt template {template.name!r} could not be rendered: {exc}",
            file=template.source,
            sample_id=sample_id,
            field=field,
        ) from None
    parts: list[ContentPart] = [TextPart(user)]
    if audio is not None and template.audio != "none":
        part = AudioPart(audio)
        parts = [part, *parts] if template.audio == "before" else [*parts, part]
    messages = [Message.text("system", system)] if system else []
    return [*messages, Message("user", tuple(parts))]
