"""The files an ingest reads: the files named, and a folder's files, walked past what holds no
pages (stores, hidden files, virtualenvs, build output, a folder's manifest of repositories),
each with the Hugging Face repository it is the card of, when known (:mod:`ingest.locating`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from benchgraph.outcomes import Outcome
from benchgraph.store import is_remote
from benchgraph.store.embedded import EmbeddedStore
from ingest.locating import MANIFEST, LocatingError, Locator, Repository

# Folders a walk passes by, besides hidden ones, stores and virtualenvs: build output and
# installed packages, which hold no pages of their own.
BUILD_FOLDERS = frozenset({"build", "dist", "__pycache__", "node_modules", "site-packages"})


@dataclass(frozen=True)
class Input:
    """A file to ingest: ``named`` on the command line, or met by walking a folder (then one
    that is not a page is skipped, not refused), and the Hugging Face repository it is the
    card of, when known (:mod:`ingest.locating`)."""

    path: Path
    named: bool = True
    repository: Repository | None = None


def expand(
    paths: Iterable[str | Path],
    store: str | Path | None = None,
    repository: Repository | None = None,
) -> Iterator[Input | Outcome]:
    """Yield the files named by ``paths``, each file once (named, if it is named anywhere): a
    file as named, a folder's files as :func:`walk` finds them (past the store at ``store``, a
    folder or a URL), each with its repository (``repository`` for every file, else what
    :class:`ingest.locating.Locator` finds). Yield an ``unreadable`` Outcome for a path that
    does not exist or a file whose manifest cannot be read, and a ``refused`` one for a folder
    named that is a store."""
    given = list(paths)
    own = None if store is None or is_remote(str(store)) else Path(store).resolve()
    named = {Path(raw).resolve() for raw in given if Path(raw).is_file()}
    seen: set[Path] = set()
    locator = Locator()
    for raw in given:
        path = Path(raw)
        if path.is_dir() and _is_store(path, own):
            yield Outcome(
                str(raw),
                "refused",
                f"{raw}: a benchgraph store, not a folder of pages (name the pages' folder)",
            )
            continue
        root = path if path.is_dir() else None
        if path.is_dir():
            found = walk(path, own)
        elif path.is_file():
            found = [path]
        else:
            yield Outcome(str(raw), "unreadable", f"{raw}: no such file or folder")
            continue
        for file in found:
            resolved = file.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            try:
                located = repository or locator.locate(file, root)
            except LocatingError as error:
                yield Outcome(str(file), "unreadable", f"{file}: {error}")
                continue
            yield Input(file, named=resolved in named, repository=located)


def walk(folder: Path, store: Path | None = None) -> list[Path]:
    """The files in ``folder`` and its folders, sorted, past what holds no pages: hidden files
    and folders, stores (the one at the resolved path ``store``, and any folder with a store's
    layout file), virtualenvs (a folder with ``pyvenv.cfg``), ``*.egg-info`` and
    :data:`BUILD_FOLDERS`, and the folders' manifests of repositories. Folders linked to are
    not followed."""
    found: list[Path] = []
    for top, folders, files in os.walk(folder):
        here = Path(top)
        folders[:] = [name for name in folders if not _passed_by(here / name, store)]
        found.extend(here / name for name in files if not _unread(name))
    return sorted(file for file in found if file.is_file())


def _unread(name: str) -> bool:
    """Whether a file a walk meets is passed by: a hidden file, or a folder's manifest of
    repositories (:data:`ingest.locating.MANIFEST`), which is no page."""
    return name.startswith(".") or name == MANIFEST


def _passed_by(folder: Path, store: Path | None) -> bool:
    name = folder.name
    return (
        name.startswith(".")
        or name in BUILD_FOLDERS
        or name.endswith(".egg-info")
        or (folder / "pyvenv.cfg").is_file()
        or _is_store(folder, store)
    )


def _is_store(folder: Path, store: Path | None) -> bool:
    marked = (folder / EmbeddedStore.LAYOUT_FILE).is_file()
    return marked or (store is not None and folder.resolve() == store)
