"""``/changes.atom``: the changes across the store as an Atom 1.0 feed, read from a running
server. Each feed is checked against the RELAX NG schema of RFC 4287 (Appendix B, converted by
rnc2rng and read by lxml) and read by feedparser, and its entries against the rows the
``changes`` query answers on the store itself."""

from __future__ import annotations

import re
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import feedparser
import pytest
import rnc2rng
import test_asof
from lxml import etree
from support.live import Live
from test_asof import BENCHMARK, answer
from test_history import ADDED, PEZ, PRISM, STEPS, dated, ingest

from benchgraph import vocab as V
from benchgraph.store import holder

SCHEMA = Path(__file__).parent / "data" / "atom" / "atom.rnc"
ATOM = "{http://www.w3.org/2005/Atom}"
TOKEN = "curator-5b1e0c7d92a4f6e83b0d"
LAION_IRI = V.ID + "benchmark/prompt-recovery/laion"
# The store of test_asof: the LAION page in five monthly versions, and the ART500K page.
five, kept = test_asof.five, test_asof.kept


@cache
def relax_ng() -> etree.RelaxNG:
    """RFC 4287's schema. rnc2rng declares the prefix ``local`` for the empty namespace
    (``xmlns:local=""``), which XML namespaces 1.0 forbids and nothing in the schema uses
    (``local:*`` is written ``<nsName ns=""/>``): the declaration is dropped before parsing."""
    converted = rnc2rng.dumps(rnc2rng.loads(SCHEMA.read_text(encoding="utf-8")))
    assert converted.count(' xmlns:local=""') == 1
    grammar = converted.replace(' xmlns:local=""', "")
    return etree.RelaxNG(etree.fromstring(grammar.encode("utf-8")))


def served_copy(store: Path, folder: Path) -> Live:
    """A server over a copy of ``store`` (a server holds its store for writing; the tests
    read ``store`` itself)."""
    copy = folder / "store"
    shutil.copytree(store, copy, ignore=shutil.ignore_patterns(*holder.NOT_DATA))
    return Live(copy)


