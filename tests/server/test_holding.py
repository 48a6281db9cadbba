"""The store a server holds (server/holding.py): its generations, on a real store on disk."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest
from support import EXAMPLES, PATIENCE

from benchgraph.store import StoreError
from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import ingest_file
from server.generation import Generation
from server.holding import HeldStore
from server.workers import WorkerPool


def test_a_generation_is_not_deleted_before_it_is_published(tmp_path: Path) -> None:
    """The pool deletes the generations no worker reads whenever a job ends, on threads of its
    own, while the next generation may be being taken: one taken but not published yet is no
    worker's either, and must be left alone (as must one still being written, ``N.tmp``).
    Deleting it made the workers open a generation half deleted (or failed the snapshot)."""
    location = tmp_path / "store"
    EmbeddedStore(location).close()
    seen: list[tuple[Path, bool]] = []

    def published(folder: Path, generation: Generation, graphs: list[str]) -> None:
        # As a job ending on another thread does just then: the workers read the first one.
        held.discard({first.location})
        seen.append((folder, (folder / "CURRENT").is_file()))

    held = HeldStore(location, "secret", published)
    first = held.open()
    try:
        held.write(lambda store: ingest_file(store, next(EXAMPLES.glob("sota2-*.md"))))
        held.publish()
        assert [found for _, found in seen] == [True], seen
        held.discard({seen[0][0]})  # once published and read, the first one goes
        assert sorted(p.name for p in held.folder.iterdir()) == [seen[0][0].name]
    finally:
        held.close()
    assert not held.folder.exists()


def test_a_write_is_published_after_a_snapshot_of_it_failed(tmp_path: Path) -> None:
    """A snapshot that fails leaves the store as written since the last generation: the next
    publish takes one. It used to count as published, so a command that wrote and then asked
    for a generation was told its pages were seen, and readers never saw them."""
    location = tmp_path / "store"
    EmbeddedStore(location).close()
    seen: list[Path] = []
    held = HeldStore(location, "secret", lambda folder, *_: seen.append(folder))
    held.open()
    try:
        held.write(lambda store: ingest_file(store, next(EXAMPLES.glob("sota2-*.md"))))
        shutil.rmtree(held.folder)  # a file in the way of the snapshots
        held.folder.write_text("not a folder")
        with pytest.raises(StoreError, match="cannot snapshot the store"):
            held.publish()
        held.folder.unlink()
        held.folder.mkdir()
        held.publish()
        assert [folder.name for folder in seen] == ["00000003"]
    finally:
        held.close()


def test_the_pool_closes_while_a_generation_is_being_published(tmp_path: Path) -> None:
    """Publishing holds the store's write lock and then takes the pool's lock to switch the
    workers; closing the pool held the pool's lock while it waited for the store (and so for
    that publish): a server stopped during a served ingest could hang there."""
    location = tmp_path / "store"
    EmbeddedStore(location).close()
    pool = WorkerPool(location, 1, 10)
    pool.start()
    held = pool.held
    assert held is not None
    switching, go_on = threading.Event(), threading.Event()
    switch = held._published

    def slow_switch(*args: object) -> None:
        switching.set()
        go_on.wait(PATIENCE)
        switch(*args)  # type: ignore[arg-type]

    held._published = slow_switch
    held.write(lambda store: ingest_file(store, next(EXAMPLES.glob("sota2-*.md"))))
    publishing = threading.Thread(target=held.publish)
    publishing.start()
    assert switching.wait(PATIENCE)  # a publish holds the write lock, about to switch
    closing = threading.Thread(target=pool.close)
    closing.start()
    deadline = time.monotonic() + PATIENCE
    while pool._started and time.monotonic() < deadline:  # until close has begun
        closing.join(0.05)
    go_on.set()
    closing.join(PATIENCE)
    publishing.join(PATIENCE)
    assert not closing.is_alive() and not publishing.is_alive()
    assert not held.folder.exists()
