"""An embedded store that ``benchgraph serve`` holds, read and written through that server.

While a server holds a store folder, no other process may open it (RocksDB's lock), and the
server is its one writer. The other commands find the server in the folder's holder record
(:mod:`benchgraph.store.holder`: its URL, and a secret only the store's owner can read) and send it
what they would have done to the store themselves: the same queries, the same page graphs
(parsed, mapped and validated by the command, as ever), the same updates, each applied by the
server in one transaction (:mod:`server.private`). So their output, summary and exit codes do
not change; and the server's readers see each page whole, at once, without a restart.

The path is loopback only: a server listening elsewhere is reached at the loopback address of
its port if it listens on every address, and refused otherwise.
"""

from __future__ import annotations

import gzip
import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Mapping, Sequence

import pyoxigraph as ox

from benchgraph.sparqltext import Term, substitute
from benchgraph.store import holder
from benchgraph.store.interface import (
    Answer,
    SentTriples,
    Store,
    StoreError,
    WriteConflict,
)
from benchgraph.store.writes import Change

_WILDCARDS = {"0.0.0.0": "127.0.0.1", "[::]": "[::1]"}
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def _expected(expects: Mapping[str, str]) -> list[tuple[str, str]]:
    """The query parameters that tell the server the fingerprint each source's catalogue
    entries had when the write was made from them: ``expects=FINGERPRINT KEY``."""
    return [("expects", f"{fingerprint} {key}") for key, fingerprint in expects.items()]


def owner_url(record: holder.Holder) -> str | None:
    """The URL of the owner's path through the server that ``record`` names (``/_store/``),
    on loopback; None when that server does not listen on loopback or has no secret."""
    if not (record.is_server and record.url and record.secret):
        return None
    parts = urllib.parse.urlsplit(record.url)
    host = parts.netloc.rsplit(":", 1)[0]
    host = _WILDCARDS.get(host, host)
    if host not in _LOOPBACK:
        return None
    return f"{parts.scheme}://{host}:{parts.port}/_store/"


