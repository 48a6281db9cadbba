"""A remote store: any SPARQL 1.1 server, through the SPARQL 1.1 Protocol.

Queries go to the query endpoint, writes to the update endpoint as SPARQL 1.1 Update, both sent
by :class:`benchgraph.store.sparql_client.Client` (with the credentials, as the server asks); a
graph is read from the Graph Store endpoint when there is one (else with a CONSTRUCT).

Where the merged view lives depends on the server, and is read from it:

- A server in its plain configuration (``oxigraph serve``, Fuseki) has a default graph of its
  own: the view is that default graph, as in the embedded store. Queries go as they are, and a
  client that queries the server directly sees the same default graph as benchgraph's users.
- A server whose default graph is the union of all its graphs (``oxigraph serve
  --union-default-graph``, Virtuoso, GraphDB) cannot hold it there: the view is the named graph
  :data:`benchgraph.graphs.VIEW`, and a query without a dataset of its own is sent naming it as
  its default graph (``default-graph-uri``). Such a dataset holds no named graph unless it names
  them too, so a query that says ``GRAPH`` also names every graph of the store
  (``named-graph-uri``): one more request, and a request that grows with the pages.

The server's kind is read from the data once the store holds a page (its default graph shows a
validation report only if it is the union), and by a probe (a triple written into a scratch
graph and looked for in the default graph) at the first write into an empty store.

The guarantees are the embedded store's:

- A page's graphs are replaced in one update request (its statements out of the view, ``DROP
  SILENT GRAPH`` + ``INSERT DATA``), which a SPARQL server runs as one transaction.
- A page whose update would exceed ``store_request_bytes`` is sent in bounded requests into a
  staging graph, then moved into place by one last request, so it is still replaced at once.
  A writer that stops mid-way leaves a staging graph (``urn:benchgraph:staging:…``), never a
  half-replaced page; the next write to the store removes staging graphs over an hour old.
- A group of pages (an ingest's batch: :meth:`RemoteStore.write_many`) goes through the
  server's bulk path (:mod:`benchgraph.store.bulk`): one N-Quads POST to its Graph Store
  endpoint, or graphs staged one per request and moved into place, each page still whole.
- Every request has a time limit. Refused or dropped connections and 502/503/504 answers are
  retried with backoff, a bounded number of times; every request is safe to repeat (the final
  move of a staged page does nothing once done).
- Every failure is a StoreError naming the endpoint and what failed; a malformed query is a
  SyntaxError, as it is from the embedded store.
"""

from __future__ import annotations

import copy
import http.client
import itertools
import re
import time
import urllib.parse
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO

import pyoxigraph as ox

from benchgraph import graphs, lexical, queries, settings
from benchgraph.sparqltext import Term, keywords, query_form, substitute
from benchgraph.store import credentials, pragmas
from benchgraph.store.bulk import GROUP_TRIPLES, LEAST_PAGES, Bulk
from benchgraph.store.credentials import Credentials
from benchgraph.store.interface import (
    Answer,
    Notify,
    OutdatedStore,
    SentTriples,
    Store,
    StoreError,
    present,
    upgrade_notice,
)
from benchgraph.store.sparql_client import Client, StoreTimeout
from benchgraph.store.writes import (
    Change,
    data,
    in_view,
    insertion,
    out_of_view,
    replacement,
    statement,
)

__all__ = ["Endpoints", "RemoteStore", "StoreTimeout"]

# Settings a remote store reads (all from the environment or their defaults).
SETTINGS = (
    "update_url",
    "gsp_url",
    "store_user",
    "store_password",
    "store_netrc",
    "store_auth",
    "store_timeout",
    "store_retries",
    "store_request_bytes",
    "store_request_statements",
)
_BLANK = re.compile(r"_:[A-Za-z0-9_\-.]+")
_STALE_STAGING_SECONDS = 3600


@dataclass
class _Server:
    """What a remote store has learned of its server from its answers: its ``kind``
    (:func:`benchgraph.store.pragmas.server_kind`; None until an answer came). A store and the
    copies :meth:`RemoteStore.with_timeout` makes share one, so it is learned once."""

    kind: str | None = None


