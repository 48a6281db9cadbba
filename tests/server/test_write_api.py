"""The write API (``POST /pages``, ``DELETE /pages/...``), off by default: real ``benchgraph
serve`` processes with a token file, asked over HTTP on loopback. A request the API refuses
changes nothing: the store's quads, read through the server that holds it, are the same
before and after."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from support import EXAMPLES, PATIENCE, REPO, doc, run_cli
from support.live import Live
from test_cli import BAD_EDITS, LAION

from benchgraph import graphs, iris
from benchgraph.store import holder, open_store

RADAR = EXAMPLES / "radar-composet-sample.txt"
NOCAPS = Path(__file__).parents[1] / "data" / "sota2" / "nocaps-cider.md"  # not in the examples
TOKEN = "curator-7f3a9c2e41d8b6a05e9f"
SERVING = doc("serving.md")


def quads(store: Path) -> set[ox.Quad]:
    """Every quad of the store, read through the server that holds it."""
    with open_store(store) as held:
        return set(held.quads())


def token_file(folder: Path, mode: int = 0o600, text: str = TOKEN + "\n") -> Path:
    path = folder / "write.token"
    path.write_text(text)
    path.chmod(mode)
    return path


@pytest.fixture
def writer(scratch_store: Path, tmp_path: Path) -> Iterator[Live]:
    """The examples served with the write API on."""
    live = Live(scratch_store, "--write-token-file", str(token_file(tmp_path)))
    yield live
    assert live.stop() == 0


def post(http: Any, live: Live, body: bytes, name: str = "", token: str = TOKEN) -> Any:
    url = http.url(live.url + "pages", name=name) if name else live.url + "pages"
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return http.fetch(url, body, "POST", Accept="application/json", **headers)


def delete(http: Any, live: Live, page: str, token: str = TOKEN) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return http.fetch(live.url + "pages/" + page, None, "DELETE", **headers)


def holds(http: Any, live: Live, graph: str) -> bool:
    """Whether the server's SPARQL endpoint answers that ``graph`` holds statements."""
    query = f"ASK {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}"
    reply = http.fetch(http.url(live.sparql, query=query), Accept="application/sparql-results+json")
    assert reply.status == 200, reply.text
    return bool(reply.json()["boolean"])


def test_without_a_token_file_the_write_routes_are_404(http: Any, scratch_store: Path) -> None:
    live = Live(scratch_store)
    try:
        posted = post(http, live, LAION.read_bytes())
        deleted = delete(http, live, "radar/composet")
        still = holds(http, live, graphs.page("radar/composet"))
        described = http.fetch(live.url + "openapi.json").json()
    finally:
        assert live.stop() == 0
    assert not any(path.startswith("/pages") for path in described["paths"])
    for reply in (posted, deleted):
        assert reply.status == 404, reply.text
        body = reply.json()
        assert set(body) == {"ok", "error", "status"} and body["ok"] is False, body
    assert still


@pytest.mark.parametrize(
    ("headers", "challenge"),
    [
        ({}, 'Bearer realm="benchgraph pages"'),
        ({"Authorization": "Bearer not-the-token"}, 'error="invalid_token"'),
        ({"Authorization": f"Basic {TOKEN}"}, 'Bearer realm="benchgraph pages"'),
    ],
    ids=["missing", "wrong", "other-scheme"],
)
def test_a_missing_or_wrong_token_is_401_and_changes_nothing(
    http: Any, writer: Live, headers: dict[str, str], challenge: str
) -> None:
    before = quads(writer.store)
    page = NOCAPS.read_bytes()
    posted = http.fetch(writer.url + "pages", page, "POST", **headers)
    deleted = http.fetch(writer.url + "pages/radar/composet", None, "DELETE", **headers)
    for reply in (posted, deleted):
        assert reply.status == 401, reply.text
        assert reply.json()["ok"] is False and reply.json()["status"] == 401
        assert challenge in reply.headers["www-authenticate"]
    assert quads(writer.store) == before


def test_a_page_posted_is_loaded_seen_at_once_and_unchanged_when_sent_again(
    http: Any, writer: Live
) -> None:
    page = graphs.page("sota2/image-captioning-on-nocaps-val/cider")
    assert not holds(http, writer, page)
    loaded = post(http, writer, NOCAPS.read_bytes(), name="nocaps-cider.md")
    assert loaded.status == 201, loaded.text
    body = loaded.json()
    assert body["outcome"] == "loaded" and body["name"] == "nocaps-cider.md"
    assert body["page"] == "sota2/image-captioning-on-nocaps-val/cider"
    assert body["graph"] == page and body["source"] == iris.source(body["page"])
    assert body["results"] == 5
    # The CLI's summary line, word for word, for the same page into the same store.
    assert body["summary"].startswith("1 loaded, 0 unchanged, 0 refused, 0 unreadable; 5 results")
    # Each finding is listed; the summary says what holds for many nodes of the page once.
    warnings = [f for f in body["findings"] if f["severity"] == "Warning"]
    said = {(f["shape"], f["path"], f["message"]) for f in warnings}
    assert len(said) < len(warnings)
    assert body["summary"].endswith(f"; {len(said)} warnings, 0 infos")
    # The answer came once readers see the page: no waiting here.
    assert holds(http, writer, page)
    benchmarks = http.fetch(writer.url + "queries/benchmarks", Accept="text/csv")
    assert "nocaps" in benchmarks.text.lower(), benchmarks.text
    described = http.fetch(loaded.headers["location"], Accept="text/turtle")
    assert described.status == 200 and body["source"] in described.text
    before = quads(writer.store)
    again = post(http, writer, NOCAPS.read_bytes())
    assert again.status == 200, again.text
    assert again.json()["outcome"] == "unchanged"
    assert again.json()["summary"].startswith("0 loaded, 1 unchanged, 0 refused")
    assert "location" not in again.headers
    assert quads(writer.store) == before


