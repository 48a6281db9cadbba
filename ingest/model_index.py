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
- Reporting source: the card (kind "model card", titled "<first model's name> model card", no
  URL: the block does not say which repository it was cut from). A result that names its own
  ``source`` was reported there instead: kind "paper" with its arXiv ID for an arXiv URL, else
  "document" (the Open LLM Leaderboard).
- Key: ``model-index/`` and the first model's normalised name, so a newer version of the card
  replaces the older. Two cards that give their models the same name ("PPO") share a key.
  Title: the first model's name; URL: None; publisher: the Hugging Face Hub, whose metadata
  format this is. ``data_updated`` is None: a card states no date.

The rule for this format: a card is many claims, one per metric (the rows). A metric whose value
is not one number (``-``, ``n/a``, ``0.91 0.89``) is skipped with a warning; a ``verified``
that is not true or false is dropped with a warning (the figure is kept, its verification
unknown). A block whose structure is wrong is refused, with the YAML path: ``model-index`` not
a list; a model without a name or a ``results`` list (a ``tasks`` list in its place), or with no
results at all; a result without a ``task``, a ``dataset`` (or ``tasks``/``datasets`` in their
place) or ``metrics``; a metric without a name and type, or without a ``value`` (null, or
``values`` in its place); text where a mapping belongs, or a list where text does; ``args``
holding more than 200 settings or nested in themselves. So is a card none of whose metrics can
be read.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from benchgraph.names import normalise
from ingest.model_index_results import HINT, Reader
from ingest.records import Page, PageError, PaperRef, ResultRecord, SourceFormat
from ingest.structured import load_yaml, shown

FORMAT: SourceFormat = "model-index"
# Where model cards in this format are published: the block names no repository, so the card
# has no URL, and its publisher is how a reader goes back to it (the Hub, by the model's name).
PUBLISHER = "Hugging Face Hub"

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


def parse(data: bytes, origin: str) -> Page:
    """Read the model-index block of ``data`` (a YAML block or a whole model card); ``origin``
    names it in errors and in the Page.

    Raises PageError, with the YAML path, for a block whose structure is wrong (see the module's
    rule) and for text that is not UTF-8 or not YAML.
    """
    reader = Reader(origin)
    models = _models(_block(data, origin), origin)
    entries = [reader.model(model, index) for index, model in enumerate(models)]
    title = entries[0][0]
    name = normalise(title)
    if not name:
        raise PageError(origin, "model-index[0].name", "has no letters or digits")
    key = f"{FORMAT}/{name}"
    return _page(data, reader, key, title, _results(reader, entries, key))


def _block(data: bytes, origin: str) -> object:
    """The YAML value of ``data``: its front matter when it is a model card, else the whole
    text. Raises PageError for bytes that are not UTF-8 and text that is not YAML."""
    try:
        text = data.decode("utf-8-sig").replace("\r\n", "\n")
    except UnicodeDecodeError as error:
        raise PageError(
            origin, f"byte {error.start}", "not UTF-8 text", "a model card is UTF-8 text"
        ) from None
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
    reader: Reader, entries: list[tuple[str, dict[str, Any]]], key: str
) -> list[ResultRecord]:
    """The results of every model in ``entries`` (their names and entries), each on the card
    the first model names, ``key`` the Page's. Raises PageError when no metric can be read."""
    card = PaperRef(title=f"{entries[0][0]} model card", kind="model card")
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


def _page(data: bytes, reader: Reader, key: str, title: str, results: list[ResultRecord]) -> Page:
    """The Page of the block ``data``: its ``results`` and what ``reader`` kept of it."""
    metrics = reader.declarations()
    return Page(
        format=FORMAT,
        origin=reader.origin,
        key=key,
        title=title,
        url=None,
        data_updated=None,
        benchmark=metrics[0].benchmark,
        metrics=metrics,
        primary_metric=metrics[0].name,
        results=tuple(results),
        declared_count=len(results),
        total_count=reader.rows,
        publisher=PUBLISHER,
        sha256=hashlib.sha256(data).hexdigest(),
        warnings=tuple(reader.warnings),
    )


def _front_matter(text: str) -> str | None:
    """The YAML between a card's opening ``---`` line and the next ``---`` (or ``...``) line,
    with the opening line left blank so that YAML's line numbers are the file's; None when the
    text has no front matter (a ``---`` with no closing line starts a YAML document)."""
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return None
    for index in range(1, len(lines)):
        if lines[index].rstrip() in _FENCE:
            return "\n" + "\n".join(lines[1:index])
    return None
