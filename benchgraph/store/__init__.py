"""The store: the only state benchgraph has, and where a page is written and a query answered.

Each module is one part, and each imports only those below it (the layers contract in
pyproject.toml keeps it so):

- :mod:`~benchgraph.store.opening` picks a backend from a location: the only module that
  names them.
- The backends: :mod:`~benchgraph.store.embedded` (pyoxigraph on disk),
  :mod:`~benchgraph.store.remote` (any SPARQL 1.1 server, through its HTTP client
  :mod:`~benchgraph.store.sparql_client` and :mod:`~benchgraph.store.credentials`) and
  :mod:`~benchgraph.store.served` (a folder a running ``benchgraph serve`` holds, as its
  :mod:`~benchgraph.store.holder` record says).
- :mod:`~benchgraph.store.files`: whether a folder holds a whole store, a damaged one or none.
- :mod:`~benchgraph.store.interface`: :class:`Store`, its answers and its errors, knowing no
  backend.
- :mod:`~benchgraph.store.writes`: a :class:`Change` and the SPARQL Update text that does it.

The names the rest of benchgraph uses are here; a backend's own are in its module.
"""

from benchgraph.store.files import DATA_FILES, damage, disk_full
from benchgraph.store.interface import (
    Answer,
    DamagedStore,
    LoadUndone,
    Notify,
    OutdatedStore,
    PartlyWritten,
    SentTriples,
    Store,
    StoreError,
    Triples,
    Upgrade,
    ViewCheck,
    WriteConflict,
    notice,
)
from benchgraph.store.opening import is_remote, open_store
from benchgraph.store.writes import Change

__all__ = [
    "DATA_FILES",
    "Answer",
    "Change",
    "DamagedStore",
    "LoadUndone",
    "Notify",
    "OutdatedStore",
    "PartlyWritten",
    "SentTriples",
    "Store",
    "StoreError",
    "Triples",
    "Upgrade",
    "ViewCheck",
    "WriteConflict",
    "damage",
    "disk_full",
    "is_remote",
    "notice",
    "open_store",
]