def test_the_cli_and_the_api_print_the_same_summary(
    http: Any, writer: Live, tmp_path: Path
) -> None:
    fresh = tmp_path / "fresh"
    done = run_cli("ingest", str(NOCAPS), store=fresh)
    assert done.returncode == 0, done.stderr
    reply = post(http, writer, NOCAPS.read_bytes())
    assert reply.status == 201, reply.text
    assert done.stdout.strip().removesuffix(" (--verbose lists them)") == reply.json()["summary"]


def _refused_pages() -> dict[str, tuple[bytes, str]]:
    """Pages the gate refuses, from the tests of ingest: a SHACL violation (an interval that
    excludes its value, as in quality/test_gate.py) and a page that does not parse."""
    radar = RADAR.read_text().replace("2026-", "2027-", 1)
    old, new, mentioned = BAD_EDITS["count-mismatch"]
    return {
        "violation": (
            radar.replace("20.4 [17.2,23.6]", "20.4 [21.0,23.6]", 1).encode(),
            "lower bound (bg:ciLower) no greater than its value",
        ),
        "parse-error": (LAION.read_text().replace(old, new, 1).encode(), mentioned),
    }


REFUSED = _refused_pages()


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_page_the_gate_refuses_is_422_with_its_messages_and_changes_nothing(
    http: Any, writer: Live, case: str
) -> None:
    data, mentioned = REFUSED[case]
    before = quads(writer.store)
    reply = post(http, writer, data, name=f"{case}.txt")
    assert reply.status == 422, reply.text
    body = reply.json()
    assert body["ok"] is False and body["status"] == 422
    assert body["error"].startswith(f"{case}.txt: ")
    assert body["messages"] and any(mentioned in m for m in body["messages"]), body
    assert body["summary"].startswith("0 loaded, 0 unchanged, 1 refused")
    assert quads(writer.store) == before


def test_a_body_over_the_request_limit_is_413_and_changes_nothing(
    http: Any, scratch_store: Path, tmp_path: Path
) -> None:
    page = LAION.read_bytes().replace(b"Data updated: 2026-", b"Data updated: 2027-")
    assert len(page) > 4096
    token = str(token_file(tmp_path))
    live = Live(scratch_store, "--max-request-bytes", "4096", "--write-token-file", token)
    try:
        before = quads(scratch_store)
        reply = post(http, live, page)
        after = quads(scratch_store)
    finally:
        assert live.stop() == 0
    assert reply.status == 413, reply.text
    assert reply.json()["status"] == 413 and "4096 bytes" in reply.json()["error"]
    assert after == before


@pytest.mark.parametrize(
    "data",
    [b"Shopping list\n- milk\n- bread\n", bytes(range(256)) * 4, b"", b"\xff\xfe not text"],
    ids=["text", "binary", "empty", "not-utf8"],
)
def test_bytes_that_are_not_a_page_are_415_and_change_nothing(
    http: Any, writer: Live, data: bytes
) -> None:
    before = quads(writer.store)
    reply = post(http, writer, data, name="notes.txt")
    assert reply.status == 415, reply.text
    assert reply.json()["status"] == 415 and reply.json()["error"].startswith("notes.txt: ")
    assert quads(writer.store) == before


def test_delete_withdraws_a_page_and_a_second_delete_is_404(http: Any, writer: Live) -> None:
    graph = graphs.page("radar/composet")
    assert holds(http, writer, graph)
    removed = delete(http, writer, "radar/composet")
    assert removed.status == 200, removed.text
    body = removed.json()
    assert body["outcome"] == "removed" and body["page"] == "radar/composet"
    assert body["graph"] == graph and body["results"] == 24
    assert body["summary"] == "1 removed, 0 not found"
    assert not holds(http, writer, graph)  # seen at once
    assert all(q.graph_name != ox.NamedNode(graph) for q in quads(writer.store))
    again = delete(http, writer, "radar/composet")
    assert again.status == 404, again.text
    assert again.json()["status"] == 404 and "radar/composet" in again.json()["error"]


