"""Pieces shared by the command groups: flags of the runtime executor (as `Annotated` aliases),
endpoint lists, checks of numeric options, the console. The settings shared by `run`, the
presets and the Python API are declared in `core/settings.py` and made options by
`cli/setting_options.py`.

Every check runs before any file is read or call made, and fails with a one-line error
naming the flag (exit code 2).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from typer._click.exceptions import BadParameter
from typer.core import TyperCommand

from audioeval.cli.number_flags import check_number_flags
from audioeval.cli.redacted_output import STDOUT
from audioeval.cli.typed_flags import remember
from audioeval.core.checks import url_problem
from audioeval.core.errors import InputError

GEN_KWARGS_HELP = (
    "Sampling settings sent with every request, as lm-eval spells them: "
    "temperature=0,max_tokens=512,top_p=1,seed=0 (other keys are sent as given). Default per task: "
    "greedy (temperature=0) where the answer has one right reply (asr, ast, classification, "
    "spoken_qa, mcq) unless the benchmark's spec says otherwise; the server's default elsewhere. "
    "Recorded in each pair's signature."
)
PREFER_HELP = (
    "Where a model has a benchmark in several of the run directories with different results, "
    "take this run directory's (repeat for more pairs); the same result in several is taken once."
)
Prefer = Annotated[list[Path], typer.Option("--prefer", metavar="RUN", help=PREFER_HELP)]

# The executor of runtime models, on every command that runs them (`run`, `codec`).
Executor = Annotated[
    str,
    typer.Option(
        "--executor",
        help="Runtime models (whisper-tiny.en, spec files): worker processes here (local), or one "
        "worker per Ray actor (ray; pip install 'audioeval[ray]'). Other models ignore it.",
    ),
]
RayAddress = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="With --executor ray: auto or HOST:PORT of a running Ray cluster (default: start Ray on this machine).",
    ),
]
RayActors = Annotated[
    int | None,
    typer.Option(
        "--ray-actors", min=1, help="With --executor ray: actors (default one per free CPU or GPU slot)."
    ),
]
RayGpus = Annotated[
    float | None,
    typer.Option(
        "--ray-gpus-per-actor", min=0, help="With --executor ray: GPUs each actor reserves (default 0)."
    ),
]


def parse_urls(value: str | None, hint: str) -> list[str]:
    """A comma-separated endpoint list; an empty one, or a URL without http(s)://host, is an
    error naming the flag."""
    urls = [u.strip().rstrip("/") for u in (value or "").split(",") if u.strip()]
    if not urls:
        raise InputError("no endpoint URL given", field=hint)
    for url in urls:
        problem = url_problem(url)
        if problem:
            raise InputError(problem, field=hint)
    return urls


def make_console() -> Console:
    """The terminal's console, or a 120-column one when output is piped (tables stay legible);
    what it prints passes the credentials gate (`cli/redacted_output.py`)."""
    console = Console(file=STDOUT)  # type: ignore[arg-type]
    return console if console.is_terminal else Console(file=STDOUT, width=120)  # type: ignore[arg-type]


class AliasedCommand(TyperCommand):
    """A command that accepts, besides the names its help shows, the underscore form of every
    option (`--output_dir` for `--output-dir`) and the hidden aliases of `ALIASES` (old
    spellings, the official scripts' flags), rewritten to the canonical name before parsing."""

    ALIASES: dict[str, str] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        check_number_flags(self.params)  # nan, inf, below min: exit 2 naming the flag

    def canonical_option(self, name: str) -> str | None:
        """The canonical option a command-line `--name` stands for, or None when unknown."""
        known = {n for p in self.params for n in (*p.opts, *getattr(p, "secondary_opts", ()))}
        if name in known:
            return name
        hyphened = "--" + name[2:].replace("_", "-")
        for candidate in (name, hyphened):
            if candidate in known:
                return candidate
            target = self.ALIASES.get(candidate)
            if target is not None:
                return target
        return None

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        out: list[str] = []
        typed: dict[str, str] = {}
        for i, arg in enumerate(args):
            if arg == "--":
                out += args[i:]
                break
            if arg.startswith("--") and len(arg) > 2:
                name, eq, value = arg.partition("=")
                canonical = self.canonical_option(name)
                if canonical is not None:
                    if canonical != name:
                        typed[canonical] = name
                    arg = canonical + eq + value
            out.append(arg)
        remember(typed)
        try:
            return super().parse_args(ctx, out)  # type: ignore[arg-type]
        except BadParameter as exc:  # name the flag as typed
            names = [n for n in getattr(exc.param, "opts", ()) if n in typed]
            if names and exc.param_hint is None:
                exc.param_hint = f"'{typed[names[0]]}'"
            raise


def aliased(aliases: dict[str, str] | None = None) -> type[AliasedCommand]:
    """A command class with these hidden aliases (alias -> canonical option name)."""
    return type("AliasedCommand", (AliasedCommand,), {"ALIASES": dict(aliases or {})})
