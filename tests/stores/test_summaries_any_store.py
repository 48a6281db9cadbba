"""The audit summaries kept with each version (benchgraph.summaries) keep the self-reported
audit right through every write (and the audit of methods without an origin, which reads the
merged view, follows them too): a new version, a late older version, a withdrawal, a restore,
and pages elsewhere that add or take away a method's origin paper; `benchgraph repair` rebuilds
them, and `repair --check` and `validate` notice one missing or wrong. On the embedded store and
on each remote server.

Each figure the audit gives is compared with what the pages the store holds current say, worked
out here from the pages' own text (:class:`Page`), not from the summaries."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import run_cli

from benchgraph import answering, graphs, kept, queries, summaries
from benchgraph.store import Change, Store, open_store
from ingest.loader import ingest_file
from ingest.removal import page_named, remove_pages

PAPER = "https://www.sota2.com/research/paper/{}.md"


@dataclass(frozen=True)
class Row:
    """One result of a page: its method, reporting paper and (when the page names it) the
    method's origin paper, each paper a 24-hex ID."""

    method: str
    paper: str
    origin: str = ""


@dataclass(frozen=True)
class Page:
    """A sota2 page of one benchmark, its results ``rows``."""

    slug: str
    updated: str
    rows: tuple[Row, ...]
    ids: int  # where its result IDs start (unique across the test's pages)

    def text(self) -> str:
        title = f"Image Captioning on {self.slug} (val)"
        url = f"https://www.sota2.com/research/sota/image-captioning-on-{self.slug.lower()}-val"
        n = len(self.rows)
        lines = [
            f"# {title}",
            "",
            f"Source: [{title}](<{url}>)",
            "",
            f"Data updated: {self.updated}",
            "",
            "| Scope | Recorded value |",
            "| --- | --- |",
            "| Task | Image Captioning |",
            f"| Dataset (including any stated split) | {self.slug} (val) |",
            "| Metric | CIDEr |",
            "| Unit | SCALAR |",
            "| Direction | Higher is better |",
            f"| Results loaded | {n} of {n} |",
            "| Coverage | All results currently returned for this benchmark |",
            "",
            "## Metrics",
            "",
            f"- [CIDEr](<{url}.md?metric=CIDEr>): Higher is better; unit: SCALAR.",
            "",
            "## Recorded results",
            "",
            "| Method | CIDEr | Result date | Report paper |",
            "| --- | --- | --- | --- |",
        ]
        for i, row in enumerate(self.rows):
            lines.append(f"| {row.method} | {90 - i}.0 | Not recorded | {row.paper} |")
        lines.append("")
        for i, row in enumerate(self.rows):
            lines += [
                f"### {row.method}",
                "",
                f"CIDEr: {90 - i}.0. Result ID: {self.ids + i:024x}.",
                "",
                f"[Reporting paper](<{PAPER.format(row.paper)}>)",
                "",
            ]
            if row.origin:
                lines += [f"[Method origin paper](<{PAPER.format(row.origin)}>)", ""]
            lines += [
                "Recorded evaluation configuration: Not recorded. This record does not assert "
                "independent reproduction.",
                "",
            ]
        lines.append("Page 1 of 1. This is an index page, not the full collection.")
        return "\n".join(lines) + "\n"

    @property
    def key(self) -> str:
        return f"sota2/image-captioning-on-{self.slug.lower()}-val/cider"


P1, P2, P3, P9 = (f"6b{n:022x}" for n in (1, 2, 3, 9))
# Page A: M1 with no origin on it; M2 introduced by P2, reported by P2 (self) and by P3.
A = Page(
    "Alpha",
    "2026-05-01T00:00:00Z",
    (Row("Mone", P1), Row("Mtwo", P2, P2), Row("Mtwo", P3, P2)),
    0xA00,
)
A_NEWER = Page("Alpha", "2026-06-01T00:00:00Z", (*A.rows, Row("Mone", P9)), 0xA00)
A_OLDER = Page("Alpha", "2026-04-01T00:00:00Z", A.rows[:1], 0xA00)
# Page B names M1's origin, P1: A's result of M1 by P1 becomes self-reported.
B = Page("Beta", "2026-05-01T00:00:00Z", (Row("Mone", P9, P1),), 0xB00)
# Page C names a second origin of M2, P3: A's result of M2 by P3 becomes self-reported.
C = Page("Gamma", "2026-05-01T00:00:00Z", (Row("Mtwo", P3, P3),), 0xC00)
# Page D names M2 "MTWO" (the same method: a name is matched whatever its case), reported by its
# origin P2, and a method no page names an origin for.
D = Page("Delta", "2026-05-01T00:00:00Z", (Row("MTWO", P2, P2), Row("Mthree", P3)), 0xD00)


