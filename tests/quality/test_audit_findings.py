"""The ``audit-findings`` named query: the stored findings a page at a time, in a stable order,
filtered by severity and by kind (the shape that found them), over the seeds' store."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest

from benchgraph import answering, graphs, queries
from benchgraph.store import Store
from benchgraph.store.embedded import EmbeddedStore

SH = "http://www.w3.org/ns/shacl#"
SHAPES = "https://w3id.org/benchgraph/shapes#"
Finding = tuple[str, str, str, str | None, str, str | None]  # source, severity, focus, path, ...


@pytest.fixture(scope="module")
def seeds_store_open(seeds_store: Path) -> Iterator[Store]:
    with EmbeddedStore(seeds_store, read_only=True) as store:
        yield store


def stored(store: Store) -> Counter[Finding]:
    """Every finding of the stored reports of the pages (not of kept versions), read from the
    report graphs' triples: (source, severity, focus, path, shape, message)."""
    found: Counter[Finding] = Counter()
    for graph in store.named_graphs():
        if not graph.startswith(graphs.REPORTS) or graphs.is_history(graph):
            continue
        by: dict[object, dict[str, object]] = {}
        for t in store.graph_triples(graph):
            by.setdefault(t.subject, {})[t.predicate.value] = t.object
        subject = next(p[V_SUBJECT] for p in by.values() if V_SUBJECT in p)
        for props in by.values():
            if props.get(RDF_TYPE) != ox.NamedNode(SH + "ValidationResult"):
                continue
            path, message = props.get(SH + "resultPath"), props.get(SH + "resultMessage")
            found[
                (
                    subject.value,  # type: ignore[attr-defined]
                    props[SH + "resultSeverity"].value,  # type: ignore[attr-defined]
                    props[SH + "focusNode"].value,  # type: ignore[attr-defined]
                    None if path is None else path.value,  # type: ignore[attr-defined]
                    props[SH + "sourceShape"].value,  # type: ignore[attr-defined]
                    None if message is None else message.value,  # type: ignore[attr-defined]
                )
            ] += 1
    return found


V_SUBJECT = "http://purl.org/dc/terms/subject"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


def page(store: Store, **values: str) -> list[dict[str, str | None]]:
    named = queries.find("audit-findings")
    answer = answering.answer(store, named, values)
    assert isinstance(answer, ox.QuerySolutions)
    columns = [v.value for v in answer.variables]
    return [{c: None if row[c] is None else row[c].value for c in columns} for row in answer]


def every_page(store: Store, limit: int, **values: str) -> list[list[dict[str, str | None]]]:
    """The pages of the answer, each asked after the last row of the one before, until a page
    holds fewer rows than ``limit``."""
    pages = [page(store, limit=str(limit), **values)]
    while len(pages[-1]) == limit:
        last = pages[-1][-1]["position"]
        assert last is not None
        pages.append(page(store, limit=str(limit), after=last, **values))
    return pages


def as_finding(row: dict[str, str | None]) -> Finding:
    return (
        row["source"] or "",
        row["severity"] or "",
        row["focus"] or "",
        row["path"],
        row["kind"] or "",
        row["message"],
    )


@pytest.mark.parametrize("limit", [7, 100, 10_000])
def test_the_pages_hold_every_stored_finding_once(seeds_store_open: Store, limit: int) -> None:
    pages = every_page(seeds_store_open, limit)
    rows = [row for p in pages for row in p]
    assert Counter(as_finding(row) for row in rows) == stored(seeds_store_open)
    positions = [row["position"] for row in rows]
    assert positions == sorted(positions, key=str) and len(set(positions)) == len(positions)


