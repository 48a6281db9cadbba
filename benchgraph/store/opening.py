"""Opening a store: the one module that names the backends, and picks one from a location.

A folder is an :class:`~benchgraph.store.embedded.EmbeddedStore`, unless a running
``benchgraph serve`` holds it: it is then reached through that server
(:class:`~benchgraph.store.served.ServedStore`). An ``http(s)://`` URL is a
:class:`~benchgraph.store.remote.RemoteStore`, any SPARQL 1.1 server.
"""

from __future__ import annotations

import os
from pathlib import Path

from benchgraph.store import holder
from benchgraph.store.embedded import EmbeddedStore
from benchgraph.store.files import check_folder
from benchgraph.store.interface import Notify, Store, StoreError, Upgrade
from benchgraph.store.remote import RemoteStore
from benchgraph.store.served import ServedStore, owner_url


def is_remote(location: str | Path) -> bool:
    """Whether ``location`` names a SPARQL server (an http(s) URL) rather than a folder."""
    return str(location).lower().startswith(("http://", "https://"))


def open_store(
    location: str | Path,
    *,
    must_exist: bool = False,
    notify: Notify | None = None,
    reading: bool = False,
    only_reads: bool = False,
    named_by: str = "",
    upgrade: Upgrade | None = None,
) -> Store:
    """The store at ``location``: a SPARQL server's query endpoint URL, or a folder (created if
    missing, unless ``must_exist``; ``named_by`` says where the location came from, for the
    message). A store written by an earlier benchgraph is upgraded (its merged view built
    once; its sources' identities by ``upgrade``, when given), and ``notify`` is told so. A
    command that only ``reading`` never empties a store its first ingest left half-loaded: it
    is refused; one that ``only_reads`` opens a folder read-only where it can (see
    :class:`EmbeddedStore`). A folder a running server holds is reached through that server
    (:mod:`benchgraph.store.served`). Raises StoreError if it cannot be opened."""
    if is_remote(location):
        return RemoteStore.from_settings(str(location), notify=notify)
    check_folder(Path(location))
    if must_exist and not (Path(location) / "CURRENT").is_file():
        by = f" (named by {named_by})" if named_by else ""
        raise StoreError(
            f"there is no store at {location}{by}: check the name, or load pages first with "
            f"`benchgraph ingest --store {location} PAGES...`"
        )
    serving = holder.live(Path(location))
    if serving is not None and serving.pid != os.getpid():
        url = owner_url(serving)
        if url is not None:
            return ServedStore(str(location), serving, url)
    return EmbeddedStore(
        location, notify=notify, reading=reading, only_reads=only_reads, upgrade=upgrade
    )
