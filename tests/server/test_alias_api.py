"""The write API's alias routes: a real ``benchgraph serve`` with a token file, asked over HTTP
on loopback. A change is seen by queries (the ``aliases`` named query, ``/sparql``) as soon as
it is answered; a request refused changes nothing."""

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
from support import PATIENCE, REPO, doc
from support.live import Live

from benchgraph import graphs
from benchgraph import vocab as V
from benchgraph.store import open_store

TOKEN = "curator-aliases-5b1e0c9d7a"
METHOD = V.ID + "method/"
CLIP_32, CLIP_16 = METHOD + "clip-b-32", METHOD + "clip-b-16-laion-2b"
PRISM, PEZ = METHOD + "prism", METHOD + "pez"
CANONICAL = (
    "PREFIX bg: <https://w3id.org/benchgraph/ns#>\n"
    "SELECT ?canonicalMethod WHERE { VALUES ?method { <%s> }\n"
    "OPTIONAL { GRAPH <https://w3id.org/benchgraph/id/aliases> {\n"
    "  ?alias bg:aliasSubject ?method ; bg:aliasTarget ?canonicalMethod ;"
    " bg:aliasStatus bg:Accepted } } }"
)


@pytest.fixture
def writer(scratch_store: Path, tmp_path: Path) -> Iterator[Live]:
    """The examples served with the write API on."""
    token = tmp_path / "write.token"
    token.write_text(TOKEN + "\n")
    token.chmod(0o600)
    live = Live(scratch_store, "--write-token-file", str(token))
    yield live
    assert live.stop() == 0


def send(http: Any, live: Live, path: str, body: object = None, token: str = TOKEN) -> Any:
    """POST ``body`` as JSON (GET when None) to ``path`` of the server."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if body is None:
        return http.fetch(live.url + path, None, "GET", Accept="application/json", **headers)
    data = json.dumps(body).encode()
    return http.fetch(live.url + path, data, "POST", Content_Type="application/json", **headers)


def alias_quads(store: Path) -> set[ox.Quad]:
    """The alias graph's quads, read through the server that holds the store."""
    with open_store(store) as held:
        return {q for q in held.quads() if q.graph_name == ox.NamedNode(graphs.ALIASES)}


def canonical(http: Any, live: Live, method: str) -> str | None:
    reply = http.fetch(
        http.url(live.sparql, query=CANONICAL % method), Accept="application/sparql-results+json"
    )
    assert reply.status == 200, reply.text
    bindings = reply.json()["results"]["bindings"]
    return bindings[0].get("canonicalMethod", {}).get("value")


def named(http: Any, live: Live, **params: str) -> list[dict[str, Any]]:
    reply = http.fetch(
        http.url(live.url + "queries/aliases", **params), Accept="application/sparql-results+json"
    )
    assert reply.status == 200, reply.text
    rows: list[dict[str, Any]] = reply.json()["results"]["bindings"]
    return rows


def test_without_the_token_the_alias_routes_are_401(http: Any, writer: Live) -> None:
    proposal = {"subject": CLIP_32, "target": CLIP_16, "by": "ana"}
    for reply in (
        send(http, writer, "aliases", proposal, token=""),
        send(http, writer, "aliases", None, token="not-the-token"),
        send(http, writer, "aliases/0123456789abcdef/accept", {"by": "ana"}, token=""),
    ):
        assert reply.status == 401, reply.text
        assert reply.json() == {"ok": False, "error": reply.json()["error"], "status": 401}
    assert alias_quads(writer.store) == set()


def test_propose_accept_and_reject_are_seen_by_queries_at_once(http: Any, writer: Live) -> None:
    proposal = {
        "subject": "CLIP B/32",
        "target": CLIP_16,
        "by": "ana",
        "evidence": "one checkpoint",
        "confidence": 0.6,
    }
    proposed = send(http, writer, "aliases", proposal)
    assert proposed.status == 201, proposed.text
    record = proposed.json()["alias"]
    assert proposed.json()["outcome"] == "proposed"
    assert (record["subject"], record["target"], record["status"]) == (CLIP_32, CLIP_16, "proposed")
    assert (record["creator"], record["confidence"], record["evidence"]) == (
        "ana",
        "0.6",
        "one checkpoint",
    )
    again = send(http, writer, "aliases", {**proposal, "by": "bo"})
    assert again.status == 200 and again.json()["outcome"] == "unchanged"
    assert again.json()["alias"]["creator"] == "ana"
    assert [r["alias"]["value"] for r in named(http, writer)] == [record["alias"]]
    assert canonical(http, writer, CLIP_32) is None

    accepted = send(http, writer, f"aliases/{record['id']}/accept", {"by": "cy"})
    assert accepted.status == 200, accepted.text
    assert accepted.json()["alias"]["status"] == "accepted"
    assert accepted.json()["alias"]["reviewedBy"] == "cy"
    rows = named(http, writer, status="accepted", kind="method")
    assert [(r["subjectLabel"]["value"], r["targetLabel"]["value"]) for r in rows] == [
        ("CLIP B/32", "CLIP B/16 (LAION-2B)")
    ]
    assert canonical(http, writer, CLIP_32) == CLIP_16
    graph = http.fetch(writer.url + "id/aliases", Accept="application/n-triples")
    assert graph.status == 200 and f"<{record['alias']}> " in graph.text
    listed = send(http, writer, "aliases?status=accepted")
    assert [a["id"] for a in listed.json()["aliases"]] == [record["id"]]

    rejected = send(http, writer, f"aliases/{record['id']}/reject", {"by": "dee"})
    assert rejected.status == 200 and rejected.json()["alias"]["status"] == "rejected"
    assert named(http, writer, status="accepted") == []
    assert canonical(http, writer, CLIP_32) is None


