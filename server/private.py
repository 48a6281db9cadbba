"""The store's owner's path through the server: ``/_store/...``, how the other commands read
and write an embedded store while ``benchgraph serve`` holds it (:mod:`benchgraph.store.served`).

A request is taken only from loopback and only with the secret of the store's holder record
(``Authorization: Bearer ...``), which only the store's owner can read; else 401 in the error
shape. With a remote store, or before the server holds its store, the routes answer 404.
Nothing here is the public surface: ``/sparql`` stays read-only.

- ``POST /_store/query``: ``query`` (text, bindings written in), optional JSON lists
  ``default_graph`` and ``named_graphs``, optional ``base_iri``; SPARQL JSON results, or
  N-Triples for a graph. With ``bounded=1`` (``benchgraph query``) it runs as ``/sparql`` runs
  a client's query: in a query worker, within the time and memory limits. The guard reads it
  first (:mod:`server.guard`): what it refuses
  (SERVICE, an update) is answered 400 and never evaluated here, as is a query the engine
  cannot evaluate (an unknown function).
- ``GET /_store/graphs``: the named graphs, JSON. ``GET /_store/triples[?graph=G]``: a named
  graph's (or the merged view's) triples, N-Triples. ``GET /_store/quads[?history=false]``:
  every quad (``false``: none of history), N-Quads; both streamed.
- ``POST /_store/replace?graph=G...[&added=A...]``: replace the graphs ``graph`` names with the
  N-Quads of the body (gzip), and add its quads in the graphs ``added`` names to them, in one
  transaction. ``POST /_store/update?what=W``: run the update of the body (one
  the store module builds) as one transaction. Either may carry ``expects=FINGERPRINT KEY``
  for each source whose catalogue entries the write rewrites: it is refused with 409, nothing
  written, when they changed after the command read them (another writer's page between its
  read and its write: ``Change.expects``). Writes run one at a time. ``POST /_store/publish``:
  readers see what was written once it answers.
"""

from __future__ import annotations

import gzip
import hmac
import ipaddress
import json
import zlib
from collections.abc import Callable, Iterator

import pyoxigraph as ox
from flask import Blueprint, Response, request

from benchgraph import versions
from benchgraph.store import Change, StoreError, Triples, WriteConflict
from benchgraph.store.embedded import EmbeddedStore
from server import guard
from server.backend import current
from server.engine import Job, store_trouble
from server.errors import ApiError
from server.holding import HeldStore, disk_full
from server.workers import WorkerPool

blueprint = Blueprint("private", __name__, url_prefix="/_store")
QUADS_PER_CHUNK = 10_000
SPARQL_JSON = "application/sparql-results+json"
# The rows a bounded owner's query may answer: every one (its time and memory are bounded).
OWNER_ROWS = 1 << 62


def _held() -> HeldStore:
    """The held store, once the request is shown to come from its owner; else ApiError."""
    pool = current().pool
    held = pool.held if isinstance(pool, WorkerPool) else None
    if held is None:
        raise ApiError(404, f"nothing at {request.path}")
    try:
        loopback = ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        loopback = False
    given = request.headers.get("Authorization", "")
    expected = f"Bearer {held.secret}"
    if not loopback or not hmac.compare_digest(given.encode(), expected.encode()):
        raise ApiError(
            401,
            "this path is the store owner's: it takes requests from this machine with the "
            "secret of the store's holder record only",
            {"WWW-Authenticate": 'Bearer realm="benchgraph store"'},
        )
    request.max_content_length = None  # the owner's pages: bounded by the server only
    return held


def _list(name: str) -> list[str] | None:
    given = request.form.get(name)
    if given is None:
        return None
    found = json.loads(given)
    if not (isinstance(found, list) and all(isinstance(g, str) for g in found)):
        raise ApiError(400, f"{name} must be a JSON list of graph names")
    return found


@blueprint.post("/query")
def query() -> Response:
    """Run a read query on the store being written (no time limit: the owner's own), once the
    guard lets it (:mod:`server.guard`: this process can reach the network)."""
    store = _held().store
    text = request.form.get("query")
    if text is None:
        raise ApiError(400, "the query parameter is missing")
    base_iri = request.form.get("base_iri")
    if request.form.get("bounded") == "1":
        return _bounded(text, base_iri)
    try:
        guard.inspect(text, base_iri)
    except guard.Refused as refused:
        raise ApiError(400, str(refused)) from None
    try:
        answer = store.query(
            text,
            default_graph=_list("default_graph"),
            named_graphs=_list("named_graphs"),
            base_iri=base_iri,
        )
        # Read whole here: the engine evaluates as the answer is read.
        if isinstance(answer, Triples):
            body = answer.serialize(format=ox.RdfFormat.N_TRIPLES)
            return Response(body, content_type="application/n-triples")
        body = answer.serialize(format=ox.QueryResultsFormat.JSON)
    except SyntaxError as error:
        raise ApiError(400, f"malformed query: {error}") from None
    except StoreError as error:
        raise ApiError(503, str(error)) from None
    except OSError as error:
        if store_trouble(error):
            raise ApiError(503, f"the store could not be read: {error}") from None
        raise ApiError(400, f"the query could not be evaluated: {error}") from None
    except (RuntimeError, ValueError, TypeError) as error:
        raise ApiError(400, f"the query could not be evaluated: {error}") from None
    return Response(body, content_type=SPARQL_JSON)


