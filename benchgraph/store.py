"""The store: the only state benchgraph has.

Each source page lives in its own named graph, the provenance of what it states, beside the graph
of its validation report. Queries see the **merged view** as their default graph: each distinct
triple of the page graphs exactly once (see :mod:`benchgraph.graphs`). Writing or removing a page
updates the view in the same transaction, and a triple leaves the view only when no page graph
states it any more; so a reader never sees a half-written page, and the view always equals the
set-union of the page graphs.

Two implementations share one interface, :class:`Store`, and :func:`open_store` picks one from
the location: a folder is an :class:`EmbeddedStore` (pyoxigraph, on disk), whose default graph
is the view; an ``http(s)://`` URL is a :class:`benchgraph.remote.RemoteStore`, any SPARQL 1.1
server, where the view is the named graph :data:`benchgraph.graphs.VIEW`. Nothing else knows
which.

The updates that maintain the view are written here, not in ``queries/``: they are built around
the data of each write, and the one place that knows where the view lives (a default graph or a
named one) is the store.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pyoxigraph as ox

from benchgraph import export, graphs, holder, queries
from benchgraph import vocab as V
from benchgraph.sparqltext import Term, substitute
from benchgraph.suggest import Names

Notify = Callable[[str], None]

# The files RocksDB keeps a store's data in, and the layout file (EmbeddedStore.LAYOUT_FILE):
# a folder with any of them holds a store, whole or damaged.
DATA_FILES = ("*.sst", "MANIFEST-*", "OPTIONS-*", "*.log", "benchgraph-layout.json")
# What to do with a damaged store, as every message that refuses one says.
REMEDY = (
    "restore the folder from a backup, or make a new store, from a good copy (`benchgraph copy "
    "--from COPY --to NEWDIR`) or from the pages (`benchgraph ingest --store NEWDIR PAGES...`)"
)

# Triples a repair or an upgrade sends in one update.
_BATCH = 20_000
_DECIMAL = ox.NamedNode("http://www.w3.org/2001/XMLSchema#decimal")
# A statement whose object is a blank node (see has_blank_node).
_BLANK_OBJECT = re.compile(r" _:[^ \"<>]+ \.$")
# The folder of the store file a RocksDB error names.
_DAMAGED_FILE = re.compile(r"(/\S+)/(?:[0-9]+\.sst|MANIFEST-[0-9]+)")


class StoreError(Exception):
    """The store could not be opened, read or written; the message names it and what failed."""


class LoadUndone(StoreError):
    """A load of many pages at once into an empty store failed; the store is empty again, as it
    was before the load (see :meth:`Store.begin_load`)."""


class WriteConflict(StoreError):
    """A write was refused, nothing of it written: another writer changed a source it rewrites
    after it was read (see ``Change.expects``). Reading the source again and redoing the write
    is safe."""


class DamagedStore(StoreError):
    """The store's files are damaged or some are missing: it is refused, never read as an
    empty store nor written over (see :func:`check_folder`)."""


class OutdatedStore(StoreError):
    """The store was written by an earlier benchgraph, whose default graph was the union of the
    page graphs, and it was opened read-only, so it cannot be upgraded here."""


def is_remote(location: str | Path) -> bool:
    """Whether ``location`` names a SPARQL server (an http(s) URL) rather than a folder."""
    return str(location).lower().startswith(("http://", "https://"))


def open_store(
    location: str | Path,
    *,
    must_exist: bool = False,
    notify: Notify | None = None,
    reading: bool = False,
    named_by: str = "",
) -> Store:
    """The store at ``location``: a SPARQL server's query endpoint URL, or a folder (created if
    missing, unless ``must_exist``; ``named_by`` says where the location came from, for the
    message). A store written by an earlier benchgraph is upgraded (its merged view built
    once), and ``notify`` is told so. A command that only ``reading`` never empties a store
    its first ingest left half-loaded: it is refused. A folder a running server holds is
    reached through that server (:mod:`benchgraph.served`). Raises StoreError if it cannot be
    opened."""
    if is_remote(location):
        from benchgraph.remote import RemoteStore  # only loaded when used

        return RemoteStore.from_settings(str(location), notify=notify)
    check_folder(Path(location))
    if must_exist and not (Path(location) / "CURRENT").is_file():
        by = f" (named by {named_by})" if named_by else ""
        raise StoreError(
            f"there is no store at {location}{by}: check the name, or load pages first with "
            f"`benchgraph ingest --store {location} PAGES...`"
        )
    serving = holder.live(Path(location))
    if serving is not None and serving.pid != os.getpid():
        from benchgraph.served import ServedStore, owner_url

        url = owner_url(serving)
        if url is not None:
            return ServedStore(str(location), serving, url)
    return EmbeddedStore(location, notify=notify, reading=reading)


def check_folder(folder: Path) -> int | None:
    """The layout number the store folder ``folder`` records in its layout file (None: it has
    none, or the folder holds no store yet). A folder that holds a store's data files (see
    :data:`DATA_FILES`) but not RocksDB's ``CURRENT``, which names the others, is refused
    before the engine opens it: the engine would take it for a new, empty store. So is a
    layout file that is empty or does not parse, or missing while the store's default graph
    (its merged view) holds statements: a store of the first layout, which had no layout file,
    had no view either. Raises DamagedStore."""
    layout = folder / EmbeddedStore.LAYOUT_FILE
    found = [p.name for p in _data_files(folder)]
    if found and not (folder / "CURRENT").is_file():
        raise DamagedStore(
            f"{folder / 'CURRENT'}: missing, beside the store's data files ({found[0]} and "
            f"{len(found) - 1} more): the store at {folder} is damaged; {REMEDY}"
        )
    if not layout.is_file():
        if found and _holds_view(folder):
            raise DamagedStore(
                f"{layout}: missing, while the store holds statements: the store at {folder} "
                f"is damaged; {REMEDY}"
            )
        return None
    try:
        number = json.loads(layout.read_text(encoding="utf-8")).get("layout")
    except (OSError, ValueError, AttributeError) as error:
        raise DamagedStore(
            f"{layout}: cannot read the store's layout ({error}): the store at {folder} is "
            f"damaged; {REMEDY}"
        ) from None
    if not isinstance(number, int):
        raise DamagedStore(
            f"{layout}: no layout number in it: the store at {folder} is damaged; {REMEDY}"
        )
    return number


def _holds_view(folder: Path) -> bool:
    """Whether the default graph of the store at ``folder`` holds statements (its merged view:
    a store of the first layout, which a missing layout file means, has none), read without
    writing. Raises DamagedStore."""
    try:
        found = ox.Store.read_only(str(folder)).quads_for_pattern(
            None, None, None, ox.DefaultGraph()
        )
        return next(iter(found), None) is not None
    except (OSError, RuntimeError) as error:
        raise damage(str(folder), error) or StoreError(
            f"cannot open the store at {folder}: {error}"
        ) from None


def _data_files(folder: Path) -> list[Path]:
    """The store's data files in ``folder`` (none when it is not a folder), sorted."""
    if not folder.is_dir():
        return []
    return sorted(p for pattern in DATA_FILES for p in folder.glob(pattern) if p.is_file())


