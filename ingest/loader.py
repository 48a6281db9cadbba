"""From files to the store: read, detect the format, parse, map, write one graph per page.

A page that cannot be read, parsed or mapped changes nothing in the store. Identical bytes
ingested again change nothing either (not even the ingest time).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from benchgraph.store import Store, StoreError
from ingest import iris, radar, sota2
from ingest.mapper import map_page
from ingest.records import Page, PageError

PARSERS = (sota2, radar)
Status = Literal["loaded", "unchanged", "refused", "unreadable"]


@dataclass(frozen=True)
class Outcome:
    """What happened to one input."""

    origin: str
    status: Status
    message: str = ""
    results: int = 0
    graph: str | None = None


def read_page(data: bytes, origin: str) -> Page:
    """Detect the format of ``data`` from its content and parse it.

    Raises PageError for empty, binary or undecodable input and for text that is no known page.
    """
    if not data.strip():
        raise PageError(
            origin, "", "the file is empty", "expected a sota2 or AI Benchmark Radar page"
        )
    if b"\x00" in data[:8192]:
        raise PageError(origin, "", "binary data, not a text page")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise PageError(
            origin, f"byte {error.start}", "not UTF-8 text", "source pages are UTF-8"
        ) from None
    for parser in PARSERS:
        if parser.sniff(text):
            return parser.parse(data, origin)
    raise PageError(
        origin,
        "",
        "not a source page: neither a sota2 page nor an AI Benchmark Radar page",
        "a sota2 page starts with '# <Task> on <Dataset>' and has a Scope table; "
        "a Radar page's first line ends with '· AI Benchmark Radar'",
    )


def expand(paths: Iterable[str | Path]) -> Iterator[Path | Outcome]:
    """Yield the files named by ``paths`` (folders: their files, sorted, hidden ones skipped),
    or an ``unreadable`` Outcome for a path that does not exist."""
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                hidden = any(part.startswith(".") for part in child.relative_to(path).parts)
                if child.is_file() and not hidden:
                    yield child
        elif path.is_file():
            yield path
        else:
            yield Outcome(str(raw), "unreadable", f"{raw}: no such file or folder")


def ingest_file(store: Store, path: Path, now: str | None = None) -> Outcome:
    """Load one file into ``store``: its page replaces that page's graph, atomically."""
    origin = str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        return Outcome(origin, "unreadable", f"{origin}: cannot read: {error.strerror}")
    try:
        page = read_page(data, origin)
        graph, source = iris.graph(page.key), iris.source(page.key)
        if store.source_hash(graph, source) == page.sha256:
            return Outcome(origin, "unchanged", "", len(page.results), graph)
        triples = map_page(page, now or datetime.now(UTC).isoformat(timespec="seconds"))
        store.replace_graph(graph, triples)
    except PageError as error:
        return Outcome(origin, "refused", str(error))
    except StoreError as error:
        return Outcome(origin, "unreadable", f"{origin}: {error}")
    return Outcome(origin, "loaded", "", len(page.results), graph)
