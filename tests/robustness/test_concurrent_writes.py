"""Writers at once through the write API: a real ``benchgraph serve`` with the write API on,
several threads POSTing and DELETEing overlapping pages beside readers, on loopback.

Every answer is an acknowledgement, and the store must keep each one:

- pages posted at the same moment with the same bytes: exactly one answer is ``201 loaded``,
  the others ``200 unchanged``;
- a POST and a DELETE of a new page racing: a DELETE answered 404 ran first, so the page is
  current; a DELETE answered 200 ran after the POST, so it is withdrawn;
- a command writing through the server (``benchgraph ingest --store DIR`` while a server
  holds DIR) whose page another writer changed between its read and its write is refused,
  nothing written, and succeeds once it reads again;
- the mixed campaign (versions of a few pages posted in any order, withdrawn, posted again):
  every version a POST acknowledged is in the versions catalogue, and the catalogue, the page
  graphs and the history graphs agree, checked here from the quads themselves, and by
  ``benchgraph repair --check``.
"""

from __future__ import annotations

import functools
import hashlib
import random
import threading
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from robustness.corpus import Row, new_id, render_sota2
from robustness.fuzz_settings import LONG
from support import run_cli
from support.live import Live, fetch

from benchgraph import graphs, iris
from benchgraph import vocab as V
from benchgraph.store import WriteConflict, open_store
from benchgraph.store.embedded import EmbeddedStore
from benchgraph.store.served import ServedStore
from benchgraph.versions import read_all
from ingest.loader import prepare_bytes
from ingest.writer import Write

TOKEN = "writers-at-once-5d1c0e77a2b9"
KEYS = 5
VERSIONS = 3
WRITERS = 4
READERS = 2
OPERATIONS = 400 if LONG else 40  # by each writer
ROUNDS = 6  # of identical pages posted at once
JSON = "application/sparql-results+json"


@dataclass(frozen=True)
class Sent:
    """A page version to send: its bytes and their SHA-256."""

    body: bytes
    sha256: str


def version(key: int, number: int, tag: str = "mix") -> Sent:
    """Version ``number`` of page ``key``: its own values and its own data-updated time."""
    rows = [
        Row(
            f"Method {key}-{j}",
            f"{40 + 10 * number + j}.{key}",
            new_id(tag, key, j),
            new_id("paper", tag, key, j),
        )
        for j in range(2 + number % 2)
    ]
    text = render_sota2(
        f"Task {tag} {key}", f"Dataset {key}", "Accuracy", "PERCENT", "Higher is better", rows,
        slug=f"{tag}-{key}", updated=f"2026-0{number + 3}-01T00:00:00.000Z",
    )  # fmt: skip
    body = text.encode("utf-8")
    return Sent(body, hashlib.sha256(body).hexdigest())


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[Live]:
    """An empty store served with the write API on."""
    token = tmp_path / "write.token"
    token.write_text(TOKEN + "\n")
    token.chmod(0o600)
    EmbeddedStore(tmp_path / "store").close()
    live = Live(tmp_path / "store", "--write-token-file", str(token), "--query-timeout", "60")
    yield live
    assert live.stop() == 0


def post(live: Live, body: bytes) -> Any:
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"}
    return fetch(live.url + "pages", body, "POST", timeout=120, **headers)


def delete(live: Live, page: str) -> Any:
    return fetch(live.url + "pages/" + page, None, "DELETE", timeout=120,
                 Authorization=f"Bearer {TOKEN}")  # fmt: skip


