"""The second versions ``bench.history`` writes: pages the real parsers accept as newer
versions of the same pages, whose changed values the store's ``changes`` finds, each once."""

from __future__ import annotations

from pathlib import Path

from support import generate_corpus, run_cli

from bench import history
from benchgraph import answering, queries
from benchgraph.store.embedded import EmbeddedStore
from ingest.reading import read_page


def test_second_versions_change_the_values_they_say_and_nothing_else(tmp_path: Path) -> None:
    generate_corpus(tmp_path / "corpus", seed=3, pages=60)
    pages, store = tmp_path / "corpus" / "pages", tmp_path / "store"
    assert run_cli("ingest", str(pages), store=store).returncode in (0, 1)
    newest = history.newest_version(store)
    revision = history.second_versions(pages, tmp_path / "second", newest)
    assert revision.pages >= 1 and revision.values >= revision.pages
    for path in sorted((tmp_path / "second").iterdir()):
        old, new = (read_page(p.read_bytes(), str(p)) for p in (pages / path.name, path))
        assert old.key == new.key and (old.data_updated or "") < (new.data_updated or "")
    done = run_cli("ingest", str(tmp_path / "second"), store=store)
    assert done.stdout.startswith(f"{revision.pages} loaded"), done.stdout + done.stderr
    since = newest.date().isoformat()
    with EmbeddedStore(store, read_only=True) as opened:
        found = list(answering.answer(opened, queries.find("changes"), {"since": since}))
    assert len(found) == revision.values
    assert {str(row["change"].value) for row in found} == {"changed"}  # type: ignore[union-attr]
    for row in found:
        old, new = row["oldValue"].value, row["newValue"].value  # type: ignore[union-attr]
        assert history._bumped(old) == new
