"""The answers kept per store generation: finished answers, least recently used first out,
and the warmed answers pinned beside them."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable

from server.engine import Answered

CACHE_ENTRIES = 256
CACHE_ENTRY_BYTES = 4 * 1024 * 1024
PINNED_ENTRIES = 32  # warmed answers kept apart, of one generation
PINNED_BYTES = 64 * 1024 * 1024  # their bodies together (one can be over CACHE_ENTRY_BYTES)


class Cache:
    """A small least-recently-used map of finished answers (thread-safe), beside a map of
    *pinned* answers that other answers never evict: the named queries warmed for one store
    generation (see :class:`server.named.Warmer`), at most ``pins`` of them, of
    ``pinned_bytes`` together. Keys start with the generation's tag. No answer over
    ``CACHE_ENTRY_BYTES`` is kept among the others: the answers pinned are few and chosen,
    those are any."""

    def __init__(
        self, entries: int, pins: int = PINNED_ENTRIES, pinned_bytes: int = PINNED_BYTES
    ) -> None:
        self.entries = entries
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
        """Keep ``answer`` under ``key``, evicting the least recently used past ``entries``."""
        if answer.size > CACHE_ENTRY_BYTES:
            return
        with self._lock:
            self._items[key] = answer
            self._items.move_to_end(key)
            while len(self._items) > self.entries:
                self._items.popitem(last=False)

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
