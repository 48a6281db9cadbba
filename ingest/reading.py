"""Reading a file's sources: its format told from its content (never its name), and each source
it holds parsed into records (:mod:`ingest.records`): one for a page, a model card or an API
response; one per leaderboard or benchmark of a file of many. A Papers with Code tables file is
read incrementally, one task at a time, whatever its size.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from types import ModuleType
from typing import BinaryIO

from ingest import (
    eee_records,
    helm,
    leaderboard_csv,
    lm_eval,
    model_index,
    mteb,
    openmmlab,
    pwc_api,
    pwc_tables,
    radar,
    score_file,
    sota2,
)
from ingest.locating import Repository
from ingest.records import Page, PageError

PARSERS = (
    sota2,
    radar,
    pwc_tables,
    pwc_api,
    model_index,
    score_file,
    leaderboard_csv,
    eee_records,
    lm_eval,
    mteb,
    helm,
    openmmlab,
)
# The formats, as a message names them.
KNOWN_FORMATS = (
    "a sota2 page, an AI Benchmark Radar page, Papers with Code evaluation tables or API "
    "responses, a Hugging Face model-index block or card, a benchmark-radar score file, a "
    "crawled leaderboard export (CSV), Every Eval Ever records, lm-evaluation-harness results, "
    "MTEB results, HELM stats.json, an OpenMMLab metafile"
)


class NotAPage(PageError):
    """Input that no format recognises: empty, binary, not text, or text no parser sniffs as
    its page. A file met by walking a folder is skipped for it; a file named is refused."""


def read_page(data: bytes, origin: str, repository: Repository | None = None) -> Page:
    """The one source ``data`` holds (see :func:`read_pages`). Raises NotAPage and PageError as
    read_pages does, and PageError for a file that holds several sources."""
    pages = read_pages(data, origin, repository)
    if len(pages) > 1:
        raise PageError(
            origin,
            "",
            f"the file holds {len(pages)} sources, not one",
            "load it with `benchgraph ingest`, which loads each source on its own",
        )
    return pages[0]


def read_pages(data: bytes, origin: str, repository: Repository | None = None) -> list[Page]:
    """Detect the format of ``data`` from its content and parse it into its sources: one Page
    for a page, a model card or an API response, one per leaderboard or benchmark of a file of
    many (Papers with Code tables, score files, crawled CSVs). ``repository`` is a model card's
    Hugging Face repository, when known (:mod:`ingest.locating`).

    Raises NotAPage for empty or binary input and for text no format recognises, and PageError
    for a file of a known format that does not parse (or is not UTF-8), or part of one that
    does not (the first such part of a file of many sources).
    """
    found: list[Page] = []
    for item in read_sources(io.BytesIO(data), origin, repository):
        if isinstance(item, PageError):
            raise item
        found.append(item)
    return found


def read_sources(
    file: BinaryIO, origin: str, repository: Repository | None = None
) -> Iterator[Page | PageError]:
    """The sources of the file open at ``file`` (read from its start), in file order: each a
    Page, or a PageError for a part of a file of many sources that cannot be read (its other
    parts go on). Papers with Code tables are read incrementally: memory holds one task at a
    time, whatever the file's size.

    Raises NotAPage for empty or binary input and for text no format recognises, and PageError
    for a file of a known format that does not parse as a whole (or is not UTF-8).
    """
    head = file.read(_HEAD)
    if not head.strip():
        raise NotAPage(origin, "", "the file is empty", f"expected {KNOWN_FORMATS}")
    if b"\x00" in head[:8192]:
        raise NotAPage(origin, "", "binary data, not a text page")
    if _sniffed(_text_start(head)) is pwc_tables:  # read incrementally, whatever its size
        file.seek(0)
        yield from pwc_tables.read(file, origin)
        return
    data = head + file.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        known = _sniffed(data.decode("utf-8-sig", errors="replace"))
        raise (PageError if known else NotAPage)(
            origin, f"byte {error.start}", "not UTF-8 text", "source pages are UTF-8"
        ) from None
    parser = _sniffed(text)
    if parser is None:
        raise NotAPage(
            origin,
            "",
            f"not a source page nor a result file: none of {KNOWN_FORMATS}",
            "a sota2 page starts with '# <Task> on <Dataset>' and has a Scope table; "
            "a Radar page's first line ends with '· AI Benchmark Radar'; "
            "docs/formats.md shows each result file's format",
        )
    if parser is model_index:
        name, revision = (repository.name, repository.revision) if repository else (None, None)
        yield model_index.parse(data, origin, repository=name, revision=revision)
        return
    if repository is not None:
        raise PageError(
            origin, "", f"a repository is given, but the file is no model card ({parser.FORMAT})"
        )
    parsed = parser.parse(data, origin)
    yield from parsed if isinstance(parsed, list) else [parsed]


# How much of a file is read to tell a file of Papers with Code tables, which is read
# incrementally, from the others, which are read whole.
_HEAD = 1 << 20


def _sniffed(text: str) -> ModuleType | None:
    """The parser module whose format ``text`` has, if any."""
    return next((parser for parser in PARSERS if parser.sniff(text)), None)


def _text_start(head: bytes) -> str:
    """The start of a file as text, a character cut at the end of ``head`` left out."""
    return head.decode("utf-8-sig", errors="ignore")