def damage(location: str | None, error: BaseException) -> DamagedStore | None:
    """The DamagedStore the engine's ``error`` means, when it says the files of the store at
    ``location`` (None: the folder of the file it names) are damaged or missing (RocksDB's
    ``Corruption: …``); else None."""
    text = " ".join(str(error).split())
    if not text.startswith("Corruption"):
        return None
    named = _DAMAGED_FILE.search(text)
    where = location or (named.group(1) if named else "in use")
    return DamagedStore(f"the store at {where} is damaged (the engine says: {text}); {REMEDY}")


def disk_full(location: str, error: BaseException) -> StoreError | None:
    """The StoreError the engine's or the system's ``error`` means when the disk that holds
    the store at ``location`` is full, saying how much room is left there; else None."""
    if getattr(error, "errno", None) != errno.ENOSPC and "No space left" not in str(error):
        return None
    try:
        free = f"{shutil.disk_usage(location).free / 2**20:.1f} MB free"
    except OSError:
        free = "free space unknown"
    return StoreError(
        f"the disk that holds the store at {location} is full ({error}; {free}): free some "
        "space and run the command again"
    )


class SentTriples:
    """The triples of a CONSTRUCT or DESCRIBE answer a server sent in ``fmt``, read from the
    body as it came (what :class:`pyoxigraph.QueryTriples` is for the embedded store: iterated,
    or serialized). Read whole when made, so a malformed body fails here, not while read.
    Raises SyntaxError for a body that is not ``fmt``."""

    def __init__(self, body: bytes, fmt: ox.RdfFormat) -> None:
        self._triples = [quad.triple for quad in ox.parse(body, fmt)]

    def __iter__(self) -> Iterator[ox.Triple]:
        return iter(self._triples)

    def serialize(
        self, output: IO[bytes] | None = None, format: ox.RdfFormat = ox.RdfFormat.N_TRIPLES
    ) -> bytes | None:
        """The triples written in ``format``: returned, or written to ``output`` if given."""
        return ox.serialize(self._triples, output, format)


Triples = ox.QueryTriples | SentTriples  # a CONSTRUCT or DESCRIBE answer
Answer = ox.QuerySolutions | ox.QueryBoolean | Triples


def statement(triple: ox.Triple) -> str:
    """A triple as a line of SPARQL's data syntax. pyoxigraph prints terms in N-Triples syntax,
    which SPARQL accepts as is: page text reaches an update only inside escaped literals and
    validated IRIs. A whole decimal is written with its ``.0`` (``41.0``): the same value, and
    the form Virtuoso keeps a decimal (it reads ``"41"^^xsd:decimal`` as an integer)."""
    value = triple.object
    if isinstance(value, ox.Literal) and value.datatype == _DECIMAL and "." not in value.value:
        return f'{triple.subject} {triple.predicate} "{value.value}.0"^^<{_DECIMAL.value}> .'
    return f"{triple.subject} {triple.predicate} {value} ."


def in_view(body: str, view: str | None) -> str:
    """``body`` (triples or a triple pattern) placed in the merged view: the default graph
    (``view`` None) or the named graph ``view``."""
    return body if view is None else f"GRAPH <{view}> {{\n{body}\n}}"


def out_of_view(graph: str, view: str | None, *, unless_gone: str | None = None) -> str:
    """The update that takes out of the view every statement of ``graph`` that no other page
    graph states. With ``unless_gone``, it does nothing once the graph ``unless_gone`` is empty
    (a staged write's last request, safe to repeat)."""
    guard = f"FILTER EXISTS {{ GRAPH <{unless_gone}> {{ ?a ?b ?c }} }}\n" if unless_gone else ""
    return (
        f"DELETE {{ {in_view('?s ?p ?o', view)} }}\n"
        f"WHERE {{\n  GRAPH <{graph}> {{ ?s ?p ?o }}\n  {guard}"
        f"  FILTER NOT EXISTS {{\n    GRAPH ?other {{ ?s ?p ?o }}\n"
        f'    FILTER (?other != <{graph}> && STRSTARTS(STR(?other), "{graphs.PAGES}"))\n  }}\n}}'
    )