class ServedStore(Store):
    """The embedded store at ``location``, held by the server ``record`` names, reached at
    ``url`` (its owner's path, see :func:`owner_url`)."""

    def __init__(self, location: str, record: holder.Holder, url: str) -> None:
        self.location = location
        self.holder = record
        self.url = url
        self._wrote = False
        self._failed = False
        # A command that only reads (``benchgraph query``) has its queries run as the public
        # endpoint runs a client's: in a query worker, within the server's limits.
        self.bounded = False  # a request failed: the command reports that, not what follows

    def _request(
        self, what: str, path: str, data: bytes | None = None, headers: Mapping[str, str] = {}
    ) -> http.client.HTTPResponse:
        """The server's answer to ``path`` (a POST with ``data``), open to read. Raises
        StoreError saying it failed while ``what``; SyntaxError for a query it finds
        malformed."""
        sent = {"Authorization": f"Bearer {self.holder.secret}", **headers}
        request = urllib.request.Request(self.url + path, data=data, headers=sent)
        try:
            answer: http.client.HTTPResponse = urllib.request.urlopen(request)  # loopback only
            return answer
        except urllib.error.HTTPError as error:
            self._failed = True
            with error:
                message = _message(error.read())
            if error.code == 400 and message.startswith("malformed query: "):
                raise SyntaxError(message.removeprefix("malformed query: ")) from None
            if error.code == 409:
                raise WriteConflict(
                    f"{self.location}: nothing written while {what}: {message}"
                ) from None
            raise StoreError(
                f"{self.location}: failed while {what}, through the server holding it "
                f"(pid {self.holder.pid}): {message}"
            ) from None
        except (OSError, http.client.HTTPException) as error:
            self._failed = True
            reason = getattr(error, "reason", error)
            raise StoreError(
                f"the store at {self.location} is held by {self.holder.shown} (pid "
                f"{self.holder.pid}, serving {self.holder.url}), which could not be reached "
                f"while {what}: {reason}"
            ) from None

    def _read(self, what: str, path: str, data: bytes | None = None, **headers: str) -> bytes:
        with self._request(what, path, data, headers) as answer:
            return self._body(what, answer)

    def _body(self, what: str, answer: http.client.HTTPResponse) -> bytes:
        """The whole body of ``answer``. Raises StoreError when it stops short (the server
        gone midway: ``IncompleteRead``)."""
        try:
            return answer.read()
        except (OSError, http.client.HTTPException) as error:
            self._failed = True
            raise self._cut(what, error) from None

    def _cut(self, what: str, error: Exception) -> StoreError:
        """The StoreError of an answer that stopped short, naming the server that sent it."""
        return StoreError(
            f"{self.location}: the answer stopped while {what}, through the server holding it "
            f"(pid {self.holder.pid}, serving {self.holder.url}): {error}"
        )

    def close(self) -> None:
        """Once something was written: wait until the server's readers see it. Not after a
        request failed: the command reports that failure (a server gone would only fail again),
        and a server still running publishes what was written by itself, soon after."""
        if self._wrote and not self._failed:
            self._wrote = False
            self._read("publishing what was written", "publish", b"")

    def write(self, change: Change) -> None:
        """A write that only replaces graphs and adds to others is sent as N-Quads, which the
        server loads as it loads its own ingest's; one that keeps or deletes is sent as the
        update the store module builds. Either is one transaction on the server."""
        if change.kept or any(change.deleted.values()):
            super().write(change)  # through apply, below
            return
        written = [*change.replaced.items(), *change.added.items()]
        quads = (
            ox.Quad(t.subject, t.predicate, t.object, ox.NamedNode(graph))
            for graph, triples in written
            for t in triples
        )
        body = gzip.compress(ox.serialize(quads, format=ox.RdfFormat.N_QUADS) or b"", 1)
        named = [("graph", graph) for graph in change.replaced]
        named += [("added", graph) for graph in change.added]
        query = urllib.parse.urlencode(named + _expected(change.expects))
        self._read(f"writing graph {change.names}", f"replace?{query}", body)
        self._wrote = True

    def update(self, what: str, text: str) -> None:
        self.apply(what, text, {})

    def apply(self, what: str, text: str, expects: Mapping[str, str]) -> None:
        """The update, which the server runs only if the catalogue entries it rewrites are
        still as ``expects`` says (else WriteConflict)."""
        path = "update?" + urllib.parse.urlencode([("what", what), *_expected(expects)])
        body = text.encode("utf-8")
        self._read(what, path, body, **{"Content-Type": "application/sparql-update"})
        self._wrote = True

    def _streamed(self, what: str, path: str, fmt: ox.RdfFormat) -> Iterator[ox.Quad]:
        with self._request(what, path) as answer:
            try:
                yield from ox.parse(answer, format=fmt)
            except (OSError, SyntaxError, http.client.HTTPException) as error:
                self._failed = True
                raise self._cut(what, error) from None

    def graph_triples(self, graph: str | None) -> Iterator[ox.Triple]:
        path = "triples" if graph is None else "triples?" + urllib.parse.urlencode({"graph": graph})
        what = "reading the merged view" if graph is None else f"reading graph <{graph}>"
        for quad in self._streamed(what, path, ox.RdfFormat.N_TRIPLES):
            yield quad.triple

    def named_graphs(self) -> list[str]:
        found = json.loads(self._read("listing the graphs", "graphs"))
        return [str(name) for name in found]

    def quads(self, history: bool = True) -> Iterator[ox.Quad]:
        path = "quads" if history else "quads?history=false"
        return self._streamed("reading every quad", path, ox.RdfFormat.N_QUADS)

    def query(
        self,
        sparql: str,
        bindings: Mapping[str, Term] | None = None,
        *,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        base_iri: str | None = None,
    ) -> Answer:
        # Bound as the embedded store binds them (written in place: see EmbeddedStore.query).
        form = {"query": substitute(sparql, bindings or {})}
        if self.bounded:
            form["bounded"] = "1"
        if default_graph is not None:
            form["default_graph"] = json.dumps(list(default_graph))
        if named_graphs is not None:
            form["named_graphs"] = json.dumps(list(named_graphs))
        if base_iri:
            form["base_iri"] = base_iri
        data = urllib.parse.urlencode(form).encode("ascii")
        with self._request("answering a query", "query", data) as answer:
            media = answer.headers.get_content_type()
            body = self._body("answering a query", answer)
        try:
            if media == "application/n-triples":
                return SentTriples(body, ox.RdfFormat.N_TRIPLES)
            return ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
        except (SyntaxError, ValueError) as error:
            raise StoreError(
                f"{self.location}: an answer of the server cannot be read: {error}"
            ) from None


def _message(body: bytes) -> str:
    """The message of an answer in the error shape (else the body's text)."""
    try:
        return str(json.loads(body)["error"])
    except (ValueError, KeyError, TypeError):
        return body.decode("utf-8", "replace").strip()[:500]
