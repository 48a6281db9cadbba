"""Who holds an embedded store: the record its write lock's holder leaves in the store folder.

RocksDB's lock says only that the store is taken, not by whom. So whoever takes the write lock
(``benchgraph serve``'s worker pool, or a command that opens the store for writing) writes
:data:`FILE` beside it at once: its pid, its command, since when, and a server's URL once it
listens. A command refused the lock reads the record to say who holds the store and what to
do. The record is removed on a clean close by the process it names; a record whose pid is gone
is stale and ignored, and one found by a process that took the lock is overwritten.

A server's record also carries a secret: the other commands, run by the same user, read it to
write and read the store through that server (:mod:`benchgraph.store.served`), which takes nothing
on that path without it. So the record is written with mode 0600: only the holder's user can
read it.

The file is not data: the store's generation does not read it, and copies of a store leave it
out (:data:`NOT_DATA`), as they leave out the generations a server publishes to its readers
(:data:`GENERATIONS`).

A command that only reads takes no write lock and writes no record: it takes a *read* lock on
RocksDB's ``LOCK`` file (:func:`read_lock`), which any number of readers share and no writer
can take beside, and opens the store read-only, so that it reads on a full disk, where opening
for writing fails.
"""

from __future__ import annotations

import errno
import fcntl
import fnmatch
import json
import os
import sys
from dataclasses import asdict, dataclass, fields, replace
from datetime import datetime
from pathlib import Path

FILE = "benchgraph-holder.json"
# The folder where a server keeps the snapshots of the store its query workers read.
GENERATIONS = ".generations"
# The files of a store folder that are not its data, as patterns: RocksDB's lock file, this
# record, the file a new record is written to before it takes the record's place, and a
# server's snapshots.
NOT_DATA = ("LOCK", FILE, f".{FILE}.*", GENERATIONS)
PROGRAM = "benchgraph"


def is_data(name: str) -> bool:
    """Whether the file ``name`` of a store folder is part of the store (for copies)."""
    return not any(fnmatch.fnmatchcase(name, pattern) for pattern in NOT_DATA)


@dataclass(frozen=True)
class Holder:
    """Who holds a store's write lock: ``command`` is the benchgraph command (``serve``,
    ``ingest``...), or empty when ``program`` is not benchgraph's command line; ``since`` an
    ISO 8601 time; ``url`` a server's base URL once it listens; ``secret`` what a server takes
    as proof that a request comes from its store's owner. Fields added later are read and
    written like these (a record is read by name, unknown names ignored)."""

    pid: int
    command: str
    since: str
    url: str | None = None
    program: str = PROGRAM
    secret: str | None = None

    @classmethod
    def now(cls, command: str | None = None) -> Holder:
        """This process as a holder, of ``command`` (default: the one it runs, from argv)."""
        program, running = running_command(sys.argv)
        if command is not None:
            program, running = PROGRAM, command
        since = datetime.now().astimezone().isoformat(timespec="seconds")
        return cls(os.getpid(), running, since, program=program)

    def serving(self, url: str) -> Holder:
        """This record once the server listens at ``url``."""
        return replace(self, url=url)

    @property
    def shown(self) -> str:
        """The command as a user would type it, quoted: `benchgraph ingest`."""
        return f"`{self.program} {self.command}`" if self.command else f"`{self.program}`"

    @property
    def is_server(self) -> bool:
        return self.program == PROGRAM and self.command == "serve"

    def alive(self) -> bool:
        """Whether the process the record names is running."""
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # running, as another user
            return True
        return True

    def started(self) -> str:
        """``since`` as a local time of day (with the date if not today), as given if unreadable."""
        try:
            when = datetime.fromisoformat(self.since).astimezone()
        except ValueError:
            return self.since
        today = datetime.now().astimezone().date()
        return when.strftime("%H:%M:%S" if when.date() == today else "%Y-%m-%d %H:%M:%S")


def running_command(argv: list[str]) -> tuple[str, str]:
    """The program and the benchgraph command that ``argv`` runs: ("benchgraph", "ingest") for
    ``benchgraph ingest ...`` or ``python -m benchgraph.cli ingest ...``, else the program's
    name and no command."""
    first = Path(argv[0]) if argv and argv[0] not in ("", "-c", "-") else Path("python")
    if first.name == PROGRAM or first.parts[-3:] == (PROGRAM, "cli", "__main__.py"):
        # The command line's only own option is --version: its first word is the command.
        return PROGRAM, next((word for word in argv[1:] if not word.startswith("-")), "")
    return first.name, ""


def write(folder: Path, holder: Holder) -> None:
    """Record ``holder`` in ``folder``, readable by its user only; a reader sees the old
    record or the new one, never part of one. Raises OSError if it cannot be written."""
    temporary = folder / f".{FILE}.{holder.pid}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(asdict(holder), out)
        out.write("\n")
    os.replace(temporary, folder / FILE)


def read(folder: Path) -> Holder | None:
    """The record in ``folder``, or None when there is none or it cannot be read."""
    try:
        data = json.loads((folder / FILE).read_text(encoding="utf-8"))
        known = {f.name for f in fields(Holder)}
        found = Holder(**{k: v for k, v in data.items() if k in known})
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    return found if isinstance(found.pid, int) and found.pid > 0 else None