@pytest.fixture(scope="module")
def server(kept: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    live = served_copy(kept, tmp_path_factory.mktemp("feed-served"))
    yield live
    assert live.stop() == 0


class Reply:
    def __init__(self, status: int, headers: Any, body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body


def get(url: str, **headers: str) -> Reply:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as reply:
            return Reply(reply.status, reply.headers, reply.read())
    except urllib.error.HTTPError as error:
        return Reply(error.code, error.headers, error.read())


def feed(server: Live, **values: str) -> tuple[Reply, Any, etree._Element]:
    """The feed for ``values``: the reply, feedparser's reading and the document's root, once
    the document is checked valid Atom."""
    reply = get(f"{server.url}changes.atom?{urlencode(values)}")
    assert reply.status == 200, reply.body[:500]
    assert reply.headers.get_content_type() == "application/atom+xml"
    root = etree.fromstring(reply.body)
    schema = relax_ng()
    assert schema.validate(root), schema.error_log
    parsed = feedparser.parse(reply.body)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    return reply, parsed, root


def rows(store: Path, **values: str) -> list[dict[str, str]]:
    return answer(store, "changes", **values)


def test_each_change_is_an_entry_titled_with_its_values(kept: Path, server: Live) -> None:
    between = {
        ("2026-03-31", "2026-04-30"): ("changed", PRISM, "PRISM", ": 81.7 → 81.9 (CLIP Score)"),
        ("2026-04-30", "2026-05-31"): ("added", ADDED, "NEWM", ": added, 70.1 (CLIP Score)"),
        ("2026-05-31", "2026-06-30"): ("removed", STEPS, "STEPS", ": removed, was 72.2"),
        ("2026-06-30", "2026-07-31"): ("changed", PEZ, "PEZ", ": 75.6 (CLIP Score), its unit"),
    }
    for (since, until), (change, result, method, said) in between.items():
        (row,) = rows(kept, since=since, until=until)
        _, parsed, _ = feed(server, since=since, until=until, clock="data")
        (entry,) = parsed.entries
        assert entry.title.startswith(f"{method} on {BENCHMARK}{said}"), entry.title
        assert [t.term for t in entry.tags] == [change]
        assert entry.link == f"{server.url}page/result/{result}"
        # updated is when it changed: the new version's data-updated time (the old one's, for
        # a result a later version left out, was a bug of the query: test_asof has it).
        assert entry.updated.startswith(row["changedAt"][:19]), (entry.updated, row)
        content = entry.content[0].value
        for version, modified in (("oldVersion", "oldModified"), ("newVersion", "newModified")):
            assert f"version {row[version]}, data updated {row[modified]}" in content, content


def test_entry_ids_are_stable_and_unique(server: Live) -> None:
    _, first, _ = feed(server, since="2026-01-31", clock="data")
    _, again, _ = feed(server, since="2026-01-31", until="2099-01-01", clock="data")
    ids = [e.id for e in first.entries]
    assert len(set(ids)) == len(ids) > 6
    assert ids == [e.id for e in again.entries]  # the same versions compared, the same ids
    _, later, _ = feed(server, since="2026-03-31", until="2026-04-30", clock="data")
    assert later.entries[0].id not in ids  # PRISM's change against another version


def test_entries_are_newest_first_and_the_feed_is_as_new_as_its_newest(server: Live) -> None:
    for clock in ("data", "store"):
        _, parsed, root = feed(server, since="2026-01-31", clock=clock)
        times = [e.updated_parsed for e in parsed.entries]
        assert times == sorted(times, reverse=True)
        assert root.findtext(f"{ATOM}updated") == parsed.entries[0].updated
        assert parsed.feed.author == "benchgraph"
        base = parsed.feed.link.rsplit("/", 1)[0]
        assert parsed.feed.id == f"{base}/changes.atom?clock={clock}&since=2026-01-31"


def test_the_benchmark_filter_keeps_its_results_and_names_it(kept: Path, server: Live) -> None:
    _, everything, _ = feed(server, since="2026-01-31", clock="data")
    _, laion, root = feed(server, since="2026-01-31", benchmark="LAION", clock="data")
    expected = rows(kept, since="2026-01-31", benchmark=BENCHMARK)
    assert [e.link.rsplit("/", 1)[1] for e in laion.entries] == [
        r["result"].rsplit("/", 1)[1] for r in expected
    ]
    assert len(laion.entries) == 6 < len(everything.entries)
    assert all(f" on {BENCHMARK}: " in e.title for e in laion.entries)
    assert laion.feed.title == f"benchgraph: changes on {BENCHMARK}"
    links = {link.get("rel"): link.get("href") for link in root.findall(f"{ATOM}link")}
    assert links["alternate"] == f"{server.url}page/benchmark/prompt-recovery/laion"
    self = f"{server.url}changes.atom?since=2026-01-31&benchmark=LAION&clock=data"
    assert links["self"] == self
    # Named by its label or by its IRI, it is the same feed.
    _, by_iri, _ = feed(server, since="2026-01-31", benchmark=LAION_IRI, clock="data")
    canonical = urlencode({"benchmark": LAION_IRI, "clock": "data", "since": "2026-01-31"})
    assert by_iri.feed.id == laion.feed.id == f"{server.url}changes.atom?{canonical}"


def test_without_since_the_feed_starts_90_days_before_the_latest_change(
    kept: Path, server: Live
) -> None:
    # The latest version of the LAION page was updated on 2026-07-06.
    _, parsed, _ = feed(server, clock="data")
    expected = rows(kept, since="2026-04-07")
    assert [e.link.rsplit("/", 1)[1] for e in parsed.entries] == [
        r["result"].rsplit("/", 1)[1] for r in expected
    ]
    assert {t.term for e in parsed.entries for t in e.tags} == {"added", "removed", "changed"}
    assert "since 2026-04-07 (by their pages' dates), newest first." in parsed.feed.subtitle
    # the default since is not its own
    assert parsed.feed.id == f"{server.url}changes.atom?clock=data"
    _, until, _ = feed(server, until="2026-05-31", clock="data")  # before until, when given
    assert "since 2026-03-02 until 2026-05-31" in until.feed.subtitle


def test_by_default_the_feed_is_what_the_store_learned_dated_when_it_was_loaded(
    kept: Path, server: Live
) -> None:
    _, parsed, _ = feed(server)
    assert "(loaded into the store), newest first." in parsed.feed.subtitle
    since = parsed.feed.subtitle.split(" since ", 1)[1].split(" ")[0]
    expected = rows(kept, since=since, clock="store")
    assert [e.link.rsplit("/", 1)[1] for e in parsed.entries] == [
        r["result"].rsplit("/", 1)[1] for r in expected
    ]
    assert expected and all(r["loadedAt"] for r in expected)
    for entry, row in zip(parsed.entries, expected, strict=True):
        assert entry.updated.startswith(row["loadedAt"][:19]), (entry.updated, row)
        assert f"Loaded into the store at {row['loadedAt']}" in entry.content[0].value
    # By the store's clock, a moment before any load sees nothing, so each result is added.
    assert {t.term for e in parsed.entries for t in e.tags} == {"added"}


def test_a_page_loaded_into_the_running_server_is_in_the_feed_at_once(
    kept: Path, five: list[Path], tmp_path: Path
) -> None:
    live = served_copy(kept, tmp_path)
    try:
        _, before, _ = feed(live)
        looked = before.feed.updated  # the last load the feed knew of
        page = tmp_path / "v6.md"
        text = dated(value_changed_again(five[-1].read_text(encoding="utf-8")), 8)
        page.write_text(text, encoding="utf-8")
        ingest(live.store, page)  # through the server, which holds the store
        _, after, _ = feed(live)
        _, since, _ = feed(live, since=looked)
    finally:
        assert live.stop() == 0
    (entry,) = [e for e in after.entries if e.link.endswith(PRISM)]
    assert entry.title == f"PRISM on {BENCHMARK}: added, 82.4 (CLIP Score)", entry.title
    assert after.feed.updated == entry.updated and entry.updated_parsed > before.feed.updated_parsed
    # What the store learned since the last load the feed knew of: that one change.
    (change,) = since.entries
    assert change.title.startswith(f"PRISM on {BENCHMARK}: 81.9 → 82.4"), change.title
    assert change.updated == entry.updated


def test_a_page_posted_to_the_write_api_is_in_the_feed_once_acknowledged(
    kept: Path, five: list[Path], tmp_path: Path
) -> None:
    copy = tmp_path / "store"
    shutil.copytree(kept, copy, ignore=shutil.ignore_patterns(*holder.NOT_DATA))
    token = tmp_path / "write.token"
    token.write_text(TOKEN + "\n")
    token.chmod(0o600)
    live = Live(copy, "--write-token-file", str(token))
    text = dated(value_changed_again(five[-1].read_text(encoding="utf-8")), 8)
    posted = urllib.request.Request(
        f"{live.url}pages?name=v6.md",
        text.encode("utf-8"),
        {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"},
        method="POST",
    )
    try:
        _, before, _ = feed(live)
        looked = before.feed.updated  # the last load the feed knew of
        with urllib.request.urlopen(posted, timeout=120) as reply:
            assert reply.status == 201, reply.read()[:500]
        acknowledged = time.monotonic()
        # Awaited, not timed: polled until the entry is there, within a generous deadline.
        while True:
            _, parsed, _ = feed(live, since=looked)
            found = [e for e in parsed.entries if e.title.startswith(f"PRISM on {BENCHMARK}: 81.9")]
            if found or time.monotonic() - acknowledged > 120:
                break
            time.sleep(0.01)
        seen = time.monotonic() - acknowledged
    finally:
        assert live.stop() == 0
    (entry,) = found
    assert entry.title == f"PRISM on {BENCHMARK}: 81.9 → 82.4 (CLIP Score)", entry.title
    assert parsed.feed.updated == entry.updated  # the latest ingest is the feed's time
    updated = re.search(r"Data updated: (\S+)", text)
    assert updated, "the page states when its data was updated"
    after = "After: 82.4 in version "
    (said,) = [line for line in entry.content[0].value.splitlines() if line.startswith(after)]
    assert said.endswith(f", data updated {updated[1]}."), said  # the source's own time
    print(f"\nin the feed {seen * 1000:.0f} ms after the write API acknowledged the page")


def value_changed_again(text: str) -> str:
    text = text.replace("| PRISM | 81.9 |", "| PRISM | 82.4 |")
    return text.replace(
        f"CLIP Score: 81.9. Result ID: {PRISM}", f"CLIP Score: 82.4. Result ID: {PRISM}"
    )


def test_unknown_benchmark_and_bad_moments_answer_in_the_error_shape(server: Live) -> None:
    import json

    for values, status, parameter in (
        ({"benchmark": "LAOIN"}, 404, "benchmark"),
        ({"since": "June"}, 400, "since"),
        ({"until": "2026-13-45"}, 400, "until"),
        ({"sinse": "2026-01-01"}, 400, "sinse"),
        ({"clock": "wall"}, 400, "clock"),
    ):
        reply = get(f"{server.url}changes.atom?{urlencode(values)}")
        assert reply.status == status, reply.body
        document = json.loads(reply.body)
        assert document["ok"] is False and document["status"] == status, document
        assert document["parameter"] == parameter and document["error"]
        if status == 404:
            assert document["suggestions"] == ["LAION"] and "did you mean" in document["error"]


def test_revalidation_is_answered_304_until_the_store_changes(server: Live) -> None:
    url = f"{server.url}changes.atom?since=2026-01-31"
    first = get(url)
    etag, modified = first.headers["ETag"], first.headers["Last-Modified"]
    assert etag and modified and first.headers["Cache-Control"] == "no-cache"
    again = get(url, **{"If-None-Match": etag})
    assert again.status == 304 and again.body == b""
    assert get(url, **{"If-Modified-Since": modified}).status == 304
    other = get(f"{server.url}changes.atom?since=2026-03-31")
    assert other.status == 200 and other.headers["ETag"] != etag


def test_at_most_200_entries_and_the_subtitle_says_so(tmp_path: Path) -> None:
    from bench.generate import generate

    manifest = generate(tmp_path / "corpus", 12, seed=0)
    assert manifest.results > 200
    store = tmp_path / "generated"
    ingest(store, tmp_path / "corpus" / manifest.pages_dir)
    live = served_copy(store, tmp_path)
    try:
        _, parsed, _ = feed(live, since="1990-01-01")
        assert len(parsed.entries) == 200
        assert "Only the latest 200 changes are listed" in parsed.feed.subtitle
        benchmark = parsed.entries[-1].title.split(" on ", 1)[1].split(": ")[0]
        _, fewer, _ = feed(live, since="1990-01-01", benchmark=benchmark)
        assert len(fewer.entries) < 200 and "Only the latest" not in fewer.feed.subtitle
    finally:
        assert live.stop() == 0
