"""Parser for Hugging Face model-card ``model-index:`` blocks (YAML).

A model card's front matter may hold a ``model-index:`` list: per model its ``name`` and its
``results``, each one task (``task.type``, ``task.name``) on one dataset (``dataset.type``,
``name``, ``config``, ``split``, ``revision``, ``args``) with a list of ``metrics`` (``type``,
``value``, ``name``, ``config``, ``args``, ``verified``) and at times the ``source`` (``name``,
``url``) the figures were taken from. The parser reads the block as cut from a card (a YAML
document with a top-level ``model-index`` key) or a whole card (a ``README.md`` whose ``---``
front matter holds the key).

What each part becomes:

- The model's ``name`` is the method (with several models in one block, each its own).
- Benchmark: the task (``name``, else ``type``) on the dataset (``name``, else ``type``) and its
  split: ``dataset.split``, or the split a metric's name names (``Test WER``). When both name
  one and they differ (``Val PER`` on a dataset whose split is ``test``), the metric's name is
  the more particular and wins, with a warning.
- Metric: its ``name``, else its ``type``. The unit is ``%`` when the value or the name carries a
  percent sign, else None (cards state no unit). The direction is inferred from the name, then
  the type (``SER``, type ``Slot Error Rate``: lower), else None. ``verified`` is kept.
- Configuration: ``task args``; ``dataset config``, ``dataset revision``, ``dataset args``;
  ``metric config``, ``metric args`` (a mapping or a list of them as ``args.<key>`` settings);
  and the ``type`` of a task, dataset or metric labelled by its ``name`` when the type says
  something else (``dataset type`` = ``HuggingFaceH4/ifeval`` for ``IFEval (0-Shot)``).
- Reporting source: the card (kind "model card"). A result that names its own ``source`` was
  reported there instead: kind "paper" with its arXiv ID for an arXiv URL, else "document" (the
  Open LLM Leaderboard).
- Identity: the block does not say which repository it was cut from, so the caller says it when
  it knows (``repository="ORG/NAME"``, and the ``revision`` when known). Then the key is
  ``model-index/ORG/NAME``, the card is ``ORG/NAME`` (titled "ORG/NAME model card") and the URL
  its Hub page (with a revision, the card's file at that revision): a newer version of the card
  replaces the older. Otherwise the key is ``model-index/sha256-`` and the first 16 hex digits of
  the file's SHA-256, the card ``sha256-…`` (titled "<first model's name> model card", no URL):
  a card of unknown repository is its own source, never another card's newer version, however
  its models are named. Title: the first model's name; publisher: the Hugging Face Hub, whose
  metadata format this is. ``data_updated`` is None: a card states no date.
- A result's ID is built from what it states, not where it stands: the key, the model, the task,
  the dataset (and split) and the metric, normalised, with ``/2``, ``/3`` for a repeat in file
  order; ``location`` keeps its YAML path.

The rule for this format: a card is many claims, one per metric (the rows). A metric with no
value that is one number (none, null, ``-``, ``n/a``, ``TBD``, ``0.91 0.89``, ``0,912``, or a
``values`` list in its place) is skipped with a warning naming its YAML path, and the card's
other metrics load; a ``verified`` that is not true or false is dropped with a warning (the
figure is kept, its verification unknown). A block whose structure is wrong is refused, with the
YAML path: ``model-index`` not a list; a model without a name or a ``results`` list (a ``tasks``
list in its place), or with no results at all; a result without a ``task``, a ``dataset`` (or
``tasks``/``datasets`` in their place) or ``metrics``; a metric without a name and type; text
where a mapping belongs, or a list where text does; ``args`` holding more than 200 settings or
nested in themselves. So is a card none of whose metrics can be read.

Front matter is read as the Hub reads it: after any blank or space-only lines, between a ``---``
line and the next ``---`` (or ``...``) line.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any
from urllib.parse import quote

from ingest.model_index_results import HINT, Reader
from ingest.records import Page, PageError, PaperRef, ResultRecord, SourceFormat, SourceKind
from ingest.structured import decoded, load_yaml, shown

FORMAT: SourceFormat = "model-index"
KIND: SourceKind = "model card"
# Where model cards in this format are published: a card of unknown repository has no URL, and
# its publisher is how a reader goes back to it (the Hub, by the model's name).
PUBLISHER = "Hugging Face Hub"
HUB = "https://huggingface.co"
# A Hub repository ID: ORG/NAME, each part letters, digits, "-", "_" and "." beginning and ending
# with a letter or digit, at most 96 characters, with no "--" or "..".
_REPO_PART = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?")
_REVISION = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,254}")

_KEY_LINE = re.compile(r"^model-index[ \t]*:", re.M)
_FENCE = ("---", "...")
# A line at the left margin of a YAML document: blank, a comment, a list item, a document
# marker or a mapping key. A Markdown document has prose there, and is no YAML document.
_YAML_LINE = re.compile(r"(?:$|[\s#]|-(?:\s|$)|---|\.\.\.|[^\s#:][^:]*:(?:\s|$))")


def sniff(text: str) -> bool:
    """Return True when ``text`` is a YAML document, or a model card's front matter, with a
    top-level ``model-index:`` key."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    front = _front_matter(text)
    if front is not None:
        return _KEY_LINE.search(front) is not None
    if _KEY_LINE.search(text) is None:
        return False
    return all(_YAML_LINE.match(line) for line in text.split("\n"))