@dataclass(frozen=True)
class Endpoints:
    """Where a SPARQL server takes queries, updates and Graph Store requests (None: none), and
    where a group of pages is POSTed (``bulk``; None: the group goes page by page)."""

    query: str
    update: str
    graph_store: str | None
    bulk: str | None = None

    @classmethod
    def of(cls, query: str, update: str = "", graph_store: str = "") -> Endpoints:
        """The endpoints of the server whose query endpoint is ``query``. Unset, the others
        follow the convention of Oxigraph and Fuseki (``…/query`` beside ``…/update`` and
        ``…/store``), or else updates go to the query endpoint (Virtuoso, GraphDB's
        ``/statements`` must be set) and graphs are read with CONSTRUCT. Groups of pages are
        POSTed to the Graph Store endpoint; or, for Virtuoso's update endpoint
        (``…/sparql-auth``), to its Graph Store endpoint beside it
        (``…/sparql-graph-crud-auth``, which takes the same account)."""
        base, _, last = query.rstrip("/").rpartition("/")
        conventional = last == "query"
        store = graph_store or (f"{base}/store" if conventional else None)
        update = update or (f"{base}/update" if conventional else query)
        bulk = store
        if bulk is None and update.rstrip("/").endswith(_VIRTUOSO_UPDATE):
            bulk = update.rstrip("/").removesuffix(_VIRTUOSO_UPDATE) + _VIRTUOSO_GRAPH_STORE
        return cls(query, update, store, bulk)


# Virtuoso's authenticated update endpoint, and the Graph Store endpoint beside it.
_VIRTUOSO_UPDATE, _VIRTUOSO_GRAPH_STORE = "/sparql-auth", "/sparql-graph-crud-auth"


