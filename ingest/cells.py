"""A result value as other publishers' files write it, read into decimal text.

Result files (Papers with Code tables, model cards, score files) write a value as a number, a
numeric string (``"90.640"``, kept as published), a value with a ± half-width
(``0.8428 ± 0.0014``), a value with a bracketed interval (``0.14 [0.14, 0.15]``), a percentage
(``2.31%``) or a scaled count (``220k``, ``3.0m``). A cell that holds no single number (``-``,
empty, ``TBD``, ``(32.76 32.07)``, a decimal comma ``0,912``) raises :class:`CellError` saying
why, and the parser skips that row with a warning.

A ± or an interval whose meaning the source does not state is kept beside the value, never read
as a confidence interval: a bracketed interval stays in the published cell (``Cell.text``, the
result's ``bg:publishedCell``) and in ``Cell.bounds``, and feeds no rank.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from ingest.records import Spread, SpreadMeaning
from ingest.structured import shown

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_PLAIN = re.compile(rf"({_NUMBER})")
_PERCENT = re.compile(rf"({_NUMBER})\s*%")
_PLUS_MINUS = re.compile(rf"({_NUMBER})\s*(%?)\s*(?:±|\+/-|\+-)\s*({_NUMBER})\s*(%?)")
_SCALED = re.compile(rf"({_NUMBER})\s*([kKmMbB])")
_SCALES = {"k": 3, "m": 6, "b": 9}  # thousand, million, billion: counts, as files write them
_MISSING = frozenset({"", "-", "–", "—", "n/a", "na", "none", "null", "?", "tbd"})
_SEVERAL = re.compile(rf"{_NUMBER}[\s,;/()]+{_NUMBER}")
# A value and its interval: ``0.14 [0.14, 0.15]``, and ``71.2 (70.1-72.3)`` where the
# parentheses hold an unsigned range around the value (else they may hold other values).
_BRACKETED = re.compile(rf"({_NUMBER})\s*\[\s*({_NUMBER})\s*[,;]\s*({_NUMBER})\s*\]")
_UNSIGNED = r"(?:\d+(?:\.\d*)?|\.\d+)"
_RANGED = re.compile(rf"({_NUMBER})\s*\(\s*({_UNSIGNED})\s*[-–]\s*({_UNSIGNED})\s*\)")
_DECIMAL_COMMA = re.compile(r"([+-]?)(\d+),(\d+)(\s*%?)")
_THOUSANDS = re.compile(r"[+-]?\d{1,3}(?:,\d{3}){2,}")


class CellError(ValueError):
    """A cell that holds no single number; ``str()`` says why."""


@dataclass(frozen=True)
class Bounds:
    """An interval published beside a value, its meaning not stated (a confidence interval at
    an unknown level, a range over runs, ...): kept, never ranked. Bounds as decimal text."""

    lower: str
    upper: str


@dataclass(frozen=True)
class Cell:
    """One value read from a cell."""

    value: str  # decimal text: as published when the cell is a plain decimal
    text: str  # the cell as published
    percent: bool = False  # the cell carries a percent sign
    spread: Spread | None = None
    scaled: bool = False  # a count written with a k/m/b suffix
    bounds: Bounds | None = None  # an interval published beside the value

    @property
    def as_published(self) -> bool:
        """Whether the value is the whole cell (then there is no need to keep the cell)."""
        return self.value == self.text


def read_cell(raw: object, meaning: SpreadMeaning = "not stated") -> Cell:
    """Read ``raw`` (a JSON or YAML scalar: text, or a number kept as its text) as one value.

    ``meaning`` is what a ± means in this source, when the source says. Raises CellError.
    """
    if isinstance(raw, bool) or raw is None or not isinstance(raw, str | int | float | Decimal):
        raise CellError(f"{shown(raw)} is not a number")
    text = raw if isinstance(raw, str) else str(raw)
    cell = text.strip()
    if cell.lower() in _MISSING:
        raise CellError("no value (empty)" if not cell else f"no value ({cell!r})")
    if (found := _PLAIN.fullmatch(cell)) is not None:
        return Cell(_decimal(found[1]), text)
    if (found := _PERCENT.fullmatch(cell)) is not None:
        return Cell(_decimal(found[1]), text, percent=True)
    if (found := _PLUS_MINUS.fullmatch(cell)) is not None:
        value, first, half, last = found.groups()
        if first and not last:
            raise CellError(f"{cell!r}: a percent value with a ± of no unit")
        spread = Spread(_decimal(half), meaning, text)
        return Cell(_decimal(value), text, percent=bool(last), spread=spread)
    if (found := _SCALED.fullmatch(cell)) is not None:
        number, suffix = found.groups()
        scaled = Decimal(number).scaleb(_SCALES[suffix.lower()])
        return Cell(_plain(scaled), text, scaled=True)
    if (bounded := _bounded(cell, text)) is not None:
        return bounded
    _refuse_commas(cell)
    if _SEVERAL.search(cell):
        raise CellError(f"{cell!r}: several values in one cell")
    raise CellError(f"{cell!r} is not a number")


def _bounded(cell: str, text: str) -> Cell | None:
    """``cell`` as a value with its interval (``0.14 [0.14, 0.15]``, ``71.2 (70.1-72.3)``);
    None when it is neither form, or parentheses do not hold a range around the value.

    Raises CellError for brackets whose bounds are reversed or leave the value out."""
    bracketed = _BRACKETED.fullmatch(cell)
    found = bracketed or _RANGED.fullmatch(cell)
    if found is None:
        return None
    value, lower, upper = (Decimal(number) for number in found.groups())
    if not lower <= value <= upper:
        if bracketed is None:
            return None
        raise CellError(f"{cell!r}: the value is not inside its interval")
    bounds = Bounds(_decimal(found[2]), _decimal(found[3]))
    return Cell(_decimal(found[1]), text, bounds=bounds)


def _refuse_commas(cell: str) -> None:
    """Raise CellError naming a decimal comma (``0,912``) or thousands separators
    (``1,234,567``) in ``cell``; return when it has neither."""
    if _THOUSANDS.fullmatch(cell):
        raise CellError(f"{cell!r} has thousands separators: write {cell.replace(',', '')}")
    if (found := _DECIMAL_COMMA.fullmatch(cell)) is None:
        return
    sign, whole, part, percent = found.groups()
    point = f"{sign}{whole}.{part}{percent.strip()}"
    if len(part) != 3 or int(whole) == 0:
        raise CellError(f"{cell!r} looks like a decimal comma: write {point}")
    raise CellError(
        f"{cell!r} has a comma that may be a decimal comma or a thousands separator: write "
        f"{point} or {sign}{whole}{part}{percent.strip()}"
    )


def _decimal(text: str) -> str:
    """``text`` (a number, as the patterns admit only numbers) as xsd:decimal text: unchanged
    unless it has an exponent."""
    return text if "e" not in text.lower() else _plain(Decimal(text))


def _plain(number: Decimal) -> str:
    """A Decimal in positional notation (``1E+3`` as ``1000``)."""
    return format(number, "f")
