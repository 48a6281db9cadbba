"""Where sources disagree, on the site: a benchmark's board says how many sources each claim has
and how many agree, and its page, a method's, a result's and a claim's show every source's
figure side by side. Over tests/data/claims: BERT-Base's SQuAD1.1 exact match from its own paper
(80.8), from the DistilBERT paper's table (81.2) and from a model card (0.809, read as 80.9),
and two papers' Baselines that stay apart. Every figure is held to the store itself."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from flask.testing import FlaskClient
from support import Index, build_store, copy_store, site_client
from support.html import Element, parse, table_rows

from benchgraph import answering, queries
from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore
from server.app import create_app
from server.errors import ApiError

DATA = Path(__file__).parents[1] / "data" / "claims"
HTML = {"Accept": "text/html"}
SQUAD = V.ID + "benchmark/question-answering/squad1-1"
BERT = V.ID + "method/bert-base"
BOARD = "/page/benchmark/question-answering/squad1-1"
ORIGIN = V.ID + "result/5be000000000000000000a01"  # BERT-Base, 80.8, its own paper's
BASELINE = V.ID + "result/5be000000000000000000a02"  # a Baseline: one source


@pytest.fixture(scope="module")
def claims_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("claims") / "store", DATA)


@pytest.fixture(scope="module")
def claims_site(
    claims_store: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FlaskClient]:
    yield from site_client(claims_store, tmp_path_factory)


def ask(store: Path, name: str, **values: str) -> list[dict[str, str]]:
    """The rows of a named query on the store itself (not through the site), as text."""
    with EmbeddedStore(store) as opened:
        answer = answering.answer(opened, queries.find(name), values)
        names = [v.value for v in answer.variables]
        return [{n: row[n].value for n in names if row[n] is not None} for row in answer]


def drawn(client: FlaskClient, url: str) -> Element:
    reply = client.get(url, headers=HTML)
    assert reply.status_code == 200, reply.get_data(as_text=True)[-500:]
    return parse(reply.get_data(as_text=True))


def page_of(iri: str) -> str:
    return "/page/" + iri.removeprefix(V.ID)


def bert_claim(store: Path) -> tuple[str, list[dict[str, str]]]:
    """BERT-Base's claim on SQuAD1.1 and its values, headline first, as ``claims`` gives them."""
    rows = [r for r in ask(store, "claims", benchmark=SQUAD) if r["methodLabel"] == "BERT-Base"]
    rows.sort(key=lambda r: r["headline"] != "true")
    (claim,) = {r["claim"] for r in rows}
    return claim, rows


def check_values(table: Element, rows: list[dict[str, str]], index: Index) -> None:
    """The table shows each value as published (as the store holds it), the value compared
    (said to be read as percent when it was), role, date, source page and paper linked, and
    whether it agrees with the headline, which is marked."""
    shown = table_rows(table)
    assert len(shown) == len(rows)
    for cells, row in zip(shown, rows, strict=True):
        published = index.value(row["result"], V.publishedValue)
        assert cells["Value (as published)"].text == row["value"] == str(published)
        compared = cells["Compared as"].text
        if row["scale"]:
            assert compared == f"{row['scaled']} (read as percent)", compared
        else:
            assert compared == row["scaled"] == row["value"]
        assert cells["Role"].text == row["role"]
        assert cells["Date"].text == row.get("date", "not recorded")
        assert cells["Source page"].links()[0][0] == page_of(row["source"])
        assert cells["Reported in"].links()[0][0] == page_of(row["paper"])
        agreement = cells["Against the headline"].text
        if row["headline"] == "true":
            assert agreement == "headline" and cells["Against the headline"].find("strong")
        else:
            verdict = "agrees" if row["agrees"] == "true" else "disagrees"
            assert agreement == f"{verdict} ({row['difference']})"


def stored(store: Path) -> Index:
    return Index(set(ox.Store.read_only(str(store))))


def test_the_board_says_how_many_sources_each_claim_has_and_how_many_agree(
    claims_store: Path, claims_site: FlaskClient
) -> None:
    claim, _ = bert_claim(claims_store)
    root = drawn(claims_site, BOARD)
    boards = [t for t in root.iter("table") if [th.text for th in t.iter("th")][:1] == ["Rank"]]
    cells = {row["Method"].text: row["Sources"] for table in boards for row in table_rows(table)}
    assert cells["BERT-Base"].text == "3 sources · 1 agrees"
    assert cells["BERT-Base"].links() == [(page_of(claim), "3 sources · 1 agrees")]
    assert cells["DistilBERT"].text == "1 source" and cells["DistilBERT"].links() == []
    board = ask(claims_store, "leaderboard", benchmark=SQUAD)
    (row,) = [r for r in board if r["methodLabel"] == "BERT-Base"]
    assert (row["claimSources"], row["agreeing"]) == ("3", "1")


def test_where_sources_disagree_shows_every_figure_side_by_side(
    claims_store: Path, claims_site: FlaskClient
) -> None:
    claim, rows = bert_claim(claims_store)
    root = drawn(claims_site, BOARD)
    assert [h.attrs["id"] for h in root.iter("h2") if h.text == "Where sources disagree"] == [
        "disagree"
    ]
    claims = list(root.iter("div", "claim"))
    assert len(claims) == 1  # the two papers' Baselines are two claims of one value each
    (block,) = claims
    assert block.find("h3").links() == [
        (page_of(claim), "BERT-Base on Question Answering on SQuAD1.1, EM")
    ]
    check_values(block.find("table"), rows, stored(claims_store))
    assert [r.text for r in table_rows(block.find("table"))[0].values()][:1] == ["80.8"]
    (spread,) = ask(claims_store, "disagreements", benchmark=SQUAD)
    summary = block.find("p", "claim-summary").text
    assert summary == (
        "3 values from 3 sources; 1 agrees with the headline, 80.8. "
        f"Spread {spread['spread']}; causes: {spread['causes']}."
    )
    assert (spread["spread"], spread["causes"]) == ("0.4", "scale mismatch")


