"""Leaderboard charts drawn on the server: one SVG of horizontal bars per like-for-like cohort.

Plain string building, every piece of data escaped for XML; no plotting library, no script. A
bar's label is the value as published (its precision kept); where a confidence interval was
published it is drawn as a whisker. A bar can be marked (drawn lighter, class ``overlap``), such
as a result whose interval overlaps the leader's, and a legend line under the axis says what the
mark means. The chart states the metric's direction and labels its axis with the unit.

The chart scales with its ``viewBox`` down to the width at which its text is
:data:`SMALLEST_TEXT` pixels (its ``min-width``); a narrower screen scrolls it in its box.

No text is cut: the label column is as wide as the widest label, which is measured with the
advance widths of a wide sans-serif face (DejaVu Sans, the widest common default) rounded up;
a label wider than ``MAX_LABEL`` is wrapped onto more lines and its row grows to hold them.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

FONT_SIZE = 12
SMALLEST_TEXT = 10  # the chart is never drawn narrower than its text at this size allows
LINE = 14  # the distance between the lines of a wrapped label
PLOT = 430  # the width of the bars' area
MAX_LABEL = 340  # a label wider than this is wrapped
PAD = 6  # between a text and what it is drawn beside
ROW = 22
TOP = 34
BOTTOM = 46
LEGEND = 22  # the height of the legend line under the axis
LEGEND_SWATCH = 18
DARK = "#4a78b0"  # a bar
LIGHT = "#a9c3e3"  # a marked bar

# Advance widths in ems, each an upper bound for its class of characters in DejaVu Sans.
_NARROW = set("ijlI.,:;'!|` ")
_SLIM = set('frt()[]{}/\\-"')
_WIDE = set("mwMW%@&")
_OPERATOR = set("=+<>~^#")


@dataclass(frozen=True)
class Bar:
    """One row of a chart: ``value`` is drawn, ``text`` (the value as published) is written;
    ``overlaps`` marks the bar (see :func:`bar_chart`'s ``legend``)."""

    label: str
    value: float
    text: str
    low: float | None = None
    high: float | None = None
    overlaps: bool = False


def _em(char: str) -> float:
    if unicodedata.east_asian_width(char) in "WF":
        return 1.0
    if char in _NARROW:
        return 0.33
    if char in _SLIM:
        return 0.48
    if char in _WIDE:
        return 1.0
    if char in _OPERATOR:
        return 0.84
    if char.isascii():
        return 0.80 if char.isupper() else 0.65
    return 0.85


def text_width(text: str, size: float = FONT_SIZE) -> int:
    """The width in pixels ``text`` takes at most at ``size`` pixels in a common sans-serif face."""
    return math.ceil(sum(_em(c) for c in text) * size)


def wrap(text: str, width: float = MAX_LABEL) -> list[str]:
    """``text`` as lines no wider than ``width`` pixels, broken at spaces where it can be."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if text_width(candidate) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        line = ""
        for char in word:  # a word wider than a line is broken where it has to be
            if line and text_width(line + char) > width:
                lines.append(line)
                line = ""
            line += char
    return [*lines, line] if line or not lines else lines


def tick_values(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high]."""
    span = high - low
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _number(value: float) -> str:
    return f"{value:g}"


@dataclass(frozen=True)
class _Layout:
    """Where a chart's parts go: the value range drawn (``low`` to ``high``, with ``ticks``),
    the wrapped labels and their rows' heights, the plot's left edge and the document's size."""

    low: float
    high: float
    ticks: list[float]
    labels: list[list[str]]
    heights: list[int]
    left: float
    width: int
    bottom: int
    height: int
    better: str

    def x(self, value: float) -> float:
        """The horizontal position of ``value``."""
        return round(self.left + (value - self.low) / (self.high - self.low) * PLOT, 2)


def bar_chart(bars: list[Bar], unit: str, direction: str, title: str, legend: str = "") -> str:
    """An SVG document (as text) with one horizontal bar per entry of ``bars``, in their order.

    ``unit`` labels the axis, ``direction`` ("higher" or "lower") is stated above the bars and
    ``title`` names the chart for assistive technology. ``legend``, when given, says under the
    axis what a marked (lighter) bar means.
    """
    layout = _layout(bars, unit, direction, legend)
    width, height = layout.width, layout.height
    narrowest = math.ceil(width * SMALLEST_TEXT / FONT_SIZE)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" style="min-width:{narrowest}px" '
        f'role="img" '
        f'aria-label={quoteattr(title)} font-family="system-ui, sans-serif" '
        f'font-size="{FONT_SIZE}">',
        f"<title>{escape(title)}</title>",
        f'<text class="direction" x="{layout.left}" y="16" fill="#444">'
        f"{escape(layout.better)}</text>",
        *_grid(layout),
    ]
    top = TOP
    for bar, lines, row in zip(bars, layout.labels, layout.heights, strict=True):
        parts += _bar(layout, bar, lines, top + row / 2)
        top += row
    parts += _axis(layout, unit, legend)
    parts.append("</svg>")
    return "".join(parts)


