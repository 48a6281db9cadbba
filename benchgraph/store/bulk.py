"""Many pages written to a remote server at once, through its bulk path.

A page written on its own goes to the server as one SPARQL update (:mod:`.writes`); a server
compiles such an update statement by statement, which costs it several times what its own
loader takes for the same triples. A group of pages goes instead through the server's Graph
Store endpoint, in the first of these forms it takes (found once, by a probe quad POSTed into
a scratch staging graph and looked for there):

- **A whole dataset** (``oxigraph serve``'s ``/store``). The group's pages that only add (no
  graph of theirs exists yet, no version kept, nothing deleted) are one N-Quads POST: each
  page's graph and report, its statements in the view, its catalogue statements. The server
  runs it as one transaction, so a reader sees all of them or none. A page that replaces
  graphs goes as one update (:meth:`RemoteStore.write`), in its place in the order.
- **One graph per request** (Virtuoso's ``/sparql-graph-crud-auth``, ``?graph=``), in two
  steps. *Staging*: every graph the group writes is POSTed (N-Triples, a few requests at once)
  into a staging graph of its own (``urn:benchgraph:staging:…``). Nothing a reader asks for
  sees one: it is no page graph, the view does not hold it, and benchgraph lists no graph
  outside its own. *Moving*: one update per page, sent several pages to a request, puts each
  page in place: its kept version copied, its old statements out of the view (unless another
  page states them), each staging graph moved onto the graph it stands for (``MOVE``), the
  page graph added to the view (``ADD``: the same blank nodes), its catalogue statements
  deleted and inserted. A request is compiled whole: a reader sees all of a page or none of
  it (on Virtuoso, but for runtime errors), the view stays the union of the page graphs, and
  the catalogue changes with the page.
- **Neither**: one update per page, as before.

A move request is never repeated blindly (``MOVE`` from a staging graph already moved would
empty the page): when its answer is lost, the staging graphs it moves say whether it was
done, and it is sent again only if none was moved. A group that stops half-way leaves its
pages either in place or still staged; the next write to the store removes staging graphs
over an hour old. A dataset POST retried after its answer was lost adds nothing new, but for
statements with blank nodes, which it adds again.
"""

from __future__ import annotations

import copy
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Literal

import pyoxigraph as ox

from benchgraph import graphs
from benchgraph.store.interface import PartlyWritten, StoreError
from benchgraph.store.sparql_client import Client
from benchgraph.store.writes import (
    BLANK_OBJECT,
    Change,
    copies,
    data,
    has_blank_node,
    insertion,
    out_of_view,
)
from benchgraph.store.writes import statement as line_of

# Groups of fewer pages go page by page. Measured on 1, 2, 4, 8 and 16 fresh pages, the bulk
# path (its probe included) was faster at every size, on the Oxigraph server (0.16 s against
# 0.22 s for one page, 0.93 s against 1.65 s for 8) and on Virtuoso (0.55 s against 1.54 s,
# 2.42 s against 10.07 s): so every group takes it (docs/remote-stores.md, "Small batches").
LEAST_PAGES = 1
# The triples the loader gathers into one group before writing it (Store.write_group).
GROUP_TRIPLES = 25_000
# What one operation of a move request costs against a server's statement bound (Virtuoso
# compiles each to several SQL statements; see RemoteStore.request_statements).
_OPERATION_WEIGHT = 10

# Staging requests sent at once to a server that takes one graph per request.
_STAGING_REQUESTS = 4

NQUADS = "application/n-quads"
NTRIPLES = "application/n-triples"

Update = Callable[[str, str], None]
Mode = Literal["dataset", "graphs", "none"]
Finds = Callable[[str, Mapping[str, ox.NamedNode]], bool]


@dataclass
class _Page:
    """One change of the group: its staging graphs (by the graph each stands for) and the
    operations of its move."""

    change: Change
    staged: dict[str, str] = field(default_factory=dict)
    lines: dict[str, list[str]] = field(default_factory=dict)  # by staging graph


