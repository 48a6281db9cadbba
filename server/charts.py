"""Leaderboard charts drawn on the server: one SVG of horizontal bars per like-for-like cohort.

Plain string building, every piece of data escaped for XML; no plotting library, no script. A
bar's label is the value as published (its precision kept); where a confidence interval was
published it is drawn as a whisker. The chart states the metric's direction and labels its axis
with the unit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

WIDTH = 720
LABEL_WIDTH = 220
VALUE_WIDTH = 70
ROW = 22
TOP = 34
BOTTOM = 46
LABEL_CHARS = 34


@dataclass(frozen=True)
class Bar:
    """One row of a chart: ``value`` is drawn, ``text`` (the value as published) is written."""

    label: str
    value: float
    text: str
    low: float | None = None
    high: float | None = None


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
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


def _short(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def bar_chart(bars: list[Bar], unit: str, direction: str, title: str) -> str:
    """An SVG document (as text) with one horizontal bar per entry of ``bars``, in their order.

    ``unit`` labels the axis, ``direction`` ("higher" or "lower") is stated above the bars and
    ``title`` names the chart for assistive technology.
    """
    values = [b.value for b in bars] + [b.low for b in bars if b.low is not None]
    values += [b.high for b in bars if b.high is not None]
    low = min([0.0, *values])
    high = max([0.0, *values])
    if high == low:
        high = low + 1
    ticks = _ticks(low, high)
    low, high = min(low, ticks[0]), max(high, ticks[-1])
    plot = WIDTH - LABEL_WIDTH - VALUE_WIDTH
    height = TOP + ROW * len(bars) + BOTTOM

    def x(value: float) -> float:
        return round(LABEL_WIDTH + (value - low) / (high - low) * plot, 2)

    better = "Higher is better →" if direction == "higher" else "← Lower is better"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{WIDTH}" '
        f'height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label={quoteattr(title)} font-family="system-ui, sans-serif" font-size="12">',
        f"<title>{escape(title)}</title>",
        f'<text class="direction" x="{LABEL_WIDTH}" y="16" fill="#444">{escape(better)}</text>',
    ]
    bottom = TOP + ROW * len(bars)
    for tick in ticks:
        tx = x(tick)
        parts.append(
            f'<line class="grid" x1="{tx}" y1="{TOP - 6}" x2="{tx}" y2="{bottom}" '
            'stroke="#e3e3e3"/>'
        )
        parts.append(
            f'<text class="tick" x="{tx}" y="{bottom + 14}" text-anchor="middle" '
            f'fill="#555">{escape(_number(tick))}</text>'
        )
    zero = x(max(low, 0.0))
    for i, bar in enumerate(bars):
        top = TOP + i * ROW
        middle = top + ROW / 2
        start, end = sorted((zero, x(bar.value)))
        parts.append(
            f'<text class="label" x="{LABEL_WIDTH - 6}" y="{middle + 4}" text-anchor="end">'
            f"<title>{escape(bar.label)}</title>{escape(_short(bar.label))}</text>"
        )
        parts.append(
            f'<rect class="bar" x="{start}" y="{top + 4}" width="{round(end - start, 2)}" '
            f'height="{ROW - 8}" fill="#4a78b0"><title>{escape(bar.label)}: '
            f"{escape(bar.text)}</title></rect>"
        )
        if bar.low is not None and bar.high is not None:
            lo, hi = x(bar.low), x(bar.high)
            parts.append(
                f'<g class="whisker" stroke="#222" stroke-width="1.2">'
                f'<line x1="{lo}" y1="{middle}" x2="{hi}" y2="{middle}"/>'
                f'<line x1="{lo}" y1="{middle - 5}" x2="{lo}" y2="{middle + 5}"/>'
                f'<line x1="{hi}" y1="{middle - 5}" x2="{hi}" y2="{middle + 5}"/></g>'
            )
        text_x = max(x(bar.value), x(bar.high) if bar.high is not None else 0.0) + 6
        parts.append(
            f'<text class="value" x="{min(text_x, WIDTH - VALUE_WIDTH + 6)}" y="{middle + 4}">'
            f"{escape(bar.text)}</text>"
        )
    parts.append(
        f'<line class="axis" x1="{LABEL_WIDTH}" y1="{bottom}" x2="{LABEL_WIDTH + plot}" '
        f'y2="{bottom}" stroke="#222"/>'
    )
    parts.append(
        f'<text class="unit" x="{LABEL_WIDTH + plot / 2}" y="{bottom + 34}" '
        f'text-anchor="middle" fill="#222">{escape(unit)}</text>'
    )
    parts.append("</svg>")
    return "".join(parts)
