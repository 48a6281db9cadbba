"""The changes feed's contradictions: a new source that contradicts a standing figure.

A result the feed's window added contradicts a standing figure when its claim (see
``queries/claims.rq``) already held a value from another page when it came, and it does not
agree with the claim's headline as the claim then stood (the headline of the standing values
and the new one, by the default rule); or, when the new value became that headline, with the
headline before it. A value is *standing* for a new one when it comes from another page and
the window did not add it, or added it before the new one (by the store's load times).

Found cheaply: only the results the window added are looked at, and only their claims; each
benchmark that one of them is on costs one ``claims`` lookup (``benchmark`` bound, cached per
store generation like any answer), and each source named in an entry one name lookup.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

import pyoxigraph as ox

from benchgraph import queries
from server import claims
from server.backend import Backend

Row = dict[str, str]


class Change(Protocol):
    """What the feed knows of one change (:class:`server.feed.Change`)."""

    @property
    def change(self) -> str: ...
    @property
    def result(self) -> str: ...
    @property
    def benchmark(self) -> str: ...
    @property
    def loaded_at(self) -> str: ...
    @property
    def dated(self) -> str: ...


@dataclass(frozen=True)
class Side:
    """One of the two values: as published, its role, its result and its source page."""

    value: str
    role: str
    result: str
    source: str
    source_name: str

    @classmethod
    def of(cls, row: Row, name: Callable[[str], str]) -> Side:
        """The side a ``claims`` row gives, its source named by ``name``."""
        source = row.get("source", "")
        return cls(row.get("value", ""), row.get("role", ""), row["result"], source, name(source))

    def said(self) -> str:
        """ "80.8 (origin paper, from Question Answering on SQuAD1.1)"."""
        return f"{self.value} ({self.role}, from {self.source_name})"


@dataclass(frozen=True)
class Contradiction:
    """A new value that does not agree with the standing figure of its claim."""

    claim: str
    method: str
    benchmark_label: str
    metric_label: str
    new: Side
    standing: Side
    became_headline: bool  # the new value heads the claim: the standing one headed it before
    loaded_at: str
    dated: str  # the time the entry is dated by: when the new value was loaded (or changed)
    change = "contradiction"  # the entry's category

    @property
    def id(self) -> str:
        """The entry's id: the same for the same claim and the same two results."""
        text = f"{self.claim}\n{self.new.result}\n{self.standing.result}"
        return f"urn:benchgraph:contradiction:{hashlib.sha256(text.encode()).hexdigest()[:32]}"

    @property
    def page(self) -> str:
        """The IRI whose site page the entry links to: the claim's."""
        return self.claim

    @property
    def title(self) -> str:
        """ "BERT-Base on Question Answering on SQuAD1.1: 81.2 contradicts 80.8 (EM)"."""
        return (
            f"{self.method} on {self.benchmark_label}: {self.new.value} contradicts "
            f"{self.standing.value} ({self.metric_label})"
        )

    def text(self) -> str:
        """The entry's content: both values, who gave them and which headed the claim."""
        standing = "the headline before it" if self.became_headline else "the headline"
        learned = f"Loaded into the store at {self.loaded_at}.\n" if self.loaded_at else ""
        now = " It is now the claim's headline." if self.became_headline else ""
        return (
            f"{self.title}.\n"
            f"New: {self.new.said()}.{now}\n"
            f"Standing: {self.standing.said()}, {standing}.\n"
            f"{learned}"
            f"Metric: {self.metric_label}. Claim: {self.claim}"
        )


def found(backend: Backend, changes: Iterable[Change]) -> list[Contradiction]:
    """The contradictions the results added among ``changes`` (the window's) bring, each dated
    as the change that brought it is: one ``claims`` lookup per benchmark with a result
    added."""
    added = {c.result: c for c in changes if c.change == "added" and c.benchmark}
    if not added:
        return []
    order = {result: c.loaded_at for result, c in added.items()}

    def name(source: str) -> str:
        names = backend.lookup(queries.internal("name-of"), {"resource": ox.NamedNode(source)})
        return names[0] if names and names[0] else source.rsplit("/", 1)[-1]

    contradictions = []
    for benchmark in sorted({c.benchmark for c in added.values()}):
        by_claim = claims.grouped(claims.answer("claims", benchmark=benchmark))
        for claim in by_claim.values():
            for value in claim.values:
                change = added.get(value["result"])
                if change is None:
                    continue
                loaded = order[value["result"]]
                standing = [
                    v
                    for v in claim.values
                    if v.get("source") != value.get("source")
                    and (v["result"] not in order or order[v["result"]] < loaded)
                ]
                then = claims.headline_among([*standing, value])
                if not standing or then is None:
                    continue
                became = then is value
                against = claims.headline_among(standing) if became else then
                if against is None or claims.agree(value, against):
                    continue
                contradictions.append(
                    Contradiction(
                        claim.iri,
                        value.get("methodLabel", ""),
                        value.get("benchmarkLabel", ""),
                        value.get("metricLabel", ""),
                        Side.of(value, name),
                        Side.of(against, name),
                        became,
                        change.loaded_at,
                        change.dated,
                    )
                )
    return contradictions