@dataclass
class Bulk:
    """The bulk path of one server: its Graph Store endpoint ``url`` (and its update
    endpoint ``update_url``), how it takes a POST
    (``mode``; None: not known yet: see :meth:`_probe`), the client requests go
    through, the store's ``update`` and ``finds``, where its view lives, and the bounds of
    one request."""

    client: Client
    url: str
    update_url: str
    update: Update
    finds: Finds
    named_graphs: Callable[[], list[str]]
    write_one: Callable[[Change], None]
    view: str | None
    request_bytes: int
    request_statements: int = 0
    mode: Mode | None = None

    def write(self, changes: Sequence[Change]) -> None:
        """Write ``changes`` in order, each page whole (see the module): through the bulk
        path, or one update each when the endpoint turns out to take neither form of POST.
        Raises StoreError when nothing of them is in place, PartlyWritten when the first
        ``done`` are."""
        if self.mode is None:
            self.mode = self._probe()
        if self.mode == "graphs":
            self._staged(changes)
            return
        present = set(self.named_graphs()) if self.mode == "dataset" else set()
        done = 0
        try:
            run: list[Change] = []  # fresh changes not written yet
            for change in [*changes, None]:
                if change is not None and self.mode == "dataset" and _fresh(change, present):
                    run.append(change)
                    continue
                if run:
                    self._post_quads(run)
                    done += len(run)
                    run = []
                if change is not None:
                    self.write_one(change)
                    done += 1
        except PartlyWritten as error:
            raise PartlyWritten(error.cause, done + error.done) from None
        except StoreError as error:
            if done:
                raise PartlyWritten(error, done) from None
            raise

    def _probe(self) -> Mode:
        """How the endpoint takes a POST: a whole dataset (N-Quads), each quad into its graph
        (``dataset``); one graph named by ``?graph=`` (``graphs``); or neither (``none``). A
        quad is sent into a scratch graph (a staging graph) and looked for there: Virtuoso's
        Graph Store endpoint answers an N-Quads POST 201 and keeps nothing of it."""
        probe = f"{graphs.STAGING}{int(time.time())}:probe:{uuid.uuid4().hex}"
        triple = f'<{probe}> <{probe}> "probe" .'
        tries: list[tuple[Mode, str, str, str]] = [
            ("dataset", self.url, f"{triple[:-1]}<{probe}> .", NQUADS),
            ("graphs", _with_graph(self.url, probe), triple, NTRIPLES),
        ]
        try:
            for mode, url, line, media in tries:
                try:
                    self._post(url, [line], media, "asking how it takes a group of pages")
                except StoreError as error:
                    if _refused_type(error):
                        continue
                    raise
                if self.finds("graph-has-triples", _graph(probe)):
                    return mode
        finally:
            self._drop([probe])
        return "none"

    # Straight in: one N-Quads POST

    def _post_quads(self, changes: Sequence[Change]) -> None:
        """POST the quads of ``changes`` (fresh: see :func:`_fresh`) as one dataset: each
        page's graphs, its statements in the view, its catalogue statements."""
        view = f" <{self.view}> ." if self.view else " ."
        quads: list[str] = []
        for n, change in enumerate(changes):
            for graph, triples in [*change.replaced.items(), *change.added.items()]:
                lines = _labelled([line_of(t) for t in triples], f"b{n}x")
                quads += [f"{line[:-1]}<{graph}> ." for line in lines]
                if graphs.is_page(graph):
                    quads += [line[:-2] + view for line in lines]
        names = changes[0].names + (f" and {len(changes) - 1} more" if len(changes) > 1 else "")
        self._post(self.url, quads, NQUADS, f"writing graph {names}")

    # Staged, then moved

    def _staged(self, changes: Sequence[Change]) -> None:
        """Write ``changes`` through staging graphs (see the module)."""
        stamp = f"{graphs.STAGING}{int(time.time())}:{uuid.uuid4().hex}:"
        pages = [_staging(change, stamp, n) for n, change in enumerate(changes)]
        staging = [stage for page in pages for stage in page.lines]

        def post(stage: str, lines: list[str]) -> None:
            self._post(_with_graph(self.url, stage), lines, NTRIPLES, f"staging graph <{stage}>")

        try:
            with ThreadPoolExecutor(_STAGING_REQUESTS) as pool:
                sent = [pool.submit(post, *item) for page in pages for item in page.lines.items()]
                for future in sent:
                    future.result()
        except StoreError:
            self._drop(staging)
            raise
        done = 0
        for group in self._requests(pages):
            try:
                self._move(group)
            except StoreError as error:
                self._drop([stage for page in pages[done:] for stage in page.lines])
                if done:
                    raise PartlyWritten(error, done) from None
                raise
            done += len(group)

    def _post(self, url: str, lines: Sequence[str], media: str, what: str) -> None:
        body = ("\n".join(lines) + "\n").encode("utf-8")
        self.client.send(what, url, body, {"Content-Type": f"{media}; charset=utf-8"})

    def _drop(self, staging: Sequence[str]) -> None:
        """Remove staging graphs, best effort (an old one is removed later anyway)."""
        for start in range(0, len(staging), 50):
            drops = [f"DROP SILENT GRAPH <{stage}>" for stage in staging[start : start + 50]]
            try:
                self.update("removing staging graphs", " ;\n".join(drops))
            except StoreError:
                return

    # Moving

    def _requests(self, pages: list[_Page]) -> Iterator[list[_Page]]:
        """The pages in groups, each group one move request within the server's bounds."""
        group: list[_Page] = []
        size = weight = 0
        for page in pages:
            text = self._operations(page)
            cost = sum(len(op) for op in text)
            count = len(text) * _OPERATION_WEIGHT + sum(op.count("\n") for op in text)
            over = self.request_statements and weight + count > self.request_statements
            if group and (over or size + cost > self.request_bytes):
                yield group
                group, size, weight = [], 0, 0
            group.append(page)
            size += cost
            weight += count
        if group:
            yield group

    def _operations(self, page: _Page) -> list[str]:
        """The operations that put ``page`` in place (see the module)."""
        change, view = page.change, self.view
        target = "DEFAULT" if view is None else f"GRAPH <{view}>"
        operations = copies(change.kept)
        for graph in change.replaced:
            stage = page.staged.get(graph)
            if graphs.is_page(graph):
                operations.append(out_of_view(graph, view))
            if stage is None:
                operations.append(f"DROP SILENT GRAPH <{graph}>")
                continue
            operations.append(f"MOVE SILENT GRAPH <{stage}> TO GRAPH <{graph}>")
            if graphs.is_page(graph):
                operations.append(f"ADD SILENT GRAPH <{graph}> TO {target}")
        catalogue = {g: [line_of(t) for t in ts] for g, ts in change.deleted.items()}
        operations += data("DELETE", catalogue)
        added = {g: [line_of(t) for t in ts] for g, ts in change.added.items()}
        operations += insertion(added, view)
        return operations

    def _move(self, group: list[_Page]) -> None:
        """Send the move of ``group``: once, and again only if its answer was lost before
        any of its staging graphs was moved (see the module)."""
        text = " ;\n".join(op for page in group for op in self._operations(page))
        stages = [stage for page in group for stage in page.lines]
        names = group[0].change.names + (f" and {len(group) - 1} more" if len(group) > 1 else "")
        what = f"moving the staged graphs {names} into place"
        once = copy.copy(self.client)
        once.retries = 0
        for attempt in range(self.client.retries + 1):
            try:
                once.update(what, self.update_url, text)
                return
            except StoreError as error:
                if not _transient(error) or attempt == self.client.retries:
                    raise
            left = [s for s in stages if self.finds("graph-has-triples", _graph(s))]
            if not left:
                return  # done: the answer was lost on its way back
            if len(left) < len(stages):
                raise StoreError(
                    f"{self.update_url}: the server did part of {what} before its answer was "
                    "lost; run the ingest again (a page written whole is skipped)"
                )
            time.sleep(self.client.backoff * 2**attempt)


