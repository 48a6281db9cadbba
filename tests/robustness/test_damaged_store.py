"""A damaged store is refused, never read as an empty one nor written over: each damage a
fault campaign did to a real store (built by ingesting examples/) ends every command that opens
it with one line naming the damaged file and what to do, exit 2, no traceback; the store's files
are left as they were. A full disk ends an ingest the same way, and the next run, with room,
works."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import EXAMPLES, PATIENCE, build_store, copy_store, run_cli

from benchgraph.store import DATA_FILES
from benchgraph.store.embedded import EmbeddedStore

LAYOUT = EmbeddedStore.LAYOUT_FILE
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"
# Each command that opens a store, as a user runs it.
COMMANDS = {
    "query": ("query", COUNT),
    "validate": ("validate",),
    "ingest": ("ingest", str(EXAMPLES)),
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("damaged") / "store", EXAMPLES)


def ssts(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.sst"))


def no_current(folder: Path) -> Path:
    (folder / "CURRENT").unlink()
    return folder / "CURRENT"


def truncated_sst(folder: Path) -> Path:
    largest = max(ssts(folder), key=lambda p: p.stat().st_size)
    with largest.open("r+b") as file:
        file.truncate(largest.stat().st_size // 2)
    return largest


def deleted_sst(folder: Path) -> Path:
    largest = max(ssts(folder), key=lambda p: p.stat().st_size)
    largest.unlink()
    return largest


def garbage_manifest(folder: Path) -> Path:
    (manifest,) = folder.glob("MANIFEST-*")
    manifest.write_bytes(bytes(range(256)) * (manifest.stat().st_size // 256 + 1))
    return manifest


DAMAGES: dict[str, Callable[[Path], Path]] = {
    "no CURRENT": no_current,
    "truncated SST": truncated_sst,
    "deleted SST": deleted_sst,
    "garbage MANIFEST": garbage_manifest,
}


def listing(folder: Path) -> dict[str, bytes]:
    """The store's data files and their bytes (not RocksDB's own log, which each attempt to
    open it writes)."""
    return {p.name: p.read_bytes() for p in _data(folder)}


def _data(folder: Path) -> list[Path]:
    return [p for pattern in (*DATA_FILES, "CURRENT") for p in sorted(folder.glob(pattern))]


def assert_refused(done: subprocess.CompletedProcess[str], named: Path) -> None:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(named) in lines[0] and "damaged" in lines[0], lines[0]
    assert "benchgraph copy" in lines[0], lines[0]


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_a_damaged_store_is_refused_by_every_command(
    built: Path, tmp_path: Path, damage: str, command: str
) -> None:
    folder = copy_store(built, tmp_path / "store")
    named = DAMAGES[damage](folder)
    before = listing(folder)
    done = run_cli(*COMMANDS[command], "--store", str(folder))
    assert_refused(done, named)
    assert listing(folder) == before  # not taken for a new store, nor written


@pytest.mark.parametrize(
    "marker",
    [
        pytest.param(lambda path: path.write_text("{not json", "utf-8"), id="garbage"),
        pytest.param(lambda path: path.write_bytes(b""), id="empty"),
        pytest.param(lambda path: path.unlink(), id="deleted"),
    ],
)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_store_whose_layout_file_is_damaged_is_refused(
    built: Path, tmp_path: Path, marker: Callable[[Path], object], command: str
) -> None:
    folder = copy_store(built, tmp_path / "store")
    marker(folder / LAYOUT)
    before = listing(folder)
    done = run_cli(*COMMANDS[command], "--store", str(folder))
    assert_refused(done, folder / LAYOUT)
    assert listing(folder) == before  # the layout file is not written anew


def test_serve_refuses_a_damaged_store_at_start(built: Path, tmp_path: Path) -> None:
    folder = copy_store(built, tmp_path / "store")
    named = truncated_sst(folder)
    done = run_cli("serve", "--store", str(folder), "--port", "0")
    assert_refused(done, named)


def test_an_empty_or_missing_folder_still_becomes_a_new_store(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for folder in (empty, tmp_path / "missing"):
        done = run_cli("ingest", str(EXAMPLES), "--store", str(folder))
        assert done.returncode == 0, done.stderr
        assert run_cli("query", COUNT, "--store", str(folder)).returncode == 0


def first_block_read_by_every_open(folder: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the store at ``folder`` with the first 4 KB of one SST zeroed, the one whose
    damage a read of every quad meets (the first such, by name), and that SST."""
    for sst in ssts(folder):
        copy = copy_store(folder, tmp_path / f"zeroed-{sst.stem}")
        with (copy / sst.name).open("r+b") as file:
            file.write(bytes(4096))
        try:
            len(ox.Store.read_only(str(copy)))
        except RuntimeError:
            return copy, copy / sst.name
        shutil.rmtree(copy)
    raise AssertionError(f"no SST of {folder} holds the quads a full read meets")


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_block_of_zeros_in_an_sst_ends_the_command(
    built: Path, tmp_path: Path, command: str
) -> None:
    # pyoxigraph's query engine goes round forever on such a block (a plain read raises):
    # the command must end, refusing the store, before any query runs.
    folder, named = first_block_read_by_every_open(built, tmp_path)
    done = run_cli(*COMMANDS[command], "--store", str(folder))
    assert_refused(done, named)


