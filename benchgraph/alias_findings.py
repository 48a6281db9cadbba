"""Proposed alias records from the possible-duplicate checks: each near miss that
``check-possible-duplicate-methods`` and ``check-possible-duplicate-papers`` find (the
warnings of ``benchgraph validate``) recorded as a proposal for a curator to review, with the
finding as its evidence (see :mod:`benchgraph.aliases`)."""

from __future__ import annotations

from decimal import Decimal

import pyoxigraph as ox

from benchgraph import graphs, queries
from benchgraph.aliases import Alias, check_shapes, kind_of, read, record_iri
from benchgraph.store import Change, Store

# The two checks whose findings become proposed records, and how sure each reason is.
CHECKS = ("check-possible-duplicate-methods", "check-possible-duplicate-papers")
REASONS = {
    "the same arXiv ID": Decimal("0.9"),
    "the same URL": Decimal("0.8"),
    "the same letters and digits": Decimal("0.8"),
    "the same title": Decimal("0.7"),
    "the same name but for a trailing parenthesis": Decimal("0.5"),
}
FOUND_BY = "benchgraph alias propose-from-findings"


def findings(store: Store) -> list[tuple[str, str, str, Decimal]]:
    """The pairs the possible-duplicate checks find (:data:`CHECKS`), each once: subject and
    target (the pair in IRI order, the later taken as the other name), the finding as
    evidence and its confidence (:data:`REASONS`, the highest of the finding's reasons)."""
    pairs: dict[tuple[str, str], tuple[str, Decimal]] = {}
    for name in CHECKS:
        named = queries.find(name)
        answer = store.query(named.text)
        assert isinstance(answer, ox.QuerySolutions)
        focus = answer.variables[0].value
        for row in answer:
            one, others, match = row[focus], row["others"], row["match"]
            if not isinstance(one, ox.NamedNode) or others is None:
                continue
            reasons = str(getattr(match, "value", ""))
            sure = max((REASONS.get(r, Decimal("0.5")) for r in reasons.split("; ")), default=None)
            for other in str(others.value).split():
                first, second = sorted((one.value, other))
                pairs.setdefault((second, first), (f"{name}: {reasons}", sure or Decimal("0.5")))
    return [(s, t, evidence, sure) for (s, t), (evidence, sure) in sorted(pairs.items())]


def propose_findings(store: Store, *, by: str, when: str) -> tuple[list[Alias], int]:
    """Record each pair :func:`findings` finds as proposed, in one write: the records made,
    and how many pairs were left as they were (a record of the pair, either way round, or two
    things of different kinds). Running it again makes nothing new."""
    records = read(store)
    made: list[Alias] = []
    left = 0
    for s, t, evidence, sure in findings(store):
        known = record_iri(s, t) in records or record_iri(t, s) in records
        s_kind = kind_of(store, s)
        if known or s_kind is None or kind_of(store, t) != s_kind:
            left += 1
            continue
        made.append(Alias(s, t, "proposed", by, when, evidence, sure))
    if made:
        check_shapes(made, "the proposed records")
        added = [t for alias in made for t in alias.triples()]
        store.write(Change({}, added={graphs.ALIASES: added}))
    return made, left
