"""What the server process's C allocator keeps of the memory Python frees.

The answer cache is bounded (:mod:`server.cache`), and once it is full the Python heap stays
flat; the server's resident memory still rose, because glibc's allocator keeps what a churning
cache frees, in a pool (an *arena*) per thread that allocated it (``RELIABILITY.md``, *Memory
and load*: 74 MB traced by Python, 384 then 430 MB resident). Two calls bound that:

- :func:`limit_arenas`, once at start, before the server's threads: at most :data:`ARENAS`
  pools, so what one thread frees is reused by the others (``MALLOC_ARENA_MAX``, set from
  within: ``mallopt(M_ARENA_MAX)``).
- :func:`give_back`, after the cache evicts: the free memory at the top of the pools returned
  to the system (``malloc_trim(0)``), at most every :data:`TRIM_SECONDS`.

Both do nothing where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time
from functools import cache

ARENAS = 2
TRIM_SECONDS = 10.0
_M_ARENA_MAX = -8  # glibc's malloc.h
_trimmed = 0.0
_lock = threading.Lock()


@cache
def _glibc() -> ctypes.CDLL | None:
    """glibc, if this process runs on it (None elsewhere: musl, macOS)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Keep the allocator to ``arenas`` pools; whether it could be told."""
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(_M_ARENA_MAX, arenas))


def give_back(now: float | None = None) -> bool:
    """Return the allocator's free memory to the system, unless it was done less than
    :data:`TRIM_SECONDS` ago; whether it was done now."""
    global _trimmed
    libc = _glibc()
    when = time.monotonic() if now is None else now
    with _lock:
        if libc is None or when - _trimmed < TRIM_SECONDS:
            return False
        _trimmed = when
    libc.malloc_trim(0)
    return True
