"""Names and IDs shared by all pages of a corpus, drawn with Zipf-like popularity.

A method has one name, one origin paper (or none) and one implementation link on every page
that shows it; a paper is a 24-hex ID. Both are derived from the seed and an index, so nothing
about them needs to be remembered between pages.
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
import math
import random
import re
from dataclasses import dataclass

from bench import catalogue as C

ORIGIN_SHARE = 0.85  # methods with a known origin paper
IMPLEMENTATION_SHARE = 0.2  # methods with an implementation link

_FOLD = re.compile(r"[\W_]+")


@functools.cache
def fold(text: str) -> str:
    """The folded form of a name (case and punctuation), which decides when names are one."""
    return _FOLD.sub("-", text.casefold()).strip("-")


def digest(*parts: object, size: int) -> str:
    """``size`` bytes of a hash of ``parts``, as hex: a stable, seed-dependent identifier."""
    return hashlib.blake2b("/".join(map(str, parts)).encode(), digest_size=size).hexdigest()


def zipf(count: int, exponent: float) -> list[float]:
    """Cumulative Zipf weights for ranks 1..count."""
    return list(itertools.accumulate(1.0 / rank**exponent for rank in range(1, count + 1)))


def draw(rng: random.Random, cumulative: list[float]) -> int:
    """A rank (from 0) drawn with the weights whose running sums are ``cumulative``."""
    return bisect.bisect_right(cumulative, rng.random() * cumulative[-1])


@dataclass(frozen=True)
class Method:
    """A method as every page that shows it names it."""

    name: str
    origin: str | None  # 24-hex paper ID
    implementation: str | None


class Pools:
    """Methods and papers shared by all pages, drawn with Zipf-like popularity."""

    def __init__(self, seed: int, pages: int) -> None:
        self.seed = seed
        bases = {fold(p + r): p + r for p in C.METHOD_PREFIXES for r in C.METHOD_ROOTS if p != r}
        self._bases = sorted(bases.values())
        rng = random.Random(f"{seed}/pools")
        strides = [s for s in (7, 11, 13, 17, 19, 23, 29, 31) if math.gcd(s, len(self._bases)) == 1]
        self._stride = rng.choice(strides)
        self._offset = rng.randrange(len(self._bases))
        self.paper_count = max(40, 3 * pages)
        self.method_count = len(C.FAMOUS_METHODS) + max(60, 5 * pages)
        self._method_weights = zipf(self.method_count, 1.0)
        self._paper_weights = zipf(self.paper_count, 0.8)
        self._methods: dict[int, Method] = {}
        # Each research area ranks the shared methods its own way: rank r of area d is method
        # (r * stride_d + offset_d) mod count, a permutation since stride_d is coprime to count.
        self._orders: list[tuple[int, int]] = []
        for _ in C.DOMAINS:
            stride = rng.randrange(1, self.method_count)
            while math.gcd(stride, self.method_count) != 1:
                stride += 1
            self._orders.append((stride % self.method_count, rng.randrange(self.method_count)))

    def paper(self, index: int) -> str:
        """The 24-hex ID of paper ``index``: a time-like prefix, unique per index, and a hash."""
        return f"{0x64000000 + index * 2713:08x}{digest(self.seed, 'paper', index, size=8)}"

    def draw_paper(self, rng: random.Random) -> str:
        return self.paper(draw(rng, self._paper_weights))

    def draw_method(self, rng: random.Random, domain: int) -> Method:
        """A method drawn by its popularity in research area ``domain``."""
        stride, offset = self._orders[domain]
        rank = draw(rng, self._method_weights)
        return self.method((rank * stride + offset) % self.method_count)

    def method(self, index: int) -> Method:
        """Method ``index``, with the same name, origin and implementation on every page."""
        found = self._methods.get(index)
        if found is None:
            rng = random.Random(f"{self.seed}/method/{index}")
            name = self._name(index)
            origin = self.paper(rng.randrange(self.paper_count))
            repo = f"https://github.com/{rng.choice(C.GITHUB_ORGS)}/{fold(name)}"
            found = Method(
                name,
                origin if rng.random() < ORIGIN_SHARE else None,
                repo if rng.random() < IMPLEMENTATION_SHARE else None,
            )
            self._methods[index] = found
        return found

    def _name(self, index: int) -> str:
        if index < len(C.FAMOUS_METHODS):
            return C.FAMOUS_METHODS[index]
        index -= len(C.FAMOUS_METHODS)
        base = self._bases[(index * self._stride + self._offset) % len(self._bases)]
        cycle = index // len(self._bases)
        variants = C.METHOD_VARIANTS
        return base + (variants[cycle] if cycle < len(variants) else f"-v{cycle - 10}")
