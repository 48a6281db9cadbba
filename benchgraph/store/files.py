"""A store folder's files: whether they hold a whole store, a damaged one or none, and what
an error of the engine or the system says of them (damage, a full disk).

A damaged store is refused before the engine opens it, never read as an empty store nor
written over: RocksDB would take a folder whose ``CURRENT`` is lost for a new store.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
from pathlib import Path

import pyoxigraph as ox

from benchgraph.store.interface import DamagedStore, StoreError

# The file that records the layout of the store in its folder (see EmbeddedStore).
LAYOUT_FILE = "benchgraph-layout.json"
# The files RocksDB keeps a store's data in, and the layout file: a folder with any of them
# holds a store, whole or damaged.
DATA_FILES = ("*.sst", "MANIFEST-*", "OPTIONS-*", "*.log", LAYOUT_FILE)
# What to do with a damaged store, as every message that refuses one says.
REMEDY = (
    "restore the folder from a backup, or make a new store, from a good copy (`benchgraph copy "
    "--from COPY --to NEWDIR`) or from the pages (`benchgraph ingest --store NEWDIR PAGES...`)"
)
# The folder of the store file a RocksDB error names.
_DAMAGED_FILE = re.compile(r"(/\S+)/(?:[0-9]+\.sst|MANIFEST-[0-9]+)")


def check_folder(folder: Path) -> int | None:
    """The layout number the store folder ``folder`` records in its layout file (None: it has
    none, or the folder holds no store yet). A folder that holds a store's data files (see
    :data:`DATA_FILES`) but not RocksDB's ``CURRENT``, which names the others, is refused
    before the engine opens it: the engine would take it for a new, empty store. So is a
    layout file that is empty or does not parse, or missing while the store's default graph
    (its merged view) holds statements: a store of the first layout, which had no layout file,
    had no view either. Raises DamagedStore."""
    layout = folder / LAYOUT_FILE
    found = [p.name for p in _data_files(folder)]
    if found and not (folder / "CURRENT").is_file():
        raise DamagedStore(
            f"{folder / 'CURRENT'}: missing, beside the store's data files ({found[0]} and "
            f"{len(found) - 1} more): the store at {folder} is damaged; {REMEDY}"
        )
    if not layout.is_file():
        if found and _holds_view(folder):
            raise DamagedStore(
                f"{layout}: missing, while the store holds statements: the store at {folder} "
                f"is damaged; {REMEDY}"
            )
        return None
    try:
        number = json.loads(layout.read_text(encoding="utf-8")).get("layout")
    except (OSError, ValueError, AttributeError) as error:
        raise DamagedStore(
            f"{layout}: cannot read the store's layout ({error}): the store at {folder} is "
            f"damaged; {REMEDY}"
        ) from None
    if not isinstance(number, int):
        raise DamagedStore(
            f"{layout}: no layout number in it: the store at {folder} is damaged; {REMEDY}"
        )
    return number


def _holds_view(folder: Path) -> bool:
    """Whether the default graph of the store at ``folder`` holds statements (its merged view:
    a store of the first layout, which a missing layout file means, has none), read without
    writing. Raises DamagedStore."""
    try:
        found = ox.Store.read_only(str(folder)).quads_for_pattern(
            None, None, None, ox.DefaultGraph()
        )
        return next(iter(found), None) is not None
    except (OSError, RuntimeError) as error:
        raise damage(str(folder), error) or StoreError(
            f"cannot open the store at {folder}: {error}"
        ) from None


def _data_files(folder: Path) -> list[Path]:
    """The store's data files in ``folder`` (none when it is not a folder), sorted."""
    if not folder.is_dir():
        return []
    return sorted(p for pattern in DATA_FILES for p in folder.glob(pattern) if p.is_file())


def damage(location: str | None, error: BaseException) -> DamagedStore | None:
    """The DamagedStore the engine's ``error`` means, when it says the files of the store at
    ``location`` (None: the folder of the file it names) are damaged or missing (RocksDB's
    ``Corruption: …``); else None."""
    text = " ".join(str(error).split())
    if not text.startswith("Corruption"):
        return None
    named = _DAMAGED_FILE.search(text)
    where = location or (named.group(1) if named else "in use")
    return DamagedStore(f"the store at {where} is damaged (the engine says: {text}); {REMEDY}")


def disk_full(location: str, error: BaseException) -> StoreError | None:
    """The StoreError the engine's or the system's ``error`` means when the disk that holds
    the store at ``location`` is full, saying how much room is left there; else None."""
    if getattr(error, "errno", None) != errno.ENOSPC and "No space left" not in str(error):
        return None
    try:
        free = f"{shutil.disk_usage(location).free / 2**20:.1f} MB free"
    except OSError:
        free = "free space unknown"
    return StoreError(
        f"the disk that holds the store at {location} is full ({error}; {free}): free some "
        "space and run the command again"
    )


def write_synced(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` at once and make it durable: written whole beside it, then
    put in its place, so that a process killed meanwhile leaves the file as it was, never
    empty or cut."""
    written = path.with_name(path.name + ".tmp")
    with written.open("w", encoding="utf-8") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())
    os.replace(written, path)
    sync_folder(path.parent)


def sync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