class RemoteStore(Store):
    """The SPARQL server whose query endpoint is ``endpoints.query``. With ``check``, opening
    it checks how the server reads datasets, and builds the merged view of a store written by
    an earlier benchgraph (``notify`` is told), or refuses it with OutdatedStore when
    ``read_only``."""

    def __init__(
        self,
        endpoints: Endpoints,
        *,
        credentials: Credentials | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        request_bytes: int = 8 * 1024 * 1024,
        request_statements: int = 0,
        check: bool = True,
        read_only: bool = False,
        notify: Notify | None = None,
    ) -> None:
        self.endpoints = endpoints
        self.location = endpoints.query
        urls = [endpoints.query, endpoints.update, endpoints.graph_store or endpoints.query]
        urls += [endpoints.bulk] if endpoints.bulk else []
        self.client = Client(urls, credentials, timeout=timeout, retries=retries)
        self.request_bytes = request_bytes
        self.request_statements = request_statements
        self._bulk: Bulk | None = None  # the bulk path, once a group is written
        # The triples of a group of pages write_many writes at once (0: one page at a time).
        self.write_group = GROUP_TRIPLES if endpoints.bulk else 0
        self._staging_cleaned = False
        self._view: str | None = None  # where the view lives, once known (see the module)
        self._view_known = False
        self._empty_pattern: bool | None = None  # whether `GRAPH ?g { }` lists graphs (see
        # _graph_query), once known
        self._server = _Server()  # its kind, once known (shared with its copies)
        if check:
            self._check_layout(read_only, notify)

    @classmethod
    def from_settings(
        cls, url: str, *, read_only: bool = False, notify: Notify | None = None
    ) -> RemoteStore:
        """The store at ``url`` with the remote settings from the environment."""
        try:
            values = settings.resolve(SETTINGS)
            found = credentials.from_settings(values, url)
        except (settings.SettingError, credentials.CredentialsError) as error:
            raise StoreError(str(error)) from None
        return cls(
            Endpoints.of(url, str(values["update_url"]), str(values["gsp_url"])),
            credentials=found,
            timeout=float(values["store_timeout"]),
            retries=int(values["store_retries"]),
            request_bytes=int(values["store_request_bytes"]),
            request_statements=int(values["store_request_statements"]),
            read_only=read_only,
            notify=notify,
        )

    def with_timeout(self, timeout: float) -> RemoteStore:
        """The same store with every request limited to ``timeout`` seconds."""
        twin = copy.copy(self)
        twin.client = copy.copy(self.client)
        twin.client.timeout = timeout
        return twin

    def close(self) -> None:
        """Nothing to release: every request has its own connection."""

    @property
    def kind(self) -> str:
        """The server's kind, from the ``Server`` header of its answers (asked for with an
        empty query when none has come yet)."""
        if self._server.kind is None:
            self.query("ASK {}", default_graph=())
        return self._server.kind or ""

    # Reading

    def query(
        self,
        sparql: str,
        bindings: Mapping[str, Term] | None = None,
        *,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        base_iri: str | None = None,
    ) -> Answer:
        # The protocol has no parameters: each binding is written in place of its variable as
        # one RDF term (benchgraph.sparqltext.substitute), as the embedded store binds them. A
        # VALUES block opening the WHERE group gives the same answers, but the server plans it
        # worse (at 200 pages: leaderboard 6.8 s instead of 0.36 s, compare 4.1 s instead of
        # 0.14 s). A query without a dataset of its own is given the one that makes the view its
        # default graph; an empty ``default_graph`` sends no dataset (the server's own default
        # graph).
        text = substitute(sparql, bindings or {})
        if default_graph is None and named_graphs is None:
            default_graph, named_graphs = self._dataset(text)
        if base_iri:
            text = f"BASE <{base_iri}>\n{text}"
        form = query_form(text) or "SELECT"
        text = pragmas.hinted(text, self._server.kind or "")  # planning hints for it, if any
        graph_answer = form in ("CONSTRUCT", "DESCRIBE")
        accept = (
            "application/n-triples, text/turtle;q=0.9"
            if graph_answer
            else "application/sparql-results+json"
        )
        reply = self.client.query(
            "answering a query",
            self.endpoints.query,
            text,
            accept,
            default_graphs=default_graph or (),
            named_graphs=named_graphs or (),
        )
        if self._server.kind is None:
            self._server.kind = pragmas.server_kind(reply.headers)
        body, media = reply.body, reply.media
        try:
            if graph_answer:
                fmt = ox.RdfFormat.from_media_type(media) or ox.RdfFormat.N_TRIPLES
                if fmt == ox.RdfFormat.N_TRIPLES:
                    body = lexical.ntriples(body)
                return SentTriples(body, fmt)
            return ox.parse_query_results(lexical.json_answer(body), ox.QueryResultsFormat.JSON)
        except (SyntaxError, ValueError) as error:
            raise StoreError(
                f"{self.endpoints.query} sent an answer that cannot be read ({media}): {error}"
            ) from None

    def _dataset(self, text: str) -> tuple[Sequence[str], Sequence[str] | None]:
        """The dataset a query without one of its own is sent with (see the module)."""
        view = self._layout(writing=False)
        if view is None:
            return (), None
        words = keywords(text)
        if "FROM" in words:  # its own dataset: the protocol's would replace it
            return (), None
        return (view,), (self.named_graphs() if "GRAPH" in words else None)

    def graph_triples(self, graph: str | None) -> Iterator[ox.Triple]:
        if graph is None:
            return self.view_triples()
        if self.endpoints.graph_store is None:
            answer = self.query(
                queries.internal("graph-triples"), {"graph": ox.NamedNode(graph)}, default_graph=()
            )
            assert isinstance(answer, SentTriples)
            return iter(answer)
        url = f"{self.endpoints.graph_store}?{urllib.parse.urlencode({'graph': graph})}"
        try:
            body = self.client.get(f"reading graph <{graph}>", url, "application/n-triples").body
        except StoreError as error:
            if "(404" in str(error):
                return iter(())
            raise
        return (quad.triple for quad in ox.parse(body, ox.RdfFormat.N_TRIPLES))

    def named_graphs(self) -> list[str]:
        answer = self.query(
            queries.internal(self._graph_query("named-graphs")),
            {"ours": ox.Literal(graphs.ID)},
            default_graph=(),
        )
        assert isinstance(answer, ox.QuerySolutions)
        names = (row["graph"] for row in answer)
        return sorted(n.value for n in names if isinstance(n, ox.NamedNode) and self.lists(n.value))

    def lists(self, graph: str) -> bool:
        """Only benchgraph's graphs (named under :data:`benchgraph.graphs.ID`): a server holds
        others too (Virtuoso's own, other datasets), which are not listed, exported or copied."""
        return graph.startswith(graphs.ID) and super().lists(graph)

    def quads(self, history: bool = True) -> Iterator[ox.Quad]:
        named = self._named_quads()
        yield from named if history else present(named)
        for triple in self.view_triples():
            yield ox.Quad(triple.subject, triple.predicate, triple.object, ox.DefaultGraph())

    def _named_quads(self) -> Iterator[ox.Quad]:
        response = self.client.stream(
            "reading every quad",
            self.endpoints.query,
            queries.internal("quads"),
            "application/sparql-results+json",
        )
        yield from self._streamed_quads(response)

    def _streamed_quads(self, response: IO[bytes]) -> Iterator[ox.Quad]:
        try:
            with response:
                rows = ox.parse_query_results(
                    lexical.json_stream(response), ox.QueryResultsFormat.JSON
                )
                assert isinstance(rows, ox.QuerySolutions)
                for row in rows:
                    s, p, o, g = row["s"], row["p"], row["o"], row["graph"]
                    if isinstance(g, ox.NamedNode) and self.lists(g.value):
                        yield ox.Quad(s, p, o, g)
        except (OSError, SyntaxError, http.client.HTTPException) as error:
            raise StoreError(
                f"{self.endpoints.query}: the answer stopped while reading every quad: {error}"
            ) from None

    # Writing

    def write_many(self, changes: Sequence[Change]) -> None:
        """Write ``changes`` in order, each page whole: a group of LEAST_PAGES or more (or any
        group after one such: the rest of a batch) through the server's bulk path
        (:mod:`benchgraph.store.bulk`), fewer one update each. Raises
        StoreError when nothing of them is in place, PartlyWritten when the first ``done``
        are."""
        small = len(changes) < LEAST_PAGES and self._bulk is None  # not a batch's last group
        if self.endpoints.bulk is None or small:
            super().write_many(changes)
            return
        self._remove_stale_staging()
        if self._bulk is None:
            self._bulk = Bulk(
                self.client,
                self.endpoints.bulk,
                self.endpoints.update,
                self.update,
                lambda name, bindings: self.finds(name, bindings, default_graph=()),
                self.named_graphs,
                self.write,
                self.view,
                self.request_bytes,
                self.request_statements,
            )
        self._bulk.write(changes)

    def write(self, change: Change) -> None:
        """One update request; or, past ``store_request_bytes``, the replaced graphs staged
        and then moved into place by one request that also copies the graphs kept and
        writes the catalogue statements (see :meth:`_replace_staged`)."""
        self._remove_stale_staging()
        lines = {graph: [statement(t) for t in ts] for graph, ts in change.replaced.items()}
        update = replacement(lines, self.view, change)
        # Each statement counted twice, as a page's also enter the view: a bound, not a count.
        count = sum(map(len, lines.values())) * 2
        bounded = not self.request_statements or count <= self.request_statements
        if bounded and len(update.encode("utf-8")) <= self.request_bytes:
            self.update(f"replacing graph {change.names}", update)
        else:
            self._replace_staged(lines, change)

    def _replace_staged(self, lines: Mapping[str, list[str]], change: Change) -> None:
        """Replace the graphs of ``lines`` through staging graphs filled in bounded requests,
        then moved into place by one request (which first copies the graphs ``change`` keeps,
        and ends with its catalogue statements); check the sizes after. Each step of the
        move does nothing once the staging graphs are gone, and the catalogue statements
        are the same when written again, so the last request is safe to repeat."""
        names = change.names
        stamp = f"{graphs.STAGING}{int(time.time())}:{uuid.uuid4().hex}:"
        staging = {graph: f"{stamp}{i}" for i, graph in enumerate(lines)}
        first = next(iter(staging.values()), None)
        try:
            for graph, graph_lines in lines.items():
                budget = self.request_bytes - len(staging[graph]) - 64  # room for the update around
                parts = _chunks(graph_lines, budget, self.request_statements)
                for n, chunk in enumerate(parts, start=1):
                    self.update(
                        f"staging part {n} of graph <{graph}>",
                        " ;\n".join(insertion({staging[graph]: chunk}, self.view)),
                    )
            moves = []
            guard = f"FILTER EXISTS {{ GRAPH <{first}> {{ ?a ?b ?c }} }}" if first else ""
            for graph, to in change.kept.items():
                moves += [
                    f"DELETE {{ GRAPH <{to}> {{ ?s ?p ?o }} }} WHERE {{ GRAPH <{to}> "
                    f"{{ ?s ?p ?o }} {guard} }}",
                    f"INSERT {{ GRAPH <{to}> {{ ?s ?p ?o }} }} WHERE {{ GRAPH <{graph}> "
                    f"{{ ?s ?p ?o }} {guard} }}",
                ]
            for graph, stage in staging.items():
                if graphs.is_page(graph):
                    moves.append(out_of_view(graph, self.view, unless_gone=stage))
                moves += [
                    f"DELETE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }} WHERE {{ GRAPH <{graph}> "
                    f"{{ ?s ?p ?o }} FILTER EXISTS {{ GRAPH <{stage}> {{ ?a ?b ?c }} }} }}",
                    f"INSERT {{ GRAPH <{graph}> {{ ?s ?p ?o }} }} "
                    f"WHERE {{ GRAPH <{stage}> {{ ?s ?p ?o }} }}",
                ]
                if graphs.is_page(graph):
                    moves.append(
                        f"INSERT {{ {in_view('?s ?p ?o', self.view)} }} "
                        f"WHERE {{ GRAPH <{stage}> {{ ?s ?p ?o }} }}"
                    )
                moves.append(f"DROP SILENT GRAPH <{stage}>")
            for verb, found in (("DELETE", change.deleted), ("INSERT", change.added)):
                moves += data(verb, {g: [statement(t) for t in ts] for g, ts in found.items()})
            self.update(f"moving the staged graph {names} into place", " ;\n".join(moves))
        except StoreError:
            for stage in staging.values():  # best effort: an old one is removed later anyway
                try:
                    self.update("removing a staging graph", f"DROP SILENT GRAPH <{stage}>")
                except StoreError:
                    break
            raise
        sizes = self.graph_sizes()
        for graph, graph_lines in lines.items():
            if sizes.get(graph, 0) != len(set(graph_lines)):
                raise StoreError(
                    f"{self.endpoints.update}: graph <{graph}> holds {sizes.get(graph, 0)} "
                    f"triples after the write, not {len(set(graph_lines))}"
                )

    def _remove_stale_staging(self) -> None:
        """Remove staging graphs over an hour old, once per store opened (a writer that
        stopped mid-way leaves one; a younger one may belong to a writer still at work)."""
        if self._staging_cleaned:
            return
        self._staging_cleaned = True
        answer = self.query(
            queries.internal(self._graph_query("staging-graphs")),
            {"staging": ox.Literal(graphs.STAGING)},
            default_graph=(),  # named graphs only, the staging ones among them
        )
        assert isinstance(answer, ox.QuerySolutions)
        now = time.time()
        for row in answer:
            name = row["graph"]
            if not isinstance(name, ox.NamedNode):
                continue
            stamp = name.value[len(graphs.STAGING) :].split(":", 1)[0]
            if not stamp.isdigit() or now - int(stamp) > _STALE_STAGING_SECONDS:
                self.remove_graph(name.value)

    def _graph_query(self, name: str) -> str:
        """The query ``name`` that lists graphs by the empty pattern ``GRAPH ?graph { }``, as
        SPARQL says (one row per named graph, at once), or its ``-scanned`` twin that reads
        them from their triples, for a server that finds none by that pattern (Virtuoso
        answers one row, unbound). Which one is found out once the store holds a page; until
        then, the twin."""
        if self._empty_pattern is None and self.has_pages():
            found = self.query(queries.internal("named-graphs"), default_graph=())
            assert isinstance(found, ox.QuerySolutions)
            self._empty_pattern = any(isinstance(row["graph"], ox.NamedNode) for row in found)
        return name if self._empty_pattern else f"{name}-scanned"

    def update(self, what: str, text: str) -> None:
        self.client.update(what, self.endpoints.update, text)

    @property
    def view(self) -> str | None:
        """Where the merged view lives (None: the server's default graph), found out now if need
        be: a write must know."""
        return self._layout(writing=True)

    def _layout(self, *, writing: bool) -> str | None:
        """Where the view lives: read from the data once the store holds a page, else (when
        ``writing``) probed; unknown (None, and asked again next time) while the store is empty
        and only read."""
        if self._view_known:
            return self._view
        if self.has_pages():
            union = self.finds("report-in-default-graph", default_graph=())
        elif writing:
            union = self._probe_union()
        else:
            return None
        self._view = graphs.VIEW if union else None
        self._view_known = True
        return self._view

    def _probe_union(self) -> bool:
        """Whether the server's default graph is the union of its graphs: a triple written into
        a scratch graph (a staging graph, so one left behind is cleared like them) is looked for
        in the default graph."""
        probe = f"{graphs.STAGING}{int(time.time())}:probe:{uuid.uuid4().hex}"
        self.update(
            "probing its default graph",
            f'INSERT DATA {{ GRAPH <{probe}> {{ <{probe}> <{probe}> "probe" }} }}',
        )
        try:
            return self.finds("in-default-graph", {"s": ox.NamedNode(probe)}, default_graph=())
        finally:
            self.update("removing the probe graph", f"DROP SILENT GRAPH <{probe}>")

    def _check_layout(self, read_only: bool, notify: Notify | None) -> None:
        """Check that the server reads datasets as benchgraph sends them, and that the merged
        view is built (building it, in one request, for a store of the earlier layout).

        Raises StoreError naming what the server does differently, OutdatedStore for a store
        of the earlier layout opened ``read_only``."""
        if not self.has_pages():
            return  # nothing stored yet: where the view goes is found at the first write
        view = self._layout(writing=False)
        if view is None:
            built = self.finds("any-triple", default_graph=())
        else:
            if self.finds("any-triple", default_graph=("urn:benchgraph:no-such-graph",)):
                raise StoreError(
                    f"{self.endpoints.query} ignores default-graph-uri (a query over a graph "
                    "that does not exist found triples): its default graph is the union of its "
                    "graphs, so benchgraph must name the merged view as the default graph"
                )
            built = self.finds("graph-has-triples", {"graph": ox.NamedNode(view)}, default_graph=())
        if built:
            return
        if read_only:
            raise OutdatedStore(
                f"the store at {self.location} was written by an earlier version of benchgraph "
                "and its merged view is not built yet; upgrade it once with `benchgraph repair "
                f"--store {self.location}` (any command that writes, such as ingest, does it too)"
            )
        count = len([g for g in self.named_graphs() if graphs.is_page(g)])
        if notify is not None:
            notify(upgrade_notice(self.location, count))
        self.update(
            "building the merged view",
            f"INSERT {{ {in_view('?s ?p ?o', view)} }} WHERE {{ GRAPH ?g {{ ?s ?p ?o }} "
            f'FILTER (STRSTARTS(STR(?g), "{graphs.PAGES}")) }}',
        )


def _chunks(lines: list[str], budget: int, most: int = 0) -> Iterator[list[str]]:
    """Split ``lines`` into lists of at most about ``budget`` bytes and (unless 0) ``most``
    statements, keeping statements that share a blank node together (its label means one
    node only within one request)."""
    parent: dict[str, str] = {}

    def root(label: str) -> str:
        while parent.setdefault(label, label) != label:
            parent[label] = parent[parent[label]]
            label = parent[label]
        return label

    for line in lines:
        labels = _BLANK.findall(line)
        for other in labels[1:]:
            parent[root(other)] = root(labels[0])
    groups: dict[str, list[str]] = {}
    singles: list[list[str]] = []
    for line in lines:
        labels = _BLANK.findall(line)
        if labels:
            groups.setdefault(root(labels[0]), []).append(line)
        else:
            singles.append([line])
    chunk: list[str] = []
    size = 0
    for group in itertools.chain(groups.values(), singles):
        weight = sum(len(line.encode("utf-8")) + 1 for line in group)
        if chunk and (size + weight > budget or (most and len(chunk) + len(group) > most)):
            yield chunk
            chunk, size = [], 0
        chunk += group
        size += weight
    if chunk:
        yield chunk
