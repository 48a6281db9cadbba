"""The terminal table ``benchgraph query`` prints: one line a row, never wider than the terminal.

On a terminal (or given a width: ``benchgraph query --width``) the table fits its width: each
column gets its full width if all fit, else the narrow columns keep theirs and the wide ones
share what is left, their long cells cut with ``…``. When the columns do not fit even so, a
column that holds one value in every row is said once above the table (``benchmark:
id:benchmark/…``), and columns that still do not fit are left out at the right, named under the
table (``--columns`` picks columns). Into a pipe or a file, unless given a width, nothing is
cut.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

GAP = "  "  # between columns
MIN_WIDTH = 20  # the narrowest table a width may ask for
NARROWEST = 6  # characters a column is cut to at most: "1234…" still says something
_CONTROL = {c: " " for c in range(32)} | {127: " "}


def terminal_width() -> int | None:
    """The width a table must fit: the terminal's (``COLUMNS`` first) when the output is a
    terminal, else None (no limit: a pipe or a file gets every character)."""
    if sys.stdout.isatty():
        return max(shutil.get_terminal_size().columns, MIN_WIDTH)
    return None


def shown_width(text: str) -> int:
    """How many columns of a terminal ``text`` takes: wide characters (CJK) two, combining
    marks none."""
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
        for c in text
    )


def cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` terminal columns: cut with ``…`` if longer."""
    if shown_width(text) <= width:
        return text
    kept, used = [], 0
    for c in text:
        w = shown_width(c)
        if used + w > width - 1:
            break
        kept.append(c)
        used += w
    return "".join(kept) + "…"


def _pad(text: str, width: int) -> str:
    return text + " " * (width - shown_width(text))


@dataclass(frozen=True)
class Layout:
    """What of a table is shown: the columns by index, each one's width, the columns said once
    above it (``folded``) and those left out."""

    shown: list[int]
    widths: list[int]
    folded: list[int]
    left_out: list[int]


def _share(natural: list[int], room: int) -> list[int]:
    """Widths for columns of ``natural`` widths in ``room`` (at least their narrowest): the
    narrow ones whole, the room left shared evenly among the wide ones."""
    widths = [min(w, NARROWEST) for w in natural]
    spare = room - sum(widths)
    while spare > 0:
        growing = [i for i, w in enumerate(widths) if w < natural[i]]
        if not growing:
            break
        i = min(growing, key=lambda j: widths[j])
        widths[i] += 1
        spare -= 1
    return widths


def _room(count: int, width: int) -> int:
    return width - len(GAP) * max(count - 1, 0)


def layout(
    names: Sequence[str], rows: Sequence[Sequence[str]], width: int | None, fold: bool = True
) -> Layout:
    """How to show the table of ``names`` and ``rows`` in ``width`` columns (None: no limit);
    with ``fold``, columns holding one value in every row may be said once above it."""
    natural = [
        max([shown_width(n)] + [shown_width(r[i]) for r in rows]) for i, n in enumerate(names)
    ]
    columns = list(range(len(names)))
    if width is None or sum(natural) + len(GAP) * (len(names) - 1) <= width:
        return Layout(columns, natural, [], [])
    folded: list[int] = []
    if fold and len(rows) > 1:
        folded = [i for i in columns if len({r[i] for r in rows}) == 1]
        columns = [i for i in columns if i not in folded] or columns
        folded = [i for i in folded if i not in columns]
    left_out: list[int] = []
    while len(columns) > 1 and sum(min(natural[i], NARROWEST) for i in columns) > _room(
        len(columns), width
    ):
        left_out.insert(0, columns.pop())
    widths = _share([natural[i] for i in columns], _room(len(columns), width))
    return Layout(columns, widths, folded, left_out)


def render(
    names: Sequence[str], rows: Sequence[Sequence[str]], width: int | None, fold: bool = True
) -> list[str]:
    """The lines of the table of ``names`` and ``rows`` (cells as text; control characters
    are shown as spaces, so a row is one line), fitted to ``width`` (see the module), ending
    with the count of rows."""
    rows = [[cell.translate(_CONTROL) for cell in row] for row in rows]
    plan = layout(names, rows, width, fold)
    limit = width if width is not None else 10**9
    lines = [cut(f"{names[i]}: {rows[0][i] or '(unbound)'}", limit) for i in plan.folded]
    pairs = list(zip(plan.shown, plan.widths, strict=True))
    lines.append(GAP.join(_pad(cut(names[i], w), w) for i, w in pairs))
    lines.append(GAP.join("-" * w for w in plan.widths))
    for row in rows:
        lines.append(GAP.join(_pad(cut(row[i], w), w) for i, w in pairs))
    count = f"({len(rows)} row{'s' if len(rows) != 1 else ''})"
    if plan.left_out:
        listed = ", ".join(names[i] for i in plan.left_out)
        count += f"; not shown, for want of width: {listed} (--columns picks columns)"
    lines.extend([count] if width is None else textwrap.wrap(count, width))
    return lines
