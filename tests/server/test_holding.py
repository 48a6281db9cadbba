"""The store a server holds (server/holding.py): its generations, on a real store on disk."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support import EXAMPLES

from benchgraph.store import EmbeddedStore, StoreError
from ingest.loader import ingest_file
from server.generation import Generation
from server.holding import HeldStore


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
