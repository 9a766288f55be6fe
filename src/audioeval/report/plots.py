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
    title: str,
    labels: Sequence[str],
    values: Sequence[float],
    cis: Sequence[tuple[float, float] | None],
    *,
    limits: tuple[float, float] | None = None,
) -> str:
    """A horizontal bar per label with its 95 % CI as a whisker, its value and CI written at
    its end (`2.47 [1.2–3.4]`: the digits of the metrics table, `report/units.py`); `limits`
    fix the value axis to the metric's range (0–100 for a percentage: `report/units.axis_limits`),
    so a bar's length reads against the scale, not against the largest bar. Drawn wide: the
    page shows it full-width."""
    fig, ax = plt.subplots(figsize=(12, 0.4 * len(labels) + 1.2))
    ys = range(len(labels))
    ax.barh(list(ys), list(values), color="#4c72b0")
    for y, value, ci in zip(ys, values, cis, strict=True):
        end = value
        text = f"{value:.2f}"
        if ci is not None and all(math.isfinite(c) for c in ci):
            ax.plot([ci[0], ci[1]], [y, y], color="#1d2330", linewidth=1.5)
            ax.plot([ci[0], ci[0]], [y - 0.15, y + 0.15], color="#1d2330", linewidth=1.5)
            ax.plot([ci[1], ci[1]], [y - 0.15, y + 0.15], color="#1d2330", linewidth=1.5)
            end = max(value, ci[1])
            text += f" [{ci[0]:.1f}–{ci[1]:.1f}]"
        ax.annotate(
            text,
            (max(end, 0.0), y),
            xytext=(5, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
            color="#1d2330",
            annotation_clip=False,
        )
    ax.set_yticks(list(ys), [short_label(str(x)) for x in labels])
    ax.invert_yaxis()
    if limits is not None:
        high = max([limits[1], *(c[1] for c in cis if c is not None and math.isfinite(c[1])), *values])
        ax.set_xlim(min(limits[0], *values, 0.0), high)
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
    notes: Sequence[Sequence[str]] | None = None,
    grey: Sequence[Sequence[bool]] | None = None,
    wide: bool = False,
) -> str:
    """A matrix of values with each cell written in it (empty cells blank); `limits` fix the
    colour scale (e.g. −1 … 1 for correlations, 0–100 for a percentage); `notes` adds a second
    line to a cell (its n); a `grey` cell is drawn grey, its value in grey text (too few
    observations to read). `wide`: drawn as wide as the page shows it, its height sized to
    its rows (a page scales every figure to its full width: a narrow figure would grow tall)."""
    if wide:
        size = (12.0, 0.4 * len(rows) + 1.9)
    else:
        size = (0.9 * len(cols) + 3.0, 0.55 * len(rows) + 1.8)
    fig, ax = plt.subplots(figsize=size)
    grid = [[math.nan if v is None else float(v) for v in row] for row in values]
    if grey is not None:
        greyed = [
            [g and math.isfinite(v) for v, g in zip(row, flags, strict=True)]
            for row, flags in zip(grid, grey, strict=True)
        ]
        grid = [
            [math.nan if g else v for v, g in zip(row, flags, strict=True)]
            for row, flags in zip(grid, greyed, strict=True)
        ]
        shown = [
            [float(values[i][j]) if greyed[i][j] else math.nan for j in range(len(cols))]
            for i in range(len(rows))
        ]
        ax.imshow(
            [[0.0 if math.isfinite(v) else math.nan for v in row] for row in shown],
            cmap="Greys",
            vmin=0,
            vmax=5,
            aspect="auto",
        )
        for i, row in enumerate(shown):
            for j, v in enumerate(row):
                if math.isfinite(v):
                    extra = f"\n{notes[i][j]}" if notes is not None and notes[i][j] else ""
                    ax.text(j, i, fmt.format(v) + extra, ha="center", va="center", color="0.55", fontsize=7)
    low, high = limits if limits is not None else (None, None)
    image = ax.imshow(grid, cmap=cmap, vmin=low, vmax=high, aspect="auto")
    ax.set_xticks(range(len(cols)), [short_label(str(c)) for c in cols], rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), [short_label(str(r)) for r in rows], fontsize=8)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            if math.isfinite(v):
                red, green, blue, _ = image.cmap(image.norm(v))
                dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5  # white text on a dark cell
                extra = f"\n{notes[i][j]}" if notes is not None and notes[i][j] else ""
                ax.text(
                    j,
                    i,
                    fmt.format(v) + extra,
                    ha="center",
                    va="center",
                    color="white" if dark else "black",
                    fontsize=7,
                )
    fig.colorbar(image, ax=ax, shrink=0.8, label=label)
    ax.set_title(plain(title), fontsize=10)
    return _svg(fig)
