"""Markdown as sota2 pages write it: backslash escapes and pipe tables."""

from __future__ import annotations

import re

from ingest.text import PageText

_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_PIPE = re.compile(r"(?<!\\)\|")
_SEPARATOR = re.compile(r"^:?-{3,}:?$")


def unescape(text: str) -> str:
    """Undo Markdown backslash escapes (``CLIP-T (S\\*T)`` becomes ``CLIP-T (S*T)``)."""
    return _ESCAPE.sub(r"\1", text)


def cells(page: PageText, index: int) -> list[str]:
    """Return the stripped cells of the table row at line index ``index``.

    Escaped pipes stay inside a cell. Raises PageError when the line does not start and end
    with an unescaped ``|``.
    """
    line = page.lines[index].strip()
    if len(line) < 2 or not line.startswith("|") or not line.endswith("|") or line[-2] == "\\":
        raise page.error(
            index + 1, f"malformed table row {line!r}", "a table row starts and ends with '|'"
        )
    return [cell.strip() for cell in _PIPE.split(line[1:-1])]


def table_rows(page: PageText, header: int, width: int) -> list[tuple[int, list[str]]]:
    """Return the rows under the table header at line index ``header`` as (line index, cells).

    Raises PageError when no ``| --- |`` line follows the header, or a row does not have
    ``width`` cells.
    """
    lines = page.lines
    separator = header + 1
    if (
        separator >= len(lines)
        or not lines[separator].startswith("|")
        or not all(_SEPARATOR.match(c) for c in cells(page, separator))
    ):
        raise page.error(separator + 1, "the table header is not followed by a '| --- |' line")
    rows = []
    index = separator + 1
    while index < len(lines) and lines[index].startswith("|"):
        row = cells(page, index)
        if len(row) != width:
            raise page.error(index + 1, f"table row has {len(row)} cells, expected {width}")
        rows.append((index, row))
        index += 1
    return rows
