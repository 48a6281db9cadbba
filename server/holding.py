"""The embedded store a server holds: its one writer, and the generations its readers see.

While ``benchgraph serve`` runs, it holds its store open for writing (RocksDB's lock, and the
record :mod:`benchgraph.store.holder` writes, with the secret that other commands present when
they go through the server: :mod:`benchgraph.store.served`). Every write is one transaction (a
page and its validation report; a page removed), one at a time.

The query workers never read the store being written: pyoxigraph leaves a read-only store that
another process writes undefined. They read *generations*: snapshots of the store taken between
two writes (hard links, some 20 ms; :meth:`benchgraph.store.EmbeddedStore.snapshot`) in the
store's ``.generations`` folder. Publishing one moves the pool to it at once: each worker's next
job runs on it, and the answer cache, ETags and Last-Modified follow its tag; the answers warmed
for the generation before are warmed again in the background (:class:`server.named.Warmer`).
While writes go on, a generation is published at most every :data:`PUBLISH_SECONDS` (less often
when snapshots take long: :data:`PUBLISH_SPACING`); a command that wrote asks for one when it
ends and waits for it, so the next request sees its last page.

A full disk: a write or a snapshot that meets it fails (:func:`disk_full` tells; the app
answers 507), and RocksDB then refuses every write, even once there is room again, until the
store is opened anew. So the publisher, finding the disk full, waits until the store's file
system has :data:`ROOM` bytes free again, then lets go of the store and opens it again
(keeping its holder record; what could not be flushed is in RocksDB's log and is read back)
and goes on publishing. Readers keep the generation they have meanwhile.
"""

from __future__ import annotations

import errno
import gc
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from benchgraph import upgrades
from benchgraph.store import StoreError, holder, notice
from benchgraph.store.embedded import EmbeddedStore
from server.generation import Generation, fingerprint

_log = logging.getLogger(__name__)
T = TypeVar("T")
# While pages are written, readers move to a new generation at most this often, and after a
# snapshot that took t seconds, not before PUBLISH_SPACING * t: a snapshot flushes what the
# store holds in memory and holds up writes meanwhile, so writes keep nine tenths of the time.
PUBLISH_SECONDS = 0.5
PUBLISH_SPACING = 10
# Free bytes the store's file system must have again before a store that met a full disk is
# opened anew: room for RocksDB's new log and manifest and for flushing what it holds in
# memory (EmbeddedStore.FLUSH_BYTES at most), with some to spare.
ROOM = 32 << 20
# How long opening the store anew waits for the engine to let go of it (a reader that began
# before may still hold it), and how often it looks.
REOPEN_SECONDS = 30
REOPEN_PAUSE = 0.05
# What the engine's errors say of a full disk (pyoxigraph passes RocksDB's words, no errno).
_FULL = ("No space left on device", "Disk quota exceeded")

Published = Callable[[Path, Generation, list[str]], None]


def disk_full(error: BaseException) -> bool:
    """Whether ``error`` (an OSError, or a StoreError that says what the engine said) comes
    from a full disk or a used-up quota."""
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return isinstance(error, OSError | StoreError) and any(word in str(error) for word in _FULL)


def free_space(folder: Path) -> int:
    """The bytes free to this user on the file system of ``folder`` (0 if it cannot be read)."""
    try:
        found = os.statvfs(folder)
    except OSError:
        return 0
    return found.f_bavail * found.f_frsize


@dataclass(frozen=True)
class Publication:
    """A generation published: its folder, its tag and time, the store's named graphs."""

    location: Path
    generation: Generation
    graphs: list[str]


