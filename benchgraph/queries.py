"""Named queries: the ``queries/*.rq`` files, their headers, and binding their parameters.

A file's stem is its name. Its header is ``#+`` comment lines::

    #+ summary: Methods a paper introduced
    #+ description: One row per method whose origin paper is the given paper.
    #+ param: paper (paper, required) The paper: a 24-hex source ID, a title, or an IRI.
    #+ param: limit (integer, default 100) The most rows to return.

Parameter values are converted to RDF terms and bound to the variable of the same name, each
written in place of its variable as one RDF term by :func:`benchgraph.sparqltext.substitute`
(the lexer the endpoint's guard uses), so no value can change the query's structure. A value
given for a benchmark, metric, paper or method is looked up first (:func:`resolve`): one that
names nothing in the store is refused, with the nearest names it holds; a benchmark's name is
replaced by its IRI.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import IO

from pyoxigraph import Literal, NamedNode

from benchgraph import iris, prefixes, resources
from benchgraph import vocab as V
from benchgraph.sparqltext import tokens
from benchgraph.suggest import Names

_HEADER = re.compile(r"^#\+\s*(?P<key>\w+)\s*:\s*(?P<value>.*)$")
_PARAM = re.compile(
    r"^(?P<name>[A-Za-z_]\w*)\s+\((?P<type>\w+)(?:,\s*(?:(?P<required>required)"
    r"|default\s+(?P<default>[^)]*)))?\)\s+(?P<help>.+)$"
)
_INT64 = 2**63
_SHOWN = 200  # characters of a refused value an error message repeats


def _shown(text: str) -> str:
    """``text`` quoted for an error message, cut short when long (values can be huge)."""
    if len(text) <= _SHOWN:
        return repr(text)
    return f"{text[:_SHOWN]!r}… ({len(text)} characters)"


class QueryError(Exception):
    """A named query that does not exist, a malformed header, or a bad parameter value.

    ``parameter`` names the parameter at fault, when there is one.
    """

    def __init__(self, message: str, parameter: str | None = None) -> None:
        super().__init__(message)
        self.parameter = parameter


class UnknownName(QueryError):
    """A parameter names something the store does not hold; ``suggestions`` are the nearest
    names it does hold (at most :data:`benchgraph.suggest.COUNT`)."""

    def __init__(self, message: str, parameter: str, suggestions: list[str]) -> None:
        super().__init__(message, parameter)
        self.suggestions = suggestions


def _to_iri(text: str) -> NamedNode:
    return NamedNode(text)


def _to_integer(text: str) -> Literal:
    if not re.fullmatch(r"[+-]?\d+", text.strip()):
        raise ValueError("not an integer")
    # The engine's xsd:integer has 64 bits; checking the length first keeps Python's own
    # limit on converting long digit strings (and its message) out of the way.
    if len(text.strip().lstrip("+-").lstrip("0")) > 19 or not -_INT64 <= int(text) < _INT64:
        raise ValueError(f"out of range: integers lie between {-_INT64} and {_INT64 - 1}")
    return Literal(str(int(text)), datatype=NamedNode(V.XSD + "integer"))


def _to_decimal(text: str) -> Literal:
    try:
        Decimal(text)
    except InvalidOperation:
        raise ValueError("not a decimal number") from None
    if not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)", text.strip()):
        raise ValueError("not a decimal number")
    return Literal(text.strip(), datatype=NamedNode(V.XSD + "decimal"))


def _to_date(text: str) -> Literal:
    date.fromisoformat(text.strip())
    return Literal(text.strip(), datatype=NamedNode(V.XSD + "date"))


_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?")


def _to_moment(text: str) -> Literal:
    """A date (``2026-06-01``) or a date-time (``2026-06-01T12:00:00Z``; no zone: UTC), as
    an xsd:date or xsd:dateTime in its canonical form."""
    text = text.strip()
    if not _MOMENT.fullmatch(text):
        raise ValueError("a date is written YYYY-MM-DD, a date-time YYYY-MM-DDThh:mm:ssZ")
    found = datetime.fromisoformat(text)
    if "T" not in text:
        return Literal(text, datatype=NamedNode(V.XSD + "date"))
    if found.tzinfo is None:
        found = found.replace(tzinfo=UTC)
    written = found.isoformat().replace("+00:00", "Z")
    return Literal(written, datatype=NamedNode(V.XSD + "dateTime"))


def _name_or_iri(mint: Callable[[str], str]) -> Callable[[str], NamedNode]:
    def convert(text: str) -> NamedNode:
        text = text.strip()
        return NamedNode(text if text.startswith(("http://", "https://")) else mint(text))

    return convert


# The clocks a query read ``between`` can take its moments by (see benchgraph.asof): each page's
# data-updated time, or the store's own (when it learned each version).
CLOCKS = ("data", "store")


def _to_clock(text: str) -> Literal:
    text = text.strip().lower()
    if text not in CLOCKS:
        raise ValueError(f"a clock is one of {', '.join(CLOCKS)}")
    return Literal(text)


# The rules that choose which of a claim's values heads it (see queries/claims.rq).
PRECEDENCES = ("origin", "independent", "latest")


def _to_precedence(text: str) -> Literal:
    text = text.strip().lower()
    if text not in PRECEDENCES:
        raise ValueError(f"a precedence is one of {', '.join(PRECEDENCES)}")
    return Literal(text)


def _iri_or_label(text: str) -> NamedNode | Literal:
    """An IRI as such; anything else as a plain literal the query matches against labels."""
    text = text.strip()
    if not text:
        raise ValueError("empty")
    return NamedNode(text) if text.startswith(("http://", "https://")) else Literal(text)


SHACL = "http://www.w3.org/ns/shacl#"
SHAPES = "https://w3id.org/benchgraph/shapes#"
SEVERITIES = ("Violation", "Warning", "Info")


def _to_severity(text: str) -> NamedNode:
    """A SHACL severity: ``Warning`` (in any case), ``sh:Warning`` or its IRI."""
    name = text.strip().removeprefix(SHACL).removeprefix("sh:")
    found = [s for s in SEVERITIES if s.lower() == name.lower()]
    if not found:
        raise ValueError(
            f"a severity is {', '.join(SEVERITIES[:-1])} or {SEVERITIES[-1]}, or its IRI in {SHACL}"
        )
    return NamedNode(SHACL + found[0])


_SHAPE_LINE = re.compile(r"^bgsh:([A-Za-z][\w.-]*)", re.MULTILINE)


def shape_names() -> list[str]:
    """The local names of the shapes the shapes files declare (``Result-configuration``, ...),
    sorted: each ``bgsh:`` name that opens a line of a ``shapes/*.ttl`` file."""
    folder = resources.shapes_dir()
    files = tuple((p, p.stat().st_mtime_ns) for p in sorted(folder.glob("*.ttl")))
    return _shape_names(files)


@lru_cache(maxsize=4)
def _shape_names(files: tuple[tuple[Path, int], ...]) -> list[str]:
    found = {m[1] for path, _ in files for m in _SHAPE_LINE.finditer(path.read_text("utf-8"))}
    return sorted(found)


def _to_shape(text: str) -> NamedNode:
    """A shape of ``shapes/``: its local name (``Result-configuration``), ``bgsh:`` and it, or
    its IRI."""
    name = text.strip().removeprefix(SHAPES).removeprefix("bgsh:")
    known = shape_names()
    if name not in known:
        near, _ = did_you_mean(name, known)
        hint = f"did you mean {_alternatives(near)}? " if near else ""
        raise ValueError(f"{hint}a kind is a shape of shapes/: its name, bgsh: and it, or its IRI")
    return NamedNode(SHAPES + name)


# The most rows a page of a paged query holds (its ``limit`` parameter's type).
MAX_LIMIT = 10_000


def _to_limit(text: str) -> Literal:
    """A page's size: a whole number from 1 to :data:`MAX_LIMIT`."""
    if not re.fullmatch(r"\s*\+?\d{1,6}\s*", text) or not 1 <= int(text) <= MAX_LIMIT:
        raise ValueError(f"a page holds 1 to {MAX_LIMIT} rows")
    return Literal(str(int(text)), datatype=NamedNode(V.XSD + "integer"))


_POSITION = re.compile(r"[0-9a-f]{15}-[0-3][0-9a-f]{14}")  # 0: before every row


def _to_position(text: str) -> Literal:
    """A row's position in a paged answer, as its ``position`` column gives it."""
    if not _POSITION.fullmatch(text.strip()):
        raise ValueError("a position is the position column of a row of the page before")
    return Literal(text.strip())


# Parameter types: how a value given as text becomes an RDF term.
CONVERTERS: dict[str, Callable[[str], NamedNode | Literal]] = {
    "paper": lambda text: NamedNode(iris.paper_from_user(text)),
    "method": _name_or_iri(iris.method),
    "iri": _to_iri,
    "string": lambda text: Literal(text),
    "integer": _to_integer,
    "decimal": _to_decimal,
    "date": _to_date,
    "moment": _to_moment,
    "clock": _to_clock,
    "precedence": _to_precedence,
    "benchmark": _iri_or_label,
    "metric": _iri_or_label,
    "severity": _to_severity,
    "shape": _to_shape,
    "limit": _to_limit,
    "position": _to_position,
}


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    help: str
    required: bool = False
    default: str | None = None


@dataclass(frozen=True)
class NamedQuery:
    """A query and what its header says. A named query's ``name`` is its file's stem; a query
    given to the CLI (:func:`given`) is named for where it came from, and has no ``path``
    when it was given as text."""

    name: str
    path: Path | None
    summary: str
    description: str
    params: tuple[Param, ...]
    text: str
    # What it reads of the store's past (its header's ``versions`` line; "": the store as it
    # is): see :mod:`benchgraph.asof`.
    versions: str = ""
    # The kinds of server on which it runs on its scope's pages gathered into memory rather
    # than on the server (its header's ``gathered`` line): see :mod:`benchgraph.asof`.
    gathered: frozenset[str] = frozenset()
    # Lines of PREFIX declarations written before the text as given (a query given to the CLI
    # may use the predeclared prefixes: :mod:`benchgraph.prefixes`).
    added: int = 0

    @property
    def where(self) -> str:
        """Where the query came from, as messages name it: its file, or its ``name``."""
        return self.name if self.path is None else str(self.path)

    def bind(self, values: Mapping[str, str]) -> dict[str, NamedNode | Literal]:
        """Return the RDF terms for ``values`` (text by parameter name), defaults filled in.

        Raises QueryError naming the parameter that is unknown, missing or invalid.
        """
        known = {p.name for p in self.params}
        for name in values:
            if name not in known:
                listed = ", ".join(sorted(known)) or "none"
                raise QueryError(
                    f"{self.name}: unknown parameter {_shown(name)} (parameters: {listed})", name
                )
        bound: dict[str, NamedNode | Literal] = {}
        for p in self.params:
            text = values.get(p.name, p.default)
            if text is None:
                if p.required:
                    raise QueryError(
                        f"{self.name}: parameter {p.name!r} is required ({p.help})", p.name
                    )
                continue
            try:
                bound[p.name] = CONVERTERS[p.type](text)
            except ValueError as error:
                detail = str(error) if len(str(error)) <= _SHOWN else f"{str(error)[:_SHOWN]}…"
                message = f"{_shown(text)} is not a valid {p.type} ({detail})"
                raise QueryError(f"{self.name}: parameter {p.name!r}: {message}", p.name) from None
        return bound

    def text_for(self, bound: Mapping[str, object]) -> str:
        """The query's text for the terms ``bound``. With a ``limit`` parameter (a paged query)
        given a value, each ``LIMIT`` of the text moves by as much as the value differs from
        the parameter's default (``LIMIT 101`` with a default of 100 and a value of 20 becomes
        ``LIMIT 21``); else the text as it is."""
        for p in self.params:
            if p.type == "limit" and p.name in bound:
                value = int(getattr(bound[p.name], "value", 0))
                return _limited(self.text, value - int(p.default or value))
        return self.text


def _limited(text: str, by: int) -> str:
    """``text`` with the number of each of its ``LIMIT`` clauses moved by ``by`` (at least
    1)."""
    found = tokens(text)
    out, done = [], 0
    for i, token in enumerate(found[:-1]):
        if token.kind == "name" and token.text.upper() == "LIMIT":
            digits = list(itertools.takewhile(lambda t: t.text.isdigit(), found[i + 1 :]))
            if digits:
                number = int("".join(d.text for d in digits))
                out += [text[done : digits[0].start], str(max(1, number + by))]
                done = digits[-1].end
    return "".join(out) + text[done:]


# What a parameter is bound to: an IRI or a literal.
Bound = NamedNode | Literal


@dataclass(frozen=True)
class Kind:
    """How a value given for a parameter type is looked up in the store before the query runs.

    Each internal query is run with ``?name`` bound to the value's term (and ``?type``, and the
    IRI of the query's ``scope`` parameter bound to a variable named by its type, when there
    are), and answers in its first column. A value that names nothing is an error that
    suggests the nearest names the ``suggest`` query answers; it is run only then.
    """

    iri: str  # the IRI given, if it is a thing of the type
    suggest: str  # every name a thing of the type goes by
    named: str | None = None  # the things a label given names (None: values are IRIs, minted)
    type: str | None = None  # the rdf:type bound to ?type
    scope: str | None = None  # the type of the parameter whose thing the looked-up one is of
    one: bool = True  # a label must name one thing, the query's IRI; else the query takes it
    spelled: str = ""  # how a name is written, said when no name is near


# Parameter types whose values are looked up: a name that names nothing is refused (UnknownName)
# rather than answered with no rows. A benchmark's name is replaced by its IRI, which the query
# can use in its patterns (the engine plans a term written into a pattern as the constant it
# is; a label matched in a UNION or FILTER makes it read every result of the store). A metric
# is looked up among the metrics of the query's benchmark, and bound as given.
LOOKUPS = {
    "benchmark": Kind(
        "is-a",
        "suggest-benchmarks",
        named="benchmarks-named",
        type=V.Benchmark,
        spelled="a benchmark's label or its dataset's name, as published in any case, or its IRI; "
        "the benchmarks query lists them",
    ),
    "metric": Kind(
        "metric-iri",
        "suggest-metrics",
        named="metrics-named",
        scope="benchmark",
        one=False,
        spelled="a metric's name, as published in any case, or its IRI",
    ),
    "paper": Kind(
        "is-a",
        "suggest-papers",
        type=V.Paper,
        spelled="a 24-hex source ID, a title, or an IRI; the papers query lists them",
    ),
    "method": Kind(
        "is-a", "suggest-methods", type=V.Method, spelled="a method's name as published, or its IRI"
    ),
}
_LISTED = 10  # names of a scope's things an error lists at most

# ``lookup(text, bindings)`` runs the internal query ``text`` with ``bindings`` substituted and
# returns its first column; ``names(text, bindings)`` the same, as the names to suggest from.
Lookup = Callable[[str, Mapping[str, Bound]], list[str]]
NameSource = Callable[[str, Mapping[str, Bound]], Names]


def reads_past(named: NamedQuery, bound: Mapping[str, object]) -> bool:
    """Whether ``named``, given the terms ``bound``, reads the store as it was (its header's
    ``versions`` line, and for ``as-of`` its ``asOf`` given): see :mod:`benchgraph.asof`."""
    if not named.versions:
        return False
    reading = named.versions.split()[0]
    return reading != "as-of" or "asOf" in bound


def resolve(
    named: NamedQuery,
    values: Mapping[str, str],
    lookup: Lookup,
    names: NameSource,
    earlier: Lookup | None = None,
) -> dict[str, Bound]:
    """The terms :meth:`NamedQuery.bind` gives for ``values``, each value of a :data:`LOOKUPS`
    type looked up: a benchmark's name replaced by the IRI it names, every other checked. A
    query that reads the store as it was (:func:`reads_past`) looks a value the store does not
    hold now up again with ``earlier``, in the versions it no longer holds current, when given.

    Raises UnknownName (with the nearest names) when a value names nothing in the store,
    QueryError when a benchmark's name names several, or as :meth:`NamedQuery.bind` does.
    """
    bound = named.bind(values)
    if earlier is not None and reads_past(named, bound):
        now = lookup

        def lookup(text: str, bindings: Mapping[str, Bound]) -> list[str]:
            return now(text, bindings) or list(dict.fromkeys(earlier(text, bindings)))

    out = dict(bound)
    looked_up = [p for p in named.params if p.type in LOOKUPS and p.name in bound]
    scoped_last = sorted(looked_up, key=lambda p: LOOKUPS[p.type].scope is not None)
    for p in scoped_last:
        kind, term = LOOKUPS[p.type], bound[p.name]
        scope = next((q for q in named.params if q.type == kind.scope and q.name in out), None)
        scoped: dict[str, Bound] = {kind.scope: out[scope.name]} if scope and kind.scope else {}
        typed: dict[str, Bound] = {"type": NamedNode(kind.type)} if kind.type else {}
        query = kind.named if isinstance(term, Literal) and kind.named else kind.iri
        found = lookup(internal(query), {"name": term, **typed, **scoped})
        if not found:
            given = values.get(p.name, p.default) or ""
            within = None if scope is None else values.get(scope.name, scope.default) or ""
            raise _unknown(named, p, given, within, names(internal(kind.suggest), scoped))
        if len(found) > 1 and kind.one:
            listed = ", ".join(f"<{iri}>" for iri in found[:10])
            raise QueryError(
                f"{named.name}: parameter {p.name!r}: {_shown(str(term.value))} names "
                f"{len(found)} {p.type}s ({listed}); give the IRI of one",
                p.name,
            )
        if kind.one or len(found) == 1:  # a name in another case than the store's matches too
            out[p.name] = NamedNode(found[0])
    return out


def _unknown(
    named: NamedQuery, p: Param, given: str, within: str | None, near: Names
) -> UnknownName:
    """The error for ``given``, the value of ``p`` that names nothing (``within`` the value
    of the parameter it is looked up in), suggesting the names of ``near`` nearest it."""
    kind = LOOKUPS[p.type]
    text = given.strip()
    is_iri = text.startswith(("http://", "https://"))
    shown = _shown(text)
    if within is None:
        what = f"no {p.type} has the IRI {shown}" if is_iri else f"no {p.type} is named {shown}"
    else:
        said = f"with the IRI {shown}" if is_iri else f"named {shown}"
        what = f"{kind.scope} {_shown(within.strip())} has no {p.type} {said}"
    # An IRI is compared by its last segment: a paper's ID, a metric's name, as minted.
    key = re.split(r"[/#]", text.rstrip("/#"))[-1] if is_iri else text
    suggestions = near.nearest(key)
    message = f"{named.name}: parameter {p.name!r}: {what}"
    if suggestions:
        message += f"; did you mean {_alternatives(suggestions)}?"
    if within is not None:
        listed = ", ".join(repr(n) for n in near.names[:_LISTED]) or "none"
        more = len(near) - _LISTED
        message += f" (its {p.type}s: {listed}{f' and {more} more' if more > 0 else ''})"
    elif not suggestions:
        message += f" ({kind.spelled})"
    return UnknownName(message, p.name, suggestions)


def _alternatives(names: list[str]) -> str:
    shown = [repr(n) for n in names]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


@dataclass(frozen=True)
class Header:
    """What the ``#+`` lines of a query file say."""

    summary: str  # "" when there is none (and none is required)
    description: str
    params: tuple[Param, ...]
    versions: str = ""  # its ``versions`` line: see :mod:`benchgraph.asof`
    gathered: frozenset[str] = frozenset()  # its ``gathered`` line: the same


# The moments a ``versions`` line's reading takes, by parameter name, and whether each must be
# given: ``as-of`` reads the store as of ``asOf`` when it is given; ``between`` compares it at
# ``since`` and ``until``.
VERSION_MOMENTS = {"as-of": {"asOf": False}, "between": {"since": True, "until": False}}


# The kinds of server a ``gathered`` line may name, as a remote store tells them from its answers
# (:func:`benchgraph.store.pragmas.server_kind`).
SERVER_KINDS = frozenset({"virtuoso"})


def parse_header(path: Path | str, text: str, *, summary_required: bool = True) -> Header:
    """Read the ``#+`` header of a query file (``path``: the file, or where the text came
    from). Raises QueryError naming the file and line."""
    fields: dict[str, str] = {}
    params: list[Param] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("#+"):
            continue
        match = _HEADER.match(line)
        if not match:
            raise QueryError(f"{path}:{number}: malformed header line {line!r}")
        key, value = match["key"], match["value"].strip()
        if key == "param":
            p = _PARAM.match(value)
            if not p or p["type"] not in CONVERTERS:
                raise QueryError(
                    f"{path}:{number}: malformed parameter {value!r}; expected "
                    f"'NAME (TYPE[, required|, default VALUE]) help' with TYPE one of "
                    f"{', '.join(CONVERTERS)}"
                )
            params.append(Param(p["name"], p["type"], p["help"], bool(p["required"]), p["default"]))
        elif key in ("summary", "description", "versions", "gathered"):
            fields[key] = value
        else:
            raise QueryError(f"{path}:{number}: unknown header field {key!r}")
    if "summary" not in fields and summary_required:
        raise QueryError(f"{path}: the header has no '#+ summary:' line")
    header = Header(
        fields.get("summary", ""), fields.get("description", ""), tuple(params),
        fields.get("versions", ""), frozenset(fields.get("gathered", "").replace(",", " ").split()),
    )  # fmt: skip
    if header.versions:
        _check_versions(path, header)
    if "gathered" in fields:
        _check_gathered(path, header)
    return header


def _check_gathered(path: Path | str, header: Header) -> None:
    """Refuse a ``gathered`` line that names no kind of server, or one benchgraph does not know
    (:data:`SERVER_KINDS`), or that is written in a query without a scope (a
    ``versions`` line naming the parameter whose pages are gathered). Raises QueryError."""
    unknown = sorted(header.gathered - SERVER_KINDS)
    if not header.gathered or unknown:
        wrong = f"unknown server kind {unknown[0]!r}" if unknown else "no server kind"
        raise QueryError(
            f"{path}: malformed gathered line: {wrong}; expected '#+ gathered: KIND', KIND one "
            f"of {', '.join(sorted(SERVER_KINDS))}"
        )
    if len(header.versions.split()) != 2:
        raise QueryError(
            f"{path}: a gathered query reads the pages of its scope, and this one has none: "
            "add '#+ versions: as-of SCOPE' (SCOPE a benchmark, paper or method parameter)"
        )


def _check_versions(path: Path | str, header: Header) -> None:
    """Refuse a ``versions`` line that is not ``as-of`` or ``between`` (then the name of a
    benchmark, paper or method parameter, the scope), or whose moments are not declared as
    :data:`VERSION_MOMENTS` says. Raises QueryError."""
    reading, *scope = header.versions.split()
    declared = {p.name: p for p in header.params}
    expected = "'#+ versions: as-of|between [SCOPE]', SCOPE a benchmark, paper or method parameter"
    scoped = [declared.get(name) for name in scope]
    if reading not in VERSION_MOMENTS or len(scope) > 1 or None in scoped:
        raise QueryError(
            f"{path}: malformed versions line {header.versions!r}; expected {expected}"
        )
    for p in scoped:
        if p is not None and p.type not in ("benchmark", "paper", "method"):
            raise QueryError(
                f"{path}: the versions line's scope {p.name!r} is a {p.type} parameter; the "
                "scope is a benchmark, paper or method parameter"
            )
    for name, required in VERSION_MOMENTS[reading].items():
        p = declared.get(name)
        if p is None or p.type != "moment" or p.required != required:
            how = "required" if required else "optional"
            raise QueryError(
                f"{path}: a query read {reading} takes the {how} parameter {name!r} of type "
                f"moment: '#+ param: {name} (moment{', required' if required else ''}) ...'"
            )


def load(path: Path) -> NamedQuery:
    """Load one query file. Raises QueryError for a malformed header."""
    text = path.read_text(encoding="utf-8")
    h = parse_header(path, text)
    return NamedQuery(
        path.stem, path, h.summary, h.description, h.params, text, h.versions, h.gathered
    )


def catalogue(folder: Path | None = None) -> dict[str, NamedQuery]:
    """Every named query in ``folder`` (default: the queries folder), by name."""
    folder = folder or resources.queries_dir()
    return {path.stem: load(path) for path in sorted(folder.glob("*.rq"))}


def internal(name: str) -> str:
    """The text of ``queries/internal/<name>.rq``: a query the server and the CLI run themselves
    (not a named query: the catalogue does not list it). Raises QueryError if it is missing."""
    return _internal(resources.root(), name)


@lru_cache(maxsize=256)
def _internal(root: Path, name: str) -> str:
    """:func:`internal` for the resource folder ``root``, read on first use: the server looks a
    parameter up with an internal query on every request, and the files never change under it."""
    path = resources.queries_dir() / "internal" / f"{name}.rq"
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise QueryError(f"cannot read the internal query {path}: {error}") from None


def find(name: str) -> NamedQuery:
    """The named query ``name`` (query files: :func:`given`). Raises UnknownQuery if there is
    none, with the names nearest it."""
    candidate = resources.queries_dir() / f"{name}.rq"
    if not candidate.is_file():
        known = list(catalogue())
        suggestions, hint = did_you_mean(name, known)
        listed = ", ".join(known) or "none"
        raise UnknownQuery(
            f"no named query {name!r}{'; ' + hint if hint else ''} (named queries: {listed})",
            suggestions,
        )
    return load(candidate)


class UnknownQuery(QueryError):
    """A name that names no named query; ``suggestions`` are the nearest names that do."""

    def __init__(self, message: str, suggestions: list[str]) -> None:
        super().__init__(message)
        self.suggestions = suggestions


def did_you_mean(name: str, names: Iterable[str]) -> tuple[list[str], str]:
    """The names of ``names`` nearest ``name`` (a misspelling, another case, a prefix), nearest
    first and at most :data:`benchgraph.suggest.COUNT`, and the words that suggest them
    (``did you mean 'leaderboard'?``); none and ``""`` when none is near."""
    near = Names(names).nearest(name)
    return near, f"did you mean {_alternatives(near)}?" if near else ""


# What `benchgraph query` takes as a query file besides a named query's name.
QUERY_SUFFIXES = (".rq", ".sparql")


def given(argument: str, stdin: IO[str]) -> NamedQuery:
    """The query ``benchgraph query`` is given as ``argument``: ``-`` reads it from ``stdin``;
    a path ending in ``.rq`` or ``.sparql`` is a query file; text holding white space or ``{``
    is the query itself; anything else is a named query's name. The ``#+`` header is optional
    but in a named query (its parameters then work; a malformed line is still an error). A
    query that is not a named query may use the predeclared prefixes (its ``added`` lines).

    Raises QueryError when the file cannot be read, the name names no query, or the header
    is malformed.
    """
    if argument == "-":
        try:
            return _adhoc(stdin.read(), "<stdin>")
        except UnicodeDecodeError as error:
            raise QueryError(f"<stdin>: the query is not UTF-8 text ({error})") from None
    path = Path(argument)
    if path.suffix in QUERY_SUFFIXES and not any(c in argument for c in "{\n\r"):
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise QueryError(f"{path}: the file does not exist") from None
        except (OSError, UnicodeDecodeError) as error:
            raise QueryError(f"cannot read the query file {path}: {error}") from None
        return _adhoc(text, str(path), path)
    if "{" in argument or any(c.isspace() for c in argument):
        return _adhoc(argument, "the query text")
    return find(argument)


def _adhoc(text: str, where: str, path: Path | None = None) -> NamedQuery:
    """The query ``text`` given to the CLI, its header read, the predeclared prefixes it does
    not declare itself declared before it. Raises QueryError for a malformed header."""
    h = parse_header(where, text, summary_required=False)
    ready = prefixes.prepare(text)
    return NamedQuery(
        where, path, h.summary, h.description, h.params, ready.text, h.versions, h.gathered,
        ready.added,
    )  # fmt: skip
