"""Bounded query memory: how a query worker is kept under the ``query_memory`` setting.

Two parts, one in each process:

- **The watch, in the server: the limit itself.** While a worker runs a job (any job: a client's
  query, a named query, a dump), the request's thread in :class:`server.workers.WorkerPool`
  reads the worker's memory every ``WATCH_SECONDS`` (:func:`resident`: ``/proc/PID/statm``,
  resident pages less those shared with files, so the libraries every worker maps are not
  counted) and kills the worker once it is past the limit. The pool knows why it killed it, so
  the answer is certain: 503, "needed more memory than the limit", never the crash of a query
  (400) nor the time limit (504); the worker is replaced as any stopped worker is.
- **The backstop, in the worker.** :func:`cap` sets ``RLIMIT_DATA`` well above the limit, for
  what the watch cannot see coming: a server thread that does not get to look in time, or a
  worker whose server is stalled. An allocation past it fails in the worker: the engine (Rust)
  aborts the process ("memory allocation of N bytes failed", SIGABRT), and a MemoryError in
  Python ends it with ``EXIT_MEMORY`` (:func:`exit_on_memory_error`). :func:`ran_out` reads
  either from the exit status, so a backstop stop is answered as a memory stop too. Little else
  makes a worker abort (glibc's heap checks, a Rust panic while panicking); a query that nests
  too deeply overflows its stack: SIGSEGV, still a crash. Core dumps are off: an aborted worker
  would write gigabytes for nobody.

Why not an rlimit alone. Address-space and data limits count what is reserved, not what is
used, and a worker reserves much it never touches. Measured on Linux x86-64 (pyoxigraph
0.5.13, glibc 2.36), a worker that has opened the examples' store and answered a query: VmRSS
41 MB, of it 16 MB its own (the rest shared libraries); VmData 600 MB, of it the query thread's
512 MiB stack (``STACK_BYTES`` in :mod:`server.engine`, reserved whole when the thread starts
and hardly touched); VmSize 1.0 to 1.3 GB from one worker to the next, the rest PROT_NONE
reservations of the allocator's per-thread arenas (RocksDB maps no files here: it reads them).
``RLIMIT_AS`` would count all of that and ``RLIMIT_DATA`` the stack, and both count a vector's
doubled capacity before it is written: an rlimit at the limit would stop queries using half of
it, and its stop looks like any abort. What the machine runs out of is resident memory, so that
is what the limit counts.

Where the backstop sits: ``RLIMIT_DATA`` is set before the query thread starts, to what the
worker holds then (about 7 MB), plus the stack the thread is about to reserve, plus twice the
limit (a vector that doubles reserves up to twice what it has written), plus ``BACKSTOP_SLACK``
for what the engine reserves beyond what it touches (beside the stack, VmData stayed 50 to 100
MB above the resident memory while the test query below grew). A job under the limit never gets
there: at the default 4 GiB, the backstop is about 8.8 GiB.

What counts, measured: a worker keeps what the engine caches between jobs (16 MB of its own
idle on the examples, about 600 MiB after the named queries at 10,000 pages), and its stack
as far as a query touched it: with a limit under 512 MiB, a query nesting deep enough to
overflow the stack may be stopped as a memory stop first (the guard refuses such nesting before
the engine anyway). The largest jobs measured at 10,000 pages (8.4 M quads): the parameterless
named queries peak at 705 MiB; the dumps stream in every format (a Turtle dump, which writes
the merged view as it is read, peaks at 143 MB).

The cost of the watch: a read of a small ``/proc`` file every ``WATCH_SECONDS`` per running
job; an answer is taken as soon as it comes, not at the next look. The overshoot: what a worker
allocates between two looks. The cross join the tests sort (``tests/server/test_memory.py``)
grows by about 600 MiB/s on one core of a 2-core Xeon: a 300 MiB limit is answered 0.8 to 1 s
after the request (1 GiB: 2.4 s), the worker seen at 301 to 310 MiB. Without ``/proc`` (not
Linux) nothing is watched, and the backstop is not set.
"""

from __future__ import annotations

import os
import resource
import signal
import sys
import threading
from pathlib import Path

from benchgraph.settings import format_size

WATCH_SECONDS = 0.02
BACKSTOP_SLACK = 256 << 20
# A worker whose query thread raised MemoryError exits with this status (see the module doc).
EXIT_MEMORY = 3
_PAGE = os.sysconf("SC_PAGE_SIZE")


def resident(pid: int) -> int | None:
    """The resident memory of process ``pid`` that is its own, in bytes: resident pages less
    those shared with files (libraries, the page cache). None when it cannot be read (the
    process has ended, or the platform has no ``/proc``)."""
    try:
        fields = Path(f"/proc/{pid}/statm").read_bytes().split()
    except OSError:
        return None
    return (int(fields[1]) - int(fields[2])) * _PAGE


def _data_bytes() -> int | None:
    """This process's VmData in bytes, or None where it cannot be read."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmData:"):
            return int(line.split()[1]) * 1024
    return None


def backstop(limit: int, stack: int, held: int) -> int:
    """The ``RLIMIT_DATA`` for a worker whose memory limit is ``limit`` bytes, that holds
    ``held`` bytes of data now and is about to start a thread with a ``stack``-byte stack."""
    return held + stack + 2 * limit + BACKSTOP_SLACK


def cap(limit: int, stack: int) -> bool:
    """Set this worker's backstop (see the module doc) for a memory limit of ``limit`` bytes,
    before it starts a thread with a ``stack``-byte stack, and forbid core dumps (an aborted
    worker would write gigabytes for nobody). Returns False where the platform cannot."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    held = _data_bytes()
    if held is None:
        return False
    value = backstop(limit, stack, held)
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (value, hard))
    return True


def exit_on_memory_error(args: threading.ExceptHookArgs) -> None:
    """A ``threading.excepthook`` for a worker: a thread ended by MemoryError ends the process
    at once with ``EXIT_MEMORY``; anything else is reported as Python reports it."""
    if issubclass(args.exc_type, MemoryError):
        sys.stderr.write("a query worker ran out of memory (MemoryError)\n")
        sys.stderr.flush()
        os._exit(EXIT_MEMORY)
    threading.__excepthook__(args)


def ran_out(status: int | None) -> bool:
    """Whether a worker that ended with exit status ``status`` (negative: the signal, as
    subprocess reports it) was stopped by its backstop."""
    return status in (-signal.SIGABRT, EXIT_MEMORY)


def stop_message(limit: int, dump: bool) -> str:
    """What a client is told when its query (or, with ``dump``, the dump it asked for) was
    stopped for needing more than ``limit`` bytes."""
    shown = format_size(limit)
    if dump:
        return (
            f"writing the dump needed more memory than the server's limit of {shown} per query "
            "worker (its query_memory setting) and was stopped"
        )
    return (
        f"the query needed more memory than the server's limit of {shown} per query and was "
        "stopped; the server is fine. Narrow it and try again: more specific patterns, "
        "patterns that share variables (each one that shares none multiplies the rows), "
        "less to sort (ORDER BY), group (GROUP BY) or keep distinct (DISTINCT)"
    )
