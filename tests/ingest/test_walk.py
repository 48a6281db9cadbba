"""Ingesting folders: a walk passes by stores, hidden files, virtualenvs and build output,
skips the files that are not pages (refusing only those named), and loads a page met twice in
one batch from the first file alone."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import EXAMPLES, run_cli

from benchgraph import graphs, iris
from benchgraph.store.embedded import EmbeddedStore
from ingest import reading
from ingest.reading import NotAPage, read_page
from ingest.records import PageError

LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
RADAR = EXAMPLES / "radar-composet-sample.txt"
ART500K = EXAMPLES / "sota2-multimodal-generation-on-art500k-test.md"
PASSED_BY = ("build", "dist", "__pycache__", "node_modules", "site-packages", "x.egg-info")


def page_graphs(store_dir: Path) -> set[str]:
    with EmbeddedStore(store_dir) as store:
        return {g for g in store.named_graphs() if graphs.is_page(g)}


def graph_of(page: Path) -> str:
    return graphs.page(read_page(page.read_bytes(), str(page)).key)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A folder as a checkout is: two pages and a README among folders that hold no pages of
    their own, each of which does hold a page (the third example) to be found if walked."""
    root = tmp_path / "checkout"
    root.mkdir()
    shutil.copy(LAION, root / "laion.md")
    (root / "pages").mkdir()
    shutil.copy(RADAR, root / "pages" / "radar.txt")
    (root / "README.txt").write_text("How to use these pages.\n", encoding="utf-8")
    shutil.copy(ART500K, root / ".hidden-page.md")
    with EmbeddedStore(root / "other-store"):  # a real store, with its layout file
        pass
    venv = root / "env"
    (venv / "lib").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    for folder in (root / ".cache", venv / "lib", root / "other-store", root / "pages" / "build"):
        folder.mkdir(exist_ok=True)
        shutil.copy(ART500K, folder / "art500k.md")
    for name in PASSED_BY:
        (root / name).mkdir()
        shutil.copy(ART500K, root / name / "art500k.md")
    return root


def test_ingest_of_a_checkout_walked_into_stores_venvs_and_build_output(
    checkout: Path, store_dir: Path
) -> None:
    done = run_cli("ingest", str(checkout), store=store_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "2 loaded, 0 unchanged, 0 refused, 0 unreadable, 1 skipped (not a page); "
    )
    assert "README.txt" not in done.stderr  # listed with --verbose only
    assert page_graphs(store_dir) == {graph_of(LAION), graph_of(RADAR)}
    again = run_cli("ingest", "--verbose", str(checkout), store=store_dir)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("0 loaded, 2 unchanged, 0 refused, 0 unreadable, 1 skipped")
    skipped = [line for line in again.stderr.splitlines() if line.startswith("skipped: ")]
    assert skipped == [f"skipped: {checkout / 'README.txt'}: " + NOT_A_PAGE]


NOT_A_PAGE = "not a source page nor a result file: none of " + reading.KNOWN_FORMATS


def test_a_file_named_that_is_not_a_page_stays_refused(checkout: Path, store_dir: Path) -> None:
    readme = checkout / "README.txt"
    alone = run_cli("ingest", str(readme), store=store_dir)
    assert alone.returncode == 1
    assert alone.stdout.startswith("0 loaded, 0 unchanged, 1 refused, 0 unreadable; ")
    assert f"refused: {readme}: {NOT_A_PAGE}" in alone.stderr
    # Named as well as found in its folder: it is still the file named.
    both = run_cli("ingest", str(checkout), str(readme), store=store_dir)
    assert both.returncode == 1
    assert both.stdout.startswith("2 loaded, 0 unchanged, 1 refused, 0 unreadable; ")


def test_a_store_folder_named_is_refused_not_read(checkout: Path, store_dir: Path) -> None:
    done = run_cli("ingest", str(checkout / "other-store"), store=store_dir)
    assert done.returncode == 1
    assert f"refused: {checkout / 'other-store'}: a benchgraph store" in done.stderr
    assert page_graphs(store_dir) == set()


def test_ingest_dot_walked_into_its_own_store(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(LAION, work / "laion.md")
    shutil.copy(RADAR, work / "radar.txt")
    store = Path("var") / "store"  # relative, as the default is: inside the folder walked
    first = run_cli("ingest", ".", store=store, cwd=work)
    assert first.returncode == 0, first.stderr
    again = run_cli("ingest", ".", store=store, cwd=work)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("0 loaded, 2 unchanged, 0 refused, 0 unreadable; ")
    # Without its layout file (a store of the earlier layout: no layout file, no merged view)
    # it is told by its path alone.
    earlier = ox.Store(str(work / store))
    earlier.clear_graph(ox.DefaultGraph())
    earlier.flush()
    del earlier
    (work / store / EmbeddedStore.LAYOUT_FILE).unlink()
    upgraded = run_cli("ingest", ".", store=store, cwd=work)
    assert upgraded.returncode == 0, upgraded.stderr
    assert upgraded.stdout.startswith("0 loaded, 2 unchanged, 0 refused, 0 unreadable; ")


def test_two_files_of_one_page_replaced_each_other_on_every_run(
    tmp_path: Path, store_dir: Path
) -> None:
    folder = tmp_path / "pages"
    folder.mkdir()
    first, second = folder / "a.md", folder / "b.md"
    shutil.copy(LAION, first)
    text = LAION.read_text(encoding="utf-8")
    second.write_text(text.replace("Data updated: 2026-", "Data updated: 2027-"), "utf-8")
    message = (
        f"refused: {second}: the same page as {first} (page identity "
        "sota2/prompt-recovery-on-laion/clip-score); only the first is loaded"
    )
    done = run_cli("ingest", str(folder), store=store_dir)
    assert done.returncode == 1
    assert done.stdout.startswith("1 loaded, 0 unchanged, 1 refused, 0 unreadable; ")
    assert message in done.stderr
    page = read_page(first.read_bytes(), str(first))
    with EmbeddedStore(store_dir) as store:
        before = set(store.quads())
        assert store.source_hash(graphs.page(page.key), iris.source(page.key)) == page.sha256
    for _ in range(2):
        again = run_cli("ingest", str(folder), store=store_dir)
        assert again.returncode == 1
        assert again.stdout.startswith("0 loaded, 1 unchanged, 1 refused, 0 unreadable; ")
        assert message in again.stderr
    with EmbeddedStore(store_dir) as store:
        assert set(store.quads()) == before


def test_a_page_not_in_utf8_is_still_a_page() -> None:
    """Only what no format sniffs is no page: a page in another encoding is one, refused."""
    latin1 = LAION.read_text(encoding="utf-8").replace("CLIP", "CLÏP", 1).encode("latin-1")
    with pytest.raises(PageError) as raised:
        read_page(latin1, "latin1.md")
    assert "not UTF-8" in str(raised.value) and not isinstance(raised.value, NotAPage)
    with pytest.raises(NotAPage):
        read_page("Liste de courses : crème, pâtes\n".encode("latin-1"), "notes.txt")
