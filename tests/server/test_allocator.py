"""The server process's allocator: told to keep few pools, and its free memory given back at
most every TRIM_SECONDS (on glibc, which this machine runs)."""

from __future__ import annotations

import time

from server import allocator


def test_the_allocator_is_told_and_trimmed_at_most_every_interval() -> None:
    assert allocator.limit_arenas()
    start = time.monotonic() + 10 * allocator.TRIM_SECONDS  # later than any trim so far
    assert allocator.give_back(start)
    assert not allocator.give_back(start + allocator.TRIM_SECONDS / 2)
    assert allocator.give_back(start + allocator.TRIM_SECONDS)
