"""The changes feed: ``GET /changes.atom``, an Atom 1.0 feed (RFC 4287) of the results added,
removed or changed across the store, newest first.

It is the named query ``changes`` (``queries/changes.rq``) as a feed of what the store learned:
its ``clock`` is ``store`` unless the request asks for ``data``, so ``since`` and ``until`` are
the store's own time, and a page loaded into the running server is in the feed at once, dated
when it was loaded. The request's ``since``, ``until`` and ``benchmark`` are resolved as
``/queries/changes`` resolves them (a benchmark by label, dataset name or IRI; one that names
nothing is 404 with suggestions, a moment that is none 400) and the query runs as a
:class:`~server.engine.Job` on a query worker, its answer cached per store generation; the feed
carries an ``ETag`` and ``Last-Modified``, so revalidation is answered 304 without running
anything. The query reads only the pages whose version changed in the window, each from the
delta kept at ingest where there is one (:mod:`benchgraph.changelog`), so the feed of the whole
store costs what its changes do, not what the store holds. Without ``since`` the feed starts
:data:`DEFAULT_DAYS` days before ``until``, or before the latest change the versions catalogue
records by its clock (by the store's: the latest ingest, withdrawal or restore). It lists at
most :data:`MAX_ENTRIES` changes, the newest; its subtitle says when more changed.

One entry per change row, dated by the feed's clock (when the store loaded it; with
``clock=data``, the page's data-updated time), its content giving both versions' data-updated
times and when it was loaded: its id is minted from the result and the two versions compared,
so it stays the same as long as they do; its link is the result's site page.

Besides, one entry (category ``contradiction``) per result added in the window that contradicts
a standing figure of its claim (:mod:`server.contradictions`): it names the method, benchmark
and metric, both values and both sources, and links to the claim's site page.
"""

from __future__ import annotations

import hashlib
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

import pyoxigraph as ox
from flask import Blueprint, Response, request
from werkzeug.http import is_resource_modified

from benchgraph import asof, graphs, media, queries
from benchgraph import vocab as V
from benchgraph.versions import instant
from server import contradictions
from server.backend import Backend, current
from server.contradictions import Contradiction
from server.engine import VALUES, Job, Term
from server.named import asked, cache_key, given

blueprint = Blueprint("feed", __name__)

ATOM = "http://www.w3.org/2005/Atom"
XML = "http://www.w3.org/XML/1998/namespace"
DEFAULT_DAYS = 90
MAX_ENTRIES = 200


@dataclass(frozen=True)
class Change:
    """One row of the ``changes`` query: a result added, removed or changed."""

    change: str  # added, removed or changed
    result: str
    method: str
    benchmark: str
    benchmark_label: str
    metric_label: str
    old_value: str
    new_value: str
    old_version: str
    old_modified: str
    new_version: str
    new_modified: str
    changed_at: str
    loaded_at: str  # when the store learned it
    dated: str  # the time the entry is dated by: loaded_at, or changed_at by the data clock

    @classmethod
    def of(cls, row: Mapping[str, str], clock: str = "store") -> Change:
        """The change a row (cells by variable, as text) gives, dated by ``clock``; a missing
        label is the IRI's last part."""
        return cls(
            row.get("change", ""),
            row.get("result", ""),
            row.get("methodLabel") or _local(row.get("result", "")),
            row.get("benchmark", ""),
            row.get("benchmarkLabel") or _local(row.get("benchmark", "")),
            row.get("metricLabel") or _local(row.get("metric", "")),
            row.get("oldValue", ""),
            row.get("newValue", ""),
            row.get("oldVersion", ""),
            row.get("oldModified", ""),
            row.get("newVersion", ""),
            row.get("newModified", ""),
            row.get("changedAt", ""),
            row.get("loadedAt", ""),
            row.get("loadedAt" if clock == "store" else "changedAt", ""),
        )

    @property
    def id(self) -> str:
        """The entry's id: the same for the same result and versions compared. A URN, not an
        IRI under the resources' base, where it would name a resource none serves."""
        digest = hashlib.sha256(f"{self.result}\n{self.old_version}\n{self.new_version}".encode())
        return f"urn:benchgraph:change:{digest.hexdigest()[:32]}"

    @property
    def page(self) -> str:
        """The IRI whose site page the entry links to: the result's."""
        return self.result

    @property
    def title(self) -> str:
        """The entry's title: "PRISM on Prompt Recovery on LAION: 81.7 → 81.9 (CLIP Score)"."""
        head = f"{self.method} on {self.benchmark_label}"
        if self.change == "added":
            return f"{head}: added, {self.new_value} ({self.metric_label})"
        if self.change == "removed":
            return f"{head}: removed, was {self.old_value} ({self.metric_label})"
        if self.old_value == self.new_value:
            return (
                f"{head}: {self.new_value} ({self.metric_label}), "
                "its unit, reporting paper or configuration changed"
            )
        return f"{head}: {self.old_value} → {self.new_value} ({self.metric_label})"

    def text(self) -> str:
        """The entry's content: both versions, with their data-updated times."""

        def side(value: str, version: str, modified: str, absent: str) -> str:
            if not version:
                return absent
            updated = f", data updated {modified}" if modified else ""
            return f"{value or 'no such result'} in version {version}{updated}"

        before = side(self.old_value, self.old_version, self.old_modified, "no version of its page")
        gone = f"its page was withdrawn at {self.changed_at}" if self.changed_at else "withdrawn"
        after = side(self.new_value, self.new_version, self.new_modified, gone)
        learned = f"Loaded into the store at {self.loaded_at}.\n" if self.loaded_at else ""
        return (
            f"{self.title}.\n"
            f"Before: {before}.\n"
            f"After: {after}.\n"
            f"{learned}"
            f"Metric: {self.metric_label}. Result: {self.result}"
        )


