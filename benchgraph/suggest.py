"""The names nearest a name that names nothing: what an error suggests instead.

Names are compared case-folded. The nearest come first: those equal but for case, spaces and
punctuation ("genai bench" for "GenAI-Bench"), then those that start with the name given (an
ID's prefix), then the close spellings :func:`difflib.get_close_matches` finds, then those with
a word that starts with it ("laion" in "Prompt Recovery on LAION").
"""

from __future__ import annotations

import difflib
import re
import threading
from collections import Counter, OrderedDict
from collections.abc import Iterable

COUNT = 3  # suggestions one error makes at most
LONGEST = 500  # characters of a name given past which nothing is suggested (no name is so long)
CUTOFF = 0.6  # the least difflib ratio of a close spelling
_PIECES = 6  # three-letter pieces of a name given past which close names are found by them
_REMEMBERED = 256  # answers kept per set of names (a name asked for again costs nothing)
_PUNCTUATION = re.compile(r"[\W_]+")


def fold(text: str) -> str:
    """``text`` case-folded, without spaces or punctuation."""
    return _PUNCTUATION.sub("", text.casefold())


def _words(text: str) -> str:
    """``text`` case-folded, its words each after one space."""
    return " " + _PUNCTUATION.sub(" ", text.casefold()).strip()


def _trigrams(text: str) -> set[str]:
    return {text[i : i + 3] for i in range(len(text) - 2)}


class Names:
    """The names things of one kind go by, to find the nearest of them to a name (thread-safe).

    Made once per store generation (at 10,000 pages a kind has some 50,000 names): the close
    spellings are looked for only among the names that share enough three-letter pieces with
    the name given, and each answer is remembered, up to a few hundred.
    """

    def __init__(self, names: Iterable[str]) -> None:
        self.names = sorted(set(names), key=lambda n: (n.casefold(), n))
        self._folded = [n.casefold() for n in self.names]
        self._words = [_words(n) for n in self.names]
        self._bare = [fold(n) for n in self.names]
        self._pieces: dict[str, list[int]] = {}
        for i, bare in enumerate(self._bare):
            for piece in _trigrams(bare):
                self._pieces.setdefault(piece, []).append(i)
        self._answers: OrderedDict[str, list[str]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.names)

    def nearest(self, text: str, count: int = COUNT) -> list[str]:
        """Up to ``count`` (at most :data:`COUNT`) names nearest ``text``, nearest first; none
        when none is near."""
        text = text.strip()
        if not text or len(text) > LONGEST:
            return []
        with self._lock:
            found = self._answers.get(text)
            if found is not None:
                self._answers.move_to_end(text)
                return found[:count]
        found = self._nearest(text)
        with self._lock:
            self._answers[text] = found
            while len(self._answers) > _REMEMBERED:
                self._answers.popitem(last=False)
        return found[:count]

    def _nearest(self, text: str) -> list[str]:
        bare, words = fold(text), _words(text)
        same = [i for i, b in enumerate(self._bare) if bare and b == bare]
        starting = [i for i, b in enumerate(self._bare) if bare and b.startswith(bare)]
        holding = [i for i, w in enumerate(self._words) if bare and words in w]
        found: list[str] = []
        for i in (*same, *starting[:COUNT], *self._close(text), *holding[:COUNT]):
            if self.names[i] not in found:
                found.append(self.names[i])
        return found[:COUNT]

    def _close(self, text: str) -> list[int]:
        """The names difflib finds close to ``text`` (case-folded), closest first."""
        folded = text.casefold()
        pieces = _trigrams(fold(text))
        if len(pieces) >= _PIECES:  # a close name shares many of its three-letter pieces
            shared = Counter(i for piece in pieces for i in self._pieces.get(piece, ()))
            candidates = [i for i, n in shared.items() if 2 * n >= len(pieces)]
        else:  # a short one can share none ("laoin", "laion"): those of a length it can be close to
            shortest, longest = 3 * len(folded) / 7, 7 * len(folded) / 3
            candidates = [i for i, f in enumerate(self._folded) if shortest <= len(f) <= longest]
        by_folded: dict[str, list[int]] = {}
        for i in candidates:
            by_folded.setdefault(self._folded[i], []).append(i)
        close = difflib.get_close_matches(folded, list(by_folded), n=COUNT, cutoff=CUTOFF)
        return [i for f in close for i in sorted(by_folded[f])]
