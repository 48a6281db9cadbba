"""The answers kept per store generation: finished answers, least recently used first out,
and the warmed answers pinned beside them.

The answers kept are bounded in number (``CACHE_ENTRIES``) and in bytes together
(``CACHE_BYTES``, as :attr:`server.engine.Answered.size` counts them): without the second bound,
answers of many sizes fill the entries a few at a time and the server's memory grows with them for
as long as it serves new requests (``RELIABILITY.md``, *Memory and load*)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable

from server import allocator
from server.engine import Answered

CACHE_ENTRIES = 4096
CACHE_BYTES = 48 * 1024 * 1024  # the answers kept (not pinned) together
CACHE_ENTRY_BYTES = 4 * 1024 * 1024
PINNED_ENTRIES = 32  # warmed answers kept apart, of one generation
PINNED_BYTES = 64 * 1024 * 1024  # their bodies together (one can be over CACHE_ENTRY_BYTES)


class Cache:
    """A small least-recently-used map of finished answers (thread-safe), beside a map of
    *pinned* answers that other answers never evict: the named queries warmed for one store
    generation (see :class:`server.named.Warmer`), at most ``pins`` of them, of
    ``pinned_bytes`` together. Keys start with the generation's tag. The others are at most
    ``entries`` answers of ``size`` bytes together, and none over ``CACHE_ENTRY_BYTES``: the
    answers pinned are few and chosen, those are any."""

    def __init__(
        self,
        entries: int,
        size: int = CACHE_BYTES,
        pins: int = PINNED_ENTRIES,
        pinned_bytes: int = PINNED_BYTES,
    ) -> None:
        self.entries = entries
        self.size = size
        self.kept = 0  # the bytes of the answers kept (not pinned), as Answered.size counts them
        self.pins = pins
        self.pinned_bytes = pinned_bytes
        self._items: OrderedDict[Hashable, Answered] = OrderedDict()
        self._pinned: dict[Hashable, Answered] = {}
        self._pinned_generation = ""
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Answered | None:
        """The answer kept under ``key`` (pinned or not), or None."""
        with self._lock:
            found = self._pinned.get(key)
            if found is not None:
                return found
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
            return found

    def put(self, key: Hashable, answer: Answered) -> None:
        """Keep ``answer`` under ``key``, evicting the least recently used past ``entries``
        answers or ``size`` bytes together."""
        if answer.size > min(CACHE_ENTRY_BYTES, self.size):
            return
        with self._lock:
            replaced = self._items.pop(key, None)
            if replaced is not None:
                self.kept -= replaced.size
            self._items[key] = answer
            self.kept += answer.size
            evicting = len(self._items) > self.entries or self.kept > self.size
            while len(self._items) > self.entries or self.kept > self.size:
                _, evicted = self._items.popitem(last=False)
                self.kept -= evicted.size
        if evicting:
            allocator.give_back()  # what the answers evicted held, to the system

    def pin(self, generation: str, key: Hashable, answer: Answered) -> bool:
        """Keep ``answer`` under ``(generation, key)`` until answers of another generation are
        pinned (which drops these); return whether it is kept (not past ``pins`` answers of
        one generation, nor past ``pinned_bytes`` of them together)."""
        with self._lock:
            if generation != self._pinned_generation:
                self._pinned = {}
                self._pinned_generation = generation
            full = (generation, key)
            others = [a for k, a in self._pinned.items() if k != full]
            if len(others) >= self.pins:
                return False
            if sum(a.size for a in others) + answer.size > self.pinned_bytes:
                return False
            self._pinned[full] = answer
            return True
