"""Reconciling names: which of the names a page already knows a short name stands for.

Two names are the same thing when their normal forms (:func:`benchgraph.names.normalise`) are
equal; a short name abbreviates a known one when its normal form is a whole-word prefix of it.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable

from benchgraph.names import normalise


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
