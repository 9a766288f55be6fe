"""The report pages' plots, drawn by matplotlib as SVG (text drawn as paths: no user string
reaches the page as markup).

matplotlib is used because it writes a self-contained SVG that a page opened from disk shows
with no script and no network (plotly would need its 3 MB script beside every page).
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")  # no display: files only

import matplotlib.pyplot as plt  # noqa: E402


def short_label(text: str, width: int = 48) -> str:
    """A label for a plot: long names (a predictions file's path) cut in the middle, and `$`
    escaped (matplotlib would read `$…$` in a user's name as math)."""
    text = text if len(text) <= width else text[: width // 2 - 1] + "…" + text[-(width // 2) :]
    return text.replace("$", r"\$")


def plain(text: str) -> str:
    """A title shown as written (`$` escaped: not matplotlib math)."""
    return text.replace("$", r"\$")


def svg_document(fig: plt.Figure) -> str:
    """The figure as a standalone SVG file's text (closed after)."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _svg(fig: plt.Figure) -> str:
    text = svg_document(fig)
    return text[text.index("<svg") :]  # inline: without the XML prolog and doctype


def bars_with_ci(
    title: str, labels: Sequence[str], values: Sequence[float], cis: Sequence[tuple[float, float] | None]
) -> str:
    """A horizontal bar per label with its 95 % CI as a whisker."""
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(labels) + 1.2))
    ys = range(len(labels))
    ax.barh(list(ys), list(values), color="#4c72b0")
    for y, ci in zip(ys, cis, strict=True):
        if ci is not None and all(math.isfinite(c) for c in ci):
            ax.plot([ci[0], ci[1]], [y, y], color="#1d2330", linewidth=1.5)
            ax.plot([ci[0], ci[0]], [y - 0.15, y + 0.15], color="#1d2330", linewidth=1.5)
            ax.plot([ci[1], ci[1]], [y - 0.15, y + 0.15], color="#1d2330", linewidth=1.5)
    ax.set_yticks(list(ys), [short_label(str(x)) for x in labels])
    ax.invert_yaxis()
    ax.set_title(plain(title), fontsize=11)
    ax.grid(axis="x", alpha=0.3)
    return _svg(fig)


def heatmap(
    title: str,
    rows: Sequence[str],
    cols: Sequence[str],
    values: Sequence[Sequence[float | None]],
    fmt: str = "{:.1f}",
    *,
    cmap: str = "viridis",
    limits: tuple[float, float] | None = None,
    label: str | None = None,
) -> str:
    """A matrix of values with each cell written in it (empty cells blank); `limits` fix the
    colour scale (e.g. −1 … 1 for correlations)."""
    fig, ax = plt.subplots(figsize=(0.9 * len(cols) + 3.0, 0.55 * len(rows) + 1.8))
    grid = [[math.nan if v is None else float(v) for v in row] for row in values]
    low, high = limits if limits is not None else (None, None)
    image = ax.imshow(grid, cmap=cmap, vmin=low, vmax=high, aspect="auto")
    ax.set_xticks(range(len(cols)), [short_label(str(c)) for c in cols], rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), [short_label(str(r)) for r in rows], fontsize=8)
    finite = [v for row in grid for v in row if math.isfinite(v)]
    mid = (min(finite) + max(finite)) / 2 if finite and limits is None else 0.0
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if math.isfinite(v):
                dark = abs(v) > 0.6 if limits is not None else v < mid
                ax.text(
                    j,
                    i,
                    fmt.format(v),
                    ha="center",
                    va="center",
                    color="white" if dark else "black",
                    fontsize=7,
                )
    fig.colorbar(image, ax=ax, shrink=0.8, label=label)
    ax.set_title(plain(title), fontsize=10)
    return _svg(fig)
