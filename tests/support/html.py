"""HTML pages read as a tree of elements (the standard library's parser), for tests that look
at a page's tables, links and marked parts rather than at its text."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Element | str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The text inside, tags dropped, white space as written."""
        return "".join(c if isinstance(c, str) else c.text for c in self.children)

    def iter(self, tag: str | None = None, cls: str | None = None) -> Iterator[Element]:
        """This element and those inside it, in document order, with the tag and class given."""
        if (tag is None or self.tag == tag) and (
            cls is None or cls in self.attrs.get("class", "").split()
        ):
            yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter(tag, cls)

    def find(self, tag: str | None = None, cls: str | None = None) -> Element | None:
        return next(self.iter(tag, cls), None)

    def links(self) -> list[tuple[str, str]]:
        """Each ``<a>`` inside as (href, text)."""
        return [(a.attrs.get("href", ""), a.text) for a in self.iter("a")]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("document")
        self.open = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.open[-1].children.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.open[-1].children.append(data)


def parse(text: str) -> Element:
    """The page ``text`` as a tree under a ``document`` element."""
    builder = _Builder()
    builder.feed(text)
    builder.close()
    return builder.root


def table_rows(table: Element) -> list[dict[str, Element]]:
    """The body rows of ``table``, each as its cells by column heading."""
    heads = [th.text.strip() for th in table.iter("th")]
    rows = []
    for tr in table.iter("tr"):
        cells = list(tr.iter("td"))
        if cells:
            rows.append(dict(zip(heads, cells, strict=True)))
    return rows


def table_with(root: Element, heading: str) -> Element | None:
    """The first table with a column headed ``heading``."""
    for table in root.iter("table"):
        if any(th.text.strip() == heading for th in table.iter("th")):
            return table
    return None