def rfc3339(when: datetime) -> str:
    """``when`` as an RFC 3339 date-time, in UTC (``Z``), milliseconds only where it has any."""
    when = when.astimezone(UTC)
    spec = "milliseconds" if when.microsecond else "seconds"
    return when.isoformat(timespec=spec).replace("+00:00", "Z")


def _local(iri: str) -> str:
    return iri.rstrip("/").rsplit("/", 1)[-1]


def page_of(base: str, iri: str) -> str:
    """The site page of a benchgraph IRI, as an absolute URL (``base`` ends in a slash)."""
    return base + "page/" + iri[len(V.ID) :] if iri.startswith(V.ID) else iri


def default_since(backend: Backend, until: str, fallback: datetime, clock: str) -> str:
    """The date a feed without ``since`` starts from: :data:`DEFAULT_DAYS` days before
    ``until``, else before the latest change the versions catalogue records by ``clock`` (by
    the store's: the latest ingest, withdrawal or restore; by the data's: the latest
    data-updated or withdrawal time), else before ``fallback`` (a store with no catalogue).
    An ``until`` that is no moment is left for the query's parameters to refuse."""
    end: datetime | None = None
    if until:
        try:
            end = asof.moment(until.strip())
        except ValueError:
            end = None
    else:
        latest = backend.lookup(
            queries.internal("latest-load" if clock == "store" else "latest-change"),
            {"versions": ox.NamedNode(graphs.VERSIONS)},
        )
        end = instant(latest[0]) if latest else None
    return ((end or fallback) - timedelta(days=DEFAULT_DAYS)).date().isoformat()


@dataclass(frozen=True)
class Feed:
    """What the feed document says besides its entries."""

    id: str
    title: str
    subtitle: str
    self_url: str
    alternate: str
    author: str
    author_url: str
    updated: datetime | None


def document(feed: Feed, changes: list[Change | Contradiction], base: str) -> bytes:
    """The Atom feed document of ``changes`` (newest first), written by an XML writer. Its
    elements are in the Atom namespace as the root's default namespace (ElementTree writes a
    default namespace only for documents without unqualified attributes, as Atom's are)."""

    def add(parent: ET.Element, name: str, text: str = "", **attributes: str) -> ET.Element:
        element = ET.SubElement(parent, name, attributes)
        if text:
            element.text = text
        return element

    root = ET.Element("feed", {"xmlns": ATOM, f"{{{XML}}}lang": "en"})
    add(root, "id", feed.id)
    add(root, "title", feed.title, type="text")
    add(root, "subtitle", feed.subtitle, type="text")
    updated = feed.updated or datetime.now(UTC)  # Atom requires one
    add(root, "updated", rfc3339(updated))
    add(root, "link", rel="self", type=media.BY_KEY["atom"].mime, href=feed.self_url)
    add(root, "link", rel="alternate", type="text/html", href=feed.alternate)
    author = add(root, "author")
    add(author, "name", feed.author)
    add(author, "uri", feed.author_url)
    add(root, "generator", "benchgraph", uri=feed.author_url)
    for change in changes:
        entry = add(root, "entry")
        add(entry, "id", change.id)
        add(entry, "title", change.title, type="text")
        add(entry, "updated", rfc3339(instant(change.dated) or updated))
        add(entry, "link", rel="alternate", type="text/html", href=page_of(base, change.page))
        add(entry, "category", term=change.change, label=change.change)
        add(entry, "summary", change.title, type="text")
        add(entry, "content", change.text(), type="text")
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