@dataclass(frozen=True)
class Change:
    """One write, done in one transaction: graphs ``replaced`` with their triples, after each
    graph of ``kept`` is copied to the graph it maps to (a version kept as history), and
    triples ``added`` to, and ``deleted`` from, graphs that are not replaced (the versions
    catalogue). ``expects`` holds, for each source whose catalogue entries the change rewrites,
    the fingerprint of those entries as read when the change was made
    (:func:`benchgraph.versions.fingerprint`): a store that more than one process writes (a
    served store) refuses the change with :class:`WriteConflict` when they differ by the time
    it is applied, as another writer changed that source meanwhile."""

    replaced: Mapping[str, Sequence[ox.Triple]]
    kept: Mapping[str, str] = field(default_factory=dict)
    added: Mapping[str, Sequence[ox.Triple]] = field(default_factory=dict)
    deleted: Mapping[str, Sequence[ox.Triple]] = field(default_factory=dict)
    expects: Mapping[str, str] = field(default_factory=dict)

    @property
    def names(self) -> str:
        """The graphs written, for messages."""
        return ", ".join(f"<{graph}>" for graph in dict.fromkeys([*self.replaced, *self.added]))


def copies(kept: Mapping[str, str]) -> list[str]:
    """The operations that copy each graph of ``kept`` to the graph it maps to (replacing
    that graph's content)."""
    return [f"COPY SILENT GRAPH <{graph}> TO GRAPH <{to}>" for graph, to in kept.items()]


def data(verb: str, lines: Mapping[str, Sequence[str]]) -> list[str]:
    """``INSERT DATA`` or ``DELETE DATA`` (``verb``) of the statements ``lines`` holds by
    graph, as one operation (none when there are none)."""
    body = [f"GRAPH <{graph}> {{\n" + "\n".join(ts) + "\n}" for graph, ts in lines.items() if ts]
    return [f"{verb} DATA {{\n" + "\n".join(body) + "\n}"] if body else []


def has_blank_node(line: str) -> bool:
    """Whether the statement ``line`` (see :func:`statement`) has a blank node as its subject
    or object: its first term is ``_:…``, or its last (a literal ends in a quote, a language
    tag or a datatype IRI, never in a blank node label)."""
    return line.startswith("_:") or _BLANK_OBJECT.search(line) is not None


def insertion(lines: Mapping[str, Sequence[str]], view: str | None) -> list[str]:
    """The operations that insert the statements ``lines`` holds by graph, and those of the
    page graphs into the view: one ``INSERT DATA`` of the statements without blank nodes; and,
    for each graph with blank nodes, an ``INSERT … WHERE {}`` of its statements that have one
    (SPARQL allows no blank node in ``DELETE DATA`` and servers such as Virtuoso none in
    ``INSERT DATA``; a template gives them new identities, as ``INSERT DATA`` does), then, for
    a page graph, those statements copied into the view from the graph, so that the view
    holds the same nodes."""
    ground: dict[str, list[str]] = {}
    blank: dict[str, list[str]] = {}
    for graph, body in lines.items():
        for line in body:
            (blank if has_blank_node(line) else ground).setdefault(graph, []).append(line)
    blocks = [f"GRAPH <{graph}> {{\n" + "\n".join(ts) + "\n}" for graph, ts in ground.items()]
    facts = [line for graph, body in ground.items() if graphs.is_page(graph) for line in body]
    if facts:
        blocks.append(in_view("\n".join(facts), view))
    operations = ["INSERT DATA {\n" + "\n".join(blocks) + "\n}"] if blocks else []
    for graph, body in blank.items():
        operations.append(f"INSERT {{ GRAPH <{graph}> {{\n" + "\n".join(body) + "\n}} WHERE {}")
        if graphs.is_page(graph):
            operations.append(
                f"INSERT {{ {in_view('?s ?p ?o', view)} }} WHERE {{ GRAPH <{graph}> "
                "{ ?s ?p ?o } FILTER (isBlank(?s) || isBlank(?o)) }"
            )
    return operations


def replacement(
    lines: Mapping[str, Sequence[str]],
    view: str | None,
    change: Change | None = None,
) -> str:
    """The update that replaces each named graph of ``lines`` with its statements, in one
    request, and keeps the view equal to the union of the page graphs: first the graphs
    ``change`` keeps are copied, then the replaced pages' statements leave the view (unless
    another page states them), then the new ones enter (see :func:`insertion`), with the
    statements ``change`` adds (and without those it deletes). Blank node labels are scoped
    to the operation, so each must be unique per graph."""
    operations = copies(change.kept) if change else []
    operations += [out_of_view(graph, view) for graph in lines if graphs.is_page(graph)]
    operations += [f"DROP SILENT GRAPH <{graph}>" for graph in lines]
    if change is not None:
        operations += data(
            "DELETE", {g: [statement(t) for t in ts] for g, ts in change.deleted.items()}
        )
    written = dict(lines)
    if change is not None:
        for graph, ts in change.added.items():
            if ts:
                written[graph] = [*written.get(graph, ()), *(statement(t) for t in ts)]
    return " ;\n".join([*operations, *insertion(written, view)])


def removal(graph: str, view: str | None) -> str:
    """The update that removes the named graph ``graph`` (and its statements from the view,
    but those another page states)."""
    drop = f"DROP SILENT GRAPH <{graph}>"
    return f"{out_of_view(graph, view)} ;\n{drop}" if graphs.is_page(graph) else drop


@dataclass(frozen=True)
class ViewCheck:
    """How the merged view differs from the set-union of the page graphs: the triples some
    page states that the view lacks, and the triples the view holds that no page states."""

    missing: tuple[ox.Triple, ...]
    extra: tuple[ox.Triple, ...]

    @property
    def exact(self) -> bool:
        return not self.missing and not self.extra

    def text(self) -> str:
        if self.exact:
            return "the merged view holds each triple of the page graphs once, and nothing else"
        return (
            f"the merged view differs from the union of the page graphs: {len(self.missing)} "
            f"triples stated by pages are missing from it, {len(self.extra)} triples in it are "
            "stated by no page; `benchgraph repair` rebuilds it"
        )


