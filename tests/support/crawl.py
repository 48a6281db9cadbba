"""A crawl of a served site: breadth first from ``/`` and ``/site``, every internal link
(``href``, ``src``, and the URL a GET form sends with its fields' defaults) fetched once, each
answer that is not 2xx reported with the page that linked it."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from urllib.parse import urldefrag, urlencode, urljoin, urlsplit

from support.html import Element, parse
from support.live import Live, fetch

__all__ = ["crawl"]

# The forms that send the SPARQL text a person writes are not sent as they stand: an example's
# text there needs its parameters, and without them one may outlive the query time limit (a
# 504 by design, as tests/server covers), which is no broken link.
QUERY_FORMS = {"/query", "/sparql"}


def _form_url(page: str, form: Element) -> str | None:
    """The URL a GET form sends with its fields as they stand; None for a form that cannot be
    sent so (a POST form, or a required field left empty)."""
    if form.attrs.get("method", "get").lower() != "get":
        return None
    fields: list[tuple[str, str]] = []
    for field in form.iter():
        name = field.attrs.get("name")
        if not name or "disabled" in field.attrs:
            continue
        if field.tag == "input":
            kind = field.attrs.get("type", "text").lower()
            if kind in {"checkbox", "radio"} and "checked" not in field.attrs:
                continue
            if kind in {"submit", "button", "reset", "image", "file"}:
                continue
            value = field.attrs.get("value", "")
        elif field.tag == "textarea":
            value = field.text
        elif field.tag == "select":
            options = list(field.iter("option"))
            chosen = next((o for o in options if "selected" in o.attrs), None)
            chosen = chosen or (options[0] if options else None)
            value = "" if chosen is None else chosen.attrs.get("value", chosen.text.strip())
        else:
            continue
        if not value and "required" in field.attrs:
            return None
        fields.append((name, value))
    action = urljoin(page, form.attrs.get("action", "") or page)
    return f"{action.split('?')[0]}?{urlencode(fields)}" if fields else action


def _links(page: str, body: str) -> Iterator[str]:
    """Every URL the HTML page ``page`` links to or loads."""
    root = parse(body)
    for element in root.iter():
        for attribute in ("href", "src"):
            if attribute in element.attrs and element.tag != "form":
                yield urljoin(page, element.attrs[attribute])
    for form in root.iter("form"):
        sent = _form_url(page, form)
        if sent is not None and urlsplit(sent).path not in QUERY_FORMS:
            yield sent


def crawl(
    live: Live, seen: dict[str, str] | None = None, timeout: float = 30
) -> tuple[set[str], list[str]]:
    """Fetch every page reachable from the home pages once; return the URLs fetched and each
    broken link as "URL -> status (linked from PAGE)". ``seen``, when given, is filled with
    each HTML page's text by URL; ``timeout`` is how long one page may take."""
    host = urlsplit(live.url).netloc
    start = [live.url, live.url + "site"]
    linked_from = {url: "(start)" for url in start}
    queue = deque(start)
    broken = []
    while queue:
        url = queue.popleft()
        reply = fetch(url, timeout=timeout, Accept="text/html,*/*;q=0.8")
        if not 200 <= reply.status < 300:
            broken.append(f"{url} -> {reply.status} (linked from {linked_from[url]})")
            continue
        if reply.type != "text/html":
            continue
        if seen is not None:
            seen[url] = reply.text
        for link in _links(url, reply.text):
            link = urldefrag(link).url
            if urlsplit(link).netloc != host or link in linked_from:
                continue
            linked_from[link] = url
            queue.append(link)
    return set(linked_from), broken