def live(folder: Path) -> Holder | None:
    """The record in ``folder`` if the process it names is running (else it is stale)."""
    found = read(folder)
    return found if found is not None and found.alive() else None


def release(folder: Path) -> None:
    """Remove the record in ``folder`` if it names this process (another's is left alone)."""
    found = read(folder)
    if found is not None and found.pid == os.getpid():
        (folder / FILE).unlink(missing_ok=True)


def lock_owner(folder: Path) -> int | None:
    """The pid of another process that holds a lock on the ``LOCK`` file of the store in
    ``folder`` (RocksDB's write lock, or a reader's :func:`read_lock`), read from
    ``/proc/locks`` without touching the store; None when no other process is seen holding
    it, or where that cannot be read (not Linux). Lets a start be refused before opening the
    store, which would rotate the log files of the process that holds it."""
    found = lock_holders(folder)
    return found[0] if found else None


def lock_holders(folder: Path, kind: str = "") -> list[int]:
    """The pids of the other processes that hold a lock on the ``LOCK`` file of the store in
    ``folder``, read from ``/proc/locks``: of the ``kind`` given (``READ``, a command that
    only reads; ``WRITE``, RocksDB's), or of either. Empty where none is seen, or where that
    cannot be read (not Linux)."""
    try:
        found = (folder / "LOCK").stat()
        table = Path("/proc/locks").read_text(encoding="ascii", errors="replace")
    except OSError:
        return []
    device = f"{os.major(found.st_dev):02x}:{os.minor(found.st_dev):02x}:{found.st_ino}"
    pids = []
    for line in table.splitlines():
        words = line.split()  # 1: POSIX ADVISORY WRITE PID MAJOR:MINOR:INODE START END
        if len(words) < 6 or words[1] != "POSIX" or words[5] != device:
            continue
        if kind and words[3] != kind:
            continue
        if words[4].isdigit() and int(words[4]) != os.getpid():
            pids.append(int(words[4]))
    return pids


def read_lock(folder: Path) -> int | None:
    """A read lock on the ``LOCK`` file of the store in ``folder`` (a POSIX record lock, as
    RocksDB's write lock is): the open file that holds it, for :func:`unlock` once the store
    is closed. None when a writer holds the store, when this process does (its own locks would
    not stop it, and closing the file would let go of them), or when the ``LOCK`` file cannot
    be opened: the store is then opened for writing, as before. On a read-only file system,
    which no one writes, there is nothing to lock: the folder itself is held open."""
    found = live(folder)
    if found is not None and found.pid == os.getpid():
        return None
    try:
        # Made if missing, empty, as RocksDB makes it (a copy of a store leaves it out).
        descriptor = os.open(folder / "LOCK", os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as error:
        if error.errno != errno.EROFS:
            return None
        # A read-only file system, where no one writes: nothing to lock, the folder held.
        return os.open(folder, os.O_RDONLY | os.O_CLOEXEC)
    try:
        fcntl.lockf(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        return None
    return descriptor


def unlock(descriptor: int) -> None:
    """Let go of a :func:`read_lock`."""
    os.close(descriptor)


def is_lock_conflict(error: OSError) -> bool:
    """Whether RocksDB refused to open a store because another holds its lock (another
    process, or this one), rather than for any other reason."""
    text = str(error)
    return "While lock file:" in text or "lock hold by current process" in text


def conflict(location: str, *, serving: bool = False) -> str:
    """What a process refused the store at ``location``'s lock is told: who holds it (read
    from the record) and what to do. ``serving``: the refused one is a server."""
    holder = live(Path(location))
    readers = lock_holders(Path(location), "READ")
    if holder is None and readers:
        pids = ", ".join(str(pid) for pid in readers)
        return (
            f"the store at {location} is being read by another command (pid {pids}), which "
            "only reads it; wait for it to end"
        )
    if holder is None:
        return (
            f"the store at {location} is locked by another process (no benchgraph command "
            "says it holds it); wait for it to end"
        )
    pid = holder.pid
    if holder.is_server:
        at = f", serving {holder.url}" if holder.url else ""
        if serving:
            use = f"; or query that one at {holder.url}sparql" if holder.url else ""
            return (
                f"another server holds the store at {location}: {holder.shown} (pid {pid}{at}); "
                f"stop it (Ctrl-C or kill {pid}) to serve the store here{use}"
            )
        if not holder.url:
            return (
                f"the store at {location} is held by {holder.shown} (pid {pid}), which is "
                "still starting; run this again once it listens (commands then go through it)"
            )
        return (
            f"the store at {location} is held by {holder.shown} (pid {pid}{at}), which cannot "
            "be asked to do this: it does not listen on loopback, or runs as another user; "
            f"stop it (Ctrl-C or kill {pid}) to use the store here, or read it through "
            f"{holder.url}sparql"
        )
    return (
        f"the store at {location} is being written by {holder.shown} (pid {pid}, since "
        f"{holder.started()}): wait for pid {pid} to finish, then run this again"
    )
