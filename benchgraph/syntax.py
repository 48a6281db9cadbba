"""A query the parser refuses, said in the user's terms: where in the text they wrote (line and
column, counted in characters from 1), what is wrong in a few words, and the line quoted with
a caret under the place.

The engines' messages are read for their position (pyoxigraph's ``error at 5:22: …``,
rdflib's ``… (line:5, col:22)``) and turned into a few plain phrases: ``expected ')'`` where a
bracket is left open, ``unexpected '}': no bracket is open``, ``unknown prefix 'x:'``,
``unterminated string``, ``unexpected end of query`` (with what the engine expected, when it
says it briefly); anything else is the first line of the engine's message, cut short. A missing
closing bracket is placed right after the last token before it, not where the engine noticed
it (often lines later). The brackets are matched by the lexer of :mod:`benchgraph.sparqltext`,
which knows strings, IRIs and comments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from benchgraph import sparqltext
from benchgraph.sparqltext import Token

_OXIGRAPH = re.compile(r"error at (\d+):(\d+): ?")
_RDFLIB = re.compile(r"\s*\(at char \d+\), \(line:(\d+), col:(\d+)\)")
_RDFLIB_PREFIX = re.compile(r"Unknown namespace prefix : (\S*)")
_CLOSERS = {"(": ")", "{": "}", "[": "]"}
_CUT = 120  # characters of an engine's message that are kept
# Oxigraph's "expected X" / "expected one of X, Y, …", whose list may hold character classes
# (['A' ..= 'Z' | '\\u{00C0}'..='\\u{00D6}' | …], [_]): those are left out of what is said.
_OXIGRAPH_EXPECTED = re.compile(r"\s*expected ")
_CLASS = re.compile(r"\[(?:_|'[^\]]*)\]", re.DOTALL)
_SHOWN = 6  # items of an expectation that are said


@dataclass(frozen=True)
class Problem:
    """Where the query is wrong (``line`` and ``column`` from 1, in the query as given; 0
    when the engine gave no position) and what is wrong (``message``); ``source`` is that
    line of the query."""

    line: int
    column: int
    message: str
    source: str = ""

    def __str__(self) -> str:
        if not self.line:
            return self.message
        return f"line {self.line}, column {self.column}: {self.message}"

    def excerpt(self) -> str:
        """The line quoted with a caret under the column (empty without a position), such as
        ``"5 |   FILTER (STRLEN(?x) > 3\\n  |                         ^"``."""
        if not self.line:
            return ""
        number = str(self.line)
        shown = self.source.replace("\t", " ")
        return f"{number} | {shown}\n{' ' * len(number)} | {' ' * (self.column - 1)}^"


def explain(message: str, text: str, added: int = 0) -> Problem:
    """The parser's ``message`` about the query ``text`` as a :class:`Problem` in the terms of
    the query as given: ``text`` without its first ``added`` lines (those
    :func:`benchgraph.prefixes.prepare` wrote)."""
    given_from = _offset(text, added + 1, 1)
    prefix = _RDFLIB_PREFIX.search(message)
    place = _OXIGRAPH.search(message)
    rdflib_place = _RDFLIB.search(message)
    if place:
        offset = _offset(text, int(place[1]), int(place[2]))
        detail = message[place.end() :]
    elif rdflib_place:
        offset = _offset(text, int(rdflib_place[1]), int(rdflib_place[2]))
        detail = message[: rdflib_place.start()]
    elif prefix:
        return Problem(0, 0, f"unknown prefix '{prefix[1]}:'")
    else:  # a server's message, say, which names it first: kept longer
        return Problem(0, 0, _first_line(message, 3 * _CUT))
    found = sparqltext.tokens(text)
    said, offset = _said(detail, found, offset)
    if prefix:
        said = f"unknown prefix '{prefix[1]}:'"
    offset = max(offset, given_from)
    return _at(text[given_from:], offset - given_from, said)


def _said(detail: str, found: list[Token], offset: int) -> tuple[str, int]:
    """What is wrong at ``offset`` (characters into the text of the tokens ``found``), given
    the engine's ``detail``, and the offset to show it at."""
    before = [t for t in found if t.start < offset]
    at = next((t for t in found if t.start >= offset), None)
    current = next((t for t in reversed(before) if t.end >= offset), None)
    if current is not None and "Prefix not found" in detail and current.kind == "name":
        return f"unknown prefix '{current.text.split(':', 1)[0]}:'", current.start
    if current is not None and current.kind in ("short", "long") and not _closed(current):
        return "unterminated string", current.start
    stack: list[Token] = []
    for i, token in enumerate([*before, *([at] if at else [])]):
        if token.kind != "other":
            continue
        if token.text in _CLOSERS:
            stack.append(token)
        elif token.text in _CLOSERS.values():
            if stack and _CLOSERS[stack[-1].text] == token.text:
                stack.pop()
            elif stack:
                end = before[i - 1].end if i else token.start
                return f"expected '{_CLOSERS[stack[-1].text]}'", end
            else:
                return f"unexpected '{token.text}': no bracket is open", token.start
    end = before[-1].end if before else 0
    if at is None:
        if stack:
            return f"unexpected end of query: expected '{_CLOSERS[stack[-1].text]}'", end
        return _found("unexpected end of query", detail), end
    closer = _CLOSERS[stack[-1].text] if stack else ""
    if closer and at.text != closer and f'"{closer}"' in detail:
        return f"expected '{closer}'", end
    if _OXIGRAPH_EXPECTED.match(detail) and at.start == offset:
        return _found(f"unexpected {_shown(at.text)}", detail), offset
    return _first_line(detail), offset


def _found(what: str, detail: str) -> str:
    """``what`` was found, followed by the engine's expectation in ``detail`` (oxigraph's
    ``expected one of …``) in short: its words and punctuation, at most a few, without the
    character classes it lists (Unicode ranges nobody can act on)."""
    if not _OXIGRAPH_EXPECTED.match(detail):
        return what
    listed = _CLASS.sub("", " ".join(detail.split()).split("expected", 1)[1])
    items = [i.strip() for i in listed.removeprefix(" one of").split(",") if i.strip()]
    if not items:
        return what
    shown = ", ".join(items[:_SHOWN]) + (", …" if len(items) > _SHOWN else "")
    return f"{what}; expected {'one of ' if len(items) > 1 else ''}{shown}"


def _shown(text: str) -> str:
    """A token of the query, quoted, cut short when long."""
    return repr(text if len(text) <= 30 else text[:29] + "…")


def _closed(token: Token) -> bool:
    quote = token.text[:3] if token.kind == "long" else token.text[0]
    return len(token.text) >= 2 * len(quote) and token.text.endswith(quote)


def _first_line(message: str, limit: int = _CUT) -> str:
    line = _OXIGRAPH.sub("", message.strip()).split("\n", 1)[0].strip()
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _offset(text: str, line: int, column: int) -> int:
    """The character offset of ``line``:``column`` (from 1; lines end at ``\\n``) in ``text``,
    at most its length."""
    start = 0
    for _ in range(line - 1):
        found = text.find("\n", start)
        if found < 0:
            return len(text)
        start = found + 1
    return min(start + column - 1, len(text))


def _at(text: str, offset: int, message: str) -> Problem:
    """The :class:`Problem` ``message`` at ``offset`` characters into ``text``."""
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    source = text[start : end if end >= 0 else len(text)].rstrip("\r")
    return Problem(line, offset - start + 1, message, source)
