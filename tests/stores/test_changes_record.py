"""The changes record, on every store (an embedded one on disk, a real Oxigraph server, Virtuoso):
``changes`` read from the versions that moved in the window and the deltas kept at ingest answers
exactly what it answers from every version in the catalogue and both graphs of each pair, through
a new version, a version arriving late, a withdrawal, a page loaded again, a restore and its
withdrawal, by either clock, with and without ``until`` and ``benchmark``; ``repair --check`` and
``validate`` notice a delta missing or wrong, and ``repair`` rebuilds it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from support import EXAMPLES, REPO, run_cli
from test_history import (
    configuration_changed,
    dated,
    result_added,
    result_removed,
    value_changed,
    write,
)

from benchgraph import answering, asof, changelog, graphs, queries, versions
from benchgraph.sparqltext import substitute
from benchgraph.store import Change, Store
from benchgraph.store.embedded import EmbeddedStore
from benchgraph.store.remote import RemoteStore

LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
ART500K = EXAMPLES / "sota2-multimodal-generation-on-art500k-test.md"
ART500K_KEY = "sota2/multimodal-generation-on-art500k-test/clip-i2-score"
KEY = "sota2/prompt-recovery-on-laion/clip-score"
BENCHMARK = "Prompt Recovery on LAION"
# Dates before, between and after the versions' data-updated times (March to July 2026).
DAYS = ("2026-02-27", "2026-03-31", "2026-04-15", "2026-05-31", "2026-06-30", "2026-08-01")
# The changes query as it was before its look-ups of each side's version were moved (slower).
BEFORE = REPO / "bench" / "queries" / "changes-before.rq"


@pytest.fixture
def five(tmp_path: Path) -> list[Path]:
    """The example page and four later versions, a month apart, each changed from the one
    before (a value, a result added, a result removed, a configuration)."""
    texts = [LAION.read_text(encoding="utf-8")]
    for change in (value_changed, result_added, result_removed, configuration_changed):
        texts.append(change(texts[-1]))
    return [LAION] + [
        write(tmp_path, f"v{n}.md", dated(text, month))
        for n, (text, month) in enumerate(zip(texts[1:], (4, 5, 6, 7), strict=True), start=2)
    ]


def opened(kind: str, location: str) -> Store:
    return EmbeddedStore(location) if kind == "embedded" else RemoteStore.from_settings(location)


def cli(*args: str, location: str, code: int = 0) -> str:
    done = run_cli(*args, "--store", location)
    assert done.returncode == code, done.stdout + done.stderr
    return done.stdout + done.stderr


def rows(store: Store, values: dict[str, str], recorded: bool) -> list[tuple[str, ...]]:
    question = answering.ask(queries.find("changes"), values, answering.StoreFinder(store))
    assert question.past is not None
    found = asof.run(store, question.past, question.text, question.bindings, recorded=recorded)
    return [tuple(str(getattr(t, "value", "")) for t in row) for row in found]  # type: ignore[union-attr]


def moments(store: Store) -> Iterator[tuple[str, list[str]]]:
    """Each clock, with moments before, at and after every time that moves a version by it."""
    yield "data", list(DAYS)
    times = set()
    for version in versions.read(store, KEY).all:
        for text in (version.ingested, version.withdrawn, version.restored):
            if (when := versions.instant(text)) is not None:
                times |= {when - timedelta(microseconds=1), when}
    written = [t.isoformat().replace("+00:00", "Z") for t in sorted(times)]
    yield "store", written


def windows(store: Store) -> Iterator[dict[str, str]]:
    """The values of ``changes`` for every window between the moments of each clock, with and
    without until (and benchmark)."""
    for clock, found in moments(store):
        for i, since in enumerate(found):
            for until in ["", *found[i:]]:
                for scope in ({}, {"benchmark": BENCHMARK}) if not until else ({},):
                    values = {"since": since, "clock": clock, **scope}
                    yield values | ({"until": until} if until else {})


def assert_answers_as_every_version_does(store: Store) -> int:
    """Compare ``changes`` read from the record with ``changes`` read from every version, for
    every window between the moments of each clock, with and without until (and benchmark);
    return how many rows they gave in all (so that a test can tell they compared something)."""
    compared = 0
    for values in windows(store):
        fast, whole = rows(store, values, True), rows(store, values, False)
        assert fast == whole, values
        compared += len(fast)
    return compared


def assert_answers_as_the_query_before(store: Store) -> int:
    """Compare the rows of ``changes`` with those of the query as it was before
    (:data:`BEFORE`), on the same datasets (read from the record and from every version), for
    every window; return how many rows they gave in all."""
    before = BEFORE.read_text(encoding="utf-8")
    compared = 0
    for values in windows(store):
        question = answering.ask(queries.find("changes"), values, answering.StoreFinder(store))
        assert question.past is not None
        for recorded in (True, False):
            dataset = asof.prepare(store, question.past, recorded)
            now, then = (
                [tuple(map(str, row)) for row in dataset.query(substitute(text, question.bindings))]  # type: ignore[union-attr]
                for text in (question.text, before)
            )
            assert now == then, values
            compared += len(now)
    return compared


def assert_record_exact(store: Store) -> None:
    found = changelog.check(store)
    assert found.exact, found.text()


def test_the_record_answers_as_every_version_does_through_every_kind_of_write(
    kind: str, location: str, five: list[Path]
) -> None:
    v1, v2, v3, v4, _ = five
    cli("ingest", str(v1), location=location)
    cli("ingest", str(v2), location=location)
    cli("ingest", str(v4), location=location)
    assert "kept as history" in cli("ingest", str(v3), location=location)  # late: v2 < v3 < v4
    with opened(kind, location) as store:
        assert_record_exact(store)
        assert assert_answers_as_every_version_does(store) > 0
    cli("remove", str(v4), location=location)  # withdrawn
    with opened(kind, location) as store:
        assert_record_exact(store)
        assert assert_answers_as_every_version_does(store) > 0
    cli("ingest", str(v4), location=location)  # loaded again
    assert "current again" in cli("ingest", str(v2), location=location)  # restored
    with opened(kind, location) as store:
        assert_record_exact(store)
        assert assert_answers_as_every_version_does(store) > 0
    cli("remove", str(v2), location=location)  # the version restored, withdrawn
    with opened(kind, location) as store:
        assert_record_exact(store)
        assert assert_answers_as_every_version_does(store) > 0
        # Rows added, removed and changed, by either clock: as the query as it was gives them.
        kinds = {row[0] for values in windows(store) for row in rows(store, values, True)}
        assert kinds == {"added", "removed", "changed"}
        assert assert_answers_as_the_query_before(store) > 0


def test_a_window_where_the_page_changed_once_is_read_from_its_delta(
    kind: str, location: str, five: list[Path]
) -> None:
    cli("ingest", str(five[0]), location=location)
    cli("ingest", str(five[1]), location=location)
    with opened(kind, location) as store:
        question = answering.ask(
            queries.find("changes"), {"since": "2026-03-31"}, answering.StoreFinder(store)
        )
        assert question.past is not None
        fast = asof.prepare(store, question.past)
        whole = asof.prepare(store, question.past, recorded=False)
        page = len(list(store.graph_triples(graphs.page(KEY))))
        # The changed result's statements and two catalogue entries, against both graphs.
        assert 0 < len(fast) < page < len(whole)
        (row,) = rows(store, {"since": "2026-03-31"}, True)
        assert row[:1] == ("changed",) and row == rows(store, {"since": "2026-03-31"}, False)[0]


def test_repair_rebuilds_a_missing_or_wrong_delta_and_check_notices_it(
    kind: str, location: str, five: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    for path in five[:3]:
        cli("ingest", str(path), location=location)
    with opened(kind, location) as store:
        deltas = changelog.read_deltas(store)
        assert len(deltas) == 2
        lost, wrong = (found[0] for _, found in sorted(deltas.items()))
        store.write(Change({}, deleted={graphs.VERSIONS: lost.triples()}))
        # Still answered right, the pair without a delta from its graphs.
        assert assert_answers_as_every_version_does(store) > 0
        damaged = changelog.Delta(wrong.iri, wrong.first, wrong.second, "", wrong.second_text)
        catalogue = graphs.VERSIONS
        store.write(
            Change({}, added={catalogue: damaged.triples()}, deleted={catalogue: wrong.triples()})
        )
        found = changelog.check(store)
        assert (len(found.missing), found.wrong) == (1, (wrong.iri,)), found.text()
        with monkeypatch.context() as patched:
            patched.setattr(changelog, "GROUP", 1)  # the deltas read one at a time
            assert changelog.check(store) == found
    said = cli("repair", "--check", location=location, code=1)
    assert "changes record differs" in said and "1 pairs of versions" in said
    if kind == "embedded":  # validate re-checks every page: once is enough
        assert "changes record differs" in cli("validate", location=location, code=1)
    assert "repaired the changes record" in cli("repair", location=location)
    with opened(kind, location) as store:
        assert_record_exact(store)
        assert changelog.read_deltas(store) == deltas
    cli("repair", "--check", location=location)


def test_a_store_whose_catalogue_lacks_a_page_reads_every_version(
    kind: str, location: str, five: list[Path]
) -> None:
    """A page the catalogue does not record (a store written before it, or loaded from an
    export without its history) is read from its page graph, with every other page."""
    for path in (*five[:2], ART500K):
        cli("ingest", str(path), location=location)
    with opened(kind, location) as store:
        since = asof.moment("2026-01-31")
        assert changelog.moved(store, since, None) is not None
        (other,) = versions.read(store, ART500K_KEY).all
        store.write(Change({}, deleted={graphs.VERSIONS: other.triples() + other.link()}))
        assert changelog.moved(store, since, None) is None
        found = rows(store, {"since": "2026-01-31"}, True)
        assert found == rows(store, {"since": "2026-01-31"}, False)
        assert any(ART500K_KEY in row[9] + row[11] for row in found)
