"""Alias records on every store: an embedded one on disk and real SPARQL servers. The alias
graph is reached with ``GRAPH <…/aliases>`` from a user's query and from the ``aliases`` named
query on the dataset benchgraph names for a remote store's queries, and never enters the
merged view."""

from __future__ import annotations

import json

import pyoxigraph as ox
from support import EXAMPLES, run_cli

from benchgraph import graphs
from benchgraph import vocab as V
from benchgraph.store import open_store

METHOD = V.ID + "method/"
CLIP_32, CLIP_16 = METHOD + "clip-b-32", METHOD + "clip-b-16-laion-2b"
FOLLOWED = (
    "PREFIX bg: <https://w3id.org/benchgraph/ns#>\n"
    "SELECT ?method ?canonicalMethod WHERE { ?method a bg:Method\n"
    "OPTIONAL { GRAPH <https://w3id.org/benchgraph/id/aliases> {\n"
    "  ?alias bg:aliasSubject ?method ; bg:aliasTarget ?canonicalMethod ;"
    " bg:aliasStatus bg:Accepted } } }"
)


def test_alias_records_are_read_with_graph_on_every_store(location: str) -> None:
    loaded = run_cli("ingest", str(EXAMPLES), "--store", location)
    assert loaded.returncode == 0, loaded.stderr
    for command in (
        ("propose", "CLIP B/32", "CLIP B/16 (LAION-2B)", "--by", "ana", "--confidence", "0.7"),
        ("accept", CLIP_32, CLIP_16, "--by", "bo"),
    ):
        done = run_cli("alias", *command, "--store", location)
        assert done.returncode == 0, done.stderr

    asked = run_cli("query", "aliases", "--format", "json", "--store", location)
    assert asked.returncode == 0, asked.stderr
    rows = json.loads(asked.stdout)["results"]["bindings"]
    found = [(r["subject"], r["target"], r["recordStatus"]) for r in rows]
    assert [tuple(term["value"] for term in row) for row in found] == [
        (CLIP_32, CLIP_16, "accepted")
    ]
    assert rows[0]["confidence"]["value"] in ("0.7", "0.70")
    assert rows[0]["subjectLabel"]["value"] == "CLIP B/32"

    followed = run_cli("query", "-", "--format", "json", "--store", location, stdin=FOLLOWED)
    assert followed.returncode == 0, followed.stderr
    canonical = {
        row["method"]["value"]: row.get("canonicalMethod", {}).get("value")
        for row in json.loads(followed.stdout)["results"]["bindings"]
    }
    assert canonical[CLIP_32] == CLIP_16
    assert canonical[CLIP_16] is None and len(canonical) > 2

    with open_store(location) as store:
        assert graphs.ALIASES in store.named_graphs()
        view = set(store.graph_triples(None))
        assert not any(t.object == ox.NamedNode(V.Alias) for t in view)
        answer = store.query(FOLLOWED)  # benchgraph's own dataset for a remote store
        assert isinstance(answer, ox.QuerySolutions)
        assert any(getattr(row["canonicalMethod"], "value", None) == CLIP_16 for row in answer)
