"""Answers as HTTP responses: the serialised body with its media type, or an HTML table (its
IRIs shown by name, linked: :mod:`server.labels`).

A cut answer (more rows than the ``max_rows`` setting) carries ``Benchgraph-Truncated: N``,
N being the number of rows it holds; a cut JSON answer says so in its body too
(:func:`server.results.cut`).
"""

from __future__ import annotations

import json
from urllib.parse import urlencode

from flask import Response, render_template, request

from benchgraph import media
from server import labels, results
from server.engine import Answered


def cell(term: dict[str, object] | None, named: dict[str, labels.Name]) -> dict[str, str]:
    """A SPARQL JSON term as an HTML table cell: its text, and for an IRI a link (what
    ``named`` calls it and where it links, the IRI itself as title)."""
    if term is None:
        return {"text": ""}
    value = str(term.get("value", ""))
    if term.get("type") == "uri":
        name = named.get(value)
        if name is None:
            return {"text": value, "href": value, "title": value}
        return {"text": name.text, "href": name.href, "title": value}
    if term.get("type") == "bnode":
        return {"text": f"_:{value}"}
    if term.get("type") == "triple":
        return {"text": json.dumps(term.get("value"), ensure_ascii=False)}
    return {"text": value, "lang": str(term.get("xml:lang", ""))}


def table(answer: Answered) -> tuple[list[str], list[list[dict[str, str]]]]:
    """Column names and cells of an answer serialised as SPARQL JSON, its IRIs named by
    :func:`server.labels.names` (labels, linked to their pages).

    The page is read from the body: it is another representation of the very answer JSON
    clients get (one cache entry, warmed ones too), and that body came from a worker process
    as bytes. Parsing it (8 ms for 5,000 rows) costs less than rendering the page's table;
    keeping its rows as data beside it would double what every answer sends and holds."""
    document = json.loads(answer.body)
    if "boolean" in document:
        return ["boolean"], [[{"text": "true" if document["boolean"] else "false"}]]
    names = list(document["head"]["vars"])
    bindings = document["results"]["bindings"]
    iris = (t["value"] for b in bindings for t in b.values() if t.get("type") == "uri")
    named = labels.names(iris)
    rows = [[cell(binding.get(n), named) for n in names] for binding in bindings]
    return names, rows


def alternatives(kind: media.Kind = "results") -> list[tuple[str, str]]:
    """Links to this GET request's answer in each format of ``kind`` (for the HTML page)."""
    if request.method != "GET":
        return []
    links = []
    for m in media.of_kind(kind):
        args = request.args.to_dict(flat=False)
        args["format"] = [m.key]
        links.append((m.key, f"{request.path}?{urlencode(args, doseq=True)}"))
    return links


def respond(answer: Answered, page: bool = False, title: str = "", **context: object) -> Response:
    """The response for ``answer``: its body as serialised, or (``page``) an HTML page of it:
    a table of a SPARQL JSON answer, the text of a graph (Turtle, say) under its query."""
    if page:
        graph = answer.kind == "triples"
        names, rows = ([], []) if graph else table(answer)
        text = render_template(
            "table.html",
            title=title,
            names=names,
            rows=rows,
            answer=answer,
            graph=graph,
            graph_text=answer.body.decode("utf-8") if graph else "",
            links=alternatives("graph" if graph else "results"),
            **context,
        )
        response = Response(text, content_type=media.BY_KEY["html"].content_type)
    else:
        body = (
            results.cut(answer.format, answer.body, answer.rows)
            if answer.truncated
            else answer.body
        )
        response = Response(body, content_type=media.BY_KEY[answer.format].content_type)
    response.headers["Vary"] = "Accept"
    if answer.truncated:
        response.headers["Benchgraph-Truncated"] = str(answer.rows)
    return response
