"""The site's SPARQL: ``queries/site/*.rq`` and the named queries, as plain rows.

The resource is written into a query as one RDF term (:func:`benchgraph.sparqltext.substitute`),
never as text. Answers are cached per store generation.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path

from benchgraph import asof, resources
from benchgraph.queries import QueryError
from server.backend import current
from server.engine import VALUES, Job, Term
from server.errors import ApiError

Row = dict[str, str]


@cache
def _text(folder: Path, name: str) -> str:
    return (folder / "site" / f"{name}.rq").read_text(encoding="utf-8")


def _rows(
    key: str, text: str, bound: Mapping[str, Term], past: asof.Past | None = None
) -> list[Row]:
    """Run ``text`` with ``bound`` substituted, on the store as it is or on the past ``past``
    reads (cached per store generation); plain values."""
    backend = current()
    backend.pool.start()
    cache_key = (
        backend.pool.generation.tag,
        ("site", key, tuple(sorted((k, str(v)) for k, v in bound.items())), past),
    )
    answer = backend.cache.get(cache_key)
    if answer is None:
        answer = backend.run(Job(text, VALUES, None, backend.max_rows, bound, past=past))
        backend.cache.put(cache_key, answer)
    assert answer.values is not None
    return [dict(row) for row in answer.values.rows]  # the cached rows stay as they are


def select(name: str, past: asof.Past | None = None, **bound: Term) -> list[Row]:
    """Rows of ``queries/site/<name>.rq`` with ``bound`` substituted (values as text), on the
    store as it is or (``past``) as it was."""
    return _rows(name, _text(resources.queries_dir(), name), bound, past)


def named(name: str, **values: str) -> list[Row]:
    """Rows of the named query ``name`` (from the app's catalogue) with ``values`` (text by
    parameter, as a request gives them), reading the store's past as the query's header says.
    Raises ApiError (400) for a value that is not valid, naming the parameter."""
    query = current().catalogue[name]
    try:
        bound = query.bind(values)
    except QueryError as error:
        raise ApiError(400, str(error), parameter=error.parameter) from None
    return _rows("named/" + name, query.text, bound, asof.past(query, bound))
