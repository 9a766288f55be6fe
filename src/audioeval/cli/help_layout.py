"""How `audioeval … --help` is laid out, for every command (installed once, by `cli/main.py`).

Two changes to typer's rich help, made here and nowhere else:

- help text is literal: a help string is never read as rich markup, so
  `pip install 'audioeval[ray]'` shows its `[ray]` (typer's rich mode took it for a style);
- an options panel gives each option's names one column as wide as the longest of them, never
  cut: `-m, --model` on one line, a negative form (`--count-missing`) on the next; the type and
  the help share what is left, and a word longer than its column folds onto the next line
  rather than ending in `…`. At 80 columns typer's seven-column table cut names
  (`--judge-concurre…`).

typer draws a panel with its module function `_print_options_panel` and reads text through
`_make_rich_text`; both are replaced here (tests/test_cli_help.py renders every command's help
at 80 columns and checks every option name is there whole, so a typer that changes them fails
that test).
"""

from __future__ import annotations

from typing import Any

from rich import box
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from typer import rich_utils

_typer_rich_text = rich_utils._make_rich_text


def _literal_text(*, text: str, style: str = "", markup_mode: Any) -> Any:
    """typer's text, with the help string's brackets kept as written; a word longer than the
    line folds onto the next one."""
    out = _typer_rich_text(text=escape(text), style=style, markup_mode=markup_mode)
    if isinstance(out, Text):
        out.overflow = "fold"
    return out


def _names(param: Any) -> Text:
    """The param's names: `-s, --long` (or an argument's name), its negative form below."""
    from typer.core import TyperArgument

    if isinstance(param, TyperArgument):
        first = [param.display_name_raw + ("..." if param.metavar is None and param.nargs != 1 else "")]
    else:
        opts = list(param.opts)
        first = [o for o in opts if not o.startswith("--")] + [o for o in opts if o.startswith("--")]
    lines = [", ".join(first)]
    negative = ", ".join(param.secondary_opts)
    if negative:
        lines.append(negative)
    text = rich_utils.highlighter(Text(lines[0], style=rich_utils.STYLE_OPTION))
    for line in lines[1:]:
        text.append("\n")
        text.append_text(rich_utils.negative_highlighter(Text(line, style=rich_utils.STYLE_NEGATIVE_OPTION)))
    return text


def _type_text(param: Any, ctx: Any) -> Text:
    text = Text(style=rich_utils.STYLE_TYPES, overflow="fold")
    shown = param.display_type_rich(ctx=ctx)
    if shown is not None:
        text.append(shown)
    bounds = param._get_number_range_help_str()
    if bounds:
        text.append(rich_utils.RANGE_STRING.format(bounds))
    return rich_utils.types_highlighter(text)


def options_panel(*, name: str, params: list[Any], ctx: Any, markup_mode: Any, console: Any) -> None:
    """One panel of options or arguments: required mark, names (never cut), type, help."""
    if not params:
        return
    names = [_names(p) for p in params]
    required = any(p.required for p in params)
    table = Table(highlight=True, show_header=False, expand=True, box=None, pad_edge=False, padding=(0, 1))
    if required:
        table.add_column(no_wrap=True, width=1)
    table.add_column(no_wrap=True, width=max(len(line) for t in names for line in t.plain.split("\n")))
    table.add_column(overflow="fold", max_width=16)
    table.add_column(overflow="fold", ratio=1)
    for param, name_text in zip(params, names, strict=True):
        mark = (
            [Text(rich_utils.REQUIRED_SHORT_STRING, style=rich_utils.STYLE_REQUIRED_SHORT)]
            if param.required
            else [Text("")]
        )
        help_cell = rich_utils._get_parameter_help(param=param, ctx=ctx, markup_mode=markup_mode)
        table.add_row(*(mark if required else []), name_text, _type_text(param, ctx), help_cell)
    console.print(
        Panel(
            table,
            border_style=rich_utils.STYLE_OPTIONS_PANEL_BORDER,
            title=name,
            title_align=rich_utils.ALIGN_OPTIONS_PANEL,
            box=box.ROUNDED,
        )
    )


def install() -> None:
    """Lay out every help page as this module says (idempotent)."""
    rich_utils._make_rich_text = _literal_text
    rich_utils._print_options_panel = options_panel
