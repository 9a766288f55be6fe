"""The static HTML page of `audioeval report`: one self-contained file that opens from disk
with no network.

Text reaches the page two ways, both escaped: through Jinja2 with autoescaping (every
`{{ }}` is HTML-escaped), and as data for the page's script, embedded as JSON in a
`<script type="application/json">` block whose `<`, `>` and `&` are written as `\\u003c`,
`\\u003e`, `\\u0026` (a model answer holding `</script>` cannot end the block). The script
puts every string into the page with `textContent`, never as HTML. Plots are SVG written
by matplotlib (text drawn as paths). A script error is caught and shown on the page
(`#script-errors`), so a headless browser can check the page drew cleanly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING, Any, TypedDict

from jinja2 import Environment
from markupsafe import Markup

if TYPE_CHECKING:
    from audioeval.report.sample_rows import IndexEntry


class PairSamples(TypedDict):
    """One pair in the sample browser's inline data (`report/sample_chunks.write_samples`): its
    name and key, the per-sample value its headline is made of (`score_key`, shown as
    `score_name`) in its unit (`scale`: stored to shown value, the filter's unit), direction,
    the index of its samples and the chunk size."""

    name: str
    key: str
    score_key: str | None
    score_name: str | None
    unit: str | None
    scale: float
    higher: bool
    samples: list[IndexEntry]
    chunk: int
    total: int
    truncated: bool


class PageSamples(TypedDict, total=False):
    """The sample browser's inline data: every pair's index, and the folder of the chunks."""

    pairs: list[PairSamples]
    chunk_dir: str

_ENV = Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True)


def script_json(value: Any) -> Markup:
    """`value` as JSON safe inside a `<script>` element."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, default=str)
    for char, code in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(char, code)
    return Markup(text)


@dataclass
class Table:
    """A table of plain cells (escaped when drawn); numbers, and every cell of the columns
    named in `right_aligned` (numbers written as text), are drawn right-aligned."""

    headers: list[str]
    rows: list[list[Any]]
    caption: str = ""
    right_aligned: tuple[str, ...] = ()
    nowrap: tuple[str, ...] = ()  # columns never broken mid-string (signature hashes)
    link_column: str = ""  # the column whose cells link to `links[row]` (a page address)
    links: list[str] = field(default_factory=list)


@dataclass
class Section:
    """A titled part of the page: paragraphs, tables, SVG figures (trusted: matplotlib's)."""

    title: str
    anchor: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    figures: list[str] = field(default_factory=list)  # SVG text


HEAD = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
{{ css }}
</style>
</head>
"""
"""The head of every page: its title and the one style sheet."""

PAGE = _ENV.from_string(
    HEAD
    + """<body>
<header><h1>{{ title }}</h1>{% if subtitle %}<p>{{ subtitle }}</p>{% endif %}</header>
<nav>{% for s in sections %}<a href="#{{ s.anchor }}">{{ s.title }}</a>{% endfor %}{% if samples %}<a href="#samples">samples</a>{% endif %}</nav>
<main>
<div id="script-errors"></div>
{% for s in sections %}
<section id="{{ s.anchor }}">
<h2>{{ s.title }}</h2>
{% for p in s.paragraphs %}<p>{{ p }}</p>{% endfor %}
{% for fig in s.figures %}<div class="figure">{{ fig }}</div>{% endfor %}
{% for t in s.tables %}
<table>{% if t.caption %}<caption>{{ t.caption }}</caption>{% endif %}
<tr>{% for h in t.headers %}<th>{{ h }}</th>{% endfor %}</tr>
{% for row in t.rows %}{% set r = loop.index0 %}<tr>{% for c in row %}<td{% if c is number or t.headers[loop.index0] in t.right_aligned %} class="num"{% elif t.headers[loop.index0] in t.nowrap %} class="hash"{% endif %}>{% if t.link_column and t.headers[loop.index0] == t.link_column and t.links[r] %}<a href="{{ t.links[r] }}">{{ c }}</a>{% else %}{{ c }}{% endif %}</td>{% endfor %}</tr>
{% endfor %}</table>
{% endfor %}
</section>
{% endfor %}
{% if samples %}
<section id="samples">
<h2>Samples</h2>
<div class="controls">
<label>pair <select id="pair"></select></label>
<label>search <input id="search" type="search" placeholder="id, answer, error"></label>
<label>show <select id="filter"><option value="all">all</option><option value="failed">failed</option><option value="wrong">wrong (scored, not perfect)</option><option value="not-ok">failed or wrong</option><option value="ok">right</option></select></label>
<label>group <select id="group"></select></label>
<label>score from <input id="score-min" type="number" step="any"></label>
<label>to <input id="score-max" type="number" step="any"></label>
<span id="shown" class="muted"></span>
</div>
<p class="muted">Open a sample for its input, reference or gold answer, the raw and processed answer, the word diff, the clips and every judge vote; its address (#pair=…&amp;sample=…) links to it.</p>
<div id="link-note"></div>
<div id="sample-list"></div>
</section>
{% endif %}
</main>
<script type="application/json" id="samples-data">{{ samples_json }}</script>
<script>
{{ js }}
</script>
</body>
</html>
"""
)


@cache
def static_text(name: str) -> str:
    """A file of the page's own code (`report/static/`: the CSS and the sample browser)."""
    return files("audioeval.report").joinpath("static", name).read_text(encoding="utf-8")


def render_page(title: str, subtitle: str, sections: list[Section], samples: PageSamples) -> str:
    """The page: the sections, then the sample browser over `samples` ({"pairs": [...]})."""
    figures = [[Markup(svg) for svg in s.figures] for s in sections]
    drawn = [
        Section(s.title, s.anchor, s.paragraphs, s.tables, figs)
        for s, figs in zip(sections, figures, strict=True)
    ]
    return PAGE.render(
        title=title,
        subtitle=subtitle,
        sections=drawn,
        samples=bool(samples.get("pairs")),
        samples_json=script_json(samples),
        css=Markup(static_text("page.css")),
        js=Markup(static_text("sample_details.js") + static_text("browser.js")),
    )


VIEWER_PAGE = _ENV.from_string(
    HEAD
    + """<body data-page="{{ page }}">
<header><h1>{{ title }}</h1><p><a href="/">runs</a> · audioeval view: read-only, from the run folders; no model or judge call</p></header>
<main>
<div id="script-errors"></div>
<div id="view"></div>
</main>
<script type="application/json" id="view-data">{{ data }}</script>
<script>
{{ js }}
</script>
</body>
</html>
"""
)


def render_viewer_page(kind: str, title: str, data: Any) -> str:
    """A page of `audioeval view` (`report/viewer_server.py`): `kind` (runs, run, compare)
    picks what `static/viewer.js` draws from `data`, escaped as the report's data is."""
    return VIEWER_PAGE.render(
        title=title,
        page=kind,
        data=script_json(data),
        css=Markup(static_text("page.css") + static_text("viewer.css")),
        js=Markup(static_text("sample_details.js") + static_text("viewer.js")),
    )
