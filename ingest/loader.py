"""From files to the store: read, detect the format, parse, map, validate, write one graph per
page.

A page that cannot be read, parsed or mapped, or whose graph breaks a shape with severity
sh:Violation, changes nothing in the store. An accepted page's graph and its validation report
are written in one transaction. Identical bytes ingested again change nothing either (not even the
ingest time).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from benchgraph import validation
from benchgraph.store import Store
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
    findings: tuple[validation.Finding, ...] = ()  # warnings and infos of an accepted page


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
    """Load one file into ``store``: its page, once validated against the shapes, replaces that
    page's graph and its stored validation report, atomically. A page with a violation is
    ``refused`` and the store is untouched; the Outcome's message names the file, the focus
    nodes' source IDs and the shapes' messages.

    Raises StoreError when the store cannot be read or written (the page then keeps its
    previous version): that stops a batch, whose other pages would fail alike."""
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
        when = now or validation.now()
        triples = map_page(page, when)
        conforms, report = validation.validate_triples(triples, origin)
        if not conforms:
            return Outcome(origin, "refused", report.refusal())
        report_graph = validation.report_graph(graph)
        store.replace_graphs(
            {graph: triples, report_graph: report.triples(report_graph, source, when)}
        )
    except PageError as error:
        return Outcome(origin, "refused", str(error))
    except validation.ShapesError as error:
        return Outcome(origin, "unreadable", f"{origin}: cannot validate: {error}")
    return Outcome(origin, "loaded", "", len(page.results), graph, report.findings)
