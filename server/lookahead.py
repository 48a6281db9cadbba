"""A named query's parameters looked up and the query run in one trip to a query worker.

A parameter naming a paper, a method or a benchmark is looked up before its query runs
(:func:`benchgraph.queries.resolve`): a value that names nothing is 404 with suggestions, and a
name is replaced by the IRI it names. Looked up on its own, that is a trip to a query worker and
back before the query's own trip: about half of a point query's time over the engine's
(``python -m bench.fixed_cost`` measures it). Most requests give IRIs the store holds, and for
those the lookups change nothing: the question is known before them. So the server asks ahead
(:func:`ahead`): the lookups :func:`benchgraph.queries.resolve` would make if every IRI given
named a thing of its kind, sent with the question they would give, in one job
(:attr:`server.engine.Job.checks`). The worker runs the lookups first and the query only when
each found something (:func:`server.engine.execute`). The server then resolves the parameters
as it always does, from the lookups' answers kept in its cache (no trip), and uses the answer
only when the question it resolves is the one asked ahead; otherwise (a value naming nothing, a
name, a store changed meanwhile) it goes on as without looking ahead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pyoxigraph import NamedNode

from benchgraph import queries
from benchgraph.answering import Question, bound
from benchgraph.queries import Bound, NamedQuery, QueryError
from benchgraph.suggest import Names
from server.engine import Check, Term


class Finder(Protocol):
    """What looks a parameter's value up (:class:`benchgraph.answering.Finder`), and says
    whether a lookup is answered without a query (:meth:`server.backend.Backend.looked_up`)."""

    def lookup(
        self, text: str, bindings: Mapping[str, Term], within: Sequence[str] | None = None
    ) -> list[str]: ...

    def names(self, text: str, bindings: Mapping[str, Term]) -> Names: ...

    def looked_up(self, tag: str, text: str, bindings: Mapping[str, Term]) -> bool: ...


class _Unsure(Exception):
    """The question depends on what a lookup finds (a name given, or nothing found)."""


@dataclass(frozen=True)
class Ahead:
    """The lookups a named query's parameters need (``checks``), and the question asked when
    each finds the IRI it was given (``question``)."""

    checks: tuple[Check, ...]
    question: Question


def ahead(named: NamedQuery, values: Mapping[str, str]) -> Ahead | None:
    """What ``named`` asks with ``values`` when each IRI given names a thing of its kind: the
    lookups to make and the question; None when a value is a name (what it names decides the
    question), when a parameter is invalid (the ordinary path says so) or when nothing is
    looked up."""
    checks: list[Check] = []

    def guess(text: str, bindings: Mapping[str, Bound]) -> list[str]:
        term = bindings.get("name")
        if not isinstance(term, NamedNode):
            raise _Unsure
        checks.append((text, dict(bindings)))
        return [term.value]

    def unsure(text: str, bindings: Mapping[str, Bound]) -> Names:
        raise _Unsure

    try:
        bindings = queries.resolve(named, values, guess, unsure)
    except (_Unsure, QueryError):
        return None
    if not checks:
        return None
    return Ahead(tuple(checks), bound(named, bindings))


def at_hand(
    finder: Finder, named: NamedQuery, values: Mapping[str, str], tag: str
) -> Question | None:
    """The question ``named`` asks with ``values`` when every lookup it needs is answered
    without a query in the store generation ``tag`` (see :func:`benchgraph.answering.ask`);
    None when one needs a query. Raises QueryError (UnknownName for a value that names nothing)
    as :func:`benchgraph.answering.ask` does."""

    def lookup(text: str, bindings: Mapping[str, Bound]) -> list[str]:
        if not finder.looked_up(tag, text, bindings):
            raise _Unsure
        return finder.lookup(text, bindings)

    def earlier(text: str, bindings: Mapping[str, Bound]) -> list[str]:
        raise _Unsure  # the versions kept as history are looked up by query

    try:
        return bound(named, queries.resolve(named, values, lookup, finder.names, earlier))
    except _Unsure:
        return None