@pytest.mark.parametrize(
    ("path", "body", "status", "said"),
    [
        ("aliases", "not json", 415, "JSON object"),
        ("aliases", ["a", "list"], 400, "JSON object"),
        ("aliases", {"subject": PEZ, "target": PRISM}, 400, "'by'"),
        ("aliases", {"subject": PEZ, "target": PRISM, "by": "a", "confidence": 2}, 400, "0 to 1"),
        ("aliases", {"subject": "No Such Model", "target": PRISM, "by": "a"}, 422, "is named"),
        ("aliases", {"subject": PEZ, "target": "CompoSET", "by": "a"}, 409, "of one kind"),
        ("aliases/0123456789abcdef/accept", {"by": "a"}, 404, "no alias record"),
        ("aliases?status=maybe", None, 400, "status must be"),
    ],
    ids=["not-json", "list", "no-by", "confidence", "unknown", "kinds", "no-record", "status"],
)
def test_bad_input_is_4xx_in_the_error_shape_and_changes_nothing(
    http: Any, writer: Live, path: str, body: object, status: int, said: str
) -> None:
    assert send(http, writer, "aliases", {"subject": PEZ, "target": PRISM, "by": "a"}).status == 201
    before = alias_quads(writer.store)
    if body == "not json":
        headers = {"Authorization": f"Bearer {TOKEN}", "Content_Type": "text/plain"}
        reply = http.fetch(writer.url + path, b"subject=x", "POST", **headers)
    else:
        reply = send(http, writer, path, body)
    assert reply.status == status, reply.text
    answer = reply.json()
    assert answer["ok"] is False and answer["status"] == status and said in answer["error"]
    assert alias_quads(writer.store) == before


def test_accepting_a_chain_is_409_and_changes_nothing(http: Any, writer: Live) -> None:
    first = send(http, writer, "aliases", {"subject": PEZ, "target": PRISM, "by": "a"}).json()
    second = send(http, writer, "aliases", {"subject": PRISM, "target": CLIP_32, "by": "a"}).json()
    assert send(http, writer, f"aliases/{first['alias']['id']}/accept", {"by": "b"}).status == 200
    before = alias_quads(writer.store)
    chained = send(http, writer, f"aliases/{second['alias']['id']}/accept", {"by": "b"})
    assert chained.status == 409, chained.text
    assert "is the accepted name of" in chained.json()["error"]
    assert alias_quads(writer.store) == before


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_alias_api_examples_answer_as_the_docs_say(writer: Live, tmp_path: Path) -> None:
    """The curl lines of docs/aliases.md's Write API section, run in order by a shell against
    the examples served with the write API: each answered with the status and words its
    comment gives."""
    section = doc("aliases.md").split("\n## Write API\n", 1)[1]
    block = re.findall(r"```sh\n(.*?)```", section, re.S)[0]
    lines = [line for line in block.splitlines() if line.startswith("curl ")]
    assert len(lines) == 3
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    for line in lines:
        command, _, comment = line.partition("   #")
        command = command.replace("http://127.0.0.1:8080/", writer.url)
        command = command.replace("~/.benchgraph-write-token", str(token))
        done = subprocess.run(
            ["bash", "-c", command + " --silent --show-error --write-out '\n%{http_code}'"],
            capture_output=True, text=True, timeout=PATIENCE, cwd=REPO,
        )  # fmt: skip
        assert done.returncode == 0, (line, done.stderr)
        body, _, status = done.stdout.rpartition("\n")
        said = re.match(r"\s*(\d{3})\b", comment)
        assert said and status == said.group(1), (line, body[:500])
        for quoted in re.findall(r'"([^"]+)"', comment):
            assert quoted in body, (line, quoted, body[:500])
        json.loads(body)


def test_the_openapi_document_describes_the_alias_routes(http: Any, writer: Live) -> None:
    document = http.fetch(writer.url + "openapi.json").json()
    described = {
        (path, verb): operation
        for path, item in document["paths"].items()
        if path.startswith("/aliases")
        for verb, operation in item.items()
    }
    assert set(described) == {
        ("/aliases", "get"),
        ("/aliases", "post"),
        ("/aliases/{record}/accept", "post"),
        ("/aliases/{record}/reject", "post"),
    }
    for operation in described.values():
        assert operation["security"] == [{"writeToken": []}]
        for response in operation["responses"].values():
            if "$ref" in response:
                assert response["$ref"].rsplit("/", 1)[1] in document["components"]["responses"]
