"""Name normalisation: one rule that decides when two published names are the same thing.

``normalise`` folds case, Unicode compatibility forms and punctuation, so that
``CLIP B/16 (LAION-2B)`` and ``CLIP B/16 LAION-2B`` are one key, ``clip-b-16-laion-2b``.
The key is also the readable tail of the minted IRI.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_SEPARATORS = re.compile(r"[\W_]+", re.UNICODE)


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


def reconcile(name: str, known: Iterable[str]) -> str | None:
    """Return the one name in ``known`` that ``name`` stands for, or None if none does.

    A name stands for a known name when their normal forms are equal, or else when its normal
    form is a whole-word prefix of exactly one known normal form (``SigLIP SO400M`` abbreviates
    ``SigLIP SO400M/14``). Raises AmbiguousName when the prefix fits several known names.
    """
    key = normalise(name)
    known = list(known)
    for candidate in known:
        if normalise(candidate) == key:
            return candidate
    if not key:
        return None
    matches = [c for c in known if normalise(c).startswith(key + "-")]
    if len(matches) > 1:
        raise AmbiguousName(name, matches)
    return matches[0] if matches else None