@blueprint.get("/changes.atom")
def changes() -> Response:
    """The feed of the changes the request's ``since``, ``until`` and ``benchmark`` select."""
    backend = current()
    named = backend.catalogue["changes"]
    values = given(named)
    backend.pool.start()
    generation = backend.pool.generation
    wanted = {"clock": "store", **values}  # what the store learned when, unless asked
    clock = wanted["clock"].strip().lower()
    if not values.get("since"):
        until = values.get("until", "")
        wanted["since"] = default_since(backend, until, generation.modified, clock)
    question = asked(backend, named, wanted)
    bindings = question.bindings
    base = backend.base_url()
    key = ("feed", *cache_key(named, bindings, VALUES, None))
    shown = (key, base, request.query_string)  # the links the document carries
    digest = hashlib.sha256(repr(shown).encode("utf-8")).hexdigest()[:16]
    etag = f"{generation.tag}-{digest}"
    if not is_resource_modified(request.environ, etag=etag, last_modified=generation.modified):
        response = Response(status=304)
    else:
        answer = backend.cache.get((generation.tag, key))
        if answer is None:
            job = Job.asking(question, VALUES, None, MAX_ENTRIES)
            answer = backend.run(job)
            backend.cache.put((generation.tag, key), answer)
        assert answer.values is not None
        found = [Change.of(row, clock) for row in answer.values.rows]
        feed = _feed(backend, base, values, bindings, found, answer.truncated)
        if feed.updated is None:  # no change with a time: the store's own
            feed = replace(feed, updated=generation.modified)
        body = document(feed, _with_contradictions(backend, found), base)
        response = Response(body, content_type=media.BY_KEY["atom"].content_type)
    response.set_etag(etag)
    response.last_modified = generation.modified
    response.headers["Cache-Control"] = "no-cache"
    return response


def _with_contradictions(backend: Backend, found: list[Change]) -> list[Change | Contradiction]:
    """The entries: each change, followed by the contradictions the result it added brings
    (dated as it is, so the entries stay newest first)."""
    brought: dict[str, list[Contradiction]] = {}
    for contradiction in contradictions.found(backend, found):
        brought.setdefault(contradiction.new.result, []).append(contradiction)
    entries: list[Change | Contradiction] = []
    for change in found:
        entries += [change, *brought.get(change.result, [])]
    return entries


def _feed(
    backend: Backend,
    base: str,
    values: Mapping[str, str],
    bindings: Mapping[str, Term],
    found: list[Change],
    capped: bool,
) -> Feed:
    """The feed's metadata (``updated`` None when no change has a time): its id is the
    canonical URL of what it selects, the benchmark by IRI and each moment in its canonical
    form, a default ``since`` left out (it moves with the store)."""
    text = {k: v.value for k, v in bindings.items() if isinstance(v, ox.NamedNode | ox.Literal)}
    iri = text.get("benchmark", "")
    canonical = {k: text[k] for k in ("benchmark", "since", "until", "clock") if k in text}
    for default in ("since", "clock"):
        if not values.get(default):
            canonical.pop(default, None)
    feed_url = base + "changes.atom"
    label = ""
    if iri:
        names = backend.lookup(queries.internal("name-of"), {"resource": ox.NamedNode(iri)})
        label = names[0] if names else _local(iri)
    scope = f" on {label}" if label else " across the store"
    until = f" until {text['until']}" if "until" in text else ""
    since = text["since"]
    by = "loaded into the store" if text.get("clock") == "store" else "by their pages' dates"
    subtitle = (
        f"Results added, removed or changed{scope} since {since}{until} ({by}), newest first."
        " A result added that contradicts a standing figure of its claim is an entry too."
    )
    if capped:
        subtitle += (
            f" Only the latest {MAX_ENTRIES} changes are listed: more changed (a later since, "
            "an until or a benchmark narrows the feed)."
        )
    query = request.query_string.decode("utf-8", "replace")
    newest = [t for t in (instant(c.dated) for c in found) if t is not None]
    return Feed(
        id=feed_url + ("?" + urlencode(sorted(canonical.items())) if canonical else ""),
        title=f"benchgraph: changes{scope}",
        subtitle=subtitle,
        self_url=feed_url + ("?" + query if query else ""),
        alternate=page_of(base, iri) if iri else base + "site",
        author="benchgraph",
        author_url=base,
        updated=max(newest) if newest else None,
    )