def test_a_benchmark_without_such_a_claim_shows_no_section(seeds_site: FlaskClient) -> None:
    for url in (
        "/page/benchmark/prompt-to-prompt-semantic-composition/genai-bench",
        "/page/benchmark/composet/composet",
    ):
        root = drawn(seeds_site, url)
        assert not [h for h in root.iter("h2") if h.text == "Where sources disagree"]
        assert root.find("table", "claim-values") is None


def test_a_result_page_shows_the_other_figures_of_its_claim(
    claims_store: Path, claims_site: FlaskClient
) -> None:
    claim, rows = bert_claim(claims_store)
    root = drawn(claims_site, page_of(ORIGIN))
    table = root.find("table", "claim-values")
    assert table is not None
    check_values(table, rows, stored(claims_store))
    (this,) = [r for r in table.iter("tr") if "this" in r.attrs.get("class", "").split()]
    assert "this result" in this.text and "80.8" in this.text
    summary = root.find("p", "claim-summary")
    assert summary is not None and (page_of(claim), "The claim") in summary.links()
    lonely = drawn(claims_site, page_of(BASELINE))
    assert lonely.find("table", "claim-values") is None
    assert "No other source gives a value for this result." in lonely.text


def test_a_method_page_lists_its_claims_with_several_sources(
    claims_store: Path, claims_site: FlaskClient
) -> None:
    _, rows = bert_claim(claims_store)
    root = drawn(claims_site, "/page/method/bert-base")
    (block,) = root.iter("div", "claim")
    check_values(block.find("table"), rows, stored(claims_store))
    single = drawn(claims_site, "/page/method/distilbert")
    assert single.find("div", "claim") is None
    assert "No claim of this method has values from more than one source." in single.text


def test_a_claim_page_shows_its_values_its_rule_and_its_query(
    claims_store: Path, claims_site: FlaskClient
) -> None:
    claim, rows = bert_claim(claims_store)
    root = drawn(claims_site, page_of(claim))
    assert root.find("h1").text == "Claim: BERT-Base on Question Answering on SQuAD1.1, EM"
    check_values(root.find("table", "claim-values"), rows, stored(claims_store))
    rule = root.find("p", "rule")
    assert rule is not None and rule.text.startswith("The headline is the value")
    (href,) = [h for h, _ in root.find("p", "query").links()]
    assert href.startswith("/queries/claims?")
    reply = claims_site.get(href, headers={"Accept": "application/sparql-results+json"})
    assert reply.status_code == 200
    answered = json.loads(reply.get_data())["results"]["bindings"]
    assert sorted(b["value"]["value"] for b in answered) == sorted(r["value"] for r in rows)
    assert drawn(claims_site, href) is not None  # and as a page for a browser


def test_a_claim_iri_dereferences_as_rdf_or_as_its_page(
    claims_store: Path, claims_site: FlaskClient
) -> None:
    claim, rows = bert_claim(claims_store)
    path = "/id/" + claim.removeprefix(V.ID)
    browser = claims_site.get(path, headers=HTML)
    assert browser.status_code == 303
    assert browser.headers["Location"].endswith(page_of(claim))
    for accept in ("text/turtle", "application/n-triples"):
        reply = claims_site.get(path, headers={"Accept": accept})
        assert reply.status_code == 200 and reply.mimetype == accept
        fmt = ox.RdfFormat.from_media_type(accept)
        assert fmt is not None
        triples = {
            ox.Triple(q.subject, q.predicate, q.object)
            for q in ox.parse(reply.get_data(), format=fmt)
        }
        node = ox.NamedNode(claim)
        assert ox.Triple(node, ox.NamedNode(V.type_), ox.NamedNode(V.Claim)) in triples
        stating = {t.subject.value for t in triples if t.predicate == ox.NamedNode(V.claim)}
        assert stating == {r["result"] for r in rows}


def test_an_unknown_claim_is_an_html_404(claims_site: FlaskClient) -> None:
    reply = claims_site.get("/page/claim/0000000000000000/method/bert-base", headers=HTML)
    assert reply.status_code == 404 and reply.mimetype == "text/html"
    reply = claims_site.get("/page/claim/nothing", headers=HTML)
    assert reply.status_code == 404


def test_a_result_page_is_drawn_when_its_claim_cannot_be_gathered(
    claims_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store that cannot answer for the claims in time (or a remote store that fails) costs
    the section, not the page."""
    from server import claims

    def late(name: str, **values: str) -> list[dict[str, str]]:
        raise ApiError(504, "the query took longer than the time limit (30 s)")

    monkeypatch.setattr(claims, "answer", late)
    app = create_app({"store": str(copy_store(claims_store, tmp_path / "store")), "workers": 1})
    try:
        client = app.test_client()
        for url, heading in ((page_of(ORIGIN), "Result"), ("/page/method/bert-base", "Method")):
            root = drawn(client, url)
            assert root.find("h1").text.startswith(heading)
            note = root.find("p", "unavailable")
            assert note is not None and "took longer than the time limit" in note.text, url
            assert root.find("table", "claim-values") is None
    finally:
        app.extensions["benchgraph"].pool.close()
