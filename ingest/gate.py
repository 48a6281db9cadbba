"""The ingest's gate as the write API takes it (:class:`benchgraph.outcomes.Gate`): a page's
bytes parsed, mapped and validated as ``benchgraph ingest`` does it, and a page withdrawn as
``benchgraph remove`` does it. ``benchgraph serve`` gives it to the app, so that the server
imports no parser."""

from __future__ import annotations

from benchgraph.outcomes import Prepared, Removal
from benchgraph.store import Store
from ingest.loader import prepare_bytes
from ingest.removal import page_named, remove_pages
from ingest.tally import Tally
from ingest.writer import Write


class IngestGate:
    """The gate of :mod:`ingest.loader` and :mod:`ingest.removal`."""

    def prepare(self, store: Store, data: bytes, origin: str) -> Prepared:
        item = prepare_bytes(store, data, origin)
        change = None
        if isinstance(item, Write):
            change, item = item.change, item.outcome
        tally = Tally(verbose=True)
        tally.add(item)
        return Prepared(item, tally.summary(listed=True, folded=True), change)

    def withdraw(self, store: Store, page: str) -> list[Removal]:
        return list(remove_pages(store, [page_named(page)]))