def in_small_filesystem(script: str) -> subprocess.CompletedProcess[str]:
    """Run the shell ``script`` with a 1 MB tmpfs mounted at ``$SMALL``, in a mount namespace
    of its own (``unshare``: no root needed where user namespaces are allowed); skip the
    test where they are not."""
    probe = subprocess.run(
        ["unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
        capture_output=True,
        text=True,
    )
    if shutil.which("unshare") is None or probe.returncode != 0:
        pytest.skip(f"cannot mount a small filesystem here: {probe.stderr.strip()}")
    return subprocess.run(
        ["unshare", "-Urm", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )


def test_a_full_disk_ends_the_ingest_with_a_message_and_the_next_run_works(
    tmp_path: Path,
) -> None:
    small = tmp_path / "small"
    small.mkdir()
    cli = f"{sys.executable} -m benchgraph.cli"
    store = small / "store"
    count = f"{cli} query --store {store} '{COUNT}'"
    done = in_small_filesystem(
        f"mount -t tmpfs -o size=1m tmpfs {small} || exit 99\n"
        f"{cli} ingest --store {store} {EXAMPLES}; echo ingest=$? >&2\n"
        f"mount -o remount,size=64m {small}\n"  # space freed
        f"{count} >&2\n"
        f"{cli} ingest --store {store} {EXAMPLES}; echo again=$? >&2\n"
    )
    errors = done.stderr
    full, _, after = errors.partition("ingest=")
    assert "ingest=2" in errors, errors
    assert "Traceback" not in errors, errors
    (line,) = full.strip().splitlines()
    assert f"the disk that holds the store at {store} is full" in line
    assert "MB free" in line and "free some space" in line
    assert "Traceback" not in after and "again=0" in after, after


def test_on_a_full_disk_the_commands_that_only_read_still_answer(
    built: Path, tmp_path: Path
) -> None:
    """A store on a disk filled to the last byte: query, export, audit and validate
    --no-save open it read-only and answer as with room; an ingest is refused, saying so."""
    expected = run_cli("query", "--format", "csv", COUNT, store=built)
    exported = run_cli("export", "--format", "nquads", store=built)
    assert expected.returncode == 0 and exported.returncode == 0, expected.stderr
    small = tmp_path / "small"
    small.mkdir()
    store = small / "store"
    cli = f"{sys.executable} -m benchgraph.cli"
    reads = {
        "query": f"query --format csv '{COUNT}'",
        "export": "export --format nquads",
        "audit": "audit --format json",
        "validate": "validate --no-save --summary",
    }
    script = [
        f"mount -t tmpfs -o size=16m tmpfs {small} || exit 99",
        f"cp -a {built} {store}",
        # Full to the last byte: blocks of a megabyte, then of a page, then single bytes.
        f"for size in 1M 4k 1; do dd if=/dev/zero of={small}/filler-$size bs=$size "
        "2>/dev/null; done",
        f"echo free=$(df --output=avail {small} | tail -1 | tr -d ' ') >&2",
    ]
    for name, args in reads.items():
        script.append(f"{cli} {args} --store {store} > {tmp_path}/{name}.out; echo {name}=$? >&2")
    script.append(f"{cli} ingest --store {store} {EXAMPLES}; echo ingest=$? >&2")
    done = in_small_filesystem("\n".join(script))
    said = done.stderr
    assert "free=0" in said and "Traceback" not in said, said
    assert "query=0" in said and "export=0" in said and "audit=0" in said, said
    assert "validate=0" in said or "validate=1" in said, said  # 1: the examples' warnings
    assert (tmp_path / "query.out").read_text() == expected.stdout
    assert (tmp_path / "export.out").read_text() == exported.stdout
    assert "violations" in (tmp_path / "validate.out").read_text()
    assert "ingest=2" in said and f"the disk that holds the store at {store} is full" in said


def test_a_store_on_a_read_only_file_system_answers_the_commands_that_only_read(
    built: Path, tmp_path: Path
) -> None:
    """A store on read-only media (a published snapshot, say): the store bound read-only at
    ``$RO``; query answers as with a writable store, and ingest is refused in one line."""
    expected = run_cli("query", "--format", "csv", COUNT, store=built)
    assert expected.returncode == 0, expected.stderr
    store, mounted = copy_store(built, tmp_path / "store"), tmp_path / "ro"
    mounted.mkdir()
    cli = f"{sys.executable} -m benchgraph.cli"
    done = in_small_filesystem(
        f"mount --bind {store} {mounted} && mount -o remount,ro,bind {mounted} || exit 99\n"
        f"touch {mounted}/written 2>/dev/null && echo writable >&2\n"
        f"{cli} query --format csv '{COUNT}' --store {mounted} > {tmp_path}/query.out\n"
        "echo query=$? >&2\n"
        f"{cli} ingest --store {mounted} {EXAMPLES}; echo ingest=$? >&2\n"
    )
    said = done.stderr
    assert done.returncode != 99 and "writable" not in said, said
    assert "query=0" in said and "Traceback" not in said, said
    assert (tmp_path / "query.out").read_text() == expected.stdout
    assert "ingest=2" in said, said