class Store(ABC):
    """A store of named graphs, queried over their merged view."""

    location: str
    # Most statements the store takes in one update (0: no bound; a remote store's setting).
    request_statements = 0

    @property
    def view(self) -> str | None:
        """Where the merged view lives: None, the default graph; else the named graph of that
        name (a remote server whose default graph is the union of its graphs)."""
        return None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def close(self) -> None:
        """Flush writes and release the store."""

    def replace_graphs(self, contents: Mapping[str, Iterable[ox.Triple]]) -> None:
        """Replace each named graph of ``contents`` with its triples, all at once (a page's graph
        and its validation report, for instance), and the view with them: a :meth:`write`.

        Raises StoreError if the write fails; every graph then keeps its previous content.
        """
        self.write(Change({graph: list(triples) for graph, triples in contents.items()}))

    def begin_load(self) -> bool:
        """Start loading many pages at once, if this store can: True if it does, and
        :meth:`write_many` then loads each group of writes without a transaction, until
        :meth:`end_load`. A store that cannot (this one; see EmbeddedStore) goes on writing each
        change in its own transaction."""
        return False

    def end_load(self) -> None:
        """End the load that :meth:`begin_load` started (nothing if none was)."""
        return None

    def write_many(self, changes: Sequence[Change]) -> None:
        """Do each of ``changes`` in order, each in its own transaction (see :meth:`write`).
        Raises StoreError at the first that fails: the ones before it are written."""
        for change in changes:
            self.write(change)

    def write(self, change: Change) -> None:
        """Do ``change`` in one transaction (see Change), the view with it.

        Raises StoreError if the write fails; the store is then as it was."""
        lines = {g: [statement(t) for t in ts] for g, ts in change.replaced.items()}
        update = replacement(lines, self.view, change)
        self.apply(f"writing graph {change.names}", update, change.expects)

    def replace_graph(self, graph: str, triples: Iterable[ox.Triple]) -> None:
        """Replace the named graph ``graph`` with ``triples`` at once (see replace_graphs)."""
        self.replace_graphs({graph: triples})

    def remove_graph(self, graph: str) -> None:
        """Remove the named graph ``graph`` (a no-op if it is not there) and, for a page
        graph, the statements no other page states from the view, at once."""
        self.update(f"removing graph <{graph}>", removal(graph, self.view))

    def remove_page(self, graph: str, change: Change | None = None) -> None:
        """Remove the page graph ``graph`` and its validation report graph in one transaction,
        with the statements no other page states from the view (a no-op for a page that is
        not there), once the graphs ``change`` keeps are copied, and with its catalogue
        statements added and deleted (its ``replaced`` graphs are not written). Raises
        StoreError; the page and its report are then both still there."""
        operations = copies(change.kept) if change else []
        operations += [removal(graph, self.view), f"DROP SILENT GRAPH <{graphs.report(graph)}>"]
        if change is not None:
            for verb, found in (("DELETE", change.deleted), ("INSERT", change.added)):
                operations += data(verb, {g: [statement(t) for t in ts] for g, ts in found.items()})
        self.apply(
            f"removing page <{graph}>", " ;\n".join(operations), change.expects if change else {}
        )

    @abstractmethod
    def update(self, what: str, text: str) -> None:
        """Run the SPARQL update ``text`` (built by this module, never a user's) as one
        transaction. Raises StoreError, saying it failed while ``what``."""

    def apply(self, what: str, text: str, expects: Mapping[str, str]) -> None:
        """Run the update ``text`` of a change made from catalogue entries read as ``expects``
        says (see Change), as :meth:`update` does. A store with one writer has nothing to check;
        a served store has the server check them (raising WriteConflict)."""
        self.update(what, text)

    @abstractmethod
    def graph_triples(self, graph: str | None) -> Iterator[ox.Triple]:
        """Yield the triples of the named graph ``graph`` (None: the merged view)."""

    def graph_ntriples(self, graph: str) -> bytes:
        """The triples of the named graph ``graph`` as N-Triples (what a copy of it reads)."""
        return ox.serialize(self.graph_triples(graph), format=ox.RdfFormat.N_TRIPLES) or b""

    @abstractmethod
    def named_graphs(self) -> list[str]:
        """The names of the page and report graphs (and any other named graph), sorted."""

    @abstractmethod
    def quads(self, history: bool = True) -> Iterator[ox.Quad]:
        """Yield every quad of the named graphs, and the merged view's triples as quads of the
        default graph (streamed). Without ``history``, the quads of the history graphs, their
        reports and the versions catalogue (:func:`benchgraph.graphs.is_history`) are left out:
        the store as it is now."""

    @abstractmethod
    def query(
        self,
        sparql: str,
        bindings: Mapping[str, Term] | None = None,
        *,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        base_iri: str | None = None,
    ) -> Answer:
        """Run a read query, with ``bindings`` substituted for variables as RDF terms.

        The default graph is the merged view and every named graph can be reached with GRAPH,
        unless ``default_graph`` or ``named_graphs`` give the dataset; an empty
        ``default_graph`` says the query reads named graphs only. Raises SyntaxError for a
        malformed query and StoreError when the store cannot answer.
        """

    def answer(
        self, named: queries.NamedQuery, values: Mapping[str, str], base_iri: str | None = None
    ) -> Answer:
        """Run the named query ``named`` with the parameter ``values`` (text by name): bound,
        names looked up (:func:`benchgraph.queries.resolve`), then run (on the store as it was,
        when the query reads its past: :mod:`benchgraph.asof`), its relative IRIs resolved
        against ``base_iri``. Raises QueryError (UnknownName for a name that names nothing),
        SyntaxError or StoreError."""

        def lookup(
            text: str, bindings: Mapping[str, Term], within: Sequence[str] | None = None
        ) -> list[str]:
            found = self.query(text, bindings, default_graph=within)
            assert isinstance(found, ox.QuerySolutions)
            return [str(getattr(row[0], "value", "")) for row in found if row[0] is not None]

        def names(text: str, bindings: Mapping[str, Term]) -> Names:
            return Names(lookup(text, bindings))

        def earlier(text: str, bindings: Mapping[str, Term]) -> list[str]:
            kept = [g for g in self.named_graphs() if g.startswith(graphs.HISTORY)]
            return lookup(text, bindings, kept) if kept else []

        from benchgraph import asof  # it reads the versions catalogue, which imports this

        bindings = queries.resolve(named, values, lookup, names, earlier)
        asked = asof.past(named, bindings)
        if asked is not None:
            return asof.run(self, asked, named.text, bindings, base_iri)
        return self.query(named.text, bindings, base_iri=base_iri)

    def source_hash(self, graph: str, source: str) -> str | None:
        """Return the content hash recorded for ``source`` in ``graph``, or None."""
        answer = self.query(
            queries.internal("source-hash"),
            {"graph": ox.NamedNode(graph), "source": ox.NamedNode(source)},
            default_graph=(),
        )
        assert isinstance(answer, ox.QuerySolutions)
        for row in answer:
            return str(getattr(row["hash"], "value", ""))
        return None

    def lists(self, graph: str) -> bool:
        """Whether the named graph ``graph`` is one of the store's (not its machinery: see
        :func:`benchgraph.graphs.is_hidden`)."""
        return not graphs.is_hidden(graph)

    def graph_sizes(self) -> dict[str, int]:
        """How many triples each named graph holds."""
        answer = self.query(queries.internal("graph-sizes"), default_graph=())
        assert isinstance(answer, ox.QuerySolutions)
        sizes = {}
        for row in answer:
            graph, triples = row["graph"], row["triples"]
            named = isinstance(graph, ox.NamedNode) and self.lists(graph.value)
            if named and isinstance(triples, ox.Literal):
                sizes[graph.value] = int(triples.value)
        return sizes

    def finds(
        self,
        name: str,
        bindings: Mapping[str, Term] | None = None,
        default_graph: Sequence[str] | None = None,
    ) -> bool:
        """Whether the internal SELECT query ``name`` has an answer."""
        answer = self.query(queries.internal(name), bindings, default_graph=default_graph)
        assert isinstance(answer, ox.QuerySolutions)
        return next(iter(answer), None) is not None

    def has_pages(self) -> bool:
        """Whether any page graph holds anything."""
        return self.finds("has-pages", {"pages": ox.Literal(graphs.PAGES)}, default_graph=())

    def check_view(self) -> ViewCheck:
        """Compare the merged view with the set-union of the page graphs."""

        def triples(name: str) -> tuple[ox.Triple, ...]:
            answer = self.query(queries.internal(name), {"pages": ox.Literal(graphs.PAGES)})
            assert isinstance(answer, ox.QuerySolutions)
            return tuple(ox.Triple(row["s"], row["p"], row["o"]) for row in answer)

        return ViewCheck(triples("view-missing"), triples("view-extra"))

    def repair_view(self, check: ViewCheck | None = None) -> ViewCheck:
        """Make the merged view equal to the union of the page graphs again: add what is
        missing, remove what no page states, in batches (a repair that stops can be run
        again). Returns what differed."""
        check = check if check is not None else self.check_view()
        for verb, found in (("DELETE", check.extra), ("INSERT", check.missing)):
            batch = self.request_statements or _BATCH
            for start in range(0, len(found), batch):
                body = "\n".join(statement(t) for t in found[start : start + batch])
                self.update(
                    "repairing the merged view", f"{verb} DATA {{\n{in_view(body, self.view)}\n}}"
                )
        return check

    def dump(self, output: IO[bytes], fmt: ox.RdfFormat, history: bool = False) -> None:
        """Write the quads of :meth:`quads` to ``output`` in the quad format ``fmt``, as they
        are read (the view as the default graph; the history only if ``history``)."""
        ox.serialize(self.quads(history), output, fmt, prefixes=V.PREFIXES)

    def export(self, key: str, output: IO[bytes], history: bool = False) -> None:
        """Write the whole store to ``output`` in the dump format with media key ``key``
        (see :mod:`benchgraph.export`), with its history if ``history``. Raises OSError or
        StoreError when it cannot be read or written, ValueError for ``history`` with a format
        that holds one graph."""
        export.write(self, key, output, history)


