"""The prefixes benchgraph writes IRIs with for reading, and IRIs written with them.

:data:`PREDECLARED` is the one table of them: the terminal table of ``benchgraph query``
shortens IRIs with it. The namespaces are those ``ontology/`` declares, with QUDT's units
(``unit:``) and the resources' own (``id:``).
"""

from __future__ import annotations

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


def shorten(iri: str) -> str:
    """``iri`` written with the predeclared prefix whose namespace it starts with (the longest
    that fits: ``bg:Method``, ``id:method/editor``), else as it is. For reading: the local
    part is not escaped as SPARQL would need it."""
    for prefix, namespace in _BY_LENGTH:
        if iri.startswith(namespace) and len(iri) > len(namespace):
            return f"{prefix}:{iri[len(namespace) :]}"
    return iri
