"""Text helpers the page parsers share: bytes to lines, non-blank lines, errors that name a place.

Both source formats are UTF-8 text that may carry a byte-order mark and Windows line ends.
``PageText`` holds one page's lines with the origin they were read from, so that a parser can
point at a line (``line 42``) or a named place (``results table row 3``) when it refuses a page.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass

from ingest.records import PageError, PageWarning

TRUNCATED = "the page may be truncated"
TRUNCATED_OR_EDITED = "the page may be truncated or edited"


def split_lines(text: str) -> list[str]:
    """Return the lines of ``text`` without a leading BOM, reading CRLF as LF; index 0 is line 1."""
    return text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")


@dataclass(frozen=True)
class PageText:
    """One page as lines, with the origin it was read from and the SHA-256 of its bytes."""

    origin: str
    lines: list[str]
    sha256: str = ""

    @classmethod
    def decode(cls, data: bytes, origin: str, problem: str, hint: str) -> PageText:
        """Return the UTF-8 ``data`` read from ``origin`` as a PageText (see ``split_lines``).

        Raises PageError at ``byte N``, the first byte that is not UTF-8, with the parser's own
        ``problem`` and ``hint``.
        """
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise PageError(origin, f"byte {error.start}", problem, hint) from None
        return cls(origin, split_lines(text), hashlib.sha256(data).hexdigest())

    def error(self, where: int | str | None, problem: str, hint: str = "") -> PageError:
        """Return (not raise) a PageError for this page's origin.

        ``where`` is a 1-based line number (``line N``), a named place, or None (or 0) for the
        page as a whole.
        """
        if isinstance(where, int):
            where = f"line {where}" if where else None
        return PageError(self.origin, where or "", problem, hint)

    def warning(self, where: int | str | None, problem: str, hint: str = "") -> PageWarning:
        """Return a PageWarning for this page's origin, placed like ``error``."""
        if isinstance(where, int):
            where = f"line {where}" if where else None
        return PageWarning(self.origin, where or "", problem, hint)

    def number(self, where: int | str | None, text: str, what: str) -> int:
        """Return ``text``, a whole number of at most nine ASCII digits, as an int.

        Raises PageError naming ``what`` otherwise: a count past a billion is a damaged page,
        and converting thousands of digits would be slow for nothing.
        """
        if not (text.isascii() and text.isdigit() and len(text) <= 9):
            raise self.error(where, f"{what} {text[:20]!r} is not a plausible whole number")
        return int(text)

    def filled(self, start: int = 0) -> Iterator[tuple[int, str]]:
        """Yield (line number, stripped text) of each non-blank line from index ``start`` on."""
        for number, line in enumerate(self.lines[start:], start + 1):
            text = line.strip()
            if text:
                yield number, text