def parse(
    data: bytes, origin: str, repository: str | None = None, revision: str | None = None
) -> Page:
    """Read the model-index block of ``data`` (a YAML block or a whole model card); ``origin``
    names it in errors and in the Page. ``repository`` (``ORG/NAME``) is the Hub repository the
    card was read from, when the caller knows it, and ``revision`` the card's revision there.

    Returns the Page, keyed ``model-index/ORG/NAME`` with a repository, else
    ``model-index/sha256-`` and 16 hex digits of the SHA-256 of ``data``.

    Raises ValueError for a repository that is not ``ORG/NAME`` in the Hub's characters, or a
    revision that is not a Hub revision (or one given without a repository); PageError, with the
    YAML path, for a block whose structure is wrong (see the module's rule), for a card none of
    whose metrics can be read, and for text that is not UTF-8 or not YAML.
    """
    if revision is not None and repository is None:
        raise ValueError(f"the revision {revision!r} is given without its repository")
    url = hub_url(repository, revision) if repository is not None else None
    digest = hashlib.sha256(data).hexdigest()
    reader = Reader(origin)
    models = _models(_block(data, origin), origin)
    entries = [reader.model(model, index) for index, model in enumerate(models)]
    title = entries[0][0]
    if repository is None:
        card = PaperRef(source_id=f"sha256-{digest[:16]}", title=f"{title} model card", kind=KIND)
    else:
        card = PaperRef(source_id=repository, url=url, title=f"{repository} model card", kind=KIND)
    key = f"{FORMAT}/{card.source_id}"
    return _page(reader, key, title, url, digest, _results(reader, entries, card, key))


def hub_url(repository: str, revision: str | None = None) -> str:
    """The Hub page of the model ``repository`` (``ORG/NAME``), or with a ``revision`` (a
    branch, a tag or a commit hash) the URL of its card at that revision.

    Raises ValueError for a repository that is not two names of the Hub's characters (letters,
    digits, ``-``, ``_``, ``.``) joined by one ``/``, or a revision that is no Hub revision.
    """
    parts = repository.split("/")
    if len(parts) != 2 or not all(_legal(part) for part in parts):
        raise ValueError(
            f"{repository!r} is not a Hugging Face repository: write ORG/NAME, one '/' between "
            "two names of letters, digits, '-', '_' and '.' (as in Phind/Phind-CodeLlama-34B-v2)"
        )
    if revision is None:
        return f"{HUB}/{repository}"
    if not _REVISION.fullmatch(revision) or ".." in revision or revision.endswith("/"):
        raise ValueError(f"{revision!r} is not a revision: give a branch, a tag or a commit hash")
    return f"{HUB}/{repository}/blob/{quote(revision, safe='')}/README.md"


def _legal(part: str) -> bool:
    """Whether ``part`` is one name of a Hub repository ID (the ORG or the NAME)."""
    return _REPO_PART.fullmatch(part) is not None and "--" not in part and ".." not in part


def _block(data: bytes, origin: str) -> object:
    """The YAML value of ``data``: its front matter when it is a model card, else the whole
    text. Raises PageError for bytes that are not UTF-8 and text that is not YAML."""
    text = decoded(data, origin, "a model card is UTF-8 text").replace("\r\n", "\n")
    front = _front_matter(text)
    return load_yaml(text if front is None else front, origin)


def _models(document: object, origin: str) -> list[object]:
    """The models ``document`` lists under its ``model-index`` key. Raises PageError when it
    has no such key, or when that holds no list or an empty one."""
    if not isinstance(document, dict) or "model-index" not in document:
        raise PageError(origin, "", "no top-level 'model-index' key", HINT)
    models = document["model-index"]
    if not isinstance(models, list):
        raise PageError(origin, "model-index", f"is {shown(models)}, not a list of models", HINT)
    if not models:
        raise PageError(origin, "model-index", "lists no models", HINT)
    return models


def _results(
    reader: Reader, entries: list[tuple[str, dict[str, Any]]], card: PaperRef, key: str
) -> list[ResultRecord]:
    """The results of every model in ``entries`` (their names and entries), each reported on
    ``card`` unless it names its own source, ``key`` the Page's. Raises PageError when no metric
    can be read."""
    results = [
        result
        for index, (name, model) in enumerate(entries)
        for result in reader.results(model, index, name, card, key)
    ]
    if not results:
        first = reader.warnings[0]
        raise PageError(
            reader.origin,
            "model-index",
            "no metric of the card could be read",
            f"{first.location}: {first.problem}",
        )
    return results


def _page(
    reader: Reader, key: str, title: str, url: str | None, digest: str, results: list[ResultRecord]
) -> Page:
    """The Page of a block whose bytes have the SHA-256 ``digest``: its ``results`` and what
    ``reader`` kept of it."""
    metrics = reader.declarations()
    return Page(
        format=FORMAT,
        origin=reader.origin,
        key=key,
        title=title,
        url=url,
        data_updated=None,
        benchmark=metrics[0].benchmark,
        metrics=metrics,
        primary_metric=metrics[0].name,
        results=tuple(results),
        declared_count=len(results),
        total_count=reader.rows,
        publisher=PUBLISHER,
        sha256=digest,
        warnings=tuple(reader.warnings),
    )


def _front_matter(text: str) -> str | None:
    """The YAML between a card's opening ``---`` line (after any blank or space-only lines, as
    the Hub reads a card) and the next ``---`` (or ``...``) line, with the lines before it left
    blank so that YAML's line numbers are the file's; None when the text has no front matter (a
    ``---`` with no closing line starts a YAML document)."""
    lines = text.split("\n")
    start = next((n for n, line in enumerate(lines) if line.strip()), len(lines))
    if start == len(lines) or lines[start].strip() != "---":
        return None
    for index in range(start + 1, len(lines)):
        if lines[index].rstrip() in _FENCE:
            return "\n" * (start + 1) + "\n".join(lines[start + 1 : index])
    return None
