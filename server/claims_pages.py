"""Where sources disagree, on the site: what the pages of a benchmark, a method, a result and a
claim show of the claims (every source's value for one result, ``queries/claims.rq``).

Each builder returns what its page's template draws: claims (:class:`server.claims.Claim`),
their values each with the names of its source page and paper (``queries/site/results.rq``).
Values are shown as published; a fraction read as a percentage is shown as published and as
compared. A claim's page is ``/page/claim/<hex>/method/<name>``; its values come from the
claims of its method, the headline chosen by the default rule.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox
from flask import url_for

from benchgraph import vocab as V
from server import claims
from server.claims import Claim, Row
from server.errors import ApiError
from server.site_queries import select

# The rule the site's headlines follow (the named query claims' default, prefer=origin).
RULE = (
    "The headline is the value the claim is ranked by, chosen by its source: the origin "
    "paper's own figure first, then a verified figure, then another paper's, then an "
    "evaluation tool's, then a model card's, then an aggregator's; ties go to the latest date, "
    "then to the lowest result IRI. A value agrees with it when the two are equal at the "
    "coarser of their two published precisions."
)


def _names(rows: Iterable[Row]) -> dict[str, Row]:
    """What each result's source page and paper are called (rows of ``results``)."""
    return {
        row["result"]: {
            "paperName": row.get("paperLabel") or row.get("paperId", ""),
            "sourceTitle": row.get("sourceTitle", ""),
            "sourceUrl": row.get("sourceUrl", ""),
        }
        for row in rows
    }


def _named(found: dict[str, Claim], names: dict[str, Row]) -> dict[str, Claim]:
    """``found`` with each value given the names of its source page and paper."""
    return {
        iri: Claim(
            iri,
            tuple({**names.get(v["result"], {}), **v} for v in claim.values),
            claim.disagreement,
        )
        for iri, claim in found.items()
    }


def _contested(found: dict[str, Claim]) -> list[Claim]:
    """The claims with values from more than one source page."""
    return [claim for claim in found.values() if claim.sources > 1]


def _unavailable(error: ApiError, **empty: object) -> dict[str, object]:
    """What a page shows when the store could not answer for its claims (a time-out, a remote
    store's failure): the rest of the page, and why these are missing. Raises ``error`` when
    it is the request's own (4xx)."""
    if error.status < 500:
        raise error
    return {**empty, "rule": RULE, "unavailable": error.message}


def for_benchmark(benchmark: str) -> dict[str, object]:
    """A benchmark's page: each result's claim (``claim_of``) and the claims with values from
    more than one source (``contested``), by metric and method as ``claims`` orders them."""
    node = ox.NamedNode(benchmark)
    names = _names(select("results", role=ox.NamedNode(V.benchmark), resource=node))
    found = _named(claims.of_benchmark(benchmark), names)
    claim_of = {v["result"]: iri for iri, claim in found.items() for v in claim.values}
    return {"claim_of": claim_of, "contested": _contested(found), "rule": RULE}


def _on(benchmarks: Iterable[str]) -> dict[str, Claim]:
    """Every claim on each of ``benchmarks`` (IRIs), its values named: per benchmark one
    ``claims``, one ``disagreements`` and one ``results`` lookup, shared with its page."""
    found: dict[str, Claim] = {}
    for benchmark in sorted(set(benchmarks)):
        node = ox.NamedNode(benchmark)
        names = _names(select("results", role=ox.NamedNode(V.benchmark), resource=node))
        found.update(_named(claims.of_benchmark(benchmark), names))
    return found


def for_method(method: str) -> dict[str, object]:
    """A method's page: its claims with values from more than one source (``contested``),
    read from the claims of the benchmarks it has results on (looked up by benchmark, as their
    pages look them up, not by method, which reads every result)."""
    results = select("results", role=ox.NamedNode(V.method), resource=ox.NamedNode(method))
    mine = {row["result"] for row in results}
    try:
        on = _on(row["benchmark"] for row in results)
    except ApiError as error:
        return _unavailable(error, contested=[])
    found = {
        iri: claim
        for iri, claim in on.items()
        if any(v["result"] in mine or v.get("canonicalMethod") == method for v in claim.values)
    }
    return {"contested": _contested(found), "rule": RULE}


def for_result(result: str, benchmark: str) -> dict[str, object]:
    """A result's page: its claim (``claim``: None for a result no claim holds), all its values
    side by side, this one among them."""
    try:
        found = _on([benchmark]) if benchmark else {}
    except ApiError as error:
        return _unavailable(error, claim=None)
    mine = next((c for c in found.values() if any(v["result"] == result for v in c.values)), None)
    return {"claim": mine, "rule": RULE}


def claim(iri: str) -> tuple[str, dict[str, object]]:
    """A claim's page: its title, and its values side by side (``claim``), the rule that chose
    its headline and the named query behind it (``query``). Raises ApiError (404) when no
    value is given for the claim."""
    method = claims.method_of(iri, V.ID)
    stated = select("claim", claim=ox.NamedNode(iri)) if method else []
    # by the benchmarks of the results that state it; a claim read through an accepted alias
    # (stated by none) by its method's claims
    found = _on(r["benchmark"] for r in stated).get(iri) if stated else None
    if found is None and method:
        found = claims.of_method(method).get(iri)
    if found is None:
        raise ApiError(404, f"there is no claim <{iri}> in this store")
    benchmark = found.first.get("benchmarkIRI", "")
    shown = _on([benchmark]).get(iri, found)
    query = url_for("named.run", name="claims", benchmark=benchmark, method=method)
    return f"Claim: {found.title}", {"claim": shown, "rule": RULE, "query": query}
