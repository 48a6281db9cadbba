"""The things of each looked-up type the store holds, kept per store generation, so that the IRI
given for a parameter is checked without a trip to a query worker.

A paper, method or benchmark given by its IRI is checked before its query runs
(:func:`benchgraph.queries.resolve` runs ``queries/internal/is-a.rq``: is it a thing of the
parameter's type?). Each check is a trip to a query worker, and a point query's requests each
name another paper. The warmer (:class:`server.named.Warmer`) reads, once per store generation,
every thing of each such type (``things-of-type.rq``: 17,752 papers at 10,000 pages); a check
is then answered from that set, the same answer as the query's. Until a generation's things are
read (and with one query worker, where nothing is warmed), checks are queries as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from pyoxigraph import NamedNode

from benchgraph import queries
from benchgraph.sparqltext import Term

CHECK = "is-a"  # the lookup answered here
EVERY = "things-of-type"  # how the things of a type are read

# The types of the parameters looked up with CHECK.
TYPES = tuple(
    sorted({k.type for k in queries.LOOKUPS.values() if k.iri == CHECK and k.type is not None})
)

# Reads the first column of an internal query's text run with bindings; None when the answer
# was cut (at the row limit): an incomplete set would refuse things the store holds.
Reader = Callable[[str, Mapping[str, Term]], list[str] | None]


class Kinds:
    """The IRIs of the things of each type of :data:`TYPES`, for one store generation."""

    def __init__(self) -> None:
        self._generation = ""
        self._things: dict[str, frozenset[str]] = {}
        self._check = ""  # the text of the lookup answered here, once things are read
        self._lock = threading.Lock()

    def read(self, tag: str, reader: Reader) -> int:
        """Read the things of every type for generation ``tag`` with ``reader`` and keep them
        (those of an earlier generation are dropped); return how many. A type whose answer was
        cut is not kept. Raises what ``reader`` raises."""
        found: dict[str, frozenset[str]] = {}
        text = queries.internal(EVERY)
        for kind in TYPES:
            things = reader(text, {"type": NamedNode(kind)})
            if things is not None:
                found[kind] = frozenset(things)
        with self._lock:
            self._generation, self._things = tag, found
            self._check = queries.internal(CHECK)
        return sum(len(things) for things in found.values())

    def check(self, tag: str, text: str, bindings: Mapping[str, Term]) -> list[str] | None:
        """What the lookup ``text`` with ``bindings`` answers in generation ``tag``, when it is
        the check of an IRI whose type's things are kept for that generation: the IRI if the
        store holds it as a thing of that type, else nothing. None when it cannot be said
        here (another lookup, a literal given, another generation): the lookup is a query."""
        name, kind = bindings.get("name"), bindings.get("type")
        if not isinstance(name, NamedNode) or not isinstance(kind, NamedNode) or len(bindings) != 2:
            return None
        with self._lock:
            things = self._things.get(kind.value) if self._generation == tag else None
        if things is None or text != self._check:
            return None
        return [name.value] if name.value in things else []
