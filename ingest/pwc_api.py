"""Parser for Papers with Code REST API v1 responses (JSON).

The API (``https://paperswithcode.com/api/v1/``) answers with one JSON object: a paper
(``/papers/<id>/``), or one page of a list in the envelope ``{"count", "next", "previous",
"results"}``: papers, methods, a paper's results or a paper's tasks. What each gives:

- a paper: a PaperRef in ``Page.papers``: ``url`` is ``url_abs``, ``title``, ``date`` is
  ``published``, ``arxiv_id`` from the ``arxiv_id`` field or else an arxiv.org ``url_abs`` or
  ``url_pdf``, without its version suffix. The paper's ``id`` is a Papers with Code slug, not a
  sota2 paper ID, so it is no PaperRef ``source_id``.
- a method: a MethodRecord in ``Page.methods``. Its ``paper``, the slug of the paper that
  introduced the method, is its origin: the response names nothing else of that paper, so the
  origin is a PaperRef whose ``url`` is the paper's page, ``https://paperswithcode.com/paper/<slug>``.
- a result: none. A paper's results name the method, the metric values and the reporting paper,
  but no task and no dataset, so no result has a benchmark; such a response is refused, and the
  message says what to load instead.
- a task: none. A task list names tasks alone, and a task is recorded only as part of a
  benchmark (task and dataset); such a response is refused.

A document of papers or methods has no benchmark, metrics or results (``declared_count`` 0,
``total_count`` None: it has no result rows).

Rows: a list's items are independent claims. An item that cannot be read (not an object, a field
of the wrong type, a paper with no title, a method with no name) is skipped with a PageWarning
naming its path (``results[3].published``); a list with no item left is refused. A single paper is
one claim: anything wrong in it refuses the file. An envelope that is not one (``results`` not a
list, a ``count`` that is no count, a one-page list with another number of items than its
``count``) is refused, as is a list with no items (nothing to load).

Key: ``pwc-api/paper/<slug>`` for a paper, ``pwc-api/<papers|methods>/<slug of the first item>``
for a list. The response names the list it pages through only in its ``next`` and ``previous``
links, which change as the list grows (the last page gains a ``next``) and are absent from a
one-page list (a paper's methods); its items are in the API's order (papers by publication date,
a paper's methods as listed for it), so a newer capture of the same page starts with the same
item while its count and later items change. Two lists that start with the same item share a
key. ``url`` is None: a response does not state its own address (``next`` is the following
page's); ``data_updated`` is None: it states no date of its own. ``publisher`` is Papers with
Code, whose API answers in this format.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from datetime import date
from decimal import Decimal
from typing import Any, TypeVar
from urllib.parse import quote

from ingest.records import MethodRecord, Page, PageError, PageWarning, PaperRef, SourceFormat
from ingest.structured import decoded, load_json, path, shown

FORMAT: SourceFormat = "pwc-api"
PAPER_PAGE = "https://paperswithcode.com/paper/{}"
PUBLISHER = "Papers with Code"

_ENVELOPE = frozenset({"count", "next", "previous", "results"})
# The keys that tell each kind of item apart, in the order they are tried (a method also has
# a task's keys).
_KINDS: dict[str, frozenset[str]] = {
    "papers": frozenset({"id", "arxiv_id", "url_abs", "title"}),
    "methods": frozenset({"id", "name", "full_name", "paper"}),
    "results": frozenset({"id", "metrics", "methodology"}),
    "tasks": frozenset({"id", "name", "description"}),
}
_SINGULAR = {"papers": "paper", "methods": "method", "results": "result", "tasks": "task"}
_ARXIV_ID = r"(\d{4}\.\d{4,5}|[a-z][a-z-]*(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
_ARXIV = re.compile(_ARXIV_ID)
_ARXIV_URL = re.compile(rf"https?://(?:www\.)?arxiv\.org/(?:abs|pdf)/{_ARXIV_ID}(?:\.pdf)?/?")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_HEAD_KEY = re.compile(r'"(count|next|previous|results|arxiv_id|url_abs)"\s*:')
_SNIFF_LIMIT = 8_000_000  # characters: past this, only the head of the text is looked at
_HEAD = 4096
_TRUNCATED_OR_EDITED = "the response may be truncated or edited"
_TABLES = (
    "load the evaluation-tables.json dump instead (format pwc-tables), whose rows carry their "
    "task and dataset"
)

Item = TypeVar("Item")


class _Unreadable(Exception):
    """A field that cannot be read: where it is and what is wrong."""

    def __init__(self, location: str, problem: str) -> None:
        super().__init__(problem)
        self.location = location
        self.problem = problem


def sniff(text: str) -> bool:
    """Return True when ``text`` is a Papers with Code API response: a JSON object that is a list
    envelope (``count``, ``next``, ``previous``, ``results``) of papers, methods, results or tasks
    (or whose ``results`` is no list: a broken envelope, refused by :func:`parse`), or a paper.
    Text that is not valid JSON is claimed when its head has those keys (then :func:`parse`
    says where the JSON breaks)."""
    body = text.lstrip("\ufeff \t\r\n")
    if not body.startswith("{"):
        return False
    if len(body) > _SNIFF_LIMIT:
        return _head_claims(body[:_HEAD])
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return _head_claims(body[:_HEAD])
    return _claims(document)


def _claims(document: object) -> bool:
    if not isinstance(document, dict):
        return False
    if document.keys() >= _ENVELOPE:
        links = (document["next"], document["previous"])
        if not all(link is None or isinstance(link, str) for link in links):
            return False
        items = document["results"]
        return not isinstance(items, list) or not items or any(map(_kind, items))
    return _KINDS["papers"] <= document.keys()


def _head_claims(head: str) -> bool:
    keys = set(_HEAD_KEY.findall(head))
    return {"count", "next", "previous", "results"} <= keys or {"arxiv_id", "url_abs"} <= keys


def _kind(item: object) -> str | None:
    """The kind of a list item (``"papers"``, ...), from its keys, or None."""
    if not isinstance(item, dict):
        return None
    return next((kind for kind, keys in _KINDS.items() if keys <= item.keys()), None)


def parse(data: bytes, origin: str) -> Page:
    """Read one Papers with Code API response from ``data``; ``origin`` names it in errors and
    in the Page.

    Raises PageError for text that is not UTF-8 JSON, a document that is neither a list envelope
    nor a paper, a broken envelope, an empty list, a list of results or tasks (which hold nothing
    that can be recorded: see the module's docstring), a list none of whose items can be read,
    and a paper that cannot be read.
    """
    text = decoded(data, origin, "a Papers with Code response is JSON")
    document = load_json(text, origin)
    sha256 = hashlib.sha256(data).hexdigest()
    if isinstance(document, dict) and document.keys() >= _ENVELOPE:
        return _list_page(document, origin, sha256)
    if isinstance(document, dict) and _KINDS["papers"] <= document.keys():
        try:
            paper = _paper(document, ())
        except _Unreadable as error:
            raise PageError(origin, error.location, error.problem) from None
        key = f"pwc-api/paper/{_segment(document['id'])}"
        return _page(origin, key, str(paper.title), sha256, (), [paper])
    raise PageError(
        origin,
        "",
        "not a Papers with Code API response: neither a list (count, next, previous, results) "
        "nor a paper (id, arxiv_id, url_abs, title)",
    )


def _list_page(envelope: Mapping[str, Any], origin: str, sha256: str) -> Page:
    """The Page of a list response. Raises PageError (see :func:`parse`)."""
    items = _listed(envelope, origin)
    count = _counted(envelope, items, origin)
    kind = _items_kind(items, origin)
    papers, methods, warnings = _readable(items, kind, origin)
    first_slug = next(slug for slug in map(_slug, items) if slug is not None)
    key = f"pwc-api/{kind}/{_segment(first_slug)}"
    title = _list_title(kind, len(items), count)
    return _page(origin, key, title, sha256, tuple(warnings), papers, methods)


def _listed(envelope: Mapping[str, Any], origin: str) -> list[Any]:
    """The items of a list response. Raises PageError when its results is not a list."""
    items = envelope["results"]
    if not isinstance(items, list):
        raise PageError(
            origin,
            "results",
            f"the list's results is {shown(items)}, not a list",
            "a Papers with Code list response holds its items in a 'results' list",
        )
    return items


def _counted(envelope: Mapping[str, Any], items: list[Any], origin: str) -> int:
    """The number of items the list declares in all, its pages together. Raises PageError for
    a link to another page that is no URL, or a count that the ``items`` contradict."""
    count = _count(envelope, origin)
    for link in ("next", "previous"):
        if envelope[link] is not None and not isinstance(envelope[link], str):
            raise PageError(origin, link, f"{link} is {shown(envelope[link])}, not a URL or null")
    if len(items) > count or (
        envelope["next"] is None and envelope["previous"] is None and len(items) != count
    ):
        raise PageError(
            origin,
            "count",
            f"count declares {count} items in all but the response lists {len(items)}"
            + ("" if len(items) > count else " and has no other page"),
            _TRUNCATED_OR_EDITED,
        )
    return count


def _items_kind(items: list[Any], origin: str) -> str:
    """What the list's ``items`` are: ``"papers"`` or ``"methods"``. Raises PageError for an
    empty list, items of no known kind, and results or tasks (they name no benchmark)."""
    if not items:
        raise PageError(
            origin,
            "results",
            "the list is empty (count 0): it names no paper, method or result",
            "an empty list, such as a paper with no tasks, has nothing to load: leave the file out",
        )
    kind = next((found for found in map(_kind, items) if found is not None), None)
    if kind is None:
        raise PageError(
            origin,
            "results",
            "the list's items are not Papers with Code papers, methods, results or tasks",
            "a paper has id, arxiv_id, url_abs and title; a method id, name, full_name and paper",
        )
    if kind == "results":
        raise _results_refused(items, origin)
    if kind == "tasks":
        raise _tasks_refused(items, origin)
    return kind


def _tasks_refused(items: list[Any], origin: str) -> PageError:
    names = ", ".join(repr(item.get("name")) for item in items if isinstance(item, dict))
    return PageError(
        origin,
        "results",
        f"a list of tasks ({names}) names tasks alone, and a task is recorded only as part "
        "of a benchmark (a task and a dataset)",
        f"nothing here can be loaded; for a paper's results with their benchmarks, {_TABLES}",
    )


def _readable(
    items: list[Any], kind: str, origin: str
) -> tuple[list[PaperRef], list[MethodRecord], list[PageWarning]]:
    """The papers or methods of the ``items`` that can be read, and the warnings. Raises
    PageError when none can be read."""
    papers, methods, warnings = _read_items(items, kind, origin)
    if not papers and not methods:
        first = warnings[0]
        raise PageError(
            origin,
            first.location,
            f"none of the {len(items)} items can be read; the first: {first.problem}",
        )
    return papers, methods, warnings


def _list_title(kind: str, listed: int, count: int) -> str:
    """The title of a page listing ``listed`` items of ``kind`` out of ``count`` in all."""
    noun = kind if listed != 1 else _SINGULAR[kind]
    return f"Papers with Code API: {listed} {noun}" + (f" (of {count})" if count != listed else "")


def _results_refused(items: list[Any], origin: str) -> PageError:
    slugs = (item.get("paper") for item in items if isinstance(item, dict))
    papers = sorted({slug for slug in slugs if isinstance(slug, str)})
    of = f" of paper {', '.join(repr(slug) for slug in papers)}" if papers else ""
    noun = "results" if len(items) != 1 else "result"
    return PageError(
        origin,
        "results",
        f"a list of {len(items)} {noun}{of} names no task and no dataset, so none of them has a "
        "benchmark to be recorded on",
        "the task and dataset are in the evaluation table each result belongs to, "
        f"/api/v1/evaluations/<id>/, which the response does not name; {_TABLES}",
    )


def _read_items(
    items: list[Any], kind: str, origin: str
) -> tuple[list[PaperRef], list[MethodRecord], list[PageWarning]]:
    """The papers or methods (by ``kind``) of the items that can be read, and the warnings."""
    if kind == "papers":
        papers, warnings = _rows(items, kind, _paper, origin)
        return papers, [], warnings
    methods, warnings = _rows(items, kind, _method, origin)
    return [], methods, warnings


def _rows(
    items: list[Any],
    kind: str,
    read: Callable[[Mapping[str, Any], tuple[str | int, ...]], Item],
    origin: str,
) -> tuple[list[Item], list[PageWarning]]:
    """The records of the items of ``kind`` that can be read, and a warning for each other."""
    records: list[Item] = []
    warnings: list[PageWarning] = []
    for index, item in enumerate(items):
        where = ("results", index)
        try:
            if not isinstance(item, dict):
                raise _Unreadable(path(*where), f"the item is {shown(item)}, not an object")
            if _kind(item) != kind:
                keys = ", ".join(sorted(_KINDS[kind]))
                raise _Unreadable(path(*where), f"not one of the list's {kind} (no {keys})")
            records.append(read(item, where))
        except _Unreadable as error:
            warnings.append(PageWarning(origin, error.location, f"skipped: {error.problem}"))
    return records, warnings


def _page(
    origin: str,
    key: str,
    title: str,
    sha256: str,
    warnings: tuple[PageWarning, ...],
    papers: list[PaperRef],
    methods: list[MethodRecord] | None = None,
) -> Page:
    return Page(
        format=FORMAT,
        origin=origin,
        key=key,
        title=title,
        url=None,
        data_updated=None,
        benchmark=None,
        metrics=(),
        primary_metric=None,
        results=(),
        declared_count=0,
        publisher=PUBLISHER,
        sha256=sha256,
        warnings=warnings,
        papers=tuple(papers),
        methods=tuple(methods or ()),
    )


def _paper(item: Mapping[str, Any], where: tuple[str | int, ...]) -> PaperRef:
    """The paper ``item`` at ``where``. Raises _Unreadable."""
    _text(item, "id", where, required=True)
    title = _text(item, "title", where, required=True)
    url = _text(item, "url_abs", where)
    published = _text(item, "published", where)
    if published is not None and not _is_date(published):
        raise _Unreadable(path(*where, "published"), f"{published!r} is not a YYYY-MM-DD date")
    arxiv_id = _text(item, "arxiv_id", where)
    if arxiv_id is not None:
        found = _ARXIV.fullmatch(arxiv_id.strip())
        if found is None:
            raise _Unreadable(path(*where, "arxiv_id"), f"{arxiv_id!r} is not an arXiv ID")
        arxiv_id = found[1]
    else:
        links = (url, _text(item, "url_pdf", where))
        matches = (_ARXIV_URL.fullmatch(link.strip()) for link in links if link)
        arxiv_id = next((found[1] for found in matches if found), None)
    return PaperRef(url=url, title=title, date=published, arxiv_id=arxiv_id)


def _method(item: Mapping[str, Any], where: tuple[str | int, ...]) -> MethodRecord:
    """The method ``item`` at ``where``; its ``paper`` slug is its origin. Raises _Unreadable."""
    _text(item, "id", where, required=True)
    name = _text(item, "name", where, required=True)
    assert name is not None
    full_name = _text(item, "full_name", where)
    paper = _text(item, "paper", where)
    origin = PaperRef(url=PAPER_PAGE.format(quote(paper.strip(), safe=""))) if paper else None
    return MethodRecord(name=name, full_name=full_name, origin=origin)


def _text(
    item: Mapping[str, Any], key: str, where: tuple[str | int, ...], required: bool = False
) -> str | None:
    """The text of ``item[key]``: None when it is null, missing or blank, unless ``required``.
    Raises _Unreadable for a value that is not text, or a required one that is absent."""
    value = item.get(key)
    if value is not None and not isinstance(value, str):
        raise _Unreadable(path(*where, key), f"{key} is {shown(value)}, not text")
    if value is None or not value.strip():
        if required:
            raise _Unreadable(
                path(*where, key), f"no {key}" if value is None else f"{key} is blank"
            )
        return None
    return value


def _count(envelope: Mapping[str, Any], origin: str) -> int:
    count = envelope["count"]
    if not isinstance(count, Decimal) or count != count.to_integral_value() or count < 0:
        raise PageError(origin, "count", f"count is {shown(count)}, not a number of items")
    return int(count)


def _slug(item: object) -> str | None:
    if isinstance(item, dict) and isinstance(item.get("id"), str) and item["id"].strip():
        return str(item["id"])
    return None


def _segment(slug: str) -> str:
    """A slug as one segment of a key (a ``/`` in it cannot add a level)."""
    return quote(slug.strip(), safe="-._~")


def _is_date(text: str) -> bool:
    if not _DATE.fullmatch(text):
        return False
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True