def expected(current: list[Page]) -> dict[str, tuple[int, int, int, int, str | None]]:
    """Per page key: results, self-reported, by another paper, origin unknown and the
    self-reported methods' names, as the pages ``current`` say across the store."""
    every = [row for page in current for row in page.rows]
    origins = {(row.method.lower(), row.origin) for row in every if row.origin}
    known = {method for method, _ in origins}
    called: dict[str, set[str]] = {}  # each method's names across the pages
    for row in every:
        called.setdefault(row.method.lower(), set()).add(row.method)
    found = {}
    for page in current:
        rows = page.rows
        self_rows = [r for r in rows if (r.method.lower(), r.paper) in origins]
        unknown = sum(1 for r in rows if r.method.lower() not in known)
        names = "; ".join(sorted({n for r in self_rows for n in called[r.method.lower()]})) or None
        another = len(rows) - len(self_rows) - unknown
        found[page.key] = (len(rows), len(self_rows), another, unknown, names)
    return found


def audited(store: Store) -> dict[str, tuple[int, int, int, int, str | None]]:
    """Per page key, the figures of the self-reported audit."""
    rows = answering.answer(store, queries.find("audit-self-reported"), {})
    assert isinstance(rows, ox.QuerySolutions)
    found = {}
    for row in rows:
        names = row["selfReportedMethods"]
        found[str(getattr(row["page"], "value", ""))] = (
            *(int(getattr(row[v], "value", "0")) for v in _FIGURES),
            names.value if isinstance(names, ox.Literal) else None,
        )
    return found  # type: ignore[return-value]


_FIGURES = ("results", "selfReported", "reportedByAnotherPaper", "originUnknown")


def expected_without_origin(current: list[Page]) -> dict[tuple[str, str], int]:
    """Per page key and method no page of ``current`` names an origin for: its results on the
    page, as the pages say."""
    known = {row.method for page in current for row in page.rows if row.origin}
    found: dict[tuple[str, str], int] = {}
    for page in current:
        for row in page.rows:
            if row.method not in known:
                found[page.key, row.method] = found.get((page.key, row.method), 0) + 1
    return found


def audited_without_origin(store: Store) -> dict[tuple[str, str], int]:
    """Per page key and method label, the results ``audit-methods-without-origin`` gives."""
    rows = answering.answer(store, queries.find("audit-methods-without-origin"), {})
    assert isinstance(rows, ox.QuerySolutions)
    found = {}
    for row in rows:
        key = (str(getattr(row["page"], "value", "")), str(getattr(row["label"], "value", "")))
        assert key not in found, key  # one row per page and method
        found[key] = int(getattr(row["results"], "value", "0"))
    return found


class Pages:
    """The test's pages written to files and ingested into ``store``."""

    def __init__(self, store: Store, folder: Path) -> None:
        self.store = store
        self.folder = folder
        self.written = 0

    def ingest(self, page: Page, status: str = "loaded") -> None:
        self.written += 1
        path = self.folder / f"{self.written:03d}-{page.slug}.md"
        path.write_text(page.text(), encoding="utf-8")
        outcome = ingest_file(self.store, path)
        assert outcome.status == status, outcome.message

    def remove(self, page: Page) -> None:
        assert [r.status for r in remove_pages(self.store, [page_named(page.key)])] == ["removed"]


