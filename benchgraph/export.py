"""Dumps: the whole store written as one RDF document, streamed (never built in memory).
TriG and N-Quads keep the named graphs, so every triple still says which page it came from, and
hold the merged view as their default graph (loaded into any quad store, its default graph then
answers as benchgraph's does). They hold the store as it is now, the page graphs and their
reports and the alias graph (the curators' alias records: :mod:`benchgraph.aliases`), unless
asked for its history too: the history graphs, their reports and the versions catalogue, so that
loading the dump gives back every version. Turtle, N-Triples and JSON-LD hold one graph, the
merged view: each triple of the page graphs once, no validation report, no alias record, no
history. The serialisers write to a file object as they go: the quad formats from the store's
quads as they are read, the single-graph formats from the view as a query yields it.
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING

import pyoxigraph as ox

from benchgraph import vocab as V
from benchgraph.media import BY_KEY, GRAPH_FORMATS, QUAD_FORMATS

if TYPE_CHECKING:
    from benchgraph.store import Store

# Format names of `benchgraph export --format` -> media-table keys (the HTTP dumps use the same).
FORMATS = {
    "trig": "trig",
    "nquads": "nquads",
    "turtle": "turtle",
    "ntriples": "ntriples",
    "jsonld": "jsonld",
}
# The formats that keep the named graphs, and so can hold the history.
QUAD_DUMPS = tuple(name for name, key in FORMATS.items() if key in QUAD_FORMATS)


def suffix(key: str) -> str:
    """The file suffix of a dump in the format with media key ``key`` (``/dump.<suffix>``)."""
    found = BY_KEY[key].suffix
    assert found is not None
    return found


def write(store: Store, key: str, output: IO[bytes], history: bool = False) -> None:
    """Write the store to ``output`` in the format with media key ``key`` (one of FORMATS),
    with its history graphs, their reports and the versions catalogue if ``history``.

    Raises OSError when the store cannot be read or the output cannot be written, ValueError
    for an unknown format or for ``history`` with a format that holds one graph.
    """
    if key not in FORMATS.values():
        raise ValueError(f"no dump format {key!r} (formats: {', '.join(FORMATS)})")
    if history and key not in QUAD_FORMATS:
        raise ValueError(f"a {key} dump holds one graph, the merged view: it has no history")
    fmt = GRAPH_FORMATS[key]
    if key in QUAD_FORMATS:
        store.dump(output, fmt, history)
    else:
        ox.serialize(store.view_triples(), output, fmt, prefixes=V.PREFIXES)
