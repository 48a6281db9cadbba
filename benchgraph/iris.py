"""Deterministic IRIs: the same input always mints the same IRI.

Identity comes from the sources' own IDs where they have them (sota2 paper and result IDs) and
from normalised names otherwise, so re-ingesting a page and merging across pages both work.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Protocol
from urllib.parse import quote

from benchgraph.names import normalise
from benchgraph.vocab import ID

_HEX24 = re.compile(r"^[0-9a-f]{24}$")


# What the IRIs are minted from: the parsers' records (:mod:`ingest.records`) have these fields.
class PaperRef(Protocol):
    @property
    def source_id(self) -> str | None: ...
    @property
    def title(self) -> str | None: ...
    @property
    def url(self) -> str | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def arxiv_id(self) -> str | None: ...


class Benchmark(Protocol):
    @property
    def task(self) -> str: ...
    @property
    def dataset(self) -> str: ...
    @property
    def split(self) -> str | None: ...


class Setting(Protocol):
    @property
    def key(self) -> str: ...
    @property
    def value(self) -> str: ...


class Configuration(Protocol):
    @property
    def settings(self) -> Sequence[Setting]: ...
    @property
    def raw_json(self) -> str | None: ...
    @property
    def protocol(self) -> str | None: ...
    @property
    def subset(self) -> str | None: ...


def _segment(text: str) -> str:
    key = normalise(text)
    if not key:  # a name with no letters or digits: fall back to a stable digest
        key = "h" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]
    return quote(key, safe="-")


# Where each kind of reporting source is named: papers under paper/, the others apart.
_SOURCE_FOLDERS = {"paper": "paper", "model card": "card", "document": "document"}


def paper(ref: PaperRef) -> str:
    """IRI of a reporting or origin source. A paper: its 24-hex source ID if it has one, else
    its arXiv ID (``paper/arxiv-1810.04805``: result files of different formats that cite one
    arXiv paper meet on it), else its normalised title, else its URL. A model card: its source
    ID when it has one (the Hub repository ``card/ORG/NAME``, or ``card/sha256-…`` for a card of
    unknown repository: two cards that name their models alike stay two cards), else its
    normalised title, else its URL. Another document: its normalised title, else its URL.

    Raises ValueError for a reference with none of these.
    """
    if ref.kind == "model card" and ref.source_id:
        return f"{ID}card/{quote(ref.source_id, safe='/-')}"
    if ref.kind != "paper":
        name = ref.title or ref.url
        if not name:
            raise ValueError(f"a {ref.kind} needs a title or a URL")
        return f"{ID}{_SOURCE_FOLDERS[ref.kind]}/{_segment(name)}"
    if not ref.source_id and ref.arxiv_id:
        return f"{ID}paper/arxiv-{quote(ref.arxiv_id, safe='')}"
    if not ref.source_id and not ref.title and ref.url:
        return f"{ID}paper/{_segment(ref.url)}"
    return _paper(ref.source_id, ref.title)


def _paper(source_id: str | None, title: str | None) -> str:
    if source_id:
        return f"{ID}paper/{quote(source_id, safe='')}"
    if title:
        return f"{ID}paper/{_segment(title)}"
    raise ValueError("a paper needs a source ID or a title")


def paper_from_user(text: str) -> str:
    """IRI for what a user typed to name a paper: an IRI, a 24-hex source ID, or a title."""
    text = text.strip()
    if text.startswith(("http://", "https://")):
        return text
    if _HEX24.match(text):
        return _paper(text, None)
    return _paper(None, text)


def method(name: str) -> str:
    return f"{ID}method/{_segment(name)}"


def task(name: str) -> str:
    return f"{ID}task/{_segment(name)}"


def dataset(name: str) -> str:
    return f"{ID}dataset/{_segment(name)}"


def benchmark(b: Benchmark) -> str:
    parts = [_segment(b.task), _segment(b.dataset)]
    if b.split:
        parts.append(_segment(b.split))
    return f"{ID}benchmark/{'/'.join(parts)}"


def metric(b: Benchmark, name: str) -> str:
    return f"{benchmark(b)}/metric/{_segment(name)}"


def unit(published: str) -> str:
    """IRI of a unit a page publishes and QUDT has no unit for, from its normalised text."""
    return f"{ID}unit/{_segment(published)}"


def result(source_id: str) -> str:
    return f"{ID}result/{quote(source_id, safe='/-')}"


def claim(
    method_iri: str, benchmark_iri: str, metric_iri: str, parts: Sequence[str], alone: str = ""
) -> str:
    """IRI of the claim a result makes: what it is a value of, whichever source gives it. Its
    method, benchmark and metric, and ``parts`` (its protocol and subset, "" where none), make
    it; a result whose method name singles out no system gives its own IRI as ``alone``, and
    makes a claim no other result makes. ``{ID}claim/<16 hex>/method/<name>``: the digest of
    all but the method, then the method's own path, so that a query can read the claim of a
    method's alias by swapping the path (see queries/claims.rq)."""
    content = "\n".join([benchmark_iri, metric_iri, *parts, alone])
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:16]
    return f"{ID}claim/{digest}/{method_iri.removeprefix(ID)}"


def aggregate(source_id: str) -> str:
    return f"{ID}aggregate/{quote(source_id, safe='/-')}"


def configuration(config: Configuration) -> str:
    """IRI of a configuration, from its content: equal configurations mint the same node."""
    content = json.dumps(
        {
            "settings": [[s.key, s.value] for s in config.settings],
            "protocol": config.protocol,
            "subset": config.subset,
            "json": config.raw_json,
        },
        ensure_ascii=False,
        sort_keys=True,
    )
    return f"{ID}configuration/{hashlib.sha256(content.encode('utf-8')).hexdigest()[:20]}"


def source(key: str) -> str:
    return f"{ID}source/{quote(key, safe='/-')}"


def version(key: str, sha256: str) -> str:
    """IRI of the version of the page ``key`` whose bytes have the SHA-256 ``sha256``: the
    source's IRI, then ``/version/`` and the digest's first 16 hex digits."""
    return f"{source(key)}/version/{sha256[:16]}"
