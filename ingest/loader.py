"""From files to the store: read, detect the format, parse, map, validate, write one graph per
page.

A folder is walked past what holds no pages (stores, hidden files, virtualenvs, build output),
and a file found there that is no page is skipped. A page that cannot be read, parsed or mapped,
or whose graph breaks a shape with severity sh:Violation, changes nothing in the store. An
accepted page's graph and its validation report are written in one transaction, with its entry
in the versions catalogue (:mod:`benchgraph.versions`); the version it replaces is kept as history
in the same transaction, and a version older than the current one is kept as history only.
Bytes the store holds already (current or kept) change nothing (not even the ingest time).
Within one batch a page is loaded from the first file that holds it.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pyoxigraph as ox

from benchgraph import graphs, iris, validation, versions
from benchgraph.outcomes import Outcome
from benchgraph.store import Change, EmbeddedStore, LoadUndone, Store, StoreError, is_remote
from benchgraph.versions import Activity
from ingest import leaderboard_csv, model_index, pwc_api, pwc_tables, radar, score_file, sota2
from ingest.mapper import map_page
from ingest.records import Page, PageError

PARSERS = (sota2, radar, pwc_tables, pwc_api, model_index, score_file, leaderboard_csv)
# The formats, as a message names them.
KNOWN_FORMATS = (
    "a sota2 page, an AI Benchmark Radar page, Papers with Code evaluation tables or API "
    "responses, a Hugging Face model-index block or card, a benchmark-radar score file, a "
    "crawled leaderboard export (CSV)"
)
KEPT = "kept as history (older than the current version)"  # as the summary line says it
# Folders a walk passes by, besides hidden ones, stores and virtualenvs: build output and
# installed packages, which hold no pages of their own.
BUILD_FOLDERS = frozenset({"build", "dist", "__pycache__", "node_modules", "site-packages"})


class NotAPage(PageError):
    """Input that no format recognises: empty, binary, not text, or text no parser sniffs as
    its page. A file met by walking a folder is skipped for it; a file named is refused."""


def read_page(data: bytes, origin: str) -> Page:
    """Detect the format of ``data`` from its content and parse it.

    Raises NotAPage for empty or binary input and for text no format recognises, and PageError
    for a page of a known format that does not parse (or is not UTF-8).
    """
    if not data.strip():
        raise NotAPage(origin, "", "the file is empty", f"expected {KNOWN_FORMATS}")
    if b"\x00" in data[:8192]:
        raise NotAPage(origin, "", "binary data, not a text page")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        known = _sniffed(data.decode("utf-8-sig", errors="replace"))
        raise (PageError if known else NotAPage)(
            origin, f"byte {error.start}", "not UTF-8 text", "source pages are UTF-8"
        ) from None
    parser = _sniffed(text)
    if parser is not None:
        return parser.parse(data, origin)
    raise NotAPage(
        origin,
        "",
        f"not a source page nor a result file: none of {KNOWN_FORMATS}",
        "a sota2 page starts with '# <Task> on <Dataset>' and has a Scope table; "
        "a Radar page's first line ends with '· AI Benchmark Radar'; "
        "docs/formats.md shows each result file's format",
    )


def _sniffed(text: str) -> ModuleType | None:
    """The parser module whose format ``text`` has, if any."""
    return next((parser for parser in PARSERS if parser.sniff(text)), None)


@dataclass(frozen=True)
class Input:
    """A file to ingest: ``named`` on the command line, or met by walking a folder (then one
    that is not a page is skipped, not refused)."""

    path: Path
    named: bool = True


def expand(
    paths: Iterable[str | Path], store: str | Path | None = None
) -> Iterator[Input | Outcome]:
    """Yield the files named by ``paths``, each file once (named, if it is named anywhere): a
    file as named, a folder's files as :func:`walk` finds them (past the store at ``store``, a
    folder or a URL). Yield an ``unreadable`` Outcome for a path that does not exist and a
    ``refused`` one for a folder named that is a store."""
    given = list(paths)
    own = None if store is None or is_remote(str(store)) else Path(store).resolve()
    named = {Path(raw).resolve() for raw in given if Path(raw).is_file()}
    seen: set[Path] = set()
    for raw in given:
        path = Path(raw)
        if path.is_dir() and _is_store(path, own):
            yield Outcome(
                str(raw),
                "refused",
                f"{raw}: a benchgraph store, not a folder of pages (name the pages' folder)",
            )
            continue
        if path.is_dir():
            found = walk(path, own)
        elif path.is_file():
            found = [path]
        else:
            yield Outcome(str(raw), "unreadable", f"{raw}: no such file or folder")
            continue
        for file in found:
            resolved = file.resolve()
            if resolved not in seen:
                seen.add(resolved)
                yield Input(file, named=resolved in named)


def walk(folder: Path, store: Path | None = None) -> list[Path]:
    """The files in ``folder`` and its folders, sorted, past what holds no pages: hidden files
    and folders, stores (the one at the resolved path ``store``, and any folder with a store's
    layout file), virtualenvs (a folder with ``pyvenv.cfg``), ``*.egg-info`` and
    :data:`BUILD_FOLDERS`. Folders linked to are not followed."""
    found: list[Path] = []
    for top, folders, files in os.walk(folder):
        here = Path(top)
        folders[:] = [name for name in folders if not _passed_by(here / name, store)]
        found.extend(here / name for name in files if not name.startswith("."))
    return sorted(file for file in found if file.is_file())


def _passed_by(folder: Path, store: Path | None) -> bool:
    name = folder.name
    return (
        name.startswith(".")
        or name in BUILD_FOLDERS
        or name.endswith(".egg-info")
        or (folder / "pyvenv.cfg").is_file()
        or _is_store(folder, store)
    )


def _is_store(folder: Path, store: Path | None) -> bool:
    marked = (folder / EmbeddedStore.LAYOUT_FILE).is_file()
    return marked or (store is not None and folder.resolve() == store)


@dataclass(frozen=True)
class Write:
    """A page ready to be written: its graphs and catalogue entry (and the version it keeps
    as history), and the outcome once written."""

    change: Change
    outcome: Outcome

    @property
    def graphs(self) -> Mapping[str, Sequence[ox.Triple]]:
        """The graphs it replaces: the page's (or its history graph) and its report's."""
        return self.change.replaced

    @property
    def size(self) -> int:
        """How many triples it writes."""
        change = self.change
        return sum(len(ts) for group in (change.replaced, change.added) for ts in group.values())


def prepare(
    store: Store,
    path: Path,
    now: str | None = None,
    named: bool = True,
    accepted: dict[str, str] | None = None,
    activity: Activity | None = None,
) -> Outcome | Write:
    """Read one file and go on as :func:`prepare_bytes` with its bytes: the Outcome of a page
    that is unreadable, unchanged, refused or skipped, else the Write that loads it."""
    origin = str(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        return Outcome(origin, "unreadable", f"{origin}: cannot read: {error.strerror}")
    return prepare_bytes(store, data, origin, now, named, accepted, activity)


def prepare_bytes(
    store: Store,
    data: bytes,
    origin: str,
    now: str | None = None,
    named: bool = True,
    accepted: dict[str, str] | None = None,
    activity: Activity | None = None,
) -> Outcome | Write:
    """Parse, map and validate the bytes of one page, read from ``origin`` (the name messages
    give it): the Outcome of a page that is unchanged, refused, unreadable (the shapes cannot
    be read) or (not ``named``, and not a page) skipped, else the Write that loads it (its
    outcome ``loaded``, or ``kept`` for a version older than the current one). ``activity``
    is the ingest it belongs to (by default, one of its own, ending with its write).

    ``accepted`` maps the page graphs a batch has accepted so far to their files: a page already
    in it is refused before the store is read, and an accepted page is added to it. Raises
    StoreError when the store cannot be read."""
    try:
        page = read_page(data, origin)
        graph = graphs.page(page.key)
        if accepted is not None and graph in accepted:
            return Outcome(
                origin,
                "refused",
                f"{origin}: the same page as {accepted[graph]} (page identity {page.key}); "
                "only the first is loaded (keep one of the two files)",
            )
        known = versions.read(store, page.key)
        found = known.find(page.sha256)
        if found is not None and (found.current or known.current is not None):
            item: Outcome | Write = Outcome(
                origin, "unchanged", "", len(page.results), graph, page=page.key
            )
        else:
            item = _validated(page, origin, known, now, activity)
            if isinstance(item, Outcome):  # refused: not one of the batch's pages
                return item
    except NotAPage as error:
        if named:
            return Outcome(origin, "refused", str(error), reasons=(str(error),), not_a_page=True)
        return Outcome(origin, "skipped", f"{origin}: {error.problem}", not_a_page=True)
    except PageError as error:
        return Outcome(origin, "refused", str(error), reasons=(str(error),))
    except validation.ShapesError as error:
        return Outcome(origin, "unreadable", f"{origin}: cannot validate: {error}")
    if accepted is not None:
        accepted[graph] = origin
    return item


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
    notes = tuple(str(warning) for warning in page.warnings)
    if plan.kind == "kept":
        message = f"{origin}: page {page.key}: {KEPT}"
        kept = graphs.history(page.key, page.sha256)
        outcome = Outcome(
            origin, "kept", message, len(page.results), kept, report.findings, notes, page.key
        )
    else:
        graph = graphs.page(page.key)
        outcome = Outcome(
            origin, "loaded", "", len(page.results), graph, report.findings, notes, page.key
        )
    assert plan.change is not None
    return Write(plan.change, outcome)


def ingest_file(store: Store, path: Path, now: str | None = None) -> Outcome:
    """Load one file into ``store``: its page, once validated against the shapes, replaces that
    page's graph and its stored validation report, atomically. A page with a violation is
    ``refused`` and the store is untouched; the Outcome's message names the file, the focus
    nodes' source IDs and the shapes' messages.

    Raises StoreError when the store cannot be read or written (the page then keeps its
    previous version): that stops a batch, whose other pages would fail alike."""
    item = prepare(store, path, now)
    if isinstance(item, Write):
        store.write(item.change)
        return item.outcome
    return item


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


# A batch of at least this many files, ingested into an empty embedded store, is loaded at once
# (Store.begin_load): in groups of about LOAD_TRIPLES triples, each a bulk load (BENCHMARKS.md,
# section 1). A smaller batch takes seconds either way, and page by page each page is kept as
# soon as it is written. Groups of 50,000 triples were as fast at 10,000 pages (185 s against
# 189 s) but peaked at 406 MB against 315 MB.
LOAD_PAGES = 100
LOAD_TRIPLES = 25_000


def ingest_files(
    store: Store, paths: Iterable[Path | Input], now: str | None = None, depth: int = 4
) -> Iterator[Outcome]:
    """Load files in order, as :func:`ingest_file` would one after the other, and yield their
    outcomes in order, each once its page is in the store. A page met again in the batch (the
    same page graph) is refused before anything is written: the first file that holds it wins,
    so the same batch run again changes nothing. A plain Path is a file named (see Input).

    Writes run on a thread of their own while the next pages are parsed, mapped and validated
    (the store writes without holding Python's lock), at most ``depth`` pages ahead. The first
    failure of the store, reading or writing, stops everything after it: IngestStopped is
    raised, naming the file.

    A batch of LOAD_PAGES files or more into an empty store that can load at once (see
    Store.begin_load) is written in groups of about LOAD_TRIPLES triples, at most two groups
    ahead rather than ``depth`` pages, each reported once it is in; if a write fails, the
    store is empty again and IngestStopped says so (``emptied``)."""
    files = [given if isinstance(given, Input) else Input(given) for given in paths]
    at_once = len(files) >= LOAD_PAGES and store.begin_load()
    try:
        yield from _ingest(store, files, now, depth, LOAD_TRIPLES if at_once else 0)
    finally:
        store.end_load()


def _ingest(
    store: Store, files: list[Input], now: str | None, depth: int, group: int
) -> Iterator[Outcome]:
    """:func:`ingest_files`, its writes in groups of ``group`` triples (0: each on its own)."""
    activity = Activity.begin(now or validation.now())
    writer = _Writer(store, depth, group)
    writer.start()
    waiting: deque[tuple[Outcome | Write, int]] = deque()  # with the number of its write
    accepted: dict[str, str] = {}  # page graph: the file of the batch that holds it

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
        for file in files:
            if writer.failure is not None:
                break
            try:
                item = prepare(store, file.path, now, file.named, accepted, activity)
            except StoreError as error:  # the store could not be read
                yield from ready(block=True)  # the pages before it are written first
                if writer.failure is None:
                    raise IngestStopped(error, str(file.path)) from None
                break
            waiting.append((item, writer.put(item) if isinstance(item, Write) else 0))
            first = first or (str(file.path) if isinstance(item, Write) else "")
            yield from ready(block=False)
        yield from ready(block=True)
    finally:
        writer.stop()
    if writer.failure is not None:
        failed, cause = writer.failure
        if isinstance(cause, LoadUndone):
            raise IngestStopped(cause, first, emptied=True)
        raise IngestStopped(cause, failed.outcome.origin)
    if writer.wrote:  # the ingest's end, once its pages are written (raises StoreError)
        store.write(activity.end(validation.now()))


class _Writer(threading.Thread):
    """Writes queued pages in order, one transaction each (or, given a ``group`` size, as many
    as make that many triples in one Store.write_many), and stops at the first failure."""

    def __init__(self, store: Store, depth: int, group: int = 0) -> None:
        super().__init__(name="benchgraph-writer", daemon=True)
        self.store = store
        self.group = group
        # Grouped, the queue is bounded by triples, not pages: a group loads while the next fills.
        self.queue: queue.Queue[Write] = queue.Queue(maxsize=0 if group else depth)
        self._backlog = 0  # the triples queued or pending, not written yet
        self.failure: tuple[Write, StoreError] | None = None
        self._queued = 0  # writes numbered 1, 2, ... in order
        self._done = 0  # the number of the last write done
        self._changed = threading.Condition()
        self._stopping = False

    def put(self, item: Write) -> int:
        """Queue ``item`` (waiting while the queue is full); return its number."""
        with self._changed:
            while self.group and self._backlog >= 2 * self.group and self.failure is None:
                self._changed.wait()
            self._queued += 1
            self._backlog += item.size
        self._send(item)
        return self._queued

    def _send(self, item: Write) -> None:
        while self.failure is None:
            try:
                self.queue.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def written(self, number: int, block: bool) -> bool:
        """Whether write ``number`` is done; with ``block``, wait for it or for a failure (a
        group not full yet is written then)."""
        if block and self.group and self._done < number:
            self.queue.put(_FLUSH)  # grouped, the queue has no bound: this never waits
        with self._changed:
            while block and self._done < number and self.failure is None:
                self._changed.wait()
            return self._done >= number

    def run(self) -> None:
        pending: list[Write] = []
        size = 0  # the triples pending
        while True:
            item = self.queue.get()
            with self._changed:
                if self._stopping or self.failure is not None:
                    return
            if item is not _FLUSH:
                pending.append(item)
                size += item.size
                if size < self.group:
                    continue
            if not pending:
                continue
            try:
                self.store.write_many([p.change for p in pending])
            except StoreError as error:
                with self._changed:
                    self.failure = (pending[0], error)
                    self._changed.notify_all()
                return
            with self._changed:
                self._done += len(pending)
                self._backlog -= size
                self._changed.notify_all()
            pending, size = [], 0

    @property
    def wrote(self) -> bool:
        """Whether any write is done."""
        return self._done > 0

    def stop(self) -> None:
        """Finish the write in progress, drop the queued ones, and end the thread."""
        with self._changed:
            self._stopping = True
        while self.is_alive():
            try:  # wake the thread if it waits for work
                self.queue.put(_STOP, timeout=0.1)
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    self.queue.get_nowait()
            self.join(0.1)


_STOP = Write(Change({}), Outcome("", "unchanged"))
_FLUSH = Write(Change({}), Outcome("", "unchanged"))  # write the group so far