class HeldStore:
    """The store at ``location``, held for writing; ``published`` is told of each generation
    (its folder, its tag and time, the store's named graphs) as it becomes the one to read."""

    def __init__(self, location: Path, secret: str, published: Published) -> None:
        self.location = location
        self.secret = secret
        self.folder = location / holder.GENERATIONS
        self._published = published
        self._store: EmbeddedStore | None = None
        self._writing = threading.Lock()  # one write or snapshot at a time
        self._changed = threading.Condition()
        self._dirty = False  # written since the last generation
        self._next = 0.0  # when the next generation may be published, at the soonest
        self._sequence = 0
        self._settled = 0  # the number of the newest generation published
        self._stopping = False
        self._full = False  # a write or snapshot met a full disk: to open anew once there is room
        self._record: holder.Holder | None = None
        self._settled_open = threading.Event()  # cleared while the store is opened anew
        self._settled_open.set()
        self._thread = threading.Thread(
            target=self._publish_often, name="benchgraph-publisher", daemon=True
        )

    def open(self) -> Publication:
        """Open the store for writing and take its first generation, which it returns (the
        later ones are told to ``published``). Raises StoreError naming the holder when
        another process holds the store, or when it cannot be opened."""
        if holder.lock_owner(self.location) is not None:
            # Refused before RocksDB opens anything: opening would rotate the holder's logs.
            raise StoreError(holder.conflict(str(self.location), serving=True))
        # The time of the data as it was left, before opening it writes RocksDB's own files.
        modified = fingerprint(self.location).modified
        self._record = replace(holder.Holder.now("serve"), secret=self.secret)
        # A store of the earlier layout is upgraded here, as by any command that writes.
        self._store = EmbeddedStore(
            self.location, record=self._record, notify=notice, upgrade=upgrades.upgrade
        )
        try:
            shutil.rmtree(self.folder, ignore_errors=True)  # a server killed left them
            self.folder.mkdir()
            with self._writing:
                first = self._snapshot()
                self._settled = self._sequence
        except BaseException:
            self._store.close()
            self._store = None
            raise
        self._thread.start()
        return replace(first, generation=replace(first.generation, modified=modified))

    @property
    def store(self) -> EmbeddedStore:
        """The store itself, to read (reads see whole transactions) or, in :meth:`write`, to
        write. While it is being opened anew (after a full disk), the reader waits for it."""
        self._settled_open.wait()
        found = self._store
        if found is None:
            raise StoreError(f"the store at {self.location} is not open")
        return found

    def write(self, change: Callable[[EmbeddedStore], T]) -> T:
        """Run ``change`` on the store, alone among writes; its result. A new generation is
        published soon after (see :meth:`publish`). Raises what ``change`` raises."""
        with self._writing:
            try:
                return change(self.store)
            finally:
                with self._changed:
                    self._dirty = True
                    self._changed.notify_all()

    def publish(self) -> None:
        """Publish a generation now if the store was written since the last one; return once
        readers see it. Raises StoreError when the snapshot cannot be taken."""
        with self._writing:
            if self._dirty:
                self._publish()

    def _publish(self) -> None:
        """Snapshot the store and make it the generation to read (with the write lock held)."""
        found = self._snapshot()
        self._published(found.location, found.generation, found.graphs)
        self._settled = self._sequence

    def _snapshot(self) -> Publication:
        """A new generation: the store as it is now (with the write lock held). The store counts
        as written since the last generation until the snapshot is taken."""
        self._sequence += 1
        target = self.folder / f"{self._sequence:08d}"
        started = time.monotonic()
        self.store.snapshot(target)
        took = time.monotonic() - started
        self._next = started + took + max(PUBLISH_SECONDS, PUBLISH_SPACING * took)
        with self._changed:
            self._dirty = False
        return Publication(target, fingerprint(target), self.store.named_graphs())

    def _publish_often(self) -> None:
        """Publish what was written, spaced as PUBLISH_SECONDS and PUBLISH_SPACING say, until
        closed; after a full disk, once there is room again, open the store anew first."""
        while True:
            with self._changed:
                while not (self._dirty or self._stopping):
                    self._changed.wait()
                if self._stopping:
                    return
                pause = self._next - time.monotonic()
                if pause > 0:
                    self._changed.wait(pause)
                    continue
            try:
                if self._full and not self._reopen():
                    raise StoreError(f"the disk of the store at {self.location} is still full")
                self.publish()
            except Exception as error:  # the thread must go on; readers keep their generation
                self._failed(error)
                with self._changed:
                    self._changed.wait(PUBLISH_SECONDS)

    def _failed(self, error: Exception) -> None:
        """Say in the log why a generation could not be published; note a full disk (said
        once, not every time the publisher tries again)."""
        if disk_full(error) or self._full:
            if not self._full:
                _log.error(
                    "the disk of the store at %s is full: writes are refused (507) until it "
                    "has %d MiB free again, when the store is opened anew; readers keep the "
                    "generation they have (%s)",
                    self.location,
                    ROOM >> 20,
                    error,
                )
            self._full = True
        elif isinstance(error, StoreError):
            _log.error("a new generation of the store cannot be published: %s", error)
        else:
            _log.error("publishing a new generation of the store failed", exc_info=error)

    def _reopen(self) -> bool:
        """Once the store's file system has ROOM bytes free, let go of the store, which met a
        full disk, and open it again; whether it is open again. Readers asking for the store
        meanwhile wait for it."""
        if free_space(self.location) < ROOM:
            return False
        with self._writing:
            found = holder.read(self.location)  # with the URL the server added
            record = found if found is not None and found.pid == os.getpid() else self._record
            self._settled_open.clear()
            # Not closed, which would pull it from under a reader still using it: the engine
            # closes once the last reader lets go. What it could not flush is in its log.
            self._store = None
            try:
                self._store = self._open_again(record)
            finally:
                self._settled_open.set()
            if self._store is None:
                return False
            self._full = False
        _log.warning("the disk of the store at %s has room again: writes are taken", self.location)
        return True

    def _open_again(self, record: holder.Holder | None) -> EmbeddedStore | None:
        """The store opened anew, once the engine let go of it (within REOPEN_SECONDS); None,
        said in the log, if it cannot be."""
        deadline = time.monotonic() + REOPEN_SECONDS
        while True:
            gc.collect()  # a failed write's traceback may still hold the engine open
            try:
                return EmbeddedStore(
                    self.location, record=record, notify=notice, upgrade=upgrades.upgrade
                )
            except StoreError as error:
                # Held by this process still (a reader), or by another (said, given up).
                if holder.lock_owner(self.location) is not None or time.monotonic() > deadline:
                    _log.error("the store at %s cannot be opened again: %s", self.location, error)
                    return None
            time.sleep(REOPEN_PAUSE)  # how often to look, not how long to wait

    def _close_store(self) -> None:
        """Close the store (with the write lock held), even one whose last changes cannot be
        flushed to its files (a full disk): they stay in RocksDB's log, which is read back
        when the store is next opened; the holder record may stay, for the caller to remove."""
        store, self._store = self._store, None
        if store is None:
            return
        try:
            store.close()
        except (OSError, StoreError) as error:
            _log.error("the store at %s was closed unflushed: %s", self.location, error)

    def discard(self, keep: set[Path]) -> None:
        """Delete the generations published so far but those in ``keep`` (those a worker may
        still read). One being taken (``N.tmp`` while RocksDB writes it) or taken and not yet
        published is left alone: the pool calls this whenever a job ends, on its own threads."""
        for found in self.folder.iterdir() if self.folder.is_dir() else ():
            number = found.name.removesuffix(".tmp")
            if found not in keep and number.isdigit() and int(number) <= self._settled:
                shutil.rmtree(found, ignore_errors=True)

    def close(self) -> None:
        """Stop publishing, delete the generations, and close the store (releasing it). A
        store this one never opened (another process holds it) is left as it is: its
        generations are that process's."""
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        if self._thread.is_alive():
            self._thread.join()
        with self._writing:
            if self._store is None:
                return
            # Deleted while the lock is held: once released, the next holder makes its own.
            shutil.rmtree(self.folder, ignore_errors=True)
            self._close_store()
            holder.release(self.location)  # if closing it unflushed left it
