"""Name normalisation: one rule that decides when two published names are the same thing.

``normalise`` folds case, Unicode compatibility forms and punctuation, so that
``CLIP B/16 (LAION-2B)`` and ``CLIP B/16 LAION-2B`` are one key, ``clip-b-16-laion-2b``.
The key is also the readable tail of the minted IRI (:mod:`benchgraph.iris`); the parsers
reconcile short names with it (:mod:`ingest.names`).
"""

from __future__ import annotations

import hashlib
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


# Past this many characters, a part of an identity is cut (see key_part).
KEY_PART = 120


def key_part(name: str) -> str:
    """``name`` as one part of a source's identity or a result's ID: its normal form; one
    longer than KEY_PART characters is its first 80, ``-`` and 12 hex digits of its SHA-256; a
    name of no letters or digits is ``sha256-`` and 12 hex digits of the name's."""
    form = normalise(name)
    if form and len(form) <= KEY_PART:
        return form
    digest = hashlib.sha256((form or name).encode("utf-8")).hexdigest()[:12]
    return f"{form[:80]}-{digest}" if form else f"sha256-{digest}"


# Names that say what part a system plays in its paper rather than which system it is: a page's
# "Baseline" is its own baseline, and two papers' "Baseline"s are two systems. Normal forms; a
# trailing parenthesis such as "(single model)" is set aside first.
ROLE_NAMES = frozenset(
    [
        "anonymous",
        "anonymous-submission",
        "unnamed-system",
        "unnamed-model",
        "unnamed-submission",
        "baseline",
        "baselines",
        "baseline-model",
        "baseline-system",
        "base-model",
        "our-baseline",
        "ours",
        "our-method",
        "our-model",
        "our-approach",
        "our-system",
        "proposed",
        "proposed-method",
        "proposed-model",
        "proposed-approach",
        "the-proposed-method",
        "this-work",
        "this-paper",
        "human",
        "humans",
        "human-performance",
        "human-baseline",
        "human-expert",
        "random",
        "random-baseline",
        "random-guess",
        "random-guessing",
        "random-chance",
        "chance",
        "chance-level",
        "majority",
        "majority-class",
        "majority-baseline",
        "majority-vote",
        "oracle",
        "upper-bound",
        "lower-bound",
        "model",
        "system",
        "submission",
        "reference",
        "default",
    ]
)
_TRAILING_PARENTHESIS = re.compile(r"\s*\([^()]*\)\s*$")


def is_role(name: str) -> bool:
    """Whether ``name`` names a part a system plays (Baseline, Ours, anonymous, Human) rather
    than one system: see :data:`ROLE_NAMES`."""
    return normalise(_TRAILING_PARENTHESIS.sub("", name)) in ROLE_NAMES
