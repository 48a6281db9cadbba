"""Name normalisation: one rule that decides when two published names are the same thing.

``normalise`` folds case, Unicode compatibility forms and punctuation, so that
``CLIP B/16 (LAION-2B)`` and ``CLIP B/16 LAION-2B`` are one key, ``clip-b-16-laion-2b``.
The key is also the readable tail of the minted IRI (:mod:`benchgraph.iris`); the parsers
reconcile short names with it (:mod:`ingest.names`).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_SEPARATORS = re.compile(r"[\W_]+", re.UNICODE)


@lru_cache(maxsize=65536)
def normalise(name: str) -> str:
    """Return the normal form of ``name``: NFKC, case-folded, words joined by ``-``.

    Returns an empty string for a name with no letters or digits.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return _SEPARATORS.sub("-", folded).strip("-")
