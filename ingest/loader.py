"""From files to the store: each file's sources read (:mod:`ingest.reading`), mapped,
validated and written, one graph per source (:mod:`ingest.writer`).

The files come from :mod:`ingest.walking`; a file found in a folder that is no page is skipped.
A source that cannot be read, parsed or mapped, or whose graph breaks a shape with severity
sh:Violation, changes nothing in the store. An accepted source's graph and its validation
report are written in one transaction, with its entry in the versions catalogue
(:mod:`benchgraph.versions`); the version it replaces is kept as history in the same
transaction, and a version older than the current one is kept as history only. The bytes of
the current version change nothing (not even the ingest time); those of a version kept as
history make it current again. Within one batch a source is loaded from the first file that
holds it.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pyoxigraph as ox

from benchgraph import changelog, graphs, iris, queries, summaries, validation, versions
from benchgraph.outcomes import Outcome, Status
from benchgraph.store import Change, LoadUndone, Store, StoreError
from benchgraph.versions import Activity
from ingest import units
from ingest.mapper import map_page
from ingest.reading import NotAPage, read_page, read_sources
from ingest.records import Page, PageError, PageWarning
from ingest.walking import Input
from ingest.writer import Write, Writer

KEPT = "kept as history (older than the current version)"  # as the summary line says it


@dataclass
class Batch:
    """What one ingest knows across its files: its time ``now`` and ``activity``, the page
    graphs it has accepted (with the file that holds each), and the results of its accepted
    pages whose IDs are not scoped to their source (sota2's and Radar's), with their values
    and sources, to tell two sources that give one result two values."""

    now: str | None = None
    activity: Activity | None = None
    accepted: dict[str, str] = field(default_factory=dict)
    claimed: dict[str, tuple[str, str]] = field(default_factory=dict)
    read: Callable[[int], None] | None = None  # told how far into its file a source ends
    fresh: bool = False  # the batch began on an empty store


def prepare(
    store: Store, given: Input | Path, batch: Batch | None = None
) -> Iterator[Outcome | Write]:
    """Read one file and go on with each of its sources as :func:`prepare_page` does, in file
    order: the Outcome of each source that is unchanged or refused (or of the file, when it is
    unreadable, skipped or refused whole), else the Write that loads it. Then, once its
    sources are read, the Write that withdraws a source stored under an earlier identity rule
    whose bytes were this file's (see :func:`_replaced`). Raises StoreError when the store
    cannot be read."""
    file = given if isinstance(given, Input) else Input(given)
    batch = batch if batch is not None else Batch()
    origin = str(file.path)
    try:
        handle = file.path.open("rb")
    except OSError as error:
        yield Outcome(origin, "unreadable", f"{origin}: cannot read: {error.strerror}")
        return
    keys: list[str] = []
    with handle:
        try:
            for item in read_sources(handle, origin, file.repository):
                if isinstance(item, PageError):
                    yield Outcome(origin, "refused", str(item), reasons=(str(item),))
                    continue
                keys.append(item.key)
                yield prepare_page(store, item, batch)
                if batch.read is not None:
                    batch.read(handle.tell())
        except NotAPage as error:
            if file.named:
                yield Outcome(origin, "refused", str(error), reasons=(str(error),), not_a_page=True)
            else:
                yield Outcome(origin, "skipped", f"{origin}: {error.problem}", not_a_page=True)
            return
        except PageError as error:
            yield Outcome(origin, "refused", str(error), reasons=(str(error),))
            return
        except OSError as error:
            yield Outcome(origin, "unreadable", f"{origin}: cannot read: {error.strerror}")
            return
        if keys and not batch.fresh:  # a fresh batch's store holds no source it did not write
            yield from _replaced(store, _digest(handle), keys, origin, batch)


def _digest(handle: io.BufferedReader) -> str:
    """The SHA-256 of the whole file open at ``handle``."""
    handle.seek(0)
    return hashlib.file_digest(handle, "sha256").hexdigest()


def prepare_bytes(
    store: Store, data: bytes, origin: str, batch: Batch | None = None
) -> Outcome | Write:
    """Parse, map and validate the bytes of one source, read from ``origin`` (the name
    messages give it), as :func:`prepare_page` does: the Outcome of a page that is unchanged,
    refused or unreadable (the shapes cannot be read), else the Write that loads it. A file
    of several sources is refused: each is loaded on its own by :func:`prepare`. Raises
    StoreError when the store cannot be read."""
    try:
        page = read_page(data, origin)
    except PageError as error:
        refusal = str(error)
        return Outcome(
            origin, "refused", refusal, reasons=(refusal,), not_a_page=isinstance(error, NotAPage)
        )
    return prepare_page(store, page, batch if batch is not None else Batch())


def prepare_page(store: Store, page: Page, batch: Batch) -> Outcome | Write:
    """Map and validate ``page``: the Outcome of a page that is unchanged, refused (a
    violation of the shapes, a source ``batch`` has accepted already, a result another source
    gives another value) or unreadable (the shapes cannot be read), else the Write that loads
    it (its outcome ``loaded``; ``restored`` for the bytes of a version kept as history, made
    current again; or ``kept`` for a version older than the current one). An accepted page is
    added to ``batch``. Raises StoreError when the store cannot be read."""
    origin = page.origin
    graph = graphs.page(page.key)
    if graph in batch.accepted:
        return Outcome(
            origin,
            "refused",
            f"{origin}: the same page as {batch.accepted[graph]} (page identity {page.key}); "
            "only the first is loaded (keep one of the two files)",
        )
    try:
        # A batch that began on an empty store holds no version of a source it has not accepted.
        known = versions.Versions(page.key, ()) if batch.fresh else versions.read(store, page.key)
        found = known.find(page.sha256)
        if found is not None and found.current:
            item: Outcome | Write = Outcome(
                origin, "unchanged", "", len(page.results), graph, page=page.key
            )
        else:
            clash = _clash(store, page, batch)
            if clash:
                return Outcome(origin, "refused", clash, reasons=(clash,))
            item = _validated(page, origin, known, batch.now, batch.activity)
            if isinstance(item, Outcome):  # refused: not one of the batch's pages
                return item
            item = _with_deltas(store, known, page, batch, item)
    except validation.ShapesError as error:
        return Outcome(origin, "unreadable", f"{origin}: cannot validate: {error}")
    batch.accepted[graph] = origin
    if isinstance(item, Write) and item.outcome.status in ("loaded", "restored"):
        for iri, value in _unscoped(page):
            batch.claimed[iri] = (value, page.key)
    return item


def _with_deltas(
    store: Store, known: versions.Versions, page: Page, batch: Batch, item: Write
) -> Write:
    """``item`` with the deltas between its version and those next to it (see
    :func:`benchgraph.changelog.recorded`). Raises StoreError."""
    when = batch.now or validation.now()
    change = changelog.recorded(
        store, known, page.sha256, page.data_updated or "", when, item.change
    )
    return replace(item, change=change)


def _unscoped(page: Page) -> Iterator[tuple[str, str]]:
    """The IRIs and values of the page's results whose IDs are not scoped to the page's source
    (a sota2 result ID, a Radar row's key): another source may give the same ID."""
    scope = page.key + "/"
    for result in page.results:
        if not result.source_id.startswith(scope):
            yield iris.result(result.source_id), result.value


def _clash(store: Store, page: Page, batch: Batch) -> str:
    """Why ``page`` cannot be loaded without one of its results holding two values in the
    merged view (another current source, accepted by ``batch`` or in the store, gives that
    result another value), naming both sources; "" when none does. The store is not asked
    when the batch began on an empty store."""
    own = ox.NamedNode(graphs.page(page.key))
    for iri, mine in _unscoped(page):
        theirs = [batch.claimed[iri]] if iri in batch.claimed else []
        if not theirs and not batch.fresh:
            answer = store.query(
                queries.internal("result-values"),
                {"result": ox.NamedNode(iri), "own": own, "pages": ox.Literal(graphs.PAGES)},
                default_graph=(),
            )
            assert isinstance(answer, ox.QuerySolutions)
            theirs = [(_text(row["value"]), graphs.key_of(_text(row["graph"]))) for row in answer]
        for value, key in theirs:
            if key != page.key and not _same_number(value, mine):
                result = iri.removeprefix(iris.result(""))
                return (
                    f"{page.origin}: result {result} is {mine} here, but {value} in the source "
                    f"{key}: one result would hold two values (two sources give it, and this "
                    f"page is not a version of {key}); withdraw one of them (`benchgraph "
                    "remove`), or correct the page that is wrong"
                )
    return ""


def _text(term: object) -> str:
    return str(getattr(term, "value", ""))


def _same_number(first: str, second: str) -> bool:
    try:
        return Decimal(first) == Decimal(second)
    except InvalidOperation:
        return first == second


def _replaced(
    store: Store, sha256: str, keys: list[str], origin: str, batch: Batch
) -> Iterator[Outcome | Write]:
    """The Writes that withdraw each source whose current version has the bytes ``sha256`` of
    the file at ``origin`` under another identity than the file's ``keys``: the file read by an
    earlier identity rule (a card named by its model, a whole tables file as one source), or a
    card of unknown repository (its content hash) that now comes with its repository. A card
    known by its repository is a source of its own and is never withdrawn for another's bytes,
    nor is a source this batch has accepted. Each is kept as history, as a removal keeps it."""
    answer = store.query(
        queries.internal("current-of-hash"),
        {
            "sha": ox.Literal(sha256),
            "versions": ox.NamedNode(graphs.VERSIONS),
            "pages": ox.Literal(graphs.PAGES),
        },
        default_graph=(),
    )
    assert isinstance(answer, ox.QuerySolutions)
    found = sorted({versions.key_of(_text(row["source"])) for row in answer})
    for key in found:
        graph = graphs.page(key)
        if not key or key in keys or graph in batch.accepted or _REPOSITORY_KEY.fullmatch(key):
            continue
        withdrawn = versions.withdrawal(versions.read(store, key), batch.now or validation.now())
        if withdrawn is None:
            continue
        change = Change(
            {graph: [], graphs.report(graph): []},
            withdrawn.kept,
            withdrawn.added,
            withdrawn.deleted,
            withdrawn.expects,
        )
        shown = ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")
        message = (
            f"{origin}: the source {key}, stored under an earlier identity of this file's "
            f"bytes, is now {shown}: withdrawn (kept as history)"
        )
        batch.accepted[graph] = origin
        yield Write(change, Outcome(origin, "replaced", message, page=key, graph=graph))


# A model card known by its Hugging Face repository: ``model-index/ORG/NAME``.
_REPOSITORY_KEY = re.compile(r"model-index/[^/]+/[^/]+")


def _validated(
    page: Page, origin: str, known: versions.Versions, now: str | None, activity: Activity | None
) -> Outcome | Write:
    """The Write that stores a new version of ``page`` (``known``: its versions stored), once
    its graph conforms to the shapes; else the Outcome that refuses it. Raises ShapesError
    when the shapes cannot be read, StoreError when the store cannot be."""
    when = now or validation.now()
    triples = map_page(page, when)
    conforms, report = validation.validate_triples(triples, origin)
    if not conforms:
        violations = (f for f in report.findings if f.severity == "Violation")
        reasons = tuple(f.describe() for f in violations)
        return Outcome(origin, "refused", report.refusal(), reasons=reasons)
    source = iris.source(page.key)
    plan = versions.plan(
        known,
        page.sha256,
        page.data_updated or "",
        len(page.results),
        when,
        activity or Activity.begin(when, ended=True),
        triples,
        lambda name: report.triples(name, source, when),
    )
    notes = tuple(str(warning) for warning in (*page.warnings, *out_of_range(page)))
    if plan.kind == "kept":
        message = f"{origin}: page {page.key}: {KEPT}"
        kept = graphs.history(page.key, page.sha256)
        outcome = Outcome(
            origin, "kept", message, len(page.results), kept, report.findings, notes, page.key
        )
    else:
        graph = graphs.page(page.key)
        message = ""
        if plan.kind == "restored":
            message = (
                f"{origin}: page {page.key}: version {page.sha256[:16]}, kept as history, is "
                "current again (the version it replaces is kept as history)"
            )
        status: Status = "restored" if plan.kind == "restored" else "loaded"
        outcome = Outcome(
            origin, status, message, len(page.results), graph, report.findings, notes, page.key
        )
    assert plan.change is not None
    return Write(summaries.added(plan.change, page.key, page.sha256, triples), outcome)


def out_of_range(page: Page) -> Iterator[PageWarning]:
    """A warning for each result whose figure is far outside its unit's range: a percentage
    below 0 or above 100, a count below 0 (a figure typed without its decimal point, a value
    on another scale)."""
    units_of = {
        (d.benchmark or page.benchmark, d.name): units.canonical(d.unit or "") for d in page.metrics
    }
    for result in page.results:
        unit = units_of.get((result.benchmark or page.benchmark, result.metric))
        try:
            value = Decimal(result.value)
        except InvalidOperation:
            continue
        if unit == units.PERCENT and not 0 <= value <= 100:
            problem = f"{result.value} is not a percentage (from 0 to 100)"
        elif unit == units.COUNT and value < 0:
            problem = f"{result.value} is a negative count"
        else:
            continue
        where = result.location or (f"line {result.line}" if result.line else "")
        yield PageWarning(
            page.origin,
            where or f"result {result.source_id}",
            f"{result.method}, {result.metric}: {problem}",
            "check the figure against its source: loaded as published",
        )


def ingest_file(store: Store, path: Path, now: str | None = None) -> Outcome:
    """Load one file into ``store``: its page, once validated against the shapes, replaces that
    page's graph and its stored validation report, atomically. A page with a violation is
    ``refused`` and the store is untouched; the Outcome's message names the file, the focus
    nodes' source IDs and the shapes' messages. A file of several sources has each loaded so,
    and gives the Outcome of its first (:func:`ingest_files` gives each).

    Raises StoreError when the store cannot be read or written (the page then keeps its
    previous version): that stops a batch, whose other pages would fail alike."""
    outcomes = []
    for item in prepare(store, path, Batch(now=now)):
        if isinstance(item, Write):
            store.write(item.change)
            item = item.outcome
        outcomes.append(item)
    return outcomes[0]


class IngestStopped(Exception):
    """The store failed (``error``, a StoreError) at the file ``path``: the pages before it are
    written, it and the pages after it are not. When ``emptied``, the batch was loaded at once
    into an empty store (see LOAD_PAGES), and the store is empty again: ``path`` is the
    batch's first page to be written."""

    def __init__(self, error: StoreError, path: str, emptied: bool = False) -> None:
        super().__init__(str(error))
        self.error = error
        self.path = path
        self.emptied = emptied


# A batch of at least this many files, or of files of at least LOAD_BYTES bytes in all (a Papers
# with Code archive: one file, thousands of sources), ingested into an empty embedded store, is
# loaded at once (Store.begin_load): in groups of about LOAD_TRIPLES triples, each a bulk load
# (BENCHMARKS.md, section 1). A smaller batch takes seconds either way, and page by page each
# page is kept as soon as it is written. Groups of 50,000 triples were as fast at 10,000 pages
# (185 s against 189 s) but peaked at 406 MB against 315 MB.
LOAD_PAGES = 100
LOAD_BYTES = 8 << 20
LOAD_TRIPLES = 25_000

# Told how far a batch has read: the bytes of its files read so far, and all of them.
Progress = Callable[[int, int], None]


def ingest_files(
    store: Store,
    paths: Iterable[Path | Input],
    now: str | None = None,
    depth: int = 4,
    progress: Progress | None = None,
) -> Iterator[Outcome]:
    """Load files in order, as :func:`ingest_file` would one after the other, and yield the
    outcomes of their sources in order, each once its source is in the store. A source met
    again in the batch (the same page graph) is refused before anything is written: the first
    file that holds it wins, so the same batch run again changes nothing. A plain Path is a
    file named (see Input). ``progress``, if given, is told how far the files are read.

    Writes run on a thread of their own while the next sources are parsed, mapped and
    validated (the store writes without holding Python's lock), at most ``depth`` sources
    ahead. The first failure of the store, reading or writing, stops everything after it:
    IngestStopped is raised, naming the file.

    A batch of LOAD_PAGES files or more, or of LOAD_BYTES bytes or more, into an empty store
    that can load at once (see Store.begin_load) is written in groups of about LOAD_TRIPLES
    triples, at most two groups ahead rather than ``depth`` sources, each reported once it is
    in; if a write fails, the store is empty again and IngestStopped says so (``emptied``). If
    the batch is interrupted (KeyboardInterrupt, or the generator closed), the load stays
    unfinished: the next writable open of the store empties it (see Store.begin_load)."""
    files = [given if isinstance(given, Input) else Input(given) for given in paths]
    sizes = [_size(file.path) for file in files]
    large = len(files) >= LOAD_PAGES or sum(sizes) >= LOAD_BYTES
    at_once = large and store.begin_load()
    reading = _Reading(sizes, progress)
    try:
        yield from _ingest(store, files, now, depth, LOAD_TRIPLES if at_once else 0, reading)
    except Exception:
        store.end_load()  # a failed write has emptied the store already
        raise
    # Interrupted (Ctrl-C, or the caller stopped reading): a load at once is left unfinished,
    # all or nothing, so the next command that writes empties the store and one that reads
    # refuses it; page by page, what was written stays.
    store.end_load()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


class _Reading:
    """How far a batch has read its files, told to a Progress."""

    def __init__(self, sizes: list[int], progress: Progress | None) -> None:
        self.sizes = sizes
        self.total = sum(sizes)
        self.progress = progress
        self.before = 0  # the bytes of the files read whole

    def at(self, index: int, handle_at: int) -> None:
        if self.progress is not None:
            self.progress(self.before + min(handle_at, self.sizes[index]), self.total)

    def done(self, index: int) -> None:
        self.before += self.sizes[index]
        if self.progress is not None:
            self.progress(self.before, self.total)


def _ingest(
    store: Store, files: list[Input], now: str | None, depth: int, group: int, reading: _Reading
) -> Iterator[Outcome]:
    """:func:`ingest_files`, its writes in groups of ``group`` triples (0: each on its own)."""
    # A store that writes pages in groups (a remote one) and holds nothing yet is not asked
    # about each page either.
    fresh = group > 0 or (store.write_group > 0 and store.holds_nothing())
    batch = Batch(now=now, activity=Activity.begin(now or validation.now()), fresh=fresh)
    writer = Writer(store, depth, group or store.write_group)
    writer.start()
    waiting: deque[tuple[Outcome | Write, int]] = deque()  # with the number of its write

    def ready(block: bool) -> Iterator[Outcome]:
        # Once a write failed, what came before it is still reported (pages written, pages
        # refused): the failed write is never written, and stops the reporting there.
        while waiting:
            item, number = waiting[0]
            if isinstance(item, Write) and not writer.written(number, block):
                return
            waiting.popleft()
            yield item.outcome if isinstance(item, Write) else item

    first = ""  # the first file written
    try:
        for index, file in enumerate(files):
            if writer.failure is not None:
                break
            batch.read = lambda at, index=index: reading.at(index, at)
            try:
                for item in prepare(store, file, batch):
                    waiting.append((item, writer.put(item) if isinstance(item, Write) else 0))
                    first = first or (str(file.path) if isinstance(item, Write) else "")
                    yield from ready(block=False)
                    if writer.failure is not None:
                        break
            except StoreError as error:  # the store could not be read
                yield from ready(block=True)  # the pages before it are written first
                if writer.failure is None:
                    raise IngestStopped(error, str(file.path)) from None
                break
            reading.done(index)
        yield from ready(block=True)
    finally:
        writer.stop()
    if writer.failure is not None:
        failed, cause = writer.failure
        if isinstance(cause, LoadUndone):
            raise IngestStopped(cause, first, emptied=True)
        raise IngestStopped(cause, failed.outcome.origin)
    if writer.wrote:  # the ingest's end, once its pages are written (raises StoreError)
        assert batch.activity is not None
        store.write(batch.activity.end(validation.now()))
