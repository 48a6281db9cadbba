"""Name normalisation: one rule that decides when two published names are the same thing.

``normalise`` folds case, Unicode compatibility forms and punctuation, so that
``CLIP B/16 (LAION-2B)`` and ``CLIP B/16 LAION-2B`` are one key, ``clip-b-16-laion-2b``.
The key is also the readable tail of the minted IRI.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Iterable
from functools import lru_cache

_SEPARATORS = re.compile(r"[\W_]+", re.UNICODE)


@lru_cache(maxsize=65536)
def normalise(name: str) -> str:
    """Return the normal form of ``name``: NFKC, case-folded, words joined by ``-``.

    Returns an empty string for a name with no letters or digits.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return _SEPARATORS.sub("-", folded).strip("-")


class AmbiguousName(ValueError):
    """A short name that abbreviates more than one full name."""

    def __init__(self, name: str, candidates: list[str]) -> None:
        self.name = name
        self.candidates = candidates
        super().__init__(f"{name!r} could be any of {', '.join(repr(c) for c in candidates)}")


class Reconciler:
    """Resolves published names against a fixed list of known names.

    A name stands for a known name when their normal forms are equal, or else when its normal
    form is a whole-word prefix of exactly one known normal form (``SigLIP SO400M`` abbreviates
    ``SigLIP SO400M/14``). Build it once per list: each look-up is then a dictionary probe and
    a binary search, so a table of many rows against many names stays linear.
    """

    def __init__(self, known: Iterable[str]) -> None:
        self.known = list(known)
        self._exact: dict[str, str] = {}
        for candidate in self.known:
            self._exact.setdefault(normalise(candidate), candidate)
        self._forms = sorted((normalise(c), i, c) for i, c in enumerate(self.known))

    def resolve(self, name: str) -> str | None:
        """Return the one known name ``name`` stands for, or None if none does.

        Raises AmbiguousName when ``name`` abbreviates several known names.
        """
        key = normalise(name)
        if key in self._exact:
            return self._exact[key]
        if not key:
            return None
        prefix = key + "-"
        start = bisect_left(self._forms, (prefix,))
        matches = []
        for form, index, candidate in self._forms[start:]:
            if not form.startswith(prefix):
                break
            matches.append((index, candidate))
        if len(matches) > 1:
            raise AmbiguousName(name, [candidate for _, candidate in sorted(matches)])
        return matches[0][1] if matches else None


def reconcile(name: str, known: Iterable[str]) -> str | None:
    """Return the one name in ``known`` that ``name`` stands for (see Reconciler), or None.

    Raises AmbiguousName when ``name`` abbreviates several known names.
    """
    return Reconciler(known).resolve(name)
