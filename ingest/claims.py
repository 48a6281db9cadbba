"""What a page says of the claims its results make: which results may be gathered with another
source's, who gave each value and when (see ``bg:claim`` and queries/claims.rq).

A claim is one method's result on one benchmark, for one metric, under one protocol and subset.
A result's name singles out no system, and its result makes a claim of its own, when the name is
a role (:func:`benchgraph.names.is_role`) or when the page gives it to more than one result of
the same claim key (several leaderboard submissions called "anonymous", or variants of one
method run under other settings).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from benchgraph import iris
from benchgraph.names import is_role, normalise
from ingest.records import Benchmark, Page, ResultRecord

# The formats evaluation tools write: a value read from one was measured by the tool.
TOOL_FORMATS = frozenset({"lm-eval", "helm", "mteb", "eee"})

ClaimKey = tuple[str, Benchmark | None, str, str, str]


@dataclass(frozen=True)
class Claimed:
    """The claim of one result as its page states it."""

    claim: str  # the claim's IRI
    alone: bool  # its name singles out no system: a claim of its own
    role: str  # who gave the value
    reported_on: str | None  # when, as an ISO date


def claim_key(page: Page, r: ResultRecord) -> ClaimKey:
    """What makes two of a page's results claims about one result: the method's name, the
    benchmark, the metric, the protocol and the subset."""
    config = r.configuration
    bench = r.benchmark or page.benchmark
    return (normalise(r.method), bench, r.metric, config.protocol or "", config.subset or "")


def repeated_names(page: Page) -> set[ClaimKey]:
    """The claim keys the page gives to more than one result."""
    counts = Counter(claim_key(page, r) for r in page.results)
    return {key for key, count in counts.items() if count > 1}


def role(page: Page, r: ResultRecord) -> str:
    """Who gave the value, as the page says: an evaluation tool (its format is a tool's),
    a model card, an aggregator (a document that names no paper), the method's origin paper
    (the page gives the method that paper as its origin), or another paper."""
    if page.format in TOOL_FORMATS:
        return "evaluation tool"
    if r.reported_in.kind == "model card":
        return "model card"
    if r.reported_in.kind == "document":
        return "aggregator"
    if r.origin is not None and iris.paper(r.origin) == iris.paper(r.reported_in):
        return "origin paper"
    return "another paper"


def claimed(page: Page, r: ResultRecord, b: Benchmark, repeated: set[ClaimKey]) -> Claimed:
    """The claim the result ``r`` of ``page`` makes on the benchmark ``b``, given the page's
    ``repeated`` claim keys (:func:`repeated_names`)."""
    result = iris.result(r.source_id)
    alone = is_role(r.method) or claim_key(page, r) in repeated
    parts = (r.configuration.protocol or "", r.configuration.subset or "")
    metric = iris.metric(b, r.metric)
    claim = iris.claim(iris.method(r.method), iris.benchmark(b), metric, parts,
                       result if alone else "")  # fmt: skip
    when = r.result_date or r.reported_in.date or page.data_updated
    return Claimed(claim, alone, role(page, r), when[:10] if when else None)
