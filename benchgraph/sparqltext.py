"""SPARQL text read token by token: the lexer the endpoint's guard uses, term substitution for
stores that take a query only as text, and a VALUES block filled with a list of terms.

The lexer knows SPARQL's strings, IRIs and comments, so a word inside them is never taken for a
keyword or a variable.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import pyoxigraph as ox

TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n\r]*)
  | (?P<iri><(?:[^<>"{}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>)
  | (?P<long>'''(?:[^'\\]|\\.|'(?!''))*(?:'''|\Z)|\"\"\"(?:[^"\\]|\\.|"(?!""))*(?:\"\"\"|\Z))
  | (?P<short>'(?:[^'\\\n\r]|\\.)*'?|"(?:[^"\\\n\r]|\\.)*"?)
  | (?P<var>[?$][\w\u00B7\u0300-\u036F\u203F-\u2040]*)
  | (?P<lang>@[A-Za-z]+(?:-[A-Za-z0-9]+)*)
  | (?P<name>(?:[^\W\d]|[_:])(?:[\w\-.:%\u00B7]|\\.)*)
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)

Term = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple

# Words that open a SPARQL Update operation.
UPDATES = frozenset(
    {"INSERT", "DELETE", "LOAD", "CLEAR", "CREATE", "DROP", "COPY", "MOVE", "ADD", "WITH"}
)

# Words after which a variable is a projection (SELECT), or a condition (GROUP BY, ORDER BY).
_FORMS = {"SELECT", "ASK", "CONSTRUCT", "DESCRIBE"}
_CLAUSE_ENDS = {"WHERE", "FROM", "LIMIT", "OFFSET", "HAVING", "VALUES", "GROUP", "ORDER"}


@dataclass(frozen=True)
class Token:
    kind: str  # a group name of TOKEN: ws, comment, iri, long, short, var, lang, name, other
    text: str
    start: int
    end: int


def tokens(text: str, *, layout: bool = False) -> list[Token]:
    """The tokens of ``text``; white space and comments only with ``layout``."""
    found = []
    for match in TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        if layout or (kind != "ws" and kind != "comment"):
            found.append(Token(kind, match.group(), match.start(), match.end()))
    return found


@lru_cache(maxsize=512)
def _layout_tokens(text: str) -> list[Token]:
    """The tokens of ``text`` with its layout, lexed once per text: the named queries are few
    and asked again and again, and lexing the leaderboard costs milliseconds."""
    return tokens(text, layout=True)


def operation(text: str) -> str | None:
    """The first keyword of ``text`` after its prologue (``BASE``, ``PREFIX``), upper-cased:
    a query form (SELECT …) for a query, one of :data:`UPDATES` for an update; None when
    there is no word."""
    for token in tokens(text):
        word = token.text.upper() if token.kind == "name" else ""
        if word and word not in ("BASE", "PREFIX") and not word.endswith(":"):
            return word
    return None


def query_form(text: str) -> str | None:
    """The form of the query ``text`` (SELECT, ASK, CONSTRUCT or DESCRIBE): its first keyword
    after the prologue; None when it has none of these."""
    word = operation(text)
    return word if word in _FORMS else None


def keywords(text: str) -> set[str]:
    """The words of the query ``text`` outside strings, IRIs and comments, upper-cased (whether
    it says GRAPH or FROM, say)."""
    return {token.text.upper() for token in tokens(text) if token.kind == "name"}


def substitute(text: str, bindings: Mapping[str, Term]) -> str:
    """The query ``text`` with each variable named in ``bindings`` replaced by its term.

    It gives the answers pyoxigraph's ``substitutions`` give for queries that use a bound
    variable in patterns, filters and projections (not as the target of ``BIND`` or in
    ``BOUND``). In patterns and expressions the variable becomes the term. A ``SELECT`` that
    projects it keeps the column: as ``(term AS ?name)``, or as the variable itself when a
    subquery inside already projects it (a variable may be bound once) or its ``GROUP BY``
    binds it. A ``GROUP BY`` condition beside others is left out (a constant groups nothing;
    the SELECT projects the term), a lone one becomes ``(term AS ?name)``, which every engine
    reads (rdflib cannot evaluate a bare constant there), and an ``ORDER BY`` one ``(term)``.
    Raises ValueError for a blank node, which query text cannot name.
    """
    for name, bound in bindings.items():
        if isinstance(bound, ox.BlankNode):
            raise ValueError(f"?{name}: a blank node cannot be bound in query text")
    if not bindings:
        return text
    found = _layout_tokens(text)
    selects = _selects(found, set(bindings))
    out: list[str] = []
    clause = ""  # "select", "group" or "order" while in such a clause, opened at depth ``level``
    depth = level = 0
    previous = ""
    at_depth: dict[int, _Select] = {}  # the SELECT most recently opened at each depth
    for i, token in enumerate(found):
        if token.kind in ("ws", "comment"):
            out.append(token.text)
            continue
        word = token.text.upper() if token.kind == "name" else ""
        if token.kind == "other" and token.text in "({[":
            if token.text == "{" and depth == level:
                clause = ""
            depth += 1
        elif token.kind == "other" and token.text in ")}]":
            depth -= 1
            if depth < level:
                clause = ""
        elif word in _CLAUSE_ENDS and depth == level:
            clause = ""
        if word == "SELECT":
            clause, level = "select", depth
            at_depth[depth] = selects[i]
        elif word == "BY" and previous in ("GROUP", "ORDER"):
            clause, level = ("group" if previous == "GROUP" else "order"), depth
        name = token.text[1:]
        if token.kind == "var" and name in bindings:
            in_clause = clause if depth == level else ""
            out.append(_bound(token.text, str(bindings[name]), in_clause, at_depth.get(level)))
        else:
            out.append(token.text)
        previous = word or token.text
    return "".join(out)


def _bound(variable: str, term: str, clause: str, owner: _Select | None) -> str:
    """What :func:`substitute` writes for the bound ``variable``: its ``term``, or in a clause
    (``clause``: "select", "group" or "order" when the variable is at that clause's own depth,
    else empty) of the SELECT ``owner``, the variable kept or the term as the clause takes it."""
    name = variable[1:]
    in_scope = owner is not None and name in owner.inner
    grouped = owner is not None and name in owner.grouped
    if clause and in_scope:
        return variable
    keyed = owner is not None and owner.keyed
    if clause == "group" and grouped and keyed:
        # A constant condition beside others groups nothing: it is left out, and the SELECT
        # projects the term (Virtuoso answers a constant IRI grouped on as a string).
        return ""
    if clause == "select" and grouped and not keyed:
        return variable
    if clause in ("select", "group"):
        return f"({term} AS {variable})"
    if clause == "order":
        return f"({term})"
    return term


def with_values(text: str, name: str, terms: Sequence[Term]) -> str:
    """The query ``text`` with its empty block ``VALUES ?name { }`` holding ``terms``, one
    solution each (a list of terms, which ``substitute`` cannot bind). Raises ValueError when
    the text has no such block, or for a blank node, which query text cannot name."""
    for term in terms:
        if isinstance(term, ox.BlankNode):
            raise ValueError(f"?{name}: a blank node cannot be given in query text")
    found = [t for t in _layout_tokens(text) if t.kind not in ("ws", "comment")]
    for first, var, opening, closing in zip(found, found[1:], found[2:], found[3:], strict=False):
        if (
            first.kind == "name"
            and first.text.upper() == "VALUES"
            and var.kind == "var"
            and var.text[1:] == name
            and (opening.text, closing.text) == ("{", "}")
        ):
            inner = " ".join(str(term) for term in terms)
            return f"{text[: opening.end]} {inner} {text[closing.start :]}"
    raise ValueError(f"the query has no empty block VALUES ?{name} {{ }} to fill")


@dataclass
class _Select:
    start: int  # index of the SELECT token
    end: int = 0  # index of the token closing its WHERE group
    projected: set[str] = field(default_factory=set)  # bound variables it projects
    inner: set[str] = field(default_factory=set)  # bound variables a subquery inside projects
    grouped: set[str] = field(default_factory=set)  # bound variables its GROUP BY names bare
    keyed: bool = False  # whether its GROUP BY has a condition besides those


def _selects(found: list[Token], names: set[str]) -> dict[int, _Select]:
    """Every SELECT of the query by token index: which of ``names`` it projects, and which
    a subquery inside its WHERE group projects."""
    code = [(i, t) for i, t in enumerate(found) if t.kind not in ("ws", "comment")]
    selects: dict[int, _Select] = {}
    for n, (i, token) in enumerate(code):
        if token.kind != "name" or token.text.upper() != "SELECT":
            continue
        select = selects[i] = _Select(i)
        depth = 0
        in_projection = True
        for j, other in code[n + 1 :]:
            if other.kind == "other" and other.text in "({[":
                if other.text == "{":
                    in_projection = False
                depth += 1
            elif other.kind == "other" and other.text in ")}]":
                depth -= 1
                if depth == 0 and not in_projection and other.text == "}":
                    select.end = j
                    select.grouped, select.keyed = _grouped([t for k, t in code if k > j], names)
                    break
            elif other.kind == "name" and other.text.upper() in ("WHERE", "FROM"):
                in_projection = False
            elif in_projection and depth == 0 and other.kind == "var" and other.text[1:] in names:
                select.projected.add(other.text[1:])
    for outer in selects.values():
        for inner in selects.values():
            if outer.start < inner.start < outer.end:
                outer.inner |= inner.projected
    return selects


def _grouped(after: list[Token], names: set[str]) -> tuple[set[str], bool]:
    """Which of ``names`` the ``GROUP BY`` that opens ``after`` (the tokens after a WHERE
    group) names as bare variables (none when ``after`` does not open with ``GROUP BY``), and
    whether it has a condition besides those."""
    words = [t.text.upper() if t.kind == "name" else t.text for t in after[:2]]
    if words != ["GROUP", "BY"]:
        return set(), False
    grouped: set[str] = set()
    others = False
    depth = 0
    for token in after[2:]:
        ends = (token.kind == "name" and token.text.upper() in _CLAUSE_ENDS) or (
            token.kind == "other" and token.text in ")}]"
        )
        if depth == 0 and not ends and not (token.kind == "var" and token.text[1:] in names):
            others = True
        if token.kind == "other" and token.text in "({[":
            depth += 1
        elif token.kind == "other" and token.text in ")}]":
            depth -= 1
            if depth < 0:
                break
        elif depth == 0 and token.kind == "name" and token.text.upper() in _CLAUSE_ENDS:
            break
        elif depth == 0 and token.kind == "var" and token.text[1:] in names:
            grouped.add(token.text[1:])
    return grouped, others
