"""Files of alias records: what ``benchgraph alias export`` writes and ``import`` reads.

Two formats: **Turtle** (the records as the alias graph holds them, ``bg:Alias`` nodes) and
**CSV** for curators (one record a row, the columns of :data:`COLUMNS`; ``id`` is optional on
import, and checked when given). A file is read whole and checked whole before anything is
written (:func:`store_records`): an error names the file, the line (Turtle) or row (CSV), and
the problem.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import IO

import pyoxigraph as ox

from benchgraph import graphs
from benchgraph import vocab as V
from benchgraph.aliases import (
    Alias,
    AliasError,
    check_shapes,
    checked_confidence,
    conflict,
    kind_of,
    parse_record,
)
from benchgraph.aliases import read as read_records
from benchgraph.store import Change, Store

COLUMNS = (
    "id",
    "subject",
    "target",
    "status",
    "evidence",
    "confidence",
    "creator",
    "created",
    "reviewed_by",
    "reviewed_at",
)
REQUIRED = ("subject", "target", "status", "creator", "created")
FORMATS = ("turtle", "csv")
_PREFIXES = {"bg": V.BG, "dcterms": V.DCTERMS, "xsd": V.XSD}


class AliasFileError(AliasError):
    """A file of records that cannot be read (``reason`` "unreadable": it is no Turtle or CSV
    of records) or that holds a record that cannot be stored ("invalid", "unknown",
    "refused"). The message names the file, the place in it and the problem."""


def format_of(path: Path) -> str:
    """The format of the file ``path``: CSV for a ``.csv`` file, else Turtle."""
    return "csv" if path.suffix.lower() == ".csv" else "turtle"


def read(path: Path) -> list[Alias]:
    """The records of the file at ``path``. Raises AliasFileError."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise AliasFileError(f"{path}: cannot be read: {error.strerror}", "unreadable") from None
    return read_csv(data, str(path)) if format_of(path) == "csv" else read_turtle(data, str(path))


def _line_of(text: str, iri: str) -> str:
    """Where the record ``iri`` starts in the Turtle ``text``: "line N: ", or "" if not found."""
    key = iri.rsplit("/", 1)[-1]
    for number, line in enumerate(text.splitlines(), start=1):
        if key in line:
            return f"line {number}: "
    return ""


def read_turtle(data: bytes, where: str) -> list[Alias]:
    """The records of the Turtle ``data`` (from ``where``). Raises AliasFileError."""
    try:
        text = data.decode("utf-8")
        triples = [q.triple for q in ox.parse(data, format=ox.RdfFormat.TURTLE)]
    except (UnicodeDecodeError, SyntaxError, ValueError) as error:
        raise AliasFileError(f"{where}: not Turtle: {error}", "unreadable") from None
    records = {
        t.subject.value
        for t in triples
        if t.predicate.value == V.type_ and getattr(t.object, "value", None) == V.Alias
    }
    for triple in triples:
        if getattr(triple.subject, "value", None) not in records:
            raise AliasFileError(
                f"{where}: a statement about {triple.subject}, which is no bg:Alias record: "
                "the file holds alias records only",
                "invalid",
            )
    out = []
    for iri in sorted(records):
        said = [(t.predicate.value, t.object) for t in triples if t.subject.value == iri]
        place = f"{where}: {_line_of(text, iri)}record <{iri}>"
        try:
            alias = parse_record(iri, said)
            check_shapes([alias], place)
        except AliasError as error:
            message = str(error) if str(error).startswith(place) else f"{place}: {error}"
            raise AliasFileError(message, error.reason) from None
        out.append(alias)
    return out


