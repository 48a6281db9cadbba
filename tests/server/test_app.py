"""The app through Flask's test client, where a real server adds nothing: the row cap, the
factory's checks, the settings table, and content negotiation rules."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from support import doc, manual
from support.html import parse
from werkzeug.datastructures import MIMEAccept

from benchgraph import media, queries, settings
from server.app import create_app
from server.dumps import DUMPS

ALL = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"


def test_answers_are_cut_at_the_row_limit_and_say_so(make_app) -> None:
    client = make_app(max_rows=3).test_client()
    reply = client.get("/sparql", query_string={"query": ALL})
    assert reply.status_code == 200
    assert reply.headers["Benchgraph-Truncated"] == "3"
    assert len(reply.get_json(force=True)["results"]["bindings"]) == 3
    as_csv = client.get("/sparql", query_string={"query": ALL, "format": "csv"})
    assert len(list(csv.reader(io.StringIO(as_csv.get_data(as_text=True))))) == 4
    graph = client.get(
        "/sparql", query_string={"query": "CONSTRUCT WHERE { ?s ?p ?o }", "format": "nt"}
    )
    assert graph.headers["Benchgraph-Truncated"] == "3"
    assert len(graph.get_data(as_text=True).strip().splitlines()) == 3
    small = client.get("/sparql", query_string={"query": f"{ALL} LIMIT 2"})
    assert "Benchgraph-Truncated" not in small.headers


def test_a_cut_json_answer_says_so_in_its_body_and_csv_stays_data(make_app) -> None:
    client = make_app(max_rows=3).test_client()
    for path, values in (("/sparql", {"query": ALL}), ("/queries/papers", {})):
        cut = client.get(path, query_string={**values, "format": "json"})
        assert cut.headers["Benchgraph-Truncated"] == "3", (path, cut.data[:300])
        document = cut.get_json(force=True)
        assert document["benchgraph"] == {"truncated": True, "rows": 3}, path
        assert len(document["results"]["bindings"]) == 3
    whole = client.get("/sparql", query_string={"query": f"{ALL} LIMIT 2", "format": "json"})
    assert "benchgraph" not in whole.get_json(force=True)
    as_csv = client.get("/sparql", query_string={"query": ALL, "format": "csv"})
    header, *rows = csv.reader(io.StringIO(as_csv.get_data(as_text=True)))
    assert header == ["s", "p", "o"] and len(rows) == 3  # no row but the data's


def test_requests_over_the_size_limit_are_413(make_app) -> None:
    client = make_app(max_request_bytes=2048).test_client()
    long_query = "ASK {} #" + "x" * 3000
    for reply in (
        client.get("/sparql", query_string={"query": long_query}),
        client.post("/sparql", data=long_query, content_type="application/sparql-query"),
        client.post("/sparql", data={"query": long_query}),
    ):
        assert reply.status_code == 413 and reply.get_json()["status"] == 413


def test_cross_origin_pages_may_query(client) -> None:
    reply = client.get("/sparql", query_string={"query": "ASK {}"})
    assert reply.headers["Access-Control-Allow-Origin"] == "*"
    preflight = client.options("/sparql", headers={"Access-Control-Request-Method": "POST"})
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]


BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
# The GET routes `/` does not link, and why.
NOT_LINKED = {
    "/": "the index itself",
    "/static/<path:filename>": "Flask's own static route; the service has no static files",
    "/queries/<name>": "one per named query: the catalogue, /queries, links each",
    "/page/<path:path>": "one per resource: /site, /search and every page link them, and "
    "/id/PATH sends a browser there",
    "/page/graph/<path:path>": "one per page graph: /id/graph/KEY sends a browser there",
    "/page/history/<path:path>": "one per kept version: /id/history/... sends a browser there",
    "/_store/graphs": "the store owner's path (benchgraph.store.served), not the public surface",
    "/_store/triples": "the store owner's path",
    "/_store/quads": "the store owner's path",
    "/site/<kind>": "one per kind of resource: /site's counts link each index",
    "/ontology": "the vocabulary again, under the name ontology tools look for: / links /ns",
    "/badge/<path:benchmark>/<method>.svg": "one per method and benchmark, for other sites to "
    "show; the OpenAPI document describes it",
    "/embed/<path:benchmark>": "one per benchmark, for other sites' iframes; the OpenAPI "
    "document describes it",
    "/editor/assets/<path:name>": "the SPARQL editor's files, which /query loads",
    "/editor/prefixes.json": "the prefixes the editor of /query completes",
}


def test_the_index_links_every_surface(make_app) -> None:
    """`/` linked neither the dumps, nor /void, nor /query, nor the site's search."""
    app = make_app()
    client = app.test_client()
    page = parse(client.get("/", headers={"Accept": "text/html"}).get_data(as_text=True))
    linked = {urlsplit(href).path for href, _ in page.links()}
    document = client.get("/").get_json()
    listed = {urlsplit(u).path for u in [*document["links"].values(), *document["dumps"].values()]}
    for rule in app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.rule in NOT_LINKED:
            continue
        if not rule.arguments:
            assert rule.rule in linked and rule.rule in listed, rule.rule
        elif rule.endpoint == "dumps.dump":
            dumps = {f"/dump.{suffix}" for suffix in DUMPS}
            assert dumps <= linked and dumps <= listed
        elif rule.endpoint == "linked.resource":
            resources = [path for path in linked if path.startswith("/id/")]
            assert resources and document["resources"]["url"].endswith("/id/PATH")
            for path in resources:
                reply = client.get(path, headers={"Accept": "text/turtle"})
                assert reply.status_code == 200, path
        else:
            pytest.fail(f"{rule.rule} is neither linked from / nor named in NOT_LINKED")
    for path in linked:  # every link answers a browser
        reply = client.get(path, headers={"Accept": BROWSER})
        assert reply.status_code in (200, 303), path


