"""A store that ``benchgraph serve`` holds is still the user's: the other commands go through
the server (on loopback, with the secret of the holder record), say the same as on a store no
one serves, and the server's readers see each change at once, without a restart."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from support import EXAMPLES, REPO, run_cli

from benchgraph.store import holder
from benchgraph.store.served import owner_url

LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
NOCAPS = REPO / "tests" / "data" / "sota2" / "nocaps-cider.md"
# Times differ between two stores written a moment apart: ingest and validation times.
TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?")


def said(done: subprocess.CompletedProcess[str]) -> tuple[int, str, str]:
    """What a command said, its times masked."""
    return done.returncode, TIME.sub("TIME", done.stdout), TIME.sub("TIME", done.stderr)


def lasting(store: Path) -> tuple[dict[str, int], set[str]]:
    """What a store holds but its times, blank node labels and ingest activities (whose IRIs
    are made from their time): the triples of each graph counted, and the quads without a
    blank node, a date-time or an activity (from its export, its history included)."""
    done = run_cli("export", "--format", "nquads", "--history", store=store)
    assert done.returncode == 0, done.stderr
    sizes: dict[str, int] = {}
    kept = set()
    for quad in ox.parse(done.stdout.encode(), format=ox.RdfFormat.N_QUADS):
        name = str(quad.graph_name)
        sizes[name] = sizes.get(name, 0) + 1
        terms = (quad.subject, quad.object)
        timed = isinstance(quad.object, ox.Literal) and "dateTime" in quad.object.datatype.value
        activity = "/id/ingest/" in str(quad)
        if not (timed or activity) and not any(isinstance(t, ox.BlankNode) for t in terms):
            kept.add(str(quad))
    return sizes, kept


def changed_laion(folder: Path) -> Path:
    page = folder / "laion-later.md"
    page.write_text(LAION.read_text().replace("Data updated: 2026-", "Data updated: 2027-"))
    return page


def refused_laion(folder: Path) -> Path:
    page = folder / "laion-bad-count.md"
    text = LAION.read_text().replace("Data updated: 2026-", "Data updated: 2028-")
    page.write_text(text.replace("| Results loaded | 6 of 6 |", "| Results loaded | 7 of 7 |"))
    return page


def test_every_command_says_through_the_server_what_it_says_on_the_store_itself(
    scratch_store: Path, tmp_path: Path, http: Any
) -> None:
    alone = tmp_path / "alone"
    shutil.copytree(scratch_store, alone)
    later, bad = changed_laion(tmp_path), refused_laion(tmp_path)
    commands = [
        ("ingest", str(later), str(bad), str(NOCAPS)),  # loaded, refused, loaded: exit 1
        ("ingest", str(tmp_path / "missing.md")),  # unreadable: exit 2
        ("query", "SELECT (COUNT(*) AS ?n) WHERE { ?r a <https://w3id.org/benchgraph/ns#Result> }"),
        ("query", "leaderboard", "--param", "benchmark=Prompt Recovery on LAION"),
        ("query", "SELECT ?x WHERE {"),  # malformed: exit 2
        ("remove", str(NOCAPS), "https://example.org/no-such-page"),  # removed, not found: 1
        ("audit",),
        ("validate",),
    ]
    live = http.Live(scratch_store)
    try:
        for command in commands:
            served = said(run_cli(*command, store=scratch_store))
            assert "Traceback" not in served[2]
            assert served == said(run_cli(*command, store=alone)), command
        assert live.process.poll() is None  # the readers stayed up throughout
    finally:
        assert live.stop() == 0
    assert lasting(scratch_store) == lasting(alone)


def test_readers_see_a_change_made_through_the_server_at_once(
    scratch_store: Path, http: Any
) -> None:
    live = http.Live(scratch_store)
    try:
        url = live.url + "queries/benchmarks"
        before = http.fetch(url, Accept="application/sparql-results+json")
        labels = {b["label"]["value"] for b in before.json()["results"]["bindings"]}
        assert not any("nocaps" in label.lower() for label in labels)
        done = run_cli("ingest", str(NOCAPS), store=scratch_store)
        assert done.returncode == 0 and done.stdout.startswith("1 loaded"), done.stderr
        after = http.fetch(url, Accept="application/sparql-results+json")
        now = {b["label"]["value"] for b in after.json()["results"]["bindings"]}
        assert labels < now and any("nocaps" in label.lower() for label in now)
        assert after.headers["etag"] != before.headers["etag"]
        again = http.fetch(url, If_None_Match=before.headers["etag"])
        assert again.status == 200  # the answer of before is not current any more
        gone = run_cli("remove", str(NOCAPS), store=scratch_store)
        assert gone.returncode == 0, gone.stderr
        last = http.fetch(url, Accept="application/sparql-results+json")
        assert {b["label"]["value"] for b in last.json()["results"]["bindings"]} == labels
        assert live.process.poll() is None
    finally:
        assert live.stop() == 0


def test_the_owners_path_takes_nothing_without_the_secret(scratch_store: Path, http: Any) -> None:
    live = http.Live(scratch_store)
    try:
        record = holder.read(scratch_store)
        assert record is not None and record.secret and record.url == live.url
        url = live.url + "_store/update"
        ask = http.url(live.sparql, query="ASK { ?s ?p ?o }")
        for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": record.secret}):
            kind = {"Content_Type": "application/sparql-update"}
            reply = http.fetch(url, b"DROP ALL", **kind, **headers)
            assert reply.status == 401 and reply.json()["status"] == 401
            assert reply.headers["www-authenticate"].startswith("Bearer")
            assert http.fetch(ask).json()["boolean"] is True  # still all there
        secret = {"Authorization": f"Bearer {record.secret}"}
        query = live.url + "_store/query"
        form = b"query=ASK+%7B+%3Fs+%3Fp+%3Fo+%7D"
        taken = http.fetch(query, form, Content_Type="application/x-www-form-urlencoded", **secret)
        assert taken.status == 200 and json.loads(taken.body)["boolean"] is True
    finally:
        assert live.stop() == 0


def test_a_stopped_server_leaves_the_store_as_a_store_no_one_serves(
    scratch_store: Path, tmp_path: Path, http: Any
) -> None:
    live = http.Live(scratch_store)
    try:
        assert run_cli("ingest", str(NOCAPS), store=scratch_store).returncode == 0
        assert list((scratch_store / holder.GENERATIONS).iterdir())
    finally:
        assert live.stop() == 0
    assert not (scratch_store / holder.GENERATIONS).exists()
    assert not (scratch_store / holder.FILE).exists()
    done = run_cli("ingest", str(NOCAPS), store=scratch_store)  # the store itself, unchanged
    assert done.returncode == 0 and done.stdout.startswith("0 loaded, 1 unchanged"), done.stderr


@pytest.mark.parametrize(
    ("url", "reached"),
    [
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080/_store/"),
        ("http://localhost:8080/", "http://localhost:8080/_store/"),
        ("http://0.0.0.0:8080/", "http://127.0.0.1:8080/_store/"),
        ("http://[::]:8080/", "http://[::1]:8080/_store/"),
        ("http://[::1]:8080/", "http://[::1]:8080/_store/"),
        ("http://192.0.2.7:8080/", None),  # not loopback: never gone through
    ],
)
def test_commands_reach_a_server_on_loopback_only(url: str, reached: str | None) -> None:
    record = holder.Holder(1, "serve", "2026-12-01T00:00:00+00:00", url, secret="s")
    assert owner_url(record) == reached
    assert owner_url(holder.Holder(1, "serve", "2026-12-01T00:00:00+00:00", url)) is None


def test_an_answer_cut_short_by_a_server_gone_midway_is_a_store_error(tmp_path: Path) -> None:
    """A server killed while it sends a query's answer leaves the command a StoreError naming
    what stopped, not a traceback (http.client's IncompleteRead)."""
    import http.server
    import threading

    from benchgraph.store import StoreError
    from benchgraph.store.served import ServedStore

    class CutShort(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # the standard library calls it by this name
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Type", "application/sparql-results+json")
            self.send_header("Content-Length", "161")
            self.end_headers()
            self.wfile.write(b'{"head": ')  # and no more: the connection closes

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), CutShort)
    threading.Thread(target=server.handle_request, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/_store/"
    record = holder.Holder(1, "serve", "2026-12-01T00:00:00+00:00", url=url, secret="s")
    try:
        with pytest.raises(StoreError, match="the answer stopped while answering a query"):
            ServedStore(str(tmp_path), record, url).query("SELECT * WHERE { ?s ?p ?o }")
    finally:
        server.server_close()


# Every triple of the examples store against every other, twice: far longer than any limit.
ENDLESS = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def test_a_query_through_the_server_runs_in_a_worker_within_its_limits(
    scratch_store: Path, http: Any
) -> None:
    live = http.Live(scratch_store)  # its query time limit: live.TIME_LIMIT seconds
    try:
        stopped = run_cli("query", ENDLESS, store=scratch_store)
        assert stopped.returncode == 2, stopped.stdout + stopped.stderr
        assert "time limit" in stopped.stderr and "Traceback" not in stopped.stderr, stopped.stderr
        # The server kept answering, its worker replaced: the owner's and a client's the same.
        counted = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"
        owner = run_cli("query", "--format", "json", counted, store=scratch_store)
        assert owner.returncode == 0, owner.stderr
        reply = http.fetch(http.url(live.sparql, query=counted),
                           Accept="application/sparql-results+json")  # fmt: skip
        assert reply.status == 200, reply.text
        assert json.loads(owner.stdout)["results"] == reply.json()["results"]
        refused = run_cli("query", "SELECT * WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }",
                          store=scratch_store)  # fmt: skip
        assert refused.returncode == 2 and "SERVICE" in refused.stderr, refused.stderr
    finally:
        assert live.stop() == 0
