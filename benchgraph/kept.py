"""Records the store keeps beside its pages that some named queries read instead of the pages:
the audit summaries (:mod:`benchgraph.summaries`) and the report keys
(:mod:`benchgraph.report_keys`). A store that lacks some (written before benchgraph kept them,
or damaged) would have such a query answer as if those pages held nothing, so the query is
refused there, naming how many lack one and the command that writes them; one count decides.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pyoxigraph as ox

from benchgraph import queries
from benchgraph.sparqltext import Term
from benchgraph.store import Store, StoreError


class MissingRecords(StoreError):
    """Some current pages of the store lack a record (``missing`` of them) that a query reads:
    it would answer as if they held nothing."""

    def __init__(self, message: str, missing: int) -> None:
        super().__init__(message)
        self.missing = missing


@dataclass(frozen=True)
class Kept:
    """A kind of record: the named queries that read it (``readers``), the internal query that
    counts what lacks it (``count``: one row, ``missing``) with its ``bindings``, and what a
    reader is told (``refusal(store, missing, repair)``: the store as the reader may see it, how
    many lack one, the command that writes them)."""

    readers: tuple[str, ...]
    count: str
    bindings: Callable[[], dict[str, Term]]
    refusal: Callable[[str, int, str], str]

    def missing(self, store: Store) -> int:
        """How many current pages of ``store`` lack the record. Raises StoreError."""
        answer = store.query(queries.internal(self.count), self.bindings(), default_graph=())
        assert isinstance(answer, ox.QuerySolutions)
        for row in answer:
            value = row["missing"]
            return int(value.value) if value is not None else 0
        return 0

    def require(self, store: Store) -> None:
        """Return when no current page of ``store`` lacks the record. Raises MissingRecords,
        naming the store, how many and the remedy; other StoreError when the store cannot
        answer."""
        found = self.missing(store)
        if found:
            where = store.location
            repair = f"`benchgraph repair --store {where}`"
            raise MissingRecords(self.refusal(f"the store at {where}", found, repair), found)
