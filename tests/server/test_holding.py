"""The store a server holds (server/holding.py): its generations, on a real store on disk."""

from __future__ import annotations

from pathlib import Path

from support import EXAMPLES

from benchgraph.store import EmbeddedStore
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
