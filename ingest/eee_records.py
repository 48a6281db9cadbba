"""Parser for Every Eval Ever (EEE) aggregate records (JSON, schema 0.2.x and 0.3.x).

An EEE record (``tests/data/eee/eval.schema.json``) is one evaluation: a model
(``model_info``), the source that published or ran it (``source_metadata``) and a list of
``evaluation_results``, each a score on a dataset under a metric, with its uncertainty and
the generation settings. The datastore keeps one record per ``.json`` file; a file here may
also hold a JSON array of records, or JSON Lines, one record a line (what ``benchgraph export
--format eee`` writes). :mod:`ingest.eee_results` reads one record into a Page; see there what
each field becomes.

**One source per record.** Its identity is ``eee/``, then the record's ``evaluation_id``
split at ``/``, each part normalised, then ``/`` and the first 12 hex digits of the SHA-256 of
the ``evaluation_id`` exactly as written (``eee/ai2-arc/anthropic-claude-sonnet-4-0/
1761000045-0/…``): the same evaluation read again (another copy, another file) is the same
source, and two evaluations whose IDs differ only in punctuation or case never share one. Its
version is the SHA-256 of the record as canonical JSON (sorted keys), so the same record
re-indented or moved in a file is unchanged. A file that gives one ``evaluation_id`` twice
holds it once when both records are the same; a second, different one is refused, naming the
first.

Refused whole: bytes that are not UTF-8, text that is not JSON (nor JSON Lines), and a top
level that is neither a record nor a list of them. In a file of several records, a record
whose structure is broken (no ``evaluation_id``, ``model_info`` or ``evaluation_results``, an
unknown ``schema_version``, text where an object belongs) is refused alone, with its JSON
path, and the file's other records load.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from benchgraph.names import key_part
from ingest.eee_results import FORMAT, HINT, read_record
from ingest.records import Page, PageError
from ingest.structured import decoded, load_json, shown

__all__ = ["FORMAT", "parse", "sniff"]

KEY = "eee"
# The schema versions read (major.minor): 0.2.x and 0.3.x say the same of what is read here.
SCHEMA_VERSIONS = ("0.2", "0.3")
_SNIFF_HEAD = 1 << 16
_SIGNS = ('"evaluation_id"', '"evaluation_results"')
_VERSION = re.compile(r'"schema_version"\s*:\s*"')


def sniff(text: str) -> bool:
    """Return True for a JSON object, array or JSON Lines text whose start gives an EEE
    record's ``schema_version`` (a text: the schema itself declares it, and is no record),
    ``evaluation_id`` and ``evaluation_results``."""
    body = text.lstrip("\ufeff \t\r\n")
    if not body.startswith(("{", "[")):
        return False
    head = body[:_SNIFF_HEAD]
    return bool(_VERSION.search(head)) and all(sign in head for sign in _SIGNS)


def parse(data: bytes, origin: str) -> list[Page | PageError]:
    """Read the EEE records of ``data`` (one record, a JSON array of records or JSON Lines);
    ``origin`` names the file in errors.

    Returns one Page per record, in file order, or a PageError in its place for a record of a
    file of several whose structure is broken. Raises PageError for a file that is not UTF-8,
    not JSON, not records, or a single record that cannot be read.
    """
    text = decoded(data, origin, HINT)
    placed = _records(text, origin)
    found: list[Page | PageError] = []
    seen: dict[str, tuple[str, str]] = {}
    for at, record in placed:
        try:
            page = _page(record, origin, at, seen)
        except PageError as error:
            if len(placed) == 1:
                raise
            found.append(error)
            continue
        if page is not None:
            found.append(page)
    return found


def _records(text: str, origin: str) -> list[tuple[str, object]]:
    """Each record of the file with the place it stands: ``""`` for a file of one record,
    ``[3]`` in an array, ``line 4`` in JSON Lines. Raises PageError for text that is not JSON
    or JSON Lines, and for a top level that is neither a record nor a list."""
    try:
        document = load_json(text, origin)
    except PageError as whole:
        lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        if len(lines) < 2 or not lines[0][1].lstrip().startswith("{"):
            raise
        try:
            return [(f"line {n}", load_json(line, origin)) for n, line in lines]
        except PageError:
            raise whole from None
    if isinstance(document, list):
        if not document:
            raise PageError(origin, "", "an empty list: no records", HINT)
        return [(f"[{index}]", record) for index, record in enumerate(document)]
    if isinstance(document, Mapping):
        return [("", document)]
    raise PageError(origin, "", f"the document is {shown(document)}, not a record", HINT)


def _page(record: object, origin: str, at: str, seen: dict[str, tuple[str, str]]) -> Page | None:
    """The Page of one record; None for a repeat of a record already read. Raises PageError
    for a record whose structure is broken, or a second, different record of an ID."""
    where = f"{at}: " if at.startswith("line") else (f"{at}." if at else "")
    if not isinstance(record, Mapping):
        raise PageError(origin, at, f"the record is {shown(record)}, not an object", HINT)
    _check_version(record, origin, where)
    evaluation_id = record.get("evaluation_id")
    if not isinstance(evaluation_id, str) or not evaluation_id.strip():
        said = shown(evaluation_id)
        raise PageError(origin, f"{where}evaluation_id", f"no evaluation_id ({said})", HINT)
    digest = _digest(record)
    if evaluation_id in seen:
        first_at, first_digest = seen[evaluation_id]
        if first_digest == digest:
            return None
        raise PageError(
            origin,
            f"{where}evaluation_id",
            f"evaluation {evaluation_id!r} is given twice, differently (first at {first_at})",
            "an evaluation_id names one evaluation: give the other its own",
        )
    seen[evaluation_id] = (at or "the top", digest)
    return read_record(record, origin, where, identity(evaluation_id), digest)


def identity(evaluation_id: str) -> str:
    """The key of the source an ``evaluation_id`` names (see the module)."""
    parts = [key_part(part) for part in evaluation_id.strip().split("/") if part.strip()]
    digest = hashlib.sha256(evaluation_id.encode("utf-8")).hexdigest()[:12]
    return "/".join([KEY, *parts, digest])


def _check_version(record: Mapping[str, Any], origin: str, where: str) -> None:
    """Raise PageError for a record whose ``schema_version`` is not one read here."""
    version = record.get("schema_version")
    if not isinstance(version, str):
        raise PageError(
            origin, f"{where}schema_version", f"the schema_version is {shown(version)}", HINT
        )
    if ".".join(version.strip().split(".")[:2]) not in SCHEMA_VERSIONS:
        raise PageError(
            origin,
            f"{where}schema_version",
            f"schema_version {version}: this reader knows versions 0.2.x and 0.3.x",
            "earlier records name their fields otherwise; convert them with the "
            "every_eval_ever tools first",
        )


def _digest(record: Mapping[str, Any]) -> str:
    """SHA-256 of the record as canonical JSON (sorted keys, numbers as written)."""
    text = json.dumps(
        record, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=_number
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _number(value: object) -> str:
    if isinstance(value, Decimal):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON")