def _bounded(text: str, base_iri: str | None) -> Response:
    """The owner's query answered as ``/sparql`` answers a client's: guarded, in a query
    worker on the generation readers see, stopped past the time or memory limit (504, 503);
    only the row limit is not the endpoint's (``benchgraph query`` prints every row)."""
    default_graph, named_graphs = _list("default_graph"), _list("named_graphs")
    job = Job(
        text,
        results_format="json",
        graph_format="ntriples",
        max_rows=OWNER_ROWS,
        base_iri=base_iri,
        guarded=True,
        default_graph=None if default_graph is None else tuple(default_graph),
        named_graphs=None if named_graphs is None else tuple(named_graphs),
    )
    answer = current().run(job)
    kind = "application/n-triples" if answer.kind == "triples" else SPARQL_JSON
    return Response(answer.body, content_type=kind)


@blueprint.get("/graphs")
def graphs() -> Response:
    return Response(json.dumps(_held().store.named_graphs()), content_type="application/json")


def _streamed(quads: Iterator[ox.Quad], fmt: ox.RdfFormat) -> Iterator[bytes]:
    chunk: list[ox.Quad] = []
    for quad in quads:
        chunk.append(quad)
        if len(chunk) == QUADS_PER_CHUNK:
            yield ox.serialize(chunk, format=fmt) or b""
            chunk = []
    if chunk:
        yield ox.serialize(chunk, format=fmt) or b""


@blueprint.get("/triples")
def triples() -> Response:
    store = _held().store
    graph = request.args.get("graph")
    found = (ox.Quad(t.subject, t.predicate, t.object) for t in store.graph_triples(graph))
    return Response(_streamed(found, ox.RdfFormat.N_TRIPLES), content_type="application/n-triples")


@blueprint.get("/quads")
def quads() -> Response:
    store = _held().store
    found = _streamed(store.quads(request.args.get("history") != "false"), ox.RdfFormat.N_QUADS)
    return Response(found, content_type="application/n-quads")


@blueprint.post("/replace")
def replace() -> Response:
    held = _held()
    names = request.args.getlist("graph")
    added_to = request.args.getlist("added")
    try:
        data = gzip.decompress(request.get_data())
        parsed = list(ox.parse(data, format=ox.RdfFormat.N_QUADS))
    except (OSError, EOFError, zlib.error, SyntaxError) as error:
        raise ApiError(400, f"the graphs sent cannot be read: {error}") from None
    contents: dict[str, list[ox.Triple]] = {name: [] for name in names}
    added: dict[str, list[ox.Triple]] = {name: [] for name in added_to if name not in contents}
    for quad in parsed:
        graph = quad.graph_name
        name = graph.value if isinstance(graph, ox.NamedNode) else None
        target = contents if name in contents else added
        if name is None or name not in target:
            raise ApiError(400, f"a quad sent is in a graph not named: {graph}")
        target[name].append(quad.triple)

    def write(store: EmbeddedStore) -> None:
        store.write(Change(contents, added=added))

    _written(held, write, _expects())
    return Response(status=204)


@blueprint.post("/update")
def update() -> Response:
    held = _held()
    what = request.args.get("what", "updating the store")
    text = request.get_data(as_text=True)

    def write(store: EmbeddedStore) -> None:
        store.update(what, text)

    _written(held, write, _expects())
    return Response(status=204)


def _expects() -> dict[str, str]:
    """The fingerprints of the catalogue entries the write was made from, by source key
    (``expects=FINGERPRINT KEY``, see ``Change.expects``); ApiError 400 for one unreadable."""
    found: dict[str, str] = {}
    for given in request.args.getlist("expects"):
        fingerprint, _, key = given.partition(" ")
        if not fingerprint or not key:
            raise ApiError(400, f"expects must be a fingerprint, a space and a source: {given!r}")
        found[key] = fingerprint
    return found


def _written(
    held: HeldStore, change: Callable[[EmbeddedStore], None], expects: dict[str, str]
) -> None:
    """Run ``change`` as the held store's one write, once the sources it was made from are
    shown unchanged since (ApiError 409 when one is not: nothing written)."""

    def checked(store: EmbeddedStore) -> None:
        for key, fingerprint in expects.items():
            if versions.fingerprint(versions.read(store, key)) != fingerprint:
                raise WriteConflict(
                    f"the source {key} changed after this write was made from it (another "
                    "writer wrote it meanwhile); run the command again"
                )
        change(store)

    try:
        held.write(checked)
    except WriteConflict as error:
        raise ApiError(409, str(error)) from None
    except StoreError as error:
        if disk_full(error):
            raise  # 507, not acknowledged: the one error path says so (server.errors)
        raise ApiError(503, str(error)) from None


@blueprint.post("/publish")
def publish() -> Response:
    held = _held()
    try:
        held.publish()
    except StoreError as error:
        raise ApiError(503, str(error)) from None
    return Response(json.dumps({"generation": current().pool.generation.tag}),
                    content_type="application/json")  # fmt: skip