def _layout(bars: list[Bar], unit: str, direction: str, legend: str) -> _Layout:
    """The layout of :func:`bar_chart`'s chart of ``bars``."""
    values = [b.value for b in bars] + [b.low for b in bars if b.low is not None]
    values += [b.high for b in bars if b.high is not None]
    low = min([0.0, *values])
    high = max([0.0, *values])
    if high == low:
        high = low + 1
    ticks = tick_values(low, high)
    low, high = min(low, ticks[0]), max(high, ticks[-1])
    labels = [wrap(b.label) for b in bars]
    label_width = max([text_width(line) for lines in labels for line in lines], default=0) + PAD
    tick_half = max(text_width(_number(t)) for t in ticks) / 2
    left = max(label_width + PAD, tick_half) + PAD  # where the plot starts
    value_width = max([text_width(b.text) for b in bars], default=0) + 2 * PAD
    better = "Higher is better →" if direction == "higher" else "← Lower is better"
    width = math.ceil(left + PLOT + max(value_width, tick_half + PAD))
    width = max(width, math.ceil(left + text_width(better) + PAD), text_width(unit) + 2 * PAD)
    if legend:
        width = max(width, LEGEND_SWATCH + 2 * PAD + text_width(legend) + PAD)
    heights = [max(ROW, LINE * len(lines) + 8) for lines in labels]
    bottom = TOP + sum(heights)
    height = bottom + BOTTOM + (LEGEND if legend else 0)
    return _Layout(low, high, ticks, labels, heights, left, width, bottom, height, better)


def _grid(layout: _Layout) -> list[str]:
    """A vertical grid line and its value under the axis, for each tick."""
    parts = []
    for tick in layout.ticks:
        tx = layout.x(tick)
        parts.append(
            f'<line class="grid" x1="{tx}" y1="{TOP - 6}" x2="{tx}" y2="{layout.bottom}" '
            'stroke="#e3e3e3"/>'
        )
        parts.append(
            f'<text class="tick" x="{tx}" y="{layout.bottom + 14}" text-anchor="middle" '
            f'fill="#555">{escape(_number(tick))}</text>'
        )
    return parts


def _bar(layout: _Layout, bar: Bar, lines: list[str], middle: float) -> list[str]:
    """One row centred at ``middle``: the label's ``lines``, the bar from zero, its interval's
    whisker if it has one, and its value as published."""
    x, left = layout.x, layout.left
    start, end = sorted((x(max(layout.low, 0.0)), x(bar.value)))
    first = middle + 4 - LINE * (len(lines) - 1) / 2
    spans = "".join(
        f'<tspan x="{left - PAD}" y="{first + LINE * i}">{escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    kind, fill = ("bar overlap", LIGHT) if bar.overlaps else ("bar", DARK)
    parts = [
        f'<text class="label" text-anchor="end">{spans}</text>',
        f'<rect class="{kind}" x="{start}" y="{middle - ROW / 2 + 4}" '
        f'width="{round(end - start, 2)}" height="{ROW - 8}" fill="{fill}">'
        f"<title>{escape(bar.label)}: {escape(bar.text)}</title></rect>",
    ]
    if bar.low is not None and bar.high is not None:
        lo, hi = x(bar.low), x(bar.high)
        parts.append(
            f'<g class="whisker" stroke="#222" stroke-width="1.2">'
            f'<line x1="{lo}" y1="{middle}" x2="{hi}" y2="{middle}"/>'
            f'<line x1="{lo}" y1="{middle - 5}" x2="{lo}" y2="{middle + 5}"/>'
            f'<line x1="{hi}" y1="{middle - 5}" x2="{hi}" y2="{middle + 5}"/></g>'
        )
    text_x = max(x(bar.value), x(bar.high) if bar.high is not None else 0.0) + PAD
    parts.append(f'<text class="value" x="{text_x}" y="{middle + 4}">{escape(bar.text)}</text>')
    return parts


def _axis(layout: _Layout, unit: str, legend: str) -> list[str]:
    """The axis under the bars, its ``unit``, and the ``legend`` line if there is one."""
    left, bottom = layout.left, layout.bottom
    parts = [
        f'<line class="axis" x1="{left}" y1="{bottom}" x2="{left + PLOT}" '
        f'y2="{bottom}" stroke="#222"/>'
    ]
    unit_x = min(
        max(left + PLOT / 2, text_width(unit) / 2 + PAD), layout.width - text_width(unit) / 2
    )
    parts.append(
        f'<text class="unit" x="{unit_x}" y="{bottom + 34}" '
        f'text-anchor="middle" fill="#222">{escape(unit)}</text>'
    )
    if legend:
        y = bottom + BOTTOM + LEGEND / 2 - 4
        parts.append(
            f'<g class="legend"><rect x="{PAD}" y="{y - 9}" width="{LEGEND_SWATCH}" '
            f'height="{ROW - 8}" fill="{LIGHT}"/><text x="{PAD + LEGEND_SWATCH + PAD}" y="{y + 2}" '
            f'fill="#222">{escape(legend)}</text></g>'
        )
    return parts