def present(quads: Iterable[ox.Quad]) -> Iterator[ox.Quad]:
    """The quads of ``quads`` but those in a graph of history (a kept version, its report, the
    versions catalogue: :func:`benchgraph.graphs.is_history`), in their order."""
    for quad in quads:
        graph = quad.graph_name
        if not (isinstance(graph, ox.NamedNode) and graphs.is_history(graph.value)):
            yield quad


def notice(text: str) -> None:
    """Tell the user something that is not a command's output (a store being upgraded): a line
    on stderr. The ``notify`` the commands and the server's store are given."""
    sys.stderr.write(text + "\n")


def upgrade_notice(location: str, pages: int) -> str:
    """What a user is told when a store of the earlier layout is upgraded."""
    return (
        f"benchgraph: the store at {location} was written by an earlier version, whose default "
        "graph was the union of the page graphs (a fact stated by n pages came back n times); "
        f"building its merged view from {pages} page graphs, once"
    )


def _change_nquads(change: Change) -> bytes:
    """A fresh ``change`` (see EmbeddedStore.write) as N-Quads: its graphs and additions, and
    the statements of its page graphs in the default graph, the merged view."""
    facts = [t for g, ts in change.replaced.items() if graphs.is_page(g) for t in ts]
    written = [*change.replaced.items(), *change.added.items()]
    return b"".join(_nquads(g, ts) for g, ts in written) + _nquads(None, facts)


