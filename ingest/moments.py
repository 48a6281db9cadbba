"""Times as evaluation tools write them, read into the ISO text the records keep.

Every Eval Ever writes its timestamps as Unix time in text (``"1770682039.8556428"``), at
times as an ISO date or dateTime; lm-evaluation-harness writes a run's ``date`` as a JSON
number of Unix time (``1768964383.8593218``). :func:`iso` gives either as an ISO date or a UTC
``xsd:dateTime`` to the second, and None for anything else (the caller warns).
"""

from __future__ import annotations

import datetime
import re
from decimal import Decimal, InvalidOperation

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# Unix times this reader takes: 1970 up to 9999 (a larger number is no time of a run).
_LAST = Decimal(253402300799)


def iso(value: object) -> str | None:
    """``value`` (Unix time as a number or its text, or an ISO date or dateTime text) as an ISO
    date or a UTC dateTime (``2026-01-21T03:39:43Z``, the fraction of a second cut); None when
    it is neither."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and _DATE.match(value.strip()):
        return _iso_text(value.strip())
    try:
        seconds = Decimal(str(value).strip()) if isinstance(value, str | int | Decimal) else None
    except InvalidOperation:
        return None
    if seconds is None or not seconds.is_finite() or not 0 <= seconds <= _LAST:
        return None
    moment = datetime.datetime.fromtimestamp(int(seconds), tz=datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _iso_text(text: str) -> str | None:
    """An ISO date as it is, or an ISO dateTime in UTC to the second; None when not one."""
    if _DATE.fullmatch(text):
        try:
            return datetime.date.fromisoformat(text).isoformat()
        except ValueError:
            return None
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