def test_base_iri_names_the_service(make_app) -> None:
    client = make_app(base_iri="https://example.org/bg/").test_client()
    description = client.get("/sparql", headers={"Accept": "application/n-triples"})
    assert "<https://example.org/bg/sparql> " in description.get_data(as_text=True)
    assert client.get("/openapi.json").get_json()["servers"] == [{"url": "https://example.org/bg"}]


def test_a_malformed_header_stops_the_factory(
    scratch_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "queries").mkdir()
    bad = tmp_path / "queries" / "bad.rq"
    bad.write_text("#+ summary: fine\n#+ colour: red\nSELECT * WHERE {}\n")
    monkeypatch.setenv("BENCHGRAPH_RESOURCES", str(tmp_path))
    with pytest.raises(queries.QueryError, match=f"{bad}:2: unknown header field 'colour'"):
        create_app({"store": str(scratch_store)})


def test_unknown_and_invalid_settings_are_refused(scratch_store: Path) -> None:
    with pytest.raises(settings.SettingError, match="unknown setting 'colour'"):
        create_app({"store": str(scratch_store), "colour": "red"})
    with pytest.raises(settings.SettingError, match=r"max_rows.*below the minimum"):
        create_app({"store": str(scratch_store), "max_rows": 0})


def test_the_write_api_needs_the_gate_it_runs_pages_through(
    scratch_store: Path, tmp_path: Path
) -> None:
    """The server imports no parser: the ingest's gate is given to the app, by `serve`."""
    from ingest.gate import IngestGate

    token = tmp_path / "token"
    token.write_text("s3cret\n")
    token.chmod(0o600)
    config = {"store": str(scratch_store), "write_token_file": str(token), "workers": 1}
    with pytest.raises(settings.SettingError, match="the write API needs the ingest's gate"):
        create_app(config)
    app = create_app(config, gate=IngestGate())
    try:
        assert "pages.load" in app.view_functions
    finally:
        app.extensions["benchgraph"].pool.close()


def test_the_configuration_doc_lists_every_setting_in_its_table() -> None:
    # The write token's row once stood in the threat model's table, and passed for present.
    section = doc("configuration.md")
    for row in settings.markdown_rows():
        assert row in section, f"docs/configuration.md lacks the row:\n{row}"


@pytest.mark.parametrize(
    ("accept", "formats", "kinds", "expected"),
    [
        ("", [], ("results",), "json"),
        ("*/*", [], ("results",), "json"),
        ("application/sparql-results+xml", [], ("results",), "xml"),
        ("application/json", [], ("graph",), "jsonld"),
        ("application/xml", [], ("graph",), "rdfxml"),
        ("text/html", ["csv"], ("results", "page"), "csv"),
        ("", ["json"], ("graph",), "jsonld"),
        ("", ["xml", "application/rdf+xml"], ("graph",), "rdfxml"),
        ("", ["text/tab-separated-values"], ("results",), "tsv"),
        ("text/html,*/*;q=0.8", [], ("results", "page"), "html"),
        ("image/png", [], ("results",), None),
        ("", ["png"], ("results",), None),
    ],
)
def test_content_negotiation(accept: str, formats: list[str], kinds: tuple, expected) -> None:
    header = MIMEAccept(
        [(part.split(";")[0], float(part.split("q=")[1]) if "q=" in part else 1.0)
         for part in accept.split(",") if part]
    )  # fmt: skip
    chosen = media.choose(media.of_kind(*kinds), header, formats)
    assert (chosen.key if chosen else None) == expected


def test_the_docs_list_every_media_type() -> None:
    text = "\n".join(manual().values())
    for m in media.TABLE:
        if m.kind != "api":
            assert f"`{m.mime}`" in text, m.mime
