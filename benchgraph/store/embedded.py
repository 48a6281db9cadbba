"""The embedded store: pyoxigraph on disk, in a folder, whose default graph is the merged view.

Opened for writing, it holds the store's lock and says so in the folder
(:mod:`benchgraph.store.holder`); its files are checked before the engine opens them
(:mod:`benchgraph.store.files`).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path

import pyoxigraph as ox

from benchgraph import graphs
from benchgraph.sparqltext import Term, substitute
from benchgraph.store import files, holder
from benchgraph.store.files import check_folder, damage, disk_full, sync_folder, write_synced
from benchgraph.store.interface import (
    Answer,
    DamagedStore,
    LoadUndone,
    Notify,
    OutdatedStore,
    Store,
    StoreError,
    Upgrade,
    present,
    upgrade_notice,
)
from benchgraph.store.writes import Change


def _change_nquads(change: Change) -> bytes:
    """A fresh ``change`` (see EmbeddedStore.write) as N-Quads: its graphs and additions, and
    the statements of its page graphs in the default graph, the merged view."""
    facts = [t for g, ts in change.replaced.items() if graphs.is_page(g) for t in ts]
    written = [*change.replaced.items(), *change.added.items()]
    return b"".join(_nquads(g, ts) for g, ts in written) + _nquads(None, facts)


def _nquads(graph: str | None, triples: Iterable[ox.Triple]) -> bytes:
    """``triples`` as N-Quads in ``graph`` (None: the default graph). N-Triples escapes line
    breaks inside literals, so every ``" .\\n"`` of its output ends a statement."""
    text = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES) or b""
    return text if graph is None else text.replace(b" .\n", f" <{graph}> .\n".encode())


class EmbeddedStore(Store):
    """An embedded pyoxigraph store in the folder ``location`` (created if missing). Its default
    graph is the merged view. A store of the earlier layout (no :data:`LAYOUT_FILE`, page graphs
    present) is upgraded when opened for writing (``notify`` is told), and refused with
    OutdatedStore when opened ``read_only``. Opened for writing, it holds the store's lock and
    says so in the folder (:mod:`benchgraph.store.holder`: ``record``, by default this process
    as it runs) until closed; a store another holds is refused with a StoreError naming the
    holder. A store of layout 2, whose sources were named under earlier rules, is upgraded by
    ``upgrade`` when opened for writing with one (the commands and the server give
    :func:`benchgraph.identities.upgrade`); without it, it keeps its layout. A command that
    ``only_reads`` opens a store of the current layout read-only, under a read lock it shares
    with other readers (:func:`benchgraph.store.holder.read_lock`): it reads on a full disk."""

    # The store keeps what it was given in memory until it is flushed to its files: without a
    # flush now and then, a long ingest grows by about what it writes (measured: 0.6 MB a page).
    FLUSH_BYTES = 16 * 1024 * 1024
    # Tries at a snapshot that met a file deleted under it (see snapshot).
    SNAPSHOT_ATTEMPTS = 5
    # Written once the merged view is complete (a new store, or an upgrade that finished): its
    # absence beside page graphs means the view is not built yet, whatever the default graph
    # holds, so an upgrade stopped half-way is started again, never taken for done.
    LAYOUT_FILE = files.LAYOUT_FILE
    # Layout 2: the merged view. Layout 3: each source named by which source it is, never by what
    # it says. Layout 4: each version with its audit summary, each two versions of a page with
    # their delta. Layout 5: each page's validation report with its key (the ``upgrade`` an
    # EmbeddedStore is given brings an earlier store to layout 5).
    LAYOUT_NUMBER = 5
    LAYOUT = (
        '{"layout": 5, "default graph": "the merged view of the page graphs", '
        '"identities": "a source is named by which source it is", '
        '"records": "audit summaries, version deltas and report keys"}\n'
    )
    VIEW_LAYOUT = '{"layout": 2, "default graph": "the merged view of the page graphs"}\n'
    UPGRADING_LAYOUT = '{"layout": 1, "default graph": "the merged view, being built"}\n'
    # There while many pages are loaded into an empty store at once (see begin_load).
    LOAD_FILE = "benchgraph-loading.json"

    def __init__(
        self,
        location: str | Path,
        *,
        read_only: bool = False,
        notify: Notify | None = None,
        record: holder.Holder | None = None,
        reading: bool = False,
        only_reads: bool = False,
        upgrade: Upgrade | None = None,
    ) -> None:
        self.location = str(location)
        self._reading = reading or only_reads
        self._upgrade = upgrade
        marked = check_folder(Path(location))
        # A command that only reads a store of this layout shares a read lock and opens it
        # read-only: no writer meanwhile, and nothing written, so it reads on a full disk.
        self._read_lock = None
        if only_reads and not read_only and marked == self.LAYOUT_NUMBER:
            self._read_lock = holder.read_lock(Path(location))
            read_only = self._read_lock is not None
        try:
            self._store = self._open(read_only, record)
        except BaseException:
            self._unlock()
            raise
        self._read_only = read_only
        self._unflushed = 0
        self._loading = False
        if not read_only:
            self._hold(record or holder.Holder.now())
        try:
            self._check()
            self._prepare(marked, notify)
        except (OSError, RuntimeError) as error:
            self._release()
            raise self._fault(error, f"cannot open the store at {self.location}") from None
        except BaseException:
            self._release()
            raise

    def _open(self, read_only: bool, record: holder.Holder | None) -> ox.Store:
        """The engine's store at the location (the folder made if missing, unless
        ``read_only``). Raises StoreError: DamagedStore for damaged or missing files."""
        try:
            if read_only:
                return ox.Store.read_only(self.location)
            Path(self.location).mkdir(parents=True, exist_ok=True)
            return ox.Store(self.location)
        except (OSError, RuntimeError) as error:  # RuntimeError: RocksDB's "Corruption: …"
            if isinstance(error, OSError) and holder.is_lock_conflict(error):
                serving = record is not None and record.is_server
                raise StoreError(holder.conflict(self.location, serving=serving)) from None
            raise self._fault(error, f"cannot open the store at {self.location}") from None

    def _check(self) -> None:
        """Read the keys of every quad once, so that a damaged block among them fails here,
        as a DamagedStore, rather than while a query runs: pyoxigraph's query engine goes round
        forever on a block that fails its checksum, while a plain read raises. About 0.3 s a
        million quads; a server's query workers, which open snapshots of a store checked
        when the server started, skip it."""
        if self._read_only and self._read_lock is None:
            return
        try:
            len(self._store)
        except (OSError, RuntimeError) as error:
            raise damage(self.location, error) or StoreError(
                f"cannot read the store at {self.location}: {error}"
            ) from None

    def _prepare(self, marked: int | None, notify: Notify | None) -> None:
        """Empty an unfinished first load, then mark a new store with the layout, or upgrade
        one of an earlier layout (``marked``: what its layout file records; None, no file)."""
        layout = Path(self.location) / self.LAYOUT_FILE
        if (Path(self.location) / self.LOAD_FILE).exists():
            self._unfinished_load(notify)
        if marked is None or marked < 2:
            self._adopt(layout, notify)
        upgrade = self._upgrade
        written = self._layout(layout) if upgrade and not self._read_only else self.LAYOUT_NUMBER
        if upgrade and written < self.LAYOUT_NUMBER:
            upgrade(self, notify, written)
            write_synced(layout, self.LAYOUT)

    def _hold(self, record: holder.Holder) -> None:
        """Say in the store folder that this process holds its write lock, now taken (a
        record found there is stale: its process held the lock no more)."""
        try:
            holder.write(Path(self.location), record)
        except OSError as error:
            self._release()
            raise StoreError(
                f"cannot write {Path(self.location) / holder.FILE}, which says who holds the "
                f"store: {error}"
            ) from None

    def _release(self) -> None:
        """Remove this process's record, then release the store (and its lock)."""
        if not self._read_only:
            holder.release(Path(self.location))
        del self._store
        self._unlock()

    def _unlock(self) -> None:
        """Let go of the read lock of a command that only reads, if it holds one."""
        if self._read_lock is not None:
            holder.unlock(self._read_lock)
            self._read_lock = None

    def _unfinished_load(self, notify: Notify | None) -> None:
        """The store holds a load into an empty store that is running or did not finish (see
        begin_load): refused read-only or to a command that only reads; emptied, as it was
        before that load, for writing (the write lock says no load runs)."""
        if self._read_only or self._reading:
            raise StoreError(
                f"the store at {self.location} is being filled by its first ingest, or that "
                f"ingest stopped half-way ({self.LOAD_FILE} is there): nothing in it can be read "
                "until it ends; if it stopped, run the ingest again (it empties the store "
                f"first), or empty it with `benchgraph repair --store {self.location}`"
            )
        if notify is not None:
            notify(
                f"benchgraph: the store at {self.location} holds part of a first ingest that "
                "stopped half-way; emptying it, as it was before that ingest (run the ingest "
                "again)"
            )
        self._undo_load()
        if (Path(self.location) / self.LOAD_FILE).exists():
            raise StoreError(f"cannot empty the store at {self.location} of its unfinished load")

    def _layout(self, layout: Path) -> int:
        """The layout number the store's layout file records. Raises DamagedStore for a file
        that is not there or does not parse: the store is not taken for another."""
        number = check_folder(layout.parent)
        if number is None:
            raise DamagedStore(f"{layout}: missing: the store at {self.location} is damaged")
        return number

    def _adopt(self, layout: Path, notify: Notify | None) -> None:
        """Mark a new store as being of this layout, or upgrade one of the earlier layout."""
        pages = [g for g in self.named_graphs() if graphs.is_page(g)]
        if pages and self._read_only:
            raise OutdatedStore(
                f"the store at {self.location} was written by an earlier version of benchgraph "
                "and its merged view is not built yet; upgrade it once with `benchgraph repair "
                f"--store {self.location}` (any command that writes, such as ingest, does it too)"
            )
        if self._read_only:
            return
        if pages:
            started = time.perf_counter()
            if notify is not None:
                notify(upgrade_notice(self.location, len(pages)))
            # Said first: a store whose upgrade stopped half-way is upgraded again, never
            # taken for one that lost its layout file (see _prepare).
            write_synced(layout, self.UPGRADING_LAYOUT)
            self._store.clear_graph(ox.DefaultGraph())
            for start in range(0, len(pages), 100):
                names = " ".join(f"<{g}>" for g in pages[start : start + 100])
                self.update(
                    "building the merged view",
                    f"INSERT {{ ?s ?p ?o }} WHERE {{ VALUES ?g {{ {names} }} "
                    "GRAPH ?g { ?s ?p ?o } }",
                )
            if notify is not None:
                size = sum(
                    1 for _ in self._store.quads_for_pattern(None, None, None, ox.DefaultGraph())
                )
                notify(
                    f"benchgraph: the merged view holds {size} triples "
                    f"({time.perf_counter() - started:.1f} s)"
                )
        self._store.flush()
        write_synced(layout, self.VIEW_LAYOUT if pages else self.LAYOUT)

    def close(self) -> None:
        try:
            if not self._read_only:
                self._flush()
        finally:
            self._release()

    def _flush(self) -> None:
        """Write what the store holds in memory to its files. Raises StoreError."""
        try:
            self._store.flush()
        except (OSError, RuntimeError) as error:
            raise self._fault(error, "cannot write the store's files") from None

    def _fault(self, error: BaseException, doing: str) -> StoreError:
        """The StoreError for the engine's ``error`` while ``doing``: the disk is full, the
        store is damaged, or else what the engine says."""
        full = disk_full(self.location, error)
        if full is not None:
            return StoreError(f"{doing}: {full}; the pages written before it are kept")
        return damage(self.location, error) or StoreError(f"{doing}: {error}")

    def write(self, change: Change) -> None:
        """One transaction either way. A write that replaces graphs that do not exist yet (a
        first ingest), and only adds to the others, is loaded as N-Quads, the page's
        statements into the view as well: about a third faster than the SPARQL update that
        replaces existing ones, and without holding Python's lock (an ingest prepares the next
        pages meanwhile). The load gives blank nodes new identities, as ``INSERT DATA`` does,
        the same within one write."""
        if not self._fresh(change):
            super().write(change)
            return
        data = _change_nquads(change)
        try:
            self._store.load(data, format=ox.RdfFormat.N_QUADS)
        except (OSError, RuntimeError, SyntaxError) as error:
            raise self._fault(error, f"cannot write graph {change.names}") from None
        self._written(len(data))

    def begin_load(self) -> bool:
        """Load many pages at once if the store is empty: :meth:`write_many` then hands each
        group of fresh writes (new graphs, catalogue additions) to pyoxigraph's bulk loader,
        which writes the store's files directly rather than through a transaction each. That
        is not atomic, so the load is all or nothing instead: :data:`LOAD_FILE` says in the
        folder that it runs; a write that fails empties the store again (LoadUndone), and a
        store opened with the file still there (a load killed half-way) is emptied when opened
        for writing, and refused when opened read-only. Nothing is lost either way, as the
        store held nothing before. :meth:`end_load` flushes the store and removes the file."""
        if self._read_only or self._loading or not self._is_empty():
            return False
        record = json.dumps({"pid": os.getpid(), "since": holder.Holder.now().since})
        write_synced(Path(self.location) / self.LOAD_FILE, record + "\n")
        self._loading = True
        return True

    def end_load(self) -> None:
        if not self._loading:
            return
        self._flush()
        self._unflushed = 0
        (Path(self.location) / self.LOAD_FILE).unlink()
        sync_folder(Path(self.location))
        self._loading = False

    def write_many(self, changes: Sequence[Change]) -> None:
        """With a load begun (see :meth:`begin_load`), every change fresh (as :meth:`write` has
        it): all in one bulk load, in no transaction; a failure raises LoadUndone, the store
        empty again. Else each in its own transaction. A blank node label stands for one node
        across the group, not one write; the labels pages carry are random (pyoxigraph's and
        rdflib's), so no two pages share one."""
        if not self._loading or not all(self._fresh(change) for change in changes):
            super().write_many(changes)
            return
        data = b"".join(_change_nquads(change) for change in changes)
        try:
            self._store.bulk_load(data, format=ox.RdfFormat.N_QUADS)
        except (OSError, RuntimeError, SyntaxError) as error:
            self._undo_load()
            names = changes[0].names if len(changes) == 1 else f"{changes[0].names} and after"
            state = "the store is empty again, as it was before this ingest began"
            if (Path(self.location) / self.LOAD_FILE).exists():
                state = "the store is emptied, as it was before this ingest, once next opened"
            cause = disk_full(self.location, error) or error
            raise LoadUndone(f"cannot write graph {names}: {cause}; {state}") from None

    def _fresh(self, change: Change) -> bool:
        """Whether ``change`` only writes graphs that do not exist yet, and adds to others."""
        if change.kept or any(change.deleted.values()):
            return False
        return not any(self._store.contains_named_graph(ox.NamedNode(g)) for g in change.replaced)

    def _is_empty(self) -> bool:
        return next(iter(self._store.quads_for_pattern(None, None, None, None)), None) is None

    def _undo_load(self) -> None:
        """Empty the store of a load that did not finish (it was empty before it began)."""
        self._loading = False
        try:
            self._store.clear()
            self._store.flush()
        except OSError:
            return  # the file stays: the store is emptied when next opened
        (Path(self.location) / self.LOAD_FILE).unlink(missing_ok=True)

    def update(self, what: str, text: str) -> None:
        try:
            self._store.update(text)
        except (OSError, RuntimeError, SyntaxError) as error:
            raise self._fault(error, f"{self.location}: failed while {what}") from None
        self._written(len(text))

    def _written(self, size: int) -> None:
        self._unflushed += size
        if self._unflushed > self.FLUSH_BYTES:
            self._flush()
            self._unflushed = 0

    def snapshot(self, target: Path) -> None:
        """Write a copy of the store as it is now to the folder ``target`` (which must not
        exist): hard links to the store's files, so it costs little room and time, and a
        store of its own that can be opened read-only while this one goes on being written.
        Raises StoreError."""
        for attempt in range(1, self.SNAPSHOT_ATTEMPTS + 1):
            try:
                self._store.backup(str(target))
                (target / self.LAYOUT_FILE).write_text(self.LAYOUT, encoding="utf-8")
                return
            except (OSError, RuntimeError) as error:  # RuntimeError: "Directory exists"
                # RocksDB's checkpoint lists the store's files, then links them; a compaction
                # still finishing from the last write can delete one in between ("No such
                # file"). The files it left are taken again from scratch.
                for made in (target, target.with_name(target.name + ".tmp")):
                    shutil.rmtree(made, ignore_errors=True)
                if attempt == self.SNAPSHOT_ATTEMPTS or "No such file" not in str(error):
                    raise StoreError(
                        f"cannot snapshot the store at {self.location}: {error}"
                    ) from None

    def graph_triples(self, graph: str | None) -> Iterator[ox.Triple]:
        name = ox.DefaultGraph() if graph is None else ox.NamedNode(graph)
        for quad in self._store.quads_for_pattern(None, None, None, name):
            yield quad.triple

    def graph_ntriples(self, graph: str) -> bytes:
        # Written by the engine: a tenth of the time of the triples made Python objects.
        written = self._store.dump(format=ox.RdfFormat.N_TRIPLES, from_graph=ox.NamedNode(graph))
        return written or b""

    def named_graphs(self) -> list[str]:
        return sorted(g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode))

    def quads(self, history: bool = True) -> Iterator[ox.Quad]:
        # One iterator reads one snapshot of the store, so a dump is of one state even while
        # the store is written (as a served store is).
        every = iter(self._store)
        return every if history else present(every)

    def query(
        self,
        sparql: str,
        bindings: Mapping[str, Term] | None = None,
        *,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        base_iri: str | None = None,
    ) -> Answer:
        options: dict[str, object] = {}
        if default_graph is not None:
            options["default_graph"] = [ox.NamedNode(g) for g in default_graph]
        if named_graphs is not None:
            options["named_graphs"] = [ox.NamedNode(g) for g in named_graphs]
        # Bound as the remote store binds them, by writing each term in place of its variable
        # (benchgraph.sparqltext): the engine then plans with the term as a constant. Given
        # through pyoxigraph's ``substitutions`` it plans as if the variable were free, and
        # starts from the wrong pattern (140-180 ms instead of 20 ms for a paper's methods at
        # 1,000 pages).
        return self._store.query(
            substitute(sparql, bindings or {}),
            base_iri=base_iri,
            **options,  # type: ignore[arg-type]
        )