def _staging(change: Change, stamp: str, n: int) -> _Page:
    """``change`` with a staging graph for each graph it writes triples into."""
    page = _Page(change)
    for i, (graph, triples) in enumerate(change.replaced.items()):
        lines = [line_of(t) for t in triples]
        if not lines:
            continue
        stage = f"{stamp}{n}.{i}"
        page.staged[graph] = stage
        page.lines[stage] = _labelled(lines, f"b{n}x{i}x")
    return page


def _labelled(lines: list[str], prefix: str) -> list[str]:
    """``lines`` with each blank node label made unique to its graph (N-Quads labels name one
    node across the whole document; each graph's nodes are its own, as in one update). A
    label is the first term of a line, or its last (see writes.has_blank_node); a literal's
    text is never touched."""
    if not any(has_blank_node(line) for line in lines):
        return lines
    out = []
    for line in lines:
        if line.startswith("_:"):
            line = f"_:{prefix}{line[2:]}"
        found = BLANK_OBJECT.search(line)
        if found:
            line = f"{line[: found.start()]} _:{prefix}{line[found.start() + 3 :]}"
        out.append(line)
    return out


def _fresh(change: Change, present: set[str]) -> bool:
    """Whether ``change`` only adds: it keeps no version, deletes nothing, and writes triples
    into graphs ``present`` (the store's) does not hold."""
    if change.kept or any(change.deleted.values()):
        return False
    return all(triples and graph not in present for graph, triples in change.replaced.items())


def _refused_type(error: StoreError) -> bool:
    """Whether a POST was refused for its media type or its form (a server that takes one
    graph per request)."""
    said = str(error)
    return any(f"HTTP {code}" in said for code in (400, 415, 500)) or "(404" in said


def _transient(error: StoreError) -> bool:
    """Whether ``error`` is a dropped connection or a server's passing refusal, after which
    the request may or may not have been done."""
    said = str(error)
    return said.startswith("cannot reach") or any(f"HTTP {c}" in said for c in (502, 503, 504))


def _with_graph(url: str, graph: str) -> str:
    """The Graph Store URL ``url`` of the graph ``graph`` (its ``graph`` parameter)."""
    return f"{url}{'&' if '?' in url else '?'}{urllib.parse.urlencode({'graph': graph})}"


def _graph(name: str) -> Mapping[str, ox.NamedNode]:
    return {"graph": ox.NamedNode(name)}


__all__ = ["GROUP_TRIPLES", "LEAST_PAGES", "Bulk"]
