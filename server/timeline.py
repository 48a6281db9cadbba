"""The state of the art over time, drawn on the server: one SVG per like-for-like cohort.

Each dated result is a point at its date (x) and value (y); the record-setters (each result
better than every result dated before it, in the metric's direction) are joined by a step line
and labelled with their method. Drawn as :mod:`server.charts` draws its bars: plain strings,
every piece of data escaped for XML, no script, and every label placed inside the viewBox by the
same width estimate (an upper bound of the text's width in a common sans-serif face).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta
from xml.sax.saxutils import escape, quoteattr

from server.charts import FONT_SIZE, PAD, text_width, tick_values

PLOT_WIDTH = 520  # the width of the points' area
PLOT_HEIGHT = 220
TOP = 40
BOTTOM = 46  # the date ticks and the axis label under the plot
NOTE = 20  # the height of the line saying how many results are not placed
POINT = "#a9c3e3"
RECORD = "#4a78b0"


@dataclass(frozen=True)
class Point:
    """A dated result: ``value`` is drawn, ``text`` (the value as published) is written;
    ``label`` names its method, ``result`` is its IRI."""

    label: str
    when: date
    value: float
    text: str
    result: str


def records(points: list[Point], direction: str) -> list[Point]:
    """The record-setters of ``points``, by date: each point better than every point dated
    before it ("lower" is better, or else higher). Points of one date are taken best first, so
    a date gives at most one record."""
    lower = direction == "lower"
    ordered = sorted(points, key=lambda p: (p.when, p.value if lower else -p.value, p.result))
    found: list[Point] = []
    for point in ordered:
        best = found[-1].value if found else None
        if best is None or (point.value < best if lower else point.value > best):
            found.append(point)
    return found


def _years(when: date) -> float:
    """``when`` as a year with its fraction (2024-07-02 is about 2024.5)."""
    start = date(when.year, 1, 1)
    length = (date(when.year + 1, 1, 1) - start).days
    return when.year + (when - start).days / length


def _date_label(year: float) -> str:
    """A tick of fractional ``year`` as a reader names it: "2024", else "2024-07"."""
    whole = math.floor(year + 1e-9)
    if abs(year - round(year)) < 1e-6:
        return str(round(year))
    month = min(12, 1 + math.floor((year - whole) * 12 + 1e-6))
    return f"{whole}-{month:02d}"


@dataclass(frozen=True)
class _Frame:
    """Where the plot lies: its left edge, its value and time ranges."""

    left: float
    low: float
    high: float
    first: float
    last: float

    def x(self, when: date) -> float:
        return round(
            self.left + (_years(when) - self.first) / (self.last - self.first) * PLOT_WIDTH, 2
        )

    def y(self, value: float) -> float:
        return round(TOP + (self.high - value) / (self.high - self.low) * PLOT_HEIGHT, 2)


def over_time_chart(
    points: list[Point], direction: str, unit: str, title: str, undated: int = 0
) -> str:
    """An SVG document (as text): each of ``points`` at its date and value, the record-setters
    joined by a step line (running on to the last date) and labelled with their method.

    ``direction`` ("higher" or "lower") decides the records and is stated above the plot,
    ``unit`` labels the value axis, ``title`` names the chart for assistive technology, and
    ``undated`` (results of the cohort without a date) is said under the axis when not 0.
    """
    values = [p.value for p in points]
    low, high = min(values), max(values)
    if high == low:
        low, high = low - 1, high + 1
    value_ticks = tick_values(low, high)
    low, high = min(low, value_ticks[0]), max(high, value_ticks[-1])
    first, last = min(p.when for p in points), max(p.when for p in points)
    if first == last:
        first, last = first - timedelta(days=30), last + timedelta(days=30)
    time_ticks = [t for t in tick_values(_years(first), _years(last)) if t >= _years(first) - 1e-9]
    left: float = max(text_width(f"{t:g}") for t in value_ticks) + 2 * PAD
    left = max(left, text_width(_date_label(time_ticks[0])) / 2 + PAD)
    frame = _Frame(left, low, high, _years(first), max(_years(last), time_ticks[-1]))
    best = records(points, direction)
    label_width = max(text_width(_record_text(p)) for p in best)
    width = math.ceil(left + PLOT_WIDTH + PAD + max(label_width / 2, text_width(unit) / 2))
    width = max(width, math.ceil(label_width + 2 * PAD), math.ceil(left + text_width(unit)))
    note = f"{undated} result{'s' if undated != 1 else ''} without a date: not placed"
    if undated:
        width = max(width, text_width(note) + 2 * PAD)
    bottom = TOP + PLOT_HEIGHT
    height = bottom + BOTTOM + (NOTE if undated else 0)
    better = "Higher is better ↑" if direction == "higher" else "↓ Lower is better"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart over-time" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label={quoteattr(title)} font-family="system-ui, sans-serif" '
        f'font-size="{FONT_SIZE}">',
        f"<title>{escape(title)}</title>",
        f'<text class="direction" x="{left}" y="16" fill="#444">{escape(better)}</text>',
    ]
    for tick in value_ticks:
        y = frame.y(tick)
        parts.append(
            f'<line class="grid" x1="{left}" y1="{y}" x2="{left + PLOT_WIDTH}" y2="{y}" '
            f'stroke="#e3e3e3"/><text class="tick" x="{left - PAD}" y="{y + 4}" '
            f'text-anchor="end" fill="#555">{escape(f"{tick:g}")}</text>'
        )
    for tick in time_ticks:
        x = round(left + (tick - frame.first) / (frame.last - frame.first) * PLOT_WIDTH, 2)
        parts.append(
            f'<line class="grid" x1="{x}" y1="{TOP}" x2="{x}" y2="{bottom}" stroke="#eee"/>'
            f'<text class="tick" x="{x}" y="{bottom + 14}" text-anchor="middle" fill="#555">'
            f"{escape(_date_label(tick))}</text>"
        )
    parts.append(
        f'<line class="axis" x1="{left}" y1="{bottom}" x2="{left + PLOT_WIDTH}" '
        f'y2="{bottom}" stroke="#222"/>'
    )
    parts.append(_step_line(frame, best, last))
    chosen = {p.result for p in best}
    for point in sorted(points, key=lambda p: (p.when, p.result)):
        kind, fill = ("point record", RECORD) if point.result in chosen else ("point", POINT)
        parts.append(
            f'<circle class="{kind}" cx="{frame.x(point.when)}" cy="{frame.y(point.value)}" '
            f'r="4" fill="{fill}" stroke="#fff" data-result={quoteattr(point.result)} '
            f'data-date="{point.when.isoformat()}" data-value={quoteattr(point.text)}>'
            f"<title>{escape(point.label)}: {escape(point.text)} ({point.when.isoformat()})"
            "</title></circle>"
        )
    for index, point in enumerate(best):
        parts.append(_record_label(frame, point, index, width))
    parts.append(
        f'<text class="unit" x="{left + PLOT_WIDTH / 2}" y="{bottom + 34}" text-anchor="middle" '
        f'fill="#222">{escape(unit)} by date reported</text>'
        if text_width(unit + " by date reported") <= width - 2 * PAD
        else f'<text class="unit" x="{PAD}" y="{bottom + 34}" fill="#222">{escape(unit)}</text>'
    )
    if undated:
        parts.append(
            f'<text class="undated" x="{PAD}" y="{bottom + BOTTOM + NOTE / 2}" fill="#222">'
            f"{escape(note)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _record_text(point: Point) -> str:
    return f"{point.label} ({point.text})"


def _step_line(frame: _Frame, best: list[Point], last: date) -> str:
    """The record's path: level from each record-setter to the next, then up or down to it."""
    steps = [f"M {frame.x(best[0].when)} {frame.y(best[0].value)}"]
    for point in best[1:]:
        steps.append(f"H {frame.x(point.when)} V {frame.y(point.value)}")
    steps.append(f"H {frame.x(last)}")
    return (
        f'<path class="record-line" d="{" ".join(steps)}" fill="none" stroke="{RECORD}" '
        'stroke-width="1.5"/>'
    )


def _record_label(frame: _Frame, point: Point, index: int, width: int) -> str:
    """A record-setter's method and value beside its point, above it or (every other one)
    under it, moved left as far as it must be to end inside the chart."""
    text = _record_text(point)
    size = text_width(text)
    x = frame.x(point.when) + PAD
    x = max(PAD, min(x, width - PAD - size))
    y = frame.y(point.value) + (-8 if index % 2 == 0 else 18)
    return (
        f'<text class="record-label" x="{round(x, 2)}" y="{round(y, 2)}" fill="#222">'
        f"{escape(text)}</text>"
    )
