"""A JSON document read as a stream, its errors placed by line and column.

A file too large to hold in memory (the Papers with Code archive) is read twice with ijson's
incremental parser (its C backend, yajl2): :func:`check` reads it once, keeping nothing, to
refuse a file that is not UTF-8 JSON before any of it is used, and says what its top level is;
the caller then reads its items one at a time (``ijson.items``). Numbers stay as published:
``Decimal("90.640")`` for a fraction, ``int`` for an integer.

A syntax error is placed where the parser stopped: the byte is found by reading the file again
up to the failing chunk and then byte by byte, and its line and column (in characters, as
Python's ``json`` gives them) by counting up to it. Nothing here holds more than one chunk.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Any, BinaryIO, Literal

import ijson

from ingest.records import PageError
from ingest.structured import shown

CHUNK = 1 << 16  # bytes read at a time
DEPTH = 512  # deepest nesting read; the formats read here nest a few levels
_BOM = b"\xef\xbb\xbf"
_SPACE = b" \t\r\n"
# Every byte but UTF-8's continuation bytes: deleting them leaves the continuation bytes, so
# that a chunk's characters are its length less theirs.
_NOT_CONTINUATION = bytes(b for b in range(256) if not 0x80 <= b <= 0xBF)
_YAJL_PREFIX = re.compile(r"^(?:parse|lexical) error: ")


@dataclass(frozen=True)
class Top:
    """What a checked document holds at its top level: a list, an object (with the names of
    its keys) or a single value (a scalar)."""

    kind: Literal["list", "object", "scalar"]
    keys: frozenset[str] = frozenset()
    value: Any = None

    def shown(self) -> str:
        """What the top level is, for a message: ``a list``, ``a mapping``, ``the number 3``."""
        if self.kind == "list":
            return "a list"
        return "a mapping" if self.kind == "object" else shown(self.value)


@dataclass
class _Scan:
    """The depth and the top level of the events seen so far."""

    origin: str
    depth: int = 0
    kind: Literal["list", "object", "scalar"] | None = None
    value: Any = None
    keys: set[str] | None = None

    def see(self, events: list[tuple[str, Any]]) -> None:
        """Follow ``events``. Raises PageError past :data:`DEPTH` levels of nesting."""
        for event, value in events:
            if self.kind is None:
                opens = {"start_array": "list", "start_map": "object"}.get(event, "scalar")
                self.kind, self.value = opens, value  # type: ignore[assignment]
                self.keys = set() if self.kind == "object" else None
            if event in ("start_map", "start_array"):
                self.depth += 1
                if self.depth > DEPTH:
                    raise PageError(
                        self.origin,
                        "",
                        "the JSON is nested too deeply to read",
                        f"this format nests a few levels deep; {DEPTH} is the most read",
                    )
            elif event in ("end_map", "end_array"):
                self.depth -= 1
            elif event == "map_key" and self.depth == 1 and self.keys is not None:
                self.keys.add(value)

    def top(self) -> Top:
        kind = self.kind or "scalar"
        return Top(kind, frozenset(self.keys or ()), self.value)


def check(file: BinaryIO, origin: str) -> Top:
    """Read the whole of ``file`` (from its current position, which must be seekable) as one
    JSON document, keeping nothing, and return what its top level is. ``file`` is left at the
    start of the JSON text (past a UTF-8 byte order mark), ready to be read again.

    Raises PageError for bytes that are not UTF-8 (``byte N``), JSON that does not parse (with
    the line and column, and a hint for a trailing comma) and nesting past :data:`DEPTH`.
    """
    start = file.tell()
    if file.read(len(_BOM)) == _BOM:
        start += len(_BOM)
    file.seek(start)
    decoder = codecs.getincrementaldecoder("utf-8")()
    events = ijson.sendable_list()
    parser = ijson.basic_parse_coro(events, use_float=False)
    scan = _Scan(origin)
    offset = start
    try:
        while chunk := file.read(CHUNK):
            _decode(decoder, chunk, offset, origin)
            parser.send(chunk)
            scan.see(events)
            del events[:]
            offset += len(chunk)
        _decode(decoder, b"", offset, origin, final=True)
        parser.close()
        scan.see(events)
    except ijson.JSONError as error:
        raise _syntax_error(file, start, offset, origin, error) from None
    file.seek(start)
    return scan.top()


def _decode(
    decoder: codecs.IncrementalDecoder, chunk: bytes, offset: int, origin: str, final: bool = False
) -> None:
    """Decode ``chunk`` (at ``offset`` in the file). Raises PageError at a byte that is not
    UTF-8, naming it."""
    pending = len(decoder.getstate()[0])
    try:
        decoder.decode(chunk, final)
    except UnicodeDecodeError as error:
        raise PageError(
            origin, f"byte {offset - pending + error.start}", "not UTF-8 text", "JSON is UTF-8"
        ) from None


def _syntax_error(
    file: BinaryIO, start: int, failed: int, origin: str, error: ijson.JSONError
) -> PageError:
    """The PageError of the syntax ``error`` met in the chunk at ``failed``: its line and
    column, the parser's message, and a hint when it is a trailing comma."""
    offset = _error_offset(file, start, failed)
    (line, column), *comma = _places(file, start, [offset, *_trailing_comma(file, start, offset)])
    hint = ""
    if comma:
        hint = (
            f"a trailing comma at line {comma[0][0]}, column {comma[0][1]}: JSON allows no comma "
            "after the last item of an object or list; remove it"
        )
    return PageError(
        origin, f"line {line}, column {column}", f"not valid JSON: {_message(error)}", hint
    )