def test_a_page_ending_at_a_reports_last_finding_is_followed_by_a_full_one(
    seeds_store_open: Store,
) -> None:
    """With a page of one row, every page ends at the last finding it may, a report's last
    among them: each page but the last is full, and every finding comes."""
    kind = SHAPES + "Result-configuration"
    wanted = {f: n for f, n in stored(seeds_store_open).items() if f[4] == kind}
    pages = every_page(seeds_store_open, 1, kind=kind)
    assert len({f[0] for f in wanted}) > 1  # more than one report's findings
    assert [len(p) for p in pages] == [1] * sum(wanted.values()) + [0]
    assert Counter(as_finding(p[0]) for p in pages if p) == wanted


def test_the_findings_of_a_source_page_come_together(seeds_store_open: Store) -> None:
    sources = [row["source"] for row in page(seeds_store_open, limit="10000")]
    runs = [s for i, s in enumerate(sources) if i == 0 or sources[i - 1] != s]
    assert len(runs) == len(set(sources))


@pytest.mark.parametrize(
    ("given", "severity"),
    [
        ("Warning", "Warning"),
        ("warning", "Warning"),
        ("sh:Warning", "Warning"),
        (f"{SH}Warning", "Warning"),
        ("Violation", "Violation"),
    ],
)
def test_severity_filters_by_name_or_iri(
    seeds_store_open: Store, given: str, severity: str
) -> None:
    rows = [r for p in every_page(seeds_store_open, 50, severity=given) for r in p]
    wanted = Counter({f: n for f, n in stored(seeds_store_open).items() if f[1] == SH + severity})
    assert Counter(as_finding(r) for r in rows) == wanted
    assert rows or severity == "Violation"  # the seeds conform: they have warnings only


@pytest.mark.parametrize("given", ["Method-origin", "bgsh:Method-origin", f"{SHAPES}Method-origin"])
def test_kind_is_the_shape_that_found_it(seeds_store_open: Store, given: str) -> None:
    rows = [r for p in every_page(seeds_store_open, 50, kind=given) for r in p]
    found = stored(seeds_store_open)
    wanted = Counter({f: n for f, n in found.items() if f[4] == SHAPES + "Method-origin"})
    assert rows and Counter(as_finding(r) for r in rows) == wanted


def test_severity_and_kind_together(seeds_store_open: Store) -> None:
    assert page(seeds_store_open, severity="Info", kind="Method-origin") == []
    warnings = page(seeds_store_open, severity="Warning", limit="10000")
    both = page(seeds_store_open, severity="Warning", kind="Method-origin", limit="10000")
    assert both and both == [r for r in warnings if r["kind"] == SHAPES + "Method-origin"]


def test_rows_name_the_page_and_the_focus(seeds_store_open: Store) -> None:
    for row in page(seeds_store_open, limit="20"):
        assert row["page"] and row["identifier"]
        assert row["source"] and row["page"] in row["source"]


@pytest.mark.parametrize(
    ("param", "value", "says"),
    [
        ("severity", "Fatal", "a severity is Violation, Warning or Info"),
        ("severity", "urn:x", "a severity is"),
        ("kind", "Method-orign", "did you mean 'Method-origin'"),
        ("kind", "https://example.org/shape", "a kind is a shape of shapes/"),
        ("limit", "0", "a page holds 1 to 10000 rows"),
        ("limit", "10001", "a page holds 1 to 10000 rows"),
        ("limit", "ten", "a page holds 1 to 10000 rows"),
        ("after", "0123", "a position is the position column"),
    ],
)
def test_a_bad_parameter_is_refused_naming_it(
    seeds_store_open: Store, param: str, value: str, says: str
) -> None:
    with pytest.raises(queries.QueryError) as refused:
        page(seeds_store_open, **{param: value})
    assert refused.value.parameter == param and says in str(refused.value)


def test_each_limit_of_a_paged_query_moves_with_the_page_size() -> None:
    named = queries.find("audit-findings")
    assert "LIMIT 101" in named.text and "LIMIT 100" in named.text  # the default: 100
    text = named.text_for(named.bind({"limit": "25"}))
    assert "LIMIT 26" in text and "LIMIT 25" in text and "LIMIT 10" not in text
    assert queries.find("papers").text_for({}) == queries.find("papers").text