def test_the_audit_follows_every_write(any_store: Store, tmp_path: Path) -> None:
    pages = Pages(any_store, tmp_path)
    steps: list[tuple[str, list[Page]]] = []

    def check(what: str, current: list[Page]) -> None:
        steps.append((what, current))
        assert audited(any_store) == expected(current), what
        assert audited_without_origin(any_store) == expected_without_origin(current), what
        assert summaries.check(any_store).exact, what

    pages.ingest(A)
    check("a page alone", [A])
    pages.ingest(B)
    check("another page names an origin", [A, B])
    pages.ingest(C)
    check("another page names a second origin", [A, B, C])
    pages.ingest(A_NEWER)
    check("a new version", [A_NEWER, B, C])
    pages.ingest(A_OLDER, "kept")
    check("a late older version", [A_NEWER, B, C])
    pages.remove(B)
    check("the page naming an origin withdrawn", [A_NEWER, C])
    pages.ingest(A, "restored")
    check("an earlier version restored", [A, C])
    pages.ingest(B)
    check("the withdrawn page again", [A, B, C])
    pages.remove(C)
    pages.remove(A)
    check("withdrawals", [B])


def test_a_method_named_two_ways_is_listed_by_each_name(any_store: Store, tmp_path: Path) -> None:
    """A self-reported method that two pages name differently is listed by both names, as the
    merged view holds them, on each page that reports it by its origin; once one page is
    withdrawn, by the other's name alone."""
    pages = Pages(any_store, tmp_path)
    for page in (A, B, D):
        pages.ingest(page)
    assert audited(any_store) == expected([A, B, D])
    pages.remove(D)
    assert audited(any_store) == expected([A, B])


def test_repair_rebuilds_missing_and_wrong_summaries(any_store: Store, tmp_path: Path) -> None:
    pages = Pages(any_store, tmp_path)
    for page in (A, B, C):
        pages.ingest(page)
    right = audited(any_store)
    stored = _summary_triples(any_store)
    wrong = [t for t in stored if t.predicate.value == summaries.PREDICATES[1]][:1]
    any_store.write(Change({}, deleted={graphs.VERSIONS: stored[:5] + wrong}))
    found = summaries.check(any_store)
    assert not found.exact and "rebuilds them" in found.text()
    summaries.repair(any_store, found)
    assert summaries.check(any_store).exact
    assert audited(any_store) == right


def test_the_check_reads_a_group_of_pages_at_a_time_with_the_same_verdict(
    any_store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = Pages(any_store, tmp_path)
    for page in (A, B, C):
        pages.ingest(page)
    right = audited(any_store)
    page_of = {v: graphs.key_of(g) for v, g in summaries.current(any_store).items()}
    first, second = sorted(page_of)[:2]
    stored = _summary_triples(any_store)
    gone = [t for t in stored if t.subject.value == first]  # its whole summary
    wrong = [
        t
        for t in stored
        if t.subject.value == second and t.predicate.value == summaries.PREDICATES[1]
    ]
    assert gone and wrong
    any_store.write(Change({}, deleted={graphs.VERSIONS: gone + wrong}))
    whole = summaries.check(any_store)  # the three pages in one group
    assert [(p.key, bool(p.stored)) for p in whole.wrong] == sorted(
        [(page_of[first], False), (page_of[second], True)]
    )
    for size in (1, 2):
        with monkeypatch.context() as patched:
            patched.setattr(summaries, "GROUP", size)
            assert summaries.check(any_store) == whole, size
    summaries.repair(any_store, whole)
    assert summaries.check(any_store).exact
    assert audited(any_store) == right


def _summary_triples(store: Store) -> list[ox.Triple]:
    """The summary statements of the store's current versions."""
    found = summaries.check(store)
    assert found.exact
    held = summaries.stored(store, sorted(summaries.current(store)))
    return sorted((t for triples in held.values() for t in triples), key=str)


def test_repair_and_validate_notice_a_store_without_summaries(
    location: str, tmp_path: Path
) -> None:
    with open_store(location) as store:
        pages = Pages(store, tmp_path)
        for page in (A, B):
            pages.ingest(page)
        right = audited(store)
        store.write(Change({}, deleted={graphs.VERSIONS: _summary_triples(store)}))
        with pytest.raises(
            kept.MissingRecords, match="audit summary"
        ):  # never counted as no results
            audited(store)
    checked = run_cli("repair", "--check", "--store", location)
    assert checked.returncode == 1 and "audit summaries of 2 current versions" in checked.stdout
    validated = run_cli("validate", "--no-save", "--store", location)
    assert validated.returncode == 1 and "audit summaries" in validated.stderr
    repaired = run_cli("repair", "--store", location)
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "rebuilt the audit summaries of 2 current versions" in repaired.stdout
    with open_store(location) as store:
        assert audited(store) == right
    assert run_cli("repair", "--check", "--store", location).returncode == 0