def _message(error: ijson.JSONError) -> str:
    """The first line of the parser's message, without its ``parse error:`` prefix."""
    text = str(error)
    if text[:2] in ("b'", 'b"'):  # the C backend can give the repr of its bytes
        text = text[2:]
    first = re.split(r"\\n|\n", text, maxsplit=1)[0].strip().rstrip("'\"")
    return _YAJL_PREFIX.sub("", first).rstrip(".")


def _error_offset(file: BinaryIO, start: int, failed: int) -> int:
    """The offset of the byte at which the parser fails, reading the file again: whole chunks
    up to ``failed`` (where the first reading failed), then one byte at a time."""
    file.seek(start)
    events = ijson.sendable_list()
    parser = ijson.basic_parse_coro(events, use_float=False)
    offset = start
    try:
        while offset < failed and (chunk := file.read(min(CHUNK, failed - offset))):
            parser.send(chunk)
            del events[:]
            offset += len(chunk)
        while byte := file.read(1):
            parser.send(byte)
            del events[:]
            offset += 1
        parser.close()
    except ijson.JSONError:
        pass
    return offset


def _trailing_comma(file: BinaryIO, start: int, offset: int) -> list[int]:
    """``[the comma's offset]`` when the byte at ``offset`` closes an object or a list right
    after a comma (spaces apart), else ``[]``."""
    file.seek(offset)
    if file.read(1) not in (b"}", b"]"):
        return []
    end = offset
    while end > start:
        begin = max(start, end - CHUNK)
        file.seek(begin)
        before = file.read(end - begin).rstrip(_SPACE)
        if before:
            return [begin + len(before) - 1] if before.endswith(b",") else []
        end = begin
    return []


def _places(file: BinaryIO, start: int, offsets: list[int]) -> list[tuple[int, int]]:
    """The line and column (1-based, the column in characters) of each of ``offsets``,
    counted by reading the file from ``start``."""
    file.seek(start)
    places: dict[int, tuple[int, int]] = {}
    line, column, position = 1, 1, start
    for target in sorted(set(offsets)):
        while position < target:
            chunk = file.read(min(CHUNK, target - position))
            if not chunk:
                break
            newlines = chunk.count(b"\n")
            if newlines:
                line += newlines
                chunk = chunk[chunk.rfind(b"\n") + 1 :]
                column = 1
            column += len(chunk) - len(chunk.translate(None, _NOT_CONTINUATION))
            position = file.tell()
        places[target] = (line, column)
    return [places[offset] for offset in offsets]
