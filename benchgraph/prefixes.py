"""The prefixes a query may use without declaring them, and IRIs written with them.

:data:`PREDECLARED` is the one table of them: ``benchgraph query`` and ``/sparql`` (and so the
site's query page) read SPARQL text with it, the terminal table shortens IRIs with it, and the
manual's table of them is tested against it. The namespaces are those ``ontology/`` declares,
with QUDT's units (``unit:``) and the resources' own (``id:``).

A query keeps its own declarations: :func:`prepare` writes a ``PREFIX`` line before the text
for each predeclared prefix the query does not declare itself, and says how many lines it
wrote, so that a position the engine reports can be given back in the query's own lines.
"""

from __future__ import annotations

from dataclasses import dataclass

from benchgraph import sparqltext
from benchgraph import vocab as V

PREDECLARED: dict[str, str] = {
    "bg": V.BG,
    "id": V.ID,
    "rdf": V.RDF,
    "rdfs": V.RDFS,
    "xsd": V.XSD,
    "owl": V.OWL,
    "prov": V.PROV,
    "dcterms": V.DCTERMS,
    "qudt": V.QUDT,
    "unit": V.UNIT,
    "schema": V.SCHEMA,
    "mls": V.MLS,
}

# The longest namespace first, so that an IRI is shortened with the prefix that fits best.
_BY_LENGTH = sorted(PREDECLARED.items(), key=lambda item: -len(item[1]))


@dataclass(frozen=True)
class Prepared:
    """A query as the engine runs it: ``text``, which is ``added`` lines of ``PREFIX``
    declarations followed by the query as it was given."""

    text: str
    added: int

    @property
    def given(self) -> str:
        """The query as it was given, without the lines :func:`prepare` wrote before it."""
        return self.text.split("\n", self.added)[-1] if self.added else self.text


def declared(text: str) -> set[str]:
    """The prefixes the query ``text`` declares itself (``PREFIX bg: <…>`` gives ``bg``; the
    empty prefix is ``""``)."""
    found = sparqltext.tokens(text)
    names = set()
    for word, name, iri in zip(found, found[1:], found[2:], strict=False):
        if (
            word.kind == "name"
            and word.text.upper() == "PREFIX"
            and name.kind == "name"
            and name.text.endswith(":")
            and iri.kind == "iri"
        ):
            names.add(name.text[:-1])
    return names


def prepare(text: str) -> Prepared:
    """The query ``text`` with a ``PREFIX`` line before it for each predeclared prefix it does
    not declare itself (one it declares keeps its own namespace)."""
    own = declared(text)
    lines = [f"PREFIX {p}: <{iri}>\n" for p, iri in PREDECLARED.items() if p not in own]
    return Prepared("".join(lines) + text, len(lines))


def shorten(iri: str) -> str:
    """``iri`` written with the predeclared prefix whose namespace it starts with (the longest
    that fits: ``bg:Method``, ``id:method/editor``), else as it is. For reading: the local
    part is not escaped as SPARQL would need it."""
    for prefix, namespace in _BY_LENGTH:
        if iri.startswith(namespace) and len(iri) > len(namespace):
            return f"{prefix}:{iri[len(namespace) :]}"
    return iri