def _write_synced(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` at once and make it durable: written whole beside it, then
    put in its place, so that a process killed meanwhile leaves the file as it was, never
    empty or cut."""
    written = path.with_name(path.name + ".tmp")
    with written.open("w", encoding="utf-8") as file:
        file.write(text)
        file.flush()
        os.fsync(file.fileno())
    os.replace(written, path)
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _nquads(graph: str | None, triples: Iterable[ox.Triple]) -> bytes:
    """``triples`` as N-Quads in ``graph`` (None: the default graph). N-Triples escapes line
    breaks inside literals, so every ``" .\\n"`` of its output ends a statement."""
    text = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES) or b""
    return text if graph is None else text.replace(b" .\n", f" <{graph}> .\n".encode())


class EmbeddedStore(Store):
    """An embedded pyoxigraph store in the folder ``location`` (created if missing). Its default
    graph is the merged view. A store of the earlier layout (no :data:`LAYOUT_FILE`, page graphs
    present) is upgraded when opened for writing (``notify`` is told), and refused with
    OutdatedStore when opened ``read_only``. Opened for writing, it holds the store's lock and
    says so in the folder (:mod:`benchgraph.holder`: ``record``, by default this process as
    it runs) until closed; a store another holds is refused with a StoreError naming the
    holder."""

    # The store keeps what it was given in memory until it is flushed to its files: without a
    # flush now and then, a long ingest grows by about what it writes (measured: 0.6 MB a page).
    FLUSH_BYTES = 16 * 1024 * 1024
    # Tries at a snapshot that met a file deleted under it (see snapshot).
    SNAPSHOT_ATTEMPTS = 5
    # Written once the merged view is complete (a new store, or an upgrade that finished): its
    # absence beside page graphs means the view is not built yet, whatever the default graph
    # holds, so an upgrade stopped half-way is started again, never taken for done.
    LAYOUT_FILE = "benchgraph-layout.json"
    # Layout 2: the merged view. Layout 3: each source named by which source it is, never by what
    # it says (:mod:`benchgraph.identities` upgrades a store of layout 2 when opened to write).
    LAYOUT_NUMBER = 3
    LAYOUT = (
        '{"layout": 3, "default graph": "the merged view of the page graphs", '
        '"identities": "a source is named by which source it is"}\n'
    )
    VIEW_LAYOUT = '{"layout": 2, "default graph": "the merged view of the page graphs"}\n'
    UPGRADING_LAYOUT = '{"layout": 1, "default graph": "the merged view, being built"}\n'
    # There while many pages are loaded into an empty store at once (see begin_load).
    LOAD_FILE = "benchgraph-loading.json"

    def __init__(
        self,
        location: str | Path,
        *,
        read_only: bool = False,
        notify: Notify | None = None,
        record: holder.Holder | None = None,
        reading: bool = False,
    ) -> None:
        self.location = str(location)
        self._reading = reading
        marked = check_folder(Path(location))
        self._store = self._open(read_only, record)
        self._read_only = read_only
        self._unflushed = 0
        self._loading = False
        if not read_only:
            self._hold(record or holder.Holder.now())
        try:
            self._check()
            self._prepare(marked, notify)
        except (OSError, RuntimeError) as error:
            self._release()
            raise self._fault(error, f"cannot open the store at {self.location}") from None
        except BaseException:
            self._release()
            raise

    def _open(self, read_only: bool, record: holder.Holder | None) -> ox.Store:
        """The engine's store at the location (the folder made if missing, unless
        ``read_only``). Raises StoreError: DamagedStore for damaged or missing files."""
        try:
            if read_only:
                return ox.Store.read_only(self.location)
            Path(self.location).mkdir(parents=True, exist_ok=True)
            return ox.Store(self.location)
        except (OSError, RuntimeError) as error:  # RuntimeError: RocksDB's "Corruption: …"
            if isinstance(error, OSError) and holder.is_lock_conflict(error):
                serving = record is not None and record.is_server
                raise StoreError(holder.conflict(self.location, serving=serving)) from None
            raise self._fault(error, f"cannot open the store at {self.location}") from None

    def _check(self) -> None:
        """Read the keys of every quad once, so that a damaged block among them fails here,
        as a DamagedStore, rather than while a query runs: pyoxigraph's query engine goes round
        forever on a block that fails its checksum, while a plain read raises. About 0.3 s a
        million quads; a server's query workers, which open snapshots of a store checked
        when the server started, skip it."""
        if self._read_only:
            return
        try:
            len(self._store)
        except (OSError, RuntimeError) as error:
            raise damage(self.location, error) or StoreError(
                f"cannot read the store at {self.location}: {error}"
            ) from None

    def _prepare(self, marked: int | None, notify: Notify | None) -> None:
        """Empty an unfinished first load, then mark a new store with the layout, or upgrade
        one of an earlier layout (``marked``: what its layout file records; None, no file)."""
        layout = Path(self.location) / self.LAYOUT_FILE
        if (Path(self.location) / self.LOAD_FILE).exists():
            self._unfinished_load(notify)
        if marked is None or marked < 2:
            self._adopt(layout, notify)
        if not self._read_only and self._layout(layout) < self.LAYOUT_NUMBER:
            from benchgraph.identities import upgrade  # built on the store

            upgrade(self, notify)
            _write_synced(layout, self.LAYOUT)

    def _hold(self, record: holder.Holder) -> None:
        """Say in the store folder that this process holds its write lock, now taken (a
        record found there is stale: its process held the lock no more)."""
        try:
            holder.write(Path(self.location), record)
        except OSError as error:
            self._release()
            raise StoreError(
                f"cannot write {Path(self.location) / holder.FILE}, which says who holds the "
                f"store: {error}"
            ) from None

    def _release(self) -> None:
        """Remove this process's record, then release the store (and its lock)."""
        if not self._read_only:
            holder.release(Path(self.location))
        del self._store

    def _unfinished_load(self, notify: Notify | None) -> None:
        """The store holds a load into an empty store that is running or did not finish (see
        begin_load): refused read-only or to a command that only reads; emptied, as it was
        before that load, for writing (the write lock says no load runs)."""
        if self._read_only or self._reading:
            raise StoreError(
                f"the store at {self.location} is being filled by its first ingest, or that "
                f"ingest stopped half-way ({self.LOAD_FILE} is there): nothing in it can be read "
                "until it ends; if it stopped, run the ingest again (it empties the store "
                f"first), or empty it with `benchgraph repair --store {self.location}`"
            )
        if notify is not None:
            notify(
                f"benchgraph: the store at {self.location} holds part of a first ingest that "
                "stopped half-way; emptying it, as it was before that ingest (run the ingest "
                "again)"
            )
        self._undo_load()
        if (Path(self.location) / self.LOAD_FILE).exists():
            raise StoreError(f"cannot empty the store at {self.location} of its unfinished load")

    def _layout(self, layout: Path) -> int:
        """The layout number the store's layout file records. Raises DamagedStore for a file
        that is not there or does not parse: the store is not taken for another."""
        number = check_folder(layout.parent)
        if number is None:
            raise DamagedStore(f"{layout}: missing: the store at {self.location} is damaged")
        return number

    def _adopt(self, layout: Path, notify: Notify | None) -> None:
        """Mark a new store as being of this layout, or upgrade one of the earlier layout."""
        pages = [g for g in self.named_graphs() if graphs.is_page(g)]
        if pages and self._read_only:
            raise OutdatedStore(
                f"the store at {self.location} was written by an earlier version of benchgraph "
                "and its merged view is not built yet; upgrade it once with `benchgraph repair "
                f"--store {self.location}` (any command that writes, such as ingest, does it too)"
            )
        if self._read_only:
            return
        if pages:
            started = time.perf_counter()
            if notify is not None:
                notify(upgrade_notice(self.location, len(pages)))
            # Said first: a store whose upgrade stopped half-way is upgraded again, never
            # taken for one that lost its layout file (see _prepare).
            _write_synced(layout, self.UPGRADING_LAYOUT)
            self._store.clear_graph(ox.DefaultGraph())
            for start in range(0, len(pages), 100):
                names = " ".join(f"<{g}>" for g in pages[start : start + 100])
                self.update(
                    "building the merged view",
                    f"INSERT {{ ?s ?p ?o }} WHERE {{ VALUES ?g {{ {names} }} "
                    "GRAPH ?g { ?s ?p ?o } }",
                )
            if notify is not None:
                size = sum(
                    1 for _ in self._store.quads_for_pattern(None, None, None, ox.DefaultGraph())
                )
                notify(
                    f"benchgraph: the merged view holds {size} triples "
                    f"({time.perf_counter() - started:.1f} s)"
                )
        self._store.flush()
        _write_synced(layout, self.VIEW_LAYOUT if pages else self.LAYOUT)

    def close(self) -> None:
        try:
            if not self._read_only:
                self._flush()
        finally:
            self._release()

    def _flush(self) -> None:
        """Write what the store holds in memory to its files. Raises StoreError."""
        try:
            self._store.flush()
        except (OSError, RuntimeError) as error:
            raise self._fault(error, "cannot write the store's files") from None

    def _fault(self, error: BaseException, doing: str) -> StoreError:
        """The StoreError for the engine's ``error`` while ``doing``: the disk is full, the
        store is damaged, or else what the engine says."""
        full = disk_full(self.location, error)
        if full is not None:
            return StoreError(f"{doing}: {full}; the pages written before it are kept")
        return damage(self.location, error) or StoreError(f"{doing}: {error}")

    def write(self, change: Change) -> None:
        """One transaction either way. A write that replaces graphs that do not exist yet (a
        first ingest), and only adds to the others, is loaded as N-Quads, the page's
        statements into the view as well: about a third faster than the SPARQL update that
        replaces existing ones, and without holding Python's lock (an ingest prepares the next
        pages meanwhile). The load gives blank nodes new identities, as ``INSERT DATA`` does,
        the same within one write."""
        if not self._fresh(change):
            super().write(change)
            return
        data = _change_nquads(change)
        try:
            self._store.load(data, format=ox.RdfFormat.N_QUADS)
        except (OSError, RuntimeError, SyntaxError) as error:
            raise self._fault(error, f"cannot write graph {change.names}") from None
        self._written(len(data))

    def begin_load(self) -> bool:
        """Load many pages at once if the store is empty: :meth:`write_many` then hands each
        group of fresh writes (new graphs, catalogue additions) to pyoxigraph's bulk loader,
        which writes the store's files directly rather than through a transaction each. That
        is not atomic, so the load is all or nothing instead: :data:`LOAD_FILE` says in the
        folder that it runs; a write that fails empties the store again (LoadUndone), and a
        store opened with the file still there (a load killed half-way) is emptied when opened
        for writing, and refused when opened read-only. Nothing is lost either way, as the
        store held nothing before. :meth:`end_load` flushes the store and removes the file."""
        if self._read_only or self._loading or not self._is_empty():
            return False
        record = json.dumps({"pid": os.getpid(), "since": holder.Holder.now().since})
        _write_synced(Path(self.location) / self.LOAD_FILE, record + "\n")
        self._loading = True
        return True

    def end_load(self) -> None:
        if not self._loading:
            return
        self._flush()
        self._unflushed = 0
        (Path(self.location) / self.LOAD_FILE).unlink()
        _sync_folder(Path(self.location))
        self._loading = False

    def write_many(self, changes: Sequence[Change]) -> None:
        """With a load begun (see :meth:`begin_load`), every change fresh (as :meth:`write` has
        it): all in one bulk load, in no transaction; a failure raises LoadUndone, the store
        empty again. Else each in its own transaction. A blank node label stands for one node
        across the group, not one write; the labels pages carry are random (pyoxigraph's and
        rdflib's), so no two pages share one."""
        if not self._loading or not all(self._fresh(change) for change in changes):
            super().write_many(changes)
            return
        data = b"".join(_change_nquads(change) for change in changes)
        try:
            self._store.bulk_load(data, format=ox.RdfFormat.N_QUADS)
        except (OSError, RuntimeError, SyntaxError) as error:
            self._undo_load()
            names = changes[0].names if len(changes) == 1 else f"{changes[0].names} and after"
            state = "the store is empty again, as it was before this ingest began"
            if (Path(self.location) / self.LOAD_FILE).exists():
                state = "the store is emptied, as it was before this ingest, once next opened"
            cause = disk_full(self.location, error) or error
            raise LoadUndone(f"cannot write graph {names}: {cause}; {state}") from None

    def _fresh(self, change: Change) -> bool:
        """Whether ``change`` only writes graphs that do not exist yet, and adds to others."""
        if change.kept or any(change.deleted.values()):
            return False
        return not any(self._store.contains_named_graph(ox.NamedNode(g)) for g in change.replaced)

    def _is_empty(self) -> bool:
        return next(iter(self._store.quads_for_pattern(None, None, None, None)), None) is None

    def _undo_load(self) -> None:
        """Empty the store of a load that did not finish (it was empty before it began)."""
        self._loading = False
        try:
            self._store.clear()
            self._store.flush()
        except OSError:
            return  # the file stays: the store is emptied when next opened
        (Path(self.location) / self.LOAD_FILE).unlink(missing_ok=True)

    def update(self, what: str, text: str) -> None:
        try:
            self._store.update(text)
        except (OSError, RuntimeError, SyntaxError) as error:
            raise self._fault(error, f"{self.location}: failed while {what}") from None
        self._written(len(text))

    def _written(self, size: int) -> None:
        self._unflushed += size
        if self._unflushed > self.FLUSH_BYTES:
            self._flush()
            self._unflushed = 0

    def snapshot(self, target: Path) -> None:
        """Write a copy of the store as it is now to the folder ``target`` (which must not
        exist): hard links to the store's files, so it costs little room and time, and a
        store of its own that can be opened read-only while this one goes on being written.
        Raises StoreError."""
        for attempt in range(1, self.SNAPSHOT_ATTEMPTS + 1):
            try:
                self._store.backup(str(target))
                (target / self.LAYOUT_FILE).write_text(self.LAYOUT, encoding="utf-8")
                return
            except (OSError, RuntimeError) as error:  # RuntimeError: "Directory exists"
                # RocksDB's checkpoint lists the store's files, then links them; a compaction
                # still finishing from the last write can delete one in between ("No such
                # file"). The files it left are taken again from scratch.
                for made in (target, target.with_name(target.name + ".tmp")):
                    shutil.rmtree(made, ignore_errors=True)
                if attempt == self.SNAPSHOT_ATTEMPTS or "No such file" not in str(error):
                    raise StoreError(
                        f"cannot snapshot the store at {self.location}: {error}"
                    ) from None

    def graph_triples(self, graph: str | None) -> Iterator[ox.Triple]:
        name = ox.DefaultGraph() if graph is None else ox.NamedNode(graph)
        for quad in self._store.quads_for_pattern(None, None, None, name):
            yield quad.triple

    def graph_ntriples(self, graph: str) -> bytes:
        # Written by the engine: a tenth of the time of the triples made Python objects.
        written = self._store.dump(format=ox.RdfFormat.N_TRIPLES, from_graph=ox.NamedNode(graph))
        return written or b""

    def named_graphs(self) -> list[str]:
        return sorted(g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode))

    def quads(self, history: bool = True) -> Iterator[ox.Quad]:
        # One iterator reads one snapshot of the store, so a dump is of one state even while
        # the store is written (as a served store is).
        every = iter(self._store)
        return every if history else present(every)

    def query(
        self,
        sparql: str,
        bindings: Mapping[str, Term] | None = None,
        *,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        base_iri: str | None = None,
    ) -> Answer:
        options: dict[str, object] = {}
        if default_graph is not None:
            options["default_graph"] = [ox.NamedNode(g) for g in default_graph]
        if named_graphs is not None:
            options["named_graphs"] = [ox.NamedNode(g) for g in named_graphs]
        # Bound as the remote store binds them, by writing each term in place of its variable
        # (benchgraph.sparqltext): the engine then plans with the term as a constant. Given
        # through pyoxigraph's ``substitutions`` it plans as if the variable were free, and
        # starts from the wrong pattern (140-180 ms instead of 20 ms for a paper's methods at
        # 1,000 pages).
        return self._store.query(
            substitute(sparql, bindings or {}),
            base_iri=base_iri,
            **options,  # type: ignore[arg-type]
        )
