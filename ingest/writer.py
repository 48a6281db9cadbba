"""Writing prepared pages on a thread of their own, in order, while the next are prepared: each
a :class:`Write` (its change and its outcome), in one transaction each, or in groups of triples
loaded at once into an empty store (Store.write_many)."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pyoxigraph as ox

from benchgraph.outcomes import Outcome
from benchgraph.store import Change, PartlyWritten, Store, StoreError


@dataclass(frozen=True)
class Write:
    """A page ready to be written: its graphs and catalogue entry (and the version it keeps
    as history), and the outcome once written."""

    change: Change
    outcome: Outcome

    @property
    def graphs(self) -> Mapping[str, Sequence[ox.Triple]]:
        """The graphs it replaces: the page's (or its history graph) and its report's."""
        return self.change.replaced

    @property
    def size(self) -> int:
        """How many triples it writes."""
        change = self.change
        return sum(len(ts) for group in (change.replaced, change.added) for ts in group.values())


class Writer(threading.Thread):
    """Writes queued pages in order, one transaction each (or, given a ``group`` size, as many
    as make that many triples in one Store.write_many), and stops at the first failure."""

    def __init__(self, store: Store, depth: int, group: int = 0) -> None:
        super().__init__(name="benchgraph-writer", daemon=True)
        self.store = store
        self.group = group
        # Grouped, the queue is bounded by triples, not pages: a group loads while the next fills.
        self.queue: queue.Queue[Write] = queue.Queue(maxsize=0 if group else depth)
        self._backlog = 0  # the triples queued or pending, not written yet
        self.failure: tuple[Write, StoreError] | None = None
        self._queued = 0  # writes numbered 1, 2, ... in order
        self._done = 0  # the number of the last write done
        self._changed = threading.Condition()
        self._stopping = False

    def put(self, item: Write) -> int:
        """Queue ``item`` (waiting while the queue is full); return its number."""
        with self._changed:
            while self.group and self._backlog >= 2 * self.group and self.failure is None:
                self._changed.wait()
            self._queued += 1
            self._backlog += item.size
        self._send(item)
        return self._queued

    def _send(self, item: Write) -> None:
        while self.failure is None:
            try:
                self.queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def written(self, number: int, block: bool) -> bool:
        """Whether write ``number`` is done; with ``block``, wait for it or for a failure (a
        group not full yet is written then)."""
        if block and self.group and self._done < number:
            self.queue.put(_FLUSH)  # grouped, the queue has no bound: this never waits
        with self._changed:
            while block and self._done < number and self.failure is None:
                self._changed.wait()
            return self._done >= number

    def run(self) -> None:
        pending: list[Write] = []
        size = 0  # the triples pending
        while True:
            item = self.queue.get()
            with self._changed:
                if self._stopping or self.failure is not None:
                    return
            if item is not _FLUSH:
                pending.append(item)
                size += item.size
                if size < self.group:
                    continue
            if not pending:
                continue
            try:
                self.store.write_many([p.change for p in pending])
            except StoreError as error:
                done = error.done if isinstance(error, PartlyWritten) else 0
                with self._changed:
                    self._done += done  # the writes before the one that failed are in
                    cause = error.cause if isinstance(error, PartlyWritten) else error
                    self.failure = (pending[done], cause)
                    self._changed.notify_all()
                return
            with self._changed:
                self._done += len(pending)
                self._backlog -= size
                self._changed.notify_all()
            pending, size = [], 0

    @property
    def wrote(self) -> bool:
        """Whether any write is done."""
        return self._done > 0

    def stop(self) -> None:
        """Finish the write in progress, drop the queued ones, and end the thread."""
        with self._changed:
            self._stopping = True
        while self.is_alive():
            try:  # wake the thread if it waits for work
                self.queue.put(_STOP, timeout=0.1)
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self.queue.get_nowait()
            self.join(0.1)


_STOP = Write(Change({}), Outcome("", "unchanged"))
_FLUSH = Write(Change({}), Outcome("", "unchanged"))  # write the group so far