def read_csv(data: bytes, where: str) -> list[Alias]:
    """The records of the CSV ``data`` (from ``where``), one a row under a header of
    :data:`COLUMNS` (``id`` and the optional fields may be left out). Raises AliasFileError."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise AliasFileError(f"{where}: not UTF-8 text: {error}", "unreadable") from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    missing = [c for c in REQUIRED if c not in header]
    unknown = [c for c in header if c not in COLUMNS]
    if missing or unknown:
        said = f"lacks the columns {', '.join(missing)}" if missing else ""
        said += ("; " if said else "") + (
            f"has unknown columns {', '.join(unknown)}" if unknown else ""
        )
        raise AliasFileError(
            f"{where}: line 1: the header {said} (columns: {', '.join(COLUMNS)})", "unreadable"
        )
    out = []
    try:
        for row in reader:
            place = f"{where}: row {reader.line_num}"
            out.append(_row(row, place))
    except csv.Error as error:
        raise AliasFileError(f"{where}: row {reader.line_num}: {error}", "unreadable") from None
    return out


def _row(row: dict[str, str | None], place: str) -> Alias:
    """The record of one CSV row. Raises AliasFileError naming ``place``."""
    values = {k: (v or "").strip() for k, v in row.items() if k is not None}
    if None in row:
        raise AliasFileError(f"{place}: more fields than the header has columns", "unreadable")
    try:
        for column in REQUIRED:
            if not values.get(column):
                raise AliasError(f"{column} is empty", "invalid")
        status = values["status"].lower()
        if status not in ("proposed", "accepted", "rejected"):
            raise AliasError(
                f"status {values['status']!r} is none of proposed, accepted, rejected", "invalid"
            )
        confidence = values.get("confidence", "")
        alias = Alias(
            subject=values["subject"],
            target=values["target"],
            status=status,
            creator=values["creator"],
            created=values["created"],
            evidence=values.get("evidence", ""),
            confidence=checked_confidence(confidence) if confidence else None,
            reviewed_by=values.get("reviewed_by", ""),
            reviewed_at=values.get("reviewed_at", ""),
        )
        for column in ("subject", "target"):
            if not values[column].startswith(("http://", "https://")):
                raise AliasError(f"{column} {values[column]!r} is not an IRI", "invalid")
        if values.get("id") and values["id"] not in (alias.id, alias.iri):
            raise AliasError(
                f"id {values['id']!r} is not the record's: its subject and target make it "
                f"{alias.id}",
                "invalid",
            )
        check_shapes([alias], place)
    except AliasError as error:
        message = str(error) if str(error).startswith(place) else f"{place}: {error}"
        raise AliasFileError(message, error.reason) from None
    return alias


def write(records: Sequence[Alias], fmt: str, output: IO[bytes]) -> None:
    """Write ``records`` to ``output`` in ``fmt`` (one of :data:`FORMATS`)."""
    if fmt == "turtle":
        triples = [t for alias in records for t in alias.triples()]
        ox.serialize(triples, output, ox.RdfFormat.TURTLE, prefixes=_PREFIXES)
        return
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(COLUMNS)
    for alias in records:
        said = alias.as_dict()
        said["reviewed_by"], said["reviewed_at"] = said["reviewedBy"], said["reviewedAt"]
        writer.writerow([said.get(column) or "" for column in COLUMNS])
    output.write(text.getvalue().encode("utf-8"))


def store_records(store: Store, imported: Sequence[Alias], where: str) -> tuple[int, int]:
    """Write the records ``imported`` (read from ``where``) over those of the same IRI, the
    others kept, in one write, once every one is shown sound: its subject and target in the
    store, of one kind, and the accepted records, all together, a forest of depth one.
    Returns how many records were new and how many replaced. Raises AliasError naming
    ``where`` and the record; nothing is written then."""
    records = {iri: stored.alias for iri, stored in read_records(store).items()}
    for alias in imported:
        for iri in (alias.subject, alias.target):
            if kind_of(store, iri) is None:
                raise AliasError(
                    f"{where}: record {alias.id}: no method, paper or benchmark has the IRI "
                    f"<{iri}>",
                    "unknown",
                )
        if kind_of(store, alias.subject) != kind_of(store, alias.target):
            raise AliasError(f"{where}: record {alias.id}: its subject and target differ in kind")
        if alias.subject == alias.target:
            raise AliasError(f"{where}: record {alias.id}: an IRI is not another name of itself")
    new = sum(1 for alias in imported if alias.iri not in records)
    merged = {**records, **{alias.iri: alias for alias in imported}}
    accepted = [a for a in merged.values() if a.status == "accepted"]
    for alias in accepted:
        why = conflict(accepted, alias)
        if why is not None:
            raise AliasError(f"{where}: record {alias.id} cannot be accepted: {why}")
    triples = [t for alias in merged.values() for t in alias.triples()]
    store.write(Change({graphs.ALIASES: triples}))
    return new, len(imported) - new