def at_once(calls: list[Any]) -> list[Any]:
    """Run the ``calls`` on threads of their own, released together; their answers."""
    start = threading.Barrier(len(calls))
    answers: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        start.wait()
        answers[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_identical_pages_posted_at_once_are_loaded_once(writer: Live) -> None:
    for round_ in range(ROUNDS):
        sent = version(round_, 0, tag="same")
        answers = at_once([functools.partial(post, writer, sent.body)] * WRITERS)
        seen = sorted((a.status, a.json()["outcome"]) for a in answers)
        assert seen == [(200, "unchanged")] * (WRITERS - 1) + [(201, "loaded")], seen


def test_a_delete_racing_a_post_leaves_what_its_answer_says(writer: Live, tmp_path: Path) -> None:
    keys: dict[str, int] = {}
    for round_ in range(ROUNDS):
        sent = version(round_, 0, tag="race")
        key = "sota2/" + f"task-race-{round_}-on-dataset-{round_}/accuracy"
        posted, deleted = at_once(
            [functools.partial(post, writer, sent.body), functools.partial(delete, writer, key)]
        )
        assert posted.status == 201 and posted.json()["page"] == key, posted.text
        assert deleted.status in (200, 404), deleted.text
        keys[key] = deleted.status
    assert writer.stop() == 0
    current = {v.key for v in read_all(EmbeddedStore(writer.store)) if v.current is not None}
    for key, status in keys.items():
        assert (key in current) == (status == 404), (key, status)


def test_writers_and_readers_at_once_lose_no_acknowledged_version(writer: Live) -> None:
    sent = {(k, n): version(k, n) for k in range(KEYS) for n in range(VERSIONS)}
    keys: dict[int, str] = {}
    acknowledged: list[tuple[str, str, str]] = []  # (outcome, page key, sha256)
    failures: list[str] = []
    deletes = [0]
    lock = threading.Lock()
    stop = threading.Event()

    def write(seed: int) -> None:
        chance = random.Random(seed)
        for _ in range(OPERATIONS):
            k, n = chance.randrange(KEYS), chance.randrange(VERSIONS)
            if k in keys and chance.random() < 0.25:
                answer = delete(writer, keys[k])
                with lock:
                    deletes[0] += 1
                if answer.status not in (200, 404):
                    failures.append(f"DELETE {keys[k]}: {answer.status} {answer.text}")
                continue
            answer = post(writer, sent[k, n].body)
            if answer.status not in (200, 201):
                failures.append(f"POST {k}/{n}: {answer.status} {answer.text}")
                continue
            found = answer.json()
            with lock:
                keys[k] = found["page"]
                acknowledged.append((found["outcome"], found["page"], sent[k, n].sha256))

    def read() -> None:
        query = urllib.parse.quote("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        while not stop.is_set():
            answer = fetch(writer.sparql + "?query=" + query, timeout=120, Accept=JSON)
            if answer.status != 200:
                failures.append(f"read: {answer.status} {answer.text}")

    readers = [threading.Thread(target=read) for _ in range(READERS)]
    for thread in readers:
        thread.start()
    at_once([lambda seed=seed: write(seed) for seed in range(WRITERS)])
    stop.set()
    for thread in readers:
        thread.join()
    assert not failures, failures[:5]
    assert writer.stop() == 0

    store = ox.Store.read_only(str(writer.store))
    catalogue = {(v.key, v.sha256) for vs in read_all(EmbeddedStore(writer.store)) for v in vs.all}
    lost = [a for a in acknowledged if a[0] != "unchanged" and (a[1], a[2]) not in catalogue]
    outcomes = Counter(a[0] for a in acknowledged)
    print(f"\nwriters at once: {dict(outcomes)}, {deletes[0]} DELETEs answered, {len(lost)} lost")
    assert not lost, lost
    assert not inconsistencies(store, writer.store), inconsistencies(store, writer.store)
    checked = run_cli("repair", "--check", "--store", str(writer.store))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def inconsistencies(store: ox.Store, location: Path) -> list[str]:
    """Where the catalogue and the graphs disagree, read from the quads: each version's graph
    holds that version (its SHA-256, its number of results), at most one version of a page is
    current, and every page graph is the current version of its page."""
    found: list[str] = []
    named = {g.value for g in store.named_graphs() if isinstance(g, ox.NamedNode)}
    current_graphs: set[str] = set()
    for versions in read_all(EmbeddedStore(location)):
        current = [v for v in versions.all if v.current]
        if len(current) > 1:
            found.append(f"{versions.key}: {len(current)} current versions")
        for v in versions.all:
            held = _held(store, v.graph, v.key)
            if held != (v.sha256, v.results):
                found.append(f"{versions.key} {v.sha256[:12]} ({v.status}): {v.graph} holds {held}")
            if v.current:
                current_graphs.add(v.graph)
            if v.current and v.withdrawn and v.withdrawn > v.ingested and not v.restored:
                found.append(f"{versions.key} {v.sha256[:12]}: withdrawn yet current")
    pages = {g for g in named if graphs.is_page(g)}
    found += [f"{g}: a page graph no version names" for g in sorted(pages - current_graphs)]
    return found


def _held(store: ox.Store, graph: str, key: str) -> tuple[str, int] | None:
    """The SHA-256 the graph states of the page ``key``'s source, and its number of results."""
    name = ox.NamedNode(graph)
    source = ox.NamedNode(iris.source(key))
    shas = [
        q.object.value for q in store.quads_for_pattern(source, ox.NamedNode(V.sha256), None, name)
    ]
    kind = ox.NamedNode(V.Result)
    results = sum(1 for _ in store.quads_for_pattern(None, ox.NamedNode(V.type_), kind, name))
    return (shas[0], results) if len(shas) == 1 else None


def test_a_command_writing_through_the_server_is_refused_if_a_source_changed_since_it_read(
    writer: Live,
) -> None:
    first, second = version(0, 0, tag="owner"), version(0, 1, tag="owner")
    with open_store(writer.store) as served:
        assert isinstance(served, ServedStore)
        planned = prepare_bytes(served, first.body, "first.md")
        assert isinstance(planned, Write) and planned.outcome.status == "loaded"
        answer = post(writer, second.body)  # another writer, between the read and the write
        assert answer.status == 201, answer.text
        with pytest.raises(WriteConflict, match=r"changed after this write was made from it"):
            served.write(planned.change)
        (found,) = read_all(served)
        assert [v.sha256 for v in found.all] == [second.sha256]  # nothing of the refused write
        again = prepare_bytes(served, first.body, "first.md")  # read again: kept, it is older
        assert isinstance(again, Write) and again.outcome.status == "kept"
        served.write(again.change)
        (found,) = read_all(served)
    assert [(v.sha256, v.status) for v in found.all] == [
        (first.sha256, "history"),
        (second.sha256, "current"),
    ]
