"""Units as pages publish them: one canonical name for the many ways a page writes a unit.

A Radar page writes its unit in its source record (``原始单位: percent``) and again in each value
column's header (``整体准确率（%）``, ``中位延迟（毫秒）``); a sota2 page writes ``PERCENT`` or
``SCALAR``. ``canonical`` folds those spellings to one English name (``percent``,
``millisecond``, ...), so that two spellings can be compared and the mapper can find the QUDT
unit. A unit with no canonical name is kept as published: ``canonical`` returns None and
``same`` compares such units by their normal form.
"""

from __future__ import annotations

import unicodedata

PERCENT = "percent"
UNITLESS = "unitless"
SECOND = "second"
MILLISECOND = "millisecond"
TOKENS_PER_SECOND = "token per second"
POINT = "point"
COUNT = "count"

_SPELLINGS: dict[str, tuple[str, ...]] = {
    PERCENT: ("percent", "per cent", "percentage", "pct", "%", "百分比", "百分数", "百分率"),
    UNITLESS: ("unitless", "scalar", "dimensionless", "无单位", "无量纲"),
    SECOND: ("second", "seconds", "sec", "secs", "s", "秒"),
    MILLISECOND: ("millisecond", "milliseconds", "msec", "ms", "毫秒"),
    TOKENS_PER_SECOND: (
        "token per second",
        "tokens per second",
        "tokens/s",
        "token/s",
        "tok/s",
        "tokens/sec",
        "token/秒",
        "tokens/秒",
        "词元/秒",
        "词元每秒",
    ),
    POINT: ("point", "points", "pt", "pts", "分"),
    COUNT: ("count", "counts", "number", "个", "次", "项", "条", "题", "道"),
}
_CANONICAL = {spelling: name for name, spellings in _SPELLINGS.items() for spelling in spellings}


def fold(text: str) -> str:
    """The normal form units are compared in: NFKC (full-width ``％`` is ``%``), case-folded,
    inner spaces collapsed and the ends stripped."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def canonical(text: str) -> str | None:
    """The canonical name of the unit ``text`` spells (``"%"`` and ``"百分数"`` are ``percent``),
    or None for a unit with no canonical name."""
    return _CANONICAL.get(fold(text))


def same(first: str, second: str) -> bool:
    """Whether two published units are the same unit: the same canonical name, or, for units
    with none, the same normal form."""
    return (canonical(first) or fold(first)) == (canonical(second) or fold(second))
