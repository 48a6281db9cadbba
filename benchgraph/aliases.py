"""Aliases as reviewed data: records that two IRIs name the same thing, never silent merges.

An alias record (``bg:Alias``, in the alias graph :data:`benchgraph.graphs.ALIASES`) says its
subject is another name of its target, who said so and when, on what evidence, with what
confidence, and where it stands: proposed, accepted or rejected (with who reviewed it, when).
The pages' own statements are never rewritten; queries that follow aliases read accepted
records only, so accepted records form a forest of depth one:

- a subject has at most one accepted target, and
- the target of an accepted record is never the subject of one (nor a subject the target).

Accepting a record that would break either is **refused**, with a message that says which
record stands in the way and what to do (accept the alias to the end of the chain, or reject
the other record first); nothing is resolved silently. Subject and target are of one kind
(both ``bg:Method``, both ``bg:Paper`` or both ``bg:Benchmark``) and both in the store.

The operations here read the store, decide, and write one :class:`Change` to the alias graph;
the command line (``benchgraph alias``) and the write API call them. Files of records are read,
written and imported by :mod:`benchgraph.alias_files`; the possible-duplicate findings become
proposals in :mod:`benchgraph.alias_findings`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

import pyoxigraph as ox

from benchgraph import graphs, iris, queries, validation
from benchgraph import vocab as V
from benchgraph.store import Change, Store

STATUSES = {"proposed": V.Proposed, "accepted": V.Accepted, "rejected": V.Rejected}
KINDS = {V.Method: "method", V.Paper: "paper", V.Benchmark: "benchmark"}
RECORDS = V.ID + "alias/"
_DECIMAL = ox.NamedNode(V.XSD + "decimal")
_DATETIME = ox.NamedNode(V.XSD + "dateTime")


class AliasError(Exception):
    """An alias operation refused, nothing written. ``reason`` is ``"unknown"`` (a name, an IRI
    or a record the store does not hold), ``"refused"`` (the rules above, or a name that names
    several things) or ``"invalid"`` (a value that cannot be a record's)."""

    def __init__(self, message: str, reason: str = "refused") -> None:
        super().__init__(message)
        self.reason = reason


def record_iri(subject: str, target: str) -> str:
    """The IRI of the record that ``subject`` is another name of ``target``: ``alias/`` and the
    first 16 hex digits of the SHA-256 of ``"<subject> <target>"``."""
    digest = hashlib.sha256(f"{subject} {target}".encode()).hexdigest()
    return RECORDS + digest[:16]


@dataclass(frozen=True)
class Alias:
    """One alias record. ``status`` is a key of :data:`STATUSES`; times are xsd:dateTime text."""

    subject: str
    target: str
    status: str
    creator: str
    created: str
    evidence: str = ""
    confidence: Decimal | None = None
    reviewed_by: str = ""
    reviewed_at: str = ""

    @property
    def iri(self) -> str:
        return record_iri(self.subject, self.target)

    @property
    def id(self) -> str:
        """The record's 16 hex digits, as the commands print it."""
        return self.iri[len(RECORDS) :]

    def reviewed(self, status: str, by: str, when: str) -> Alias:
        """This record with ``status``, reviewed by ``by`` at ``when``."""
        return replace(self, status=status, reviewed_by=by, reviewed_at=when)

    def triples(self) -> list[ox.Triple]:
        """The record as the alias graph holds it."""
        node = ox.NamedNode(self.iri)

        def said(predicate: str, value: ox.NamedNode | ox.Literal) -> ox.Triple:
            return ox.Triple(node, ox.NamedNode(predicate), value)

        out = [
            said(V.type_, ox.NamedNode(V.Alias)),
            said(V.aliasSubject, ox.NamedNode(self.subject)),
            said(V.aliasTarget, ox.NamedNode(self.target)),
            said(V.aliasStatus, ox.NamedNode(STATUSES[self.status])),
            said(V.creator, ox.Literal(self.creator)),
            said(V.created, ox.Literal(self.created, datatype=_DATETIME)),
        ]
        if self.evidence:
            out.append(said(V.evidence, ox.Literal(self.evidence)))
        if self.confidence is not None:
            out.append(said(V.confidence, ox.Literal(str(self.confidence), datatype=_DECIMAL)))
        if self.reviewed_by:
            out.append(said(V.reviewedBy, ox.Literal(self.reviewed_by)))
        if self.reviewed_at:
            out.append(said(V.reviewedAt, ox.Literal(self.reviewed_at, datatype=_DATETIME)))
        return out

    def as_dict(self) -> dict[str, str | None]:
        """The record as JSON and CSV give it."""
        return {
            "id": self.id,
            "alias": self.iri,
            "subject": self.subject,
            "target": self.target,
            "status": self.status,
            "evidence": self.evidence,
            "confidence": None if self.confidence is None else str(self.confidence),
            "creator": self.creator,
            "created": self.created,
            "reviewedBy": self.reviewed_by or None,
            "reviewedAt": self.reviewed_at or None,
        }


@dataclass(frozen=True)
class Stored:
    """A record as the store holds it: the record, and the statements that say it."""

    alias: Alias
    triples: tuple[ox.Triple, ...]


@dataclass(frozen=True)
class Outcome:
    """What an operation did: ``status`` ("proposed", "accepted", "rejected", or "unchanged"
    when the store held it so already) and the record as it now is."""

    status: str
    alias: Alias

    @property
    def message(self) -> str:
        alias = self.alias
        said = "" if self.status != "unchanged" else " (unchanged)"
        return f"{alias.id} {alias.status}{said}: {alias.subject} -> {alias.target}"


def parse_record(iri: str, statements: Iterable[tuple[str, ox.NamedNode | ox.Literal]]) -> Alias:
    """The record ``iri`` from its statements (predicate IRI, object). Raises AliasError
    ("invalid") saying what is missing or wrong; the shapes say the same of the graph."""
    values: dict[str, list[ox.NamedNode | ox.Literal]] = {}
    for predicate, value in statements:
        values.setdefault(predicate, []).append(value)

    def one(predicate: str, name: str, required: bool = True) -> str:
        found = values.get(predicate, [])
        if len(found) > 1 or (required and not found):
            raise AliasError(f"the record <{iri}> needs exactly one {name}", "invalid")
        return found[0].value if found else ""

    status = {v: k for k, v in STATUSES.items()}.get(one(V.aliasStatus, "status (bg:aliasStatus)"))
    if status is None:
        raise AliasError(f"the record <{iri}> has a status that is none of {_listed()}", "invalid")
    confidence = one(V.confidence, "confidence", required=False)
    alias = Alias(
        subject=one(V.aliasSubject, "subject (bg:aliasSubject)"),
        target=one(V.aliasTarget, "target (bg:aliasTarget)"),
        status=status,
        creator=one(V.creator, "creator (dcterms:creator)"),
        created=one(V.created, "creation time (dcterms:created)"),
        evidence=" ".join(v.value for v in values.get(V.evidence, [])),
        confidence=checked_confidence(confidence) if confidence else None,
        reviewed_by=one(V.reviewedBy, "reviewer", required=False),
        reviewed_at=one(V.reviewedAt, "review time", required=False),
    )
    if alias.iri != iri:
        raise AliasError(
            f"the record <{iri}> should be named <{alias.iri}>, from its subject and target",
            "invalid",
        )
    return alias


def _listed() -> str:
    return ", ".join(STATUSES)


def checked_confidence(text: str) -> Decimal:
    """``text`` as a confidence, a decimal from 0 to 1. Raises AliasError ("invalid")."""
    try:
        value = Decimal(text.strip())
    except ArithmeticError:
        value = Decimal("NaN")
    if not value.is_finite() or not Decimal(0) <= value <= Decimal(1):
        raise AliasError(f"a confidence is a decimal from 0 to 1, not {text!r}", "invalid")
    return value


def read(store: Store) -> dict[str, Stored]:
    """Every record of the alias graph, by IRI. Raises AliasError for a record the graph holds
    that is not one (written by hand), StoreError."""
    answer = store.query(
        queries.internal("alias-records"),
        {"aliases": ox.NamedNode(graphs.ALIASES)},
        default_graph=(),
    )
    assert isinstance(answer, ox.QuerySolutions)
    said: dict[str, list[ox.Triple]] = {}
    for row in answer:
        node, predicate, value = row["alias"], row["p"], row["o"]
        if isinstance(node, ox.NamedNode) and isinstance(predicate, ox.NamedNode):
            said.setdefault(node.value, []).append(ox.Triple(node, predicate, value))
    return {
        iri: Stored(parse_record(iri, [(t.predicate.value, t.object) for t in ts]), tuple(ts))  # type: ignore[misc]
        for iri, ts in said.items()
    }


def kind_of(store: Store, iri: str) -> str | None:
    """The kind of thing ``iri`` is in the store (a class of :data:`KINDS`), or None."""
    answer = store.query(queries.internal("alias-kind"), {"iri": ox.NamedNode(iri)})
    assert isinstance(answer, ox.QuerySolutions)
    found = {row["kind"].value for row in answer if isinstance(row["kind"], ox.NamedNode)}
    return next((kind for kind in KINDS if kind in found), None)


def resolve(store: Store, text: str) -> tuple[str, str]:
    """The IRI and kind of what ``text`` names: an IRI, or a name as the named queries take
    it (a method's name, a paper's 24-hex ID or title, a benchmark's label or dataset's name).
    Raises AliasError: "unknown" when it names nothing, "refused" when it names several."""
    text = text.strip()
    if not text:
        raise AliasError("a name or an IRI is needed", "invalid")
    if text.startswith(("http://", "https://")):
        candidates = [text]
    else:
        named = store.query(queries.internal("benchmarks-named"), {"name": ox.Literal(text)})
        assert isinstance(named, ox.QuerySolutions)
        benchmarks = [row[0].value for row in named if isinstance(row[0], ox.NamedNode)]
        candidates = list(
            dict.fromkeys([iris.method(text), iris.paper_from_user(text), *benchmarks])
        )
    found = [(iri, kind) for iri in candidates if (kind := kind_of(store, iri))]
    if not found:
        said = "has the IRI" if candidates == [text] else "is named"
        raise AliasError(f"no method, paper or benchmark {said} {text!r}", "unknown")
    if len(found) > 1:
        listed = ", ".join(f"<{iri}> ({KINDS[kind]})" for iri, kind in found)
        raise AliasError(f"{text!r} names {len(found)} things ({listed}); give the IRI of one")
    return found[0]


def find(records: Mapping[str, Stored], given: str) -> Stored:
    """The record ``given`` names: its IRI or its 16 hex digits. Raises AliasError."""
    iri = given.strip() if given.strip().startswith(RECORDS) else RECORDS + given.strip()
    if iri not in records:
        raise AliasError(f"no alias record {given.strip()!r}", "unknown")
    return records[iri]


def pair(store: Store, subject: str, target: str) -> tuple[str, str]:
    """The IRIs of ``subject`` and ``target`` (names or IRIs), shown to be two things of one
    kind in the store. Raises AliasError."""
    (s, s_kind), (t, t_kind) = resolve(store, subject), resolve(store, target)
    if s == t:
        raise AliasError(f"<{s}> cannot be another name of itself")
    if s_kind != t_kind:
        raise AliasError(
            f"<{s}> is a {KINDS[s_kind]} and <{t}> a {KINDS[t_kind]}: an alias names two "
            "things of one kind"
        )
    return s, t


def conflict(accepted: Iterable[Alias], alias: Alias) -> str | None:
    """Why accepting ``alias`` beside the ``accepted`` records would break the forest of
    depth one (see the module), or None when it does not."""
    for other in accepted:
        if other.iri == alias.iri:
            continue
        if other.subject == alias.subject:
            return (
                f"<{alias.subject}> is already accepted as another name of <{other.target}> "
                f"(record {other.id}); reject that record first"
            )
        if other.subject == alias.target:
            return (
                f"<{alias.target}> is itself accepted as another name of <{other.target}> "
                f"(record {other.id}): accept <{alias.subject}> as another name of "
                f"<{other.target}> instead"
            )
        if other.target == alias.subject:
            return (
                f"<{alias.subject}> is the accepted name of <{other.subject}> (record "
                f"{other.id}): an accepted name is never another name itself; reject that "
                "record first, or accept its subject as another name of "
                f"<{alias.target}>"
            )
    return None


def check_shapes(records: Sequence[Alias], where: str) -> None:
    """Validate ``records`` against the shapes. Raises AliasError ("invalid") with the first
    violation, naming ``where``."""
    triples = [t for alias in records for t in alias.triples()]
    conforms, report = validation.validate_triples(triples, where)
    if not conforms:
        first = next(f for f in report.findings if f.severity == "Violation")
        raise AliasError(f"{where}: {first.text()}", "invalid")


def _write(store: Store, before: Stored | None, after: Alias) -> None:
    check_shapes([after], f"the record {after.id}")
    deleted = {graphs.ALIASES: list(before.triples)} if before is not None else {}
    store.write(Change({}, added={graphs.ALIASES: after.triples()}, deleted=deleted))


def propose(
    store: Store,
    subject: str,
    target: str,
    *,
    by: str,
    when: str,
    evidence: str = "",
    confidence: Decimal | None = None,
) -> Outcome:
    """Record that ``subject`` may be another name of ``target`` (names or IRIs), proposed.
    A pair the store already has a record of is left as it is ("unchanged"): a proposal
    never overwrites a record, reviewed or not. Raises AliasError, StoreError."""
    s, t = pair(store, subject, target)
    records = read(store)
    known = records.get(record_iri(s, t))
    if known is not None:
        return Outcome("unchanged", known.alias)
    alias = Alias(s, t, "proposed", by, when, evidence, confidence)
    _write(store, None, alias)
    return Outcome("proposed", alias)


def review(store: Store, given: Sequence[str], status: str, *, by: str, when: str) -> Outcome:
    """Accept or reject (``status``) the record ``given`` names: its ID or IRI (one value), or
    its subject and target (two names or IRIs). Accepting is refused when it would break the
    forest of depth one (see :func:`conflict`). Raises AliasError, StoreError."""
    records = read(store)
    if len(given) == 1:
        stored = find(records, given[0])
    elif len(given) == 2:
        s, t = pair(store, given[0], given[1])
        if record_iri(s, t) not in records:
            raise AliasError(
                f"no alias record says <{s}> is another name of <{t}>; propose it first",
                "unknown",
            )
        stored = records[record_iri(s, t)]
    else:
        raise AliasError("name a record by its ID, or by its subject and target", "invalid")
    alias = stored.alias
    if alias.status == status:
        return Outcome("unchanged", alias)
    if status == "accepted":
        kinds = {kind_of(store, alias.subject), kind_of(store, alias.target)}
        if None in kinds or len(kinds) > 1:
            raise AliasError(
                f"record {alias.id} not accepted: its subject and target are no longer two "
                "things of one kind in the store"
            )
        accepted = (r.alias for r in records.values() if r.alias.status == "accepted")
        why = conflict(accepted, alias)
        if why is not None:
            raise AliasError(f"record {alias.id} not accepted: {why}")
    after = alias.reviewed(status, by, when)
    _write(store, stored, after)
    return Outcome(status, after)


def listed(store: Store, status: str | None = None) -> list[Alias]:
    """The records, of ``status`` only when given, by subject and target."""
    found = [r.alias for r in read(store).values() if status in (None, r.alias.status)]
    return sorted(found, key=lambda a: (a.subject, a.target))
