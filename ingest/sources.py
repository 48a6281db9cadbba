"""A file of many sources (a score file, a crawl: one source per benchmark) gathered: each
source read, and the warnings of what belongs to none, which are told with the file's first
source so that they are never lost."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from ingest.records import Page, PageWarning


def gathered(
    read: Iterable[tuple[Page | None, list[PageWarning]]],
    stray: list[PageWarning],
    order: Callable[[PageWarning], tuple[int, str]],
) -> tuple[list[Page], list[PageWarning]]:
    """The pages of ``read`` (each source's page, or None with the warnings that say why it
    holds nothing), the first one's warnings joined by ``stray`` (what belongs to no source)
    and those of the sources that hold nothing, in file ``order``; and all those warnings
    apart, in that order (what a file none of whose sources holds anything is refused for)."""
    pages: list[Page] = []
    for page, warnings in read:
        if page is None:
            stray.extend(warnings)
        else:
            pages.append(page)
    stray.sort(key=order)
    if pages and stray:
        pages[0] = replace(
            pages[0], warnings=tuple(sorted((*pages[0].warnings, *stray), key=order))
        )
    return pages, stray
