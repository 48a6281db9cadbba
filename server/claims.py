"""Claims as the site and the changes feed read them: every source's value for one result.

The named queries ``claims`` and ``disagreements`` (``queries/claims.rq``,
``queries/disagreements.rq``) answer, run by a query worker and cached per store generation;
this module groups their rows by claim. For the feed it also says which of some of a claim's
values heads them (:func:`headline_among`: the default rule, ``prefer=origin``) and whether two
values agree (:func:`agree`), as ``claims.rq`` states both (its rows say so only against the
headline of all the values; tests hold the two to each other). Rows are plain text cells by
column, values as published.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from server.backend import current
from server.engine import VALUES, Job
from server.named import asked, cache_key

Row = dict[str, str]
# The precedence of the default rule (prefer=origin), by role: a verified value is 2 whatever
# its role (claims.rq); a role not listed (aggregator, not recorded) is 7.
PRECEDENCE = {"origin paper": 1, "another paper": 3, "evaluation tool": 4, "model card": 6}
CLAIM_PREFIX = "claim/"


def answer(name: str, **values: str) -> list[Row]:
    """The rows of the named query ``name`` asked with ``values`` (text by parameter), each
    cell as text; the answer cached per store generation. Raises ApiError as
    :func:`server.named.asked` does for a value that names nothing or is not valid."""
    backend = current()
    named = backend.catalogue[name]
    question = asked(backend, named, values)
    backend.pool.start()
    key = (
        backend.pool.generation.tag,
        "claims",
        *cache_key(named, question.bindings, VALUES, None),
    )
    found = backend.cache.get(key)
    if found is None:
        found = backend.run(Job.asking(question, VALUES, None, backend.max_rows))
        backend.cache.put(key, found)
    assert found.values is not None
    return [dict(row) for row in found.values.rows]


@dataclass(frozen=True)
class Claim:
    """One claim: its IRI, its values (the headline first) and, where its sources disagree, the
    ``disagreements`` row that says by how much and why (empty when they agree)."""

    iri: str
    values: tuple[Row, ...]
    disagreement: Row

    @property
    def first(self) -> Row:
        """Its first value (the headline): the row that names its method, benchmark, metric."""
        return self.values[0]

    @property
    def headline(self) -> Row:
        """The value the claim is ranked by."""
        return next((v for v in self.values if v.get("headline") == "true"), self.values[0])

    @property
    def sources(self) -> int:
        """How many pages give it a value."""
        return int(self.first.get("sources", "1"))

    @property
    def agreeing(self) -> int:
        """How many of its values agree with the headline (the headline among them)."""
        return sum(v.get("agrees") == "true" for v in self.values)

    @property
    def title(self) -> str:
        """ "BERT-Base on Question Answering on SQuAD1.1, EM"."""
        row = self.first
        return f"{row.get('methodLabel', '')} on {row.get('benchmarkLabel', '')}, " + row.get(
            "metricLabel", ""
        )


def grouped(rows: Iterable[Row], disagreements: Iterable[Row] = ()) -> dict[str, Claim]:
    """The claims of ``claims`` rows by IRI, in the rows' order, each with its headline first
    and its ``disagreements`` row where one is given."""
    by_claim: dict[str, list[Row]] = {}
    for row in rows:
        by_claim.setdefault(row["claim"], []).append(row)
    spread = {row["claim"]: row for row in disagreements}
    return {
        iri: Claim(
            iri,
            tuple(sorted(values, key=lambda v: v.get("headline") != "true")),
            spread.get(iri, {}),
        )
        for iri, values in by_claim.items()
    }


def of_benchmark(benchmark: str) -> dict[str, Claim]:
    """Every claim on ``benchmark`` (an IRI), with its disagreement where its sources differ:
    one ``claims`` and one ``disagreements`` lookup."""
    return grouped(
        answer("claims", benchmark=benchmark), answer("disagreements", benchmark=benchmark)
    )


def of_method(method: str) -> dict[str, Claim]:
    """Every claim about ``method`` (an IRI: the target of its accepted alias, if it has one),
    with its disagreement where its sources differ."""
    return grouped(answer("claims", method=method), answer("disagreements", method=method))


def method_of(claim: str, base: str) -> str:
    """The method a claim IRI names (``<base>claim/<hex>/method/<name>`` names
    ``<base>method/<name>``); "" for an IRI that is no claim's."""
    local = claim.removeprefix(base)
    if not local.startswith(CLAIM_PREFIX) or "/method/" not in local:
        return ""
    return base + "method/" + local.split("/method/", 1)[1]


def precedence(row: Row) -> tuple[int, int, str]:
    """The order of a value by the default rule (prefer=origin), least first: its role (a
    verified value before any but the origin paper's), then the latest date (none last), then
    the lowest result IRI."""
    rank = 2 if row.get("verified") == "true" else PRECEDENCE.get(row.get("role", ""), 7)
    date = row.get("date", "")[:10].replace("-", "")
    return rank, -int(date) if date.isdigit() else 0, row.get("result", "")


def headline_among(values: Iterable[Row]) -> Row | None:
    """The value that heads ``values`` by the default rule; None when there are none."""
    return min(values, key=precedence, default=None)


def _places(row: Row) -> int:
    """The last published place of a value, on the scale compared (a fraction read as a
    percentage: two places fewer)."""
    text = row.get("value", "")
    places = len(text.split(".", 1)[1]) if "." in text else 0
    return places - (2 if row.get("scale") else 0)


def agree(one: Row, other: Row) -> bool:
    """Whether two values of a claim agree: equal at the coarser of their two published
    precisions (they differ, on the scale compared, by no more than half its last place)."""
    try:
        apart = abs(Decimal(one["scaled"]) - Decimal(other["scaled"]))
    except (KeyError, InvalidOperation):
        return False
    coarser = min(max(min(_places(one), _places(other)), -2), 5)
    return apart <= Decimal("0.5").scaleb(-coarser)