def test_sparql_update_is_still_refused_with_the_write_api_on(http: Any, writer: Live) -> None:
    before = quads(writer.store)
    update = "INSERT DATA { GRAPH <urn:x> { <urn:a> <urn:b> <urn:c> } }"
    reply = http.fetch(
        writer.sparql, update.encode(), "POST", Authorization=f"Bearer {TOKEN}",
        Content_Type="application/sparql-update",
    )  # fmt: skip
    assert reply.status == 400, reply.text
    assert quads(writer.store) == before


def test_the_write_token_does_not_open_the_owners_path(http: Any, writer: Live) -> None:
    for headers in ({}, {"Authorization": f"Bearer {TOKEN}"}):
        reply = http.fetch(writer.url + "_store/graphs", **headers)
        assert reply.status == 401, reply.text
        assert "holder record" in reply.json()["error"]
    secret = holder.read(writer.store).secret  # what the store's owner reads: mode 0600
    owned = http.fetch(writer.url + "_store/graphs", Authorization=f"Bearer {secret}")
    assert owned.status == 200 and graphs.page("radar/composet") in owned.json()


@pytest.mark.parametrize(
    ("case", "said"),
    [
        ("open-to-others", "is open to its group or others (mode 0644)"),
        ("missing", "cannot read"),
        ("empty", "is empty"),
        ("remote-store", "the store is remote"),
    ],
)
def test_serve_refuses_to_start_with_a_token_file_it_cannot_trust(
    scratch_store: Path, tmp_path: Path, case: str, said: str
) -> None:
    store = str(scratch_store)
    path = tmp_path / "write.token"
    if case == "open-to-others":
        path = token_file(tmp_path, 0o644)
    elif case == "empty":
        path = token_file(tmp_path, 0o600, " \n")
    elif case == "remote-store":
        path, store = token_file(tmp_path), "http://127.0.0.1:9/query"
    done = run_cli("serve", "--store", store, "--port", "0", "--write-token-file", str(path))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "write_token_file" in done.stderr and said in done.stderr
    if case != "remote-store":
        assert str(path) in done.stderr
    assert "serving at" not in done.stdout and "Traceback" not in done.stderr


def _write_api_examples() -> list[str]:
    """The shell lines of the Write API examples in docs/serving.md."""
    section = SERVING.split("\n## Write API\n", 1)[1].split("\n## ", 1)[0]
    block = re.findall(r"```sh\n(.*?)```", section, re.S)[0]
    return [line for line in block.splitlines() if line and not line.startswith("#")]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_write_api_examples_answer_as_the_docs_say(scratch_store: Path, tmp_path: Path) -> None:
    """The docs' lines, run in order by a shell in the checkout: the token file made as it
    says, the server started on it, each curl answered with the status and words its comment
    gives (the status is written after the body)."""
    lines = _write_api_examples()
    setup = [line for line in lines if not line.startswith(("curl ", "benchgraph serve"))]
    assert setup, lines
    token = tmp_path / "token"
    script = "\n".join(setup).replace("~/.benchgraph-write-token", str(token))
    subprocess.run(["bash", "-ec", script], check=True, timeout=PATIENCE, cwd=REPO)
    serve = next(line for line in lines if line.startswith("benchgraph serve"))
    assert "--write-token-file ~/.benchgraph-write-token" in serve
    live = Live(scratch_store, "--write-token-file", str(token))
    try:
        for line in (line for line in lines if line.startswith("curl ")):
            command, _, comment = line.partition("   #")
            command = command.replace("http://127.0.0.1:8080/", live.url)
            command = command.replace("~/.benchgraph-write-token", str(token))
            done = subprocess.run(
                ["bash", "-c", command + " --silent --show-error --write-out '\n%{http_code}'"],
                capture_output=True, text=True, timeout=PATIENCE, cwd=REPO,
            )  # fmt: skip
            assert done.returncode == 0, (line, done.stderr)
            body, _, status = done.stdout.rpartition("\n")
            said = re.match(r"\s*(\d{3})\b", comment)
            assert said, f"the docs' example says no status: {line}"
            assert status == said.group(1), (line, body[:500])
            for quoted in re.findall(r'"([^"]+)"', comment):
                assert quoted in body, (line, quoted, body[:500])
            json.loads(body)  # every answer is JSON, the error shape included
    finally:
        assert live.stop() == 0


def test_the_openapi_document_describes_the_write_api_when_it_is_on(
    http: Any, writer: Live
) -> None:
    document = http.fetch(writer.url + "openapi.json").json()
    post_page = document["paths"]["/pages"]["post"]
    delete_page = document["paths"]["/pages/{page}"]["delete"]
    assert set(post_page["responses"]) == {"200", "201", "401", "413", "415", "422"}
    assert set(delete_page["responses"]) == {"200", "401", "404"}
    for operation in (post_page, delete_page):
        assert operation["security"] == [{"writeToken": []}]
        for response in operation["responses"].values():
            if "$ref" in response:  # each error it names is described
                assert response["$ref"].rsplit("/", 1)[1] in document["components"]["responses"]
    assert document["components"]["securitySchemes"]["writeToken"]["scheme"] == "bearer"
    # What it describes is what the server answers: a page posted without the token is 401.
    assert post(http, writer, LAION.read_bytes(), token="").status == 401
