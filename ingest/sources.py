"""Sources as the parsers of files give them: a file of many sources (a score file, a crawl:
one source per benchmark) gathered, each source read, and the warnings of what belongs to none,
which are told with the file's first source so that they are never lost; and the one source of
an evaluation tool's run (lm-evaluation-harness, MTEB, HELM, an OpenMMLab metafile)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from ingest.records import MetricDecl, Page, PageWarning, ResultRecord, SourceFormat


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


def run_page(
    format: SourceFormat,
    origin: str,
    key: str,
    title: str,
    metrics: Iterable[MetricDecl],
    results: Sequence[ResultRecord],
    publisher: str,
    sha256: str,
    warnings: Iterable[PageWarning],
    **more: Any,
) -> Page:
    """The one source of an evaluation tool's run: its ``results`` (at least one), on the
    benchmark of the first (the page's), whose first metric is primary, every result counted as
    declared; ``more`` sets the Page's other fields (``data_updated``, ``primary_metric``,
    ``declared_count``, ...)."""
    declared = tuple(metrics)
    first = results[0].benchmark
    fields: dict[str, Any] = {
        "url": None,
        "data_updated": None,
        "primary_metric": next(d.name for d in declared if d.benchmark == first),
        "declared_count": len(results),
        **more,
    }
    return Page(
        format=format,
        origin=origin,
        key=key,
        title=title,
        benchmark=first,
        metrics=declared,
        results=tuple(results),
        publisher=publisher,
        sha256=sha256,
        warnings=tuple(warnings),
        **fields,
    )
