"""The site's pages, drawn for seed resources through the Flask test client."""

from __future__ import annotations

import hashlib
import html
import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode

import pyoxigraph as ox
import pytest
from flask.testing import FlaskClient
from support import SEEDS, Index, copy_store
from support.html import Element, parse, table_rows, table_with

from benchgraph import queries
from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import ingest_file
from server import charts, site
from server.app import create_app

HTML = {"Accept": "text/html"}
GENAI = "/page/benchmark/prompt-to-prompt-semantic-composition/genai-bench"
COMPOSET = "/page/benchmark/composet/composet"
SVG = "{http://www.w3.org/2000/svg}"


def page(client: FlaskClient, url: str) -> str:
    reply = client.get(url, headers=HTML)
    assert reply.status_code == 200, reply.get_data(as_text=True)[-500:]
    assert reply.mimetype == "text/html"
    return reply.get_data(as_text=True)


def svgs(text: str) -> list[ET.Element]:
    return [ET.fromstring(s) for s in re.findall(r"<svg .*?</svg>", text, re.S)]


def stored(store: Path) -> Index:
    """What the store holds, read on its own (not through the site)."""
    return Index(set(ox.Store.read_only(str(store))))


@dataclass
class Cell:
    text: str = ""
    links: list[str] = field(default_factory=list)


@dataclass
class Table:
    cohort: str  # the last h4 before the table, "Cohort: " taken off
    headers: list[str] = field(default_factory=list)
    rows: list[list[Cell]] = field(default_factory=list)

    def column(self, header: str) -> list[Cell]:
        i = self.headers.index(header)
        return [row[i] for row in self.rows]


class Tables(HTMLParser):
    """The tables of a page with their headings and cells (the text and the links of each)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.tables: list[Table] = []
        self._h4: str | None = None
        self._cohort = ""
        self._cell: Cell | None = None
        self._row: list[Cell] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "h4":
            self._h4 = ""
        elif tag == "table":
            self.tables.append(Table(self._cohort))
        elif tag in ("td", "th"):
            self._cell = Cell()
        elif tag == "a" and self._cell is not None:
            self._cell.links.append(dict(attrs).get("href") or "")

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.text += data
        elif self._h4 is not None:
            self._h4 += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "h4" and self._h4 is not None:
            self._cohort, self._h4 = self._h4.removeprefix("Cohort: "), None
        elif tag == "th" and self._cell is not None:
            self.tables[-1].headers.append(self._cell.text)
            self._cell = None
        elif tag == "td" and self._cell is not None:
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr" and self._row:
            self.tables[-1].rows.append(self._row)
            self._row = []


def cohort_tables(text: str) -> list[Table]:
    return [t for t in Tables(text).tables if t.headers[:1] == ["Rank"]]


def result_of(row: list[Cell]) -> str:
    (link,) = [a for c in row for a in c.links if "/page/result/" in a]
    return V.ID + link.split("/page/", 1)[1]


def settings_of(index: Index, result: str) -> dict[str, str]:
    config = index.value(result, V.configuration)
    if config is None:
        return {}
    return {
        str(index.value(s.value, V.settingKey)): str(index.value(s.value, V.settingValue))
        for s in index.objects(config, V.setting)
    }


def of_type(index: Index, cls: str) -> list[str]:
    """The subjects of type ``cls``, sorted."""
    return sorted(s for s in index.by_subject if ox.NamedNode(cls) in index.objects(s, V.type_))


def name(index: Index, iri: str) -> str:
    """What a page calls a resource: its label, else its title, else (a result) its claim,
    else its source ID."""
    for prop in (V.label, V.title):
        found = sorted(o.value for o in index.objects(iri, prop))
        if found:
            return found[0]
    method, metric, value = (index.one(iri, p) for p in (V.method, V.metric, V.publishedValue))
    if method and metric and value:
        method_label, metric_label = (name(index, o.value) for o in (method, metric))
        return f"{method_label}: {metric_label} = {value.value}"
    return min((o.value for o in index.objects(iri, V.identifier)), default="")


def resource_of(href: str) -> str:
    """The IRI whose site page ``href`` is."""
    assert href.startswith("/page/"), href
    return V.ID + href.removeprefix("/page/")


def page_of(iri: str) -> str:
    return "/page/" + iri.removeprefix(V.ID)


def test_paper_lists_introduced_and_reported_methods(seeds_site: FlaskClient) -> None:
    text = page(seeds_site, "/page/paper/68fa791f1e209131cea7c381")
    introduced = text.split('<ul class="introduced">')[1].split("</ul>")[0]
    assert "EDITOR" in introduced
    assert "by 6 methods" in text
    assert "sota2.com/research/sota/prompt-recovery-on-laion" in text  # where it was published


def test_method_page_has_origin_and_results(seeds_site: FlaskClient) -> None:
    text = page(seeds_site, "/page/method/dreamllm")
    assert "https://dreamllm.github.io/" in text
    assert "/page/paper/68fa72941e209131cea5742f" in text
    assert "ART500K" in text


def test_genai_bench_has_one_chart_per_base_model(seeds_site: FlaskClient) -> None:
    text = page(seeds_site, GENAI)
    cohorts = re.findall(r"<h4>Cohort: (.*?)</h4>", text)
    assert sorted(cohorts) == [
        "Model=FLUX.1-dev", "Model=FLUX.1-schnell", "Model=FLUX.2-klein",
        "Model=Qwen-Image", "Model=SANA1.5",
    ]  # fmt: skip
    charts_found = svgs(text)
    assert len(charts_found) == len(cohorts)
    for svg in charts_found:
        assert len(svg.findall(f"{SVG}rect")) == 6  # one bar per row
        unit = svg.find(f"{SVG}text[@class='unit']")
        assert unit is not None and "percent (%)" in (unit.text or "")
        direction = svg.find(f"{SVG}text[@class='direction']")
        assert direction is not None and "Higher is better" in (direction.text or "")


def test_composet_keeps_cohorts_apart_with_whiskers(seeds_site: FlaskClient) -> None:
    text = page(seeds_site, "/page/benchmark/composet/composet")
    cohorts = re.findall(r"<h4>Cohort: (.*?)</h4>", text)
    assert any(c.startswith("protocol=Frontier API") for c in cohorts)
    assert any(c.startswith("protocol=Open-weight") for c in cohorts)
    found = svgs(text)
    assert len(found) == len(cohorts)
    assert sum(len(s.findall(f"{SVG}g[@class='whisker']")) for s in found) > 0


def test_published_precision_is_kept(seeds_site: FlaskClient) -> None:
    text = page(seeds_site, "/page/benchmark/composet/composet")
    assert re.search(r'<td class="num">\d+\.0</td>', text)  # e.g. 5.0 stays 5.0
    assert re.search(r">5\.0<", text)


def test_result_page_shows_provenance(seeds_site: FlaskClient) -> None:
    text = page(
        seeds_site, "/page/result/composet/table-9/clip-b-16-laion-2b/group-accuracy/modify-spatial"
    )
    assert '<dd class="value">0.7</dd>' in text
    assert "[0, 1.6]" in text and "n = 297" in text
    assert "23b521f2e80e95e41af6b3bde6f66dc025b44a7eba375ec2d567ba92ca588f94" in text
    assert "Table 9" in text and 'class="validation"' in text


def test_source_coverage_compares_declared_with_loaded_headline_results(
    seeds_store: Path, seeds_site: FlaskClient
) -> None:
    """A page declares the results of its main series: the coverage compares that count with
    the headline results loaded from the page, not with every result of its tables."""
    index = stored(seeds_store)
    results = index.subjects_of_type(V.Result)
    partial = 0
    for source in sorted(index.subjects_of_type(V.SourceDocument)):
        derived = {r for r in results if index.value(r, V.wasDerivedFrom) == source}
        headline = {r for r in derived if index.value(r, V.headline) == "true"}
        declared = index.value(source, V.declaredResultCount)
        text = page(seeds_site, "/page/" + source.removeprefix(V.ID))
        found = re.search(r'<dd class="coverage">(.*?)</dd>', text)
        assert found is not None, source
        expected = f"{len(headline)} of {declared} declared results loaded"
        if derived != headline:
            partial += 1
            expected += f", and {len(derived - headline)} results outside its main series"
        assert found.group(1).startswith(expected), (source, found.group(1))
        assert 'class="validation"' in text
    assert partial  # a page whose tables hold more than its main series (CompoSET) was seen


def test_home_search_and_query(seeds_site: FlaskClient) -> None:
    home = page(seeds_site, "/site")
    assert "<dt>Results</dt><dd>321</dd>" in home
    found = page(seeds_site, "/search?q=editor")
    assert "/page/method/editor" in found
    assert "0 matches" in page(seeds_site, "/search?q=%22%29%20%7D%20%23")
    answer = page(seeds_site, "/query?query=ASK%20%7B%7D")
    assert "<td>true</td>" in answer
    assert "leaderboard" in page(seeds_site, "/query")


def test_the_leaderboard_example_lists_each_result_once(seeds_site: FlaskClient) -> None:
    """The /query example opens the leaderboard's text in the form (it needs a parameter);
    run as it is (no benchmark given), it answers every benchmark's leaderboard, and each
    result once, under one label of its benchmark."""
    listing = page(seeds_site, "/query")
    link = re.search(r'href="([^"]*)">leaderboard</a>', listing)
    assert link is not None
    form = page(seeds_site, html.unescape(link.group(1)))
    text = html.unescape(re.search(r"<textarea[^>]*>(.*?)</textarea>", form, re.S).group(1))
    assert text == queries.find("leaderboard").text
    assert "<table" not in form  # opened to edit, not run
    answer = page(seeds_site, "/query?" + urlencode({"query": text}))
    results = re.findall(r"https://w3id.org/benchgraph/id/result/[^<\"&]+", answer)
    assert results and len(results) == len(set(results))
    assert "CompoSET on CompoSET" in answer
    assert answer.count("<td>CompoSET</td>") == 0  # not the dataset's name as a second label
    if SEEDS.is_dir():
        assert len(results) == 70  # the 5 founding pages' primary metrics


def test_query_page_uses_the_sparql_guard(seeds_site: FlaskClient) -> None:
    reply = seeds_site.get(
        "/query?query=SELECT%20*%20%7B%20SERVICE%20%3Chttp%3A%2F%2Fx%3E%20%7B%3Fs%20%3Fp%20%3Fo%7D%7D",
        headers=HTML,
    )
    assert reply.status_code == 400 and reply.mimetype == "text/html"
    assert "SERVICE" in reply.get_data(as_text=True)


def test_unknown_resource_is_an_html_404(seeds_site: FlaskClient) -> None:
    reply = seeds_site.get("/page/method/no-such-method", headers=HTML)
    assert reply.status_code == 404 and reply.mimetype == "text/html"
    assert 'class="error"' in reply.get_data(as_text=True)


def test_hostile_method_name_is_escaped(hostile_site: FlaskClient) -> None:
    for url in ("/page/benchmark/prompt-recovery/laion", "/page/paper/68fa791f1e209131cea7c381"):
        text = page(hostile_site, url)
        assert "<script>" not in text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text


def test_chart_is_xml_with_bars_whiskers_and_unit() -> None:
    bars = [
        charts.Bar("A <&> B", 5.0, "5.0", 4.0, 6.5),
        charts.Bar("C", 2.25, "2.25"),
    ]
    svg = ET.fromstring(charts.bar_chart(bars, "Accuracy (percent (%))", "lower", "t <x>"))
    assert len(svg.findall(f"{SVG}rect")) == 2
    assert len(svg.findall(f"{SVG}g[@class='whisker']")) == 1
    texts = ["".join(t.itertext()) for t in svg.iter(f"{SVG}text")]
    assert "Accuracy (percent (%))" in texts and "5.0" in texts and "A <&> B" in texts
    assert "← Lower is better" in texts


def test_chart_labels_are_whole() -> None:
    """A label is never cut short: a long one is wrapped onto lines, a long word broken."""
    sentence = "masked activation-transport mechanism (Layers / Steps=mid, Mask=true) " * 2
    word = "W" * 80
    bars = [charts.Bar(sentence.strip(), 1.0, "1.0"), charts.Bar(word, 2.0, "2.0")]
    svg = ET.fromstring(charts.bar_chart(bars, "u", "higher", "t"))
    labels = [
        [span.text or "" for span in text.iter(f"{SVG}tspan")]
        for text in svg.iter(f"{SVG}text")
        if text.get("class") == "label"
    ]
    assert [" ".join(labels[0]), "".join(labels[1])] == [sentence.strip(), word]
    assert len(labels[0]) > 1 and len(labels[1]) > 1


def test_home_shows_the_latest_ingest_time(
    staggered_store: Path, staggered_site: FlaskClient
) -> None:
    index = stored(staggered_store)
    times = [
        t.value
        for source in index.subjects_of_type(V.SourceDocument)
        for t in index.objects(source, V.generatedAtTime)
    ]
    assert len(set(times)) == 3  # each page at a time of its own
    latest = max(times, key=datetime.fromisoformat)
    assert f"<dt>Last ingest</dt><dd>{latest}</dd>" in page(staggered_site, "/site")


def test_cohort_table_shows_the_settings_that_vary_within_it(
    seeds_store: Path, seeds_site: FlaskClient
) -> None:
    """On GenAI-Bench a method can appear twice in a cohort (Interpolation with Layers / Steps
    all and mid): a column per setting that varies within the cohort tells the rows apart, in
    the table and in the chart's labels."""
    index = stored(seeds_store)
    text = page(seeds_site, GENAI)
    tables = cohort_tables(text)
    assert len(tables) == 5
    for table, svg in zip(tables, svgs(text), strict=True):
        results = [result_of(row) for row in table.rows]
        settings = {r: settings_of(index, r) for r in results}
        keys = {k for s in settings.values() for k in s}
        varying = {k for k in keys if len({s.get(k, "") for s in settings.values()}) > 1}
        assert varying == {"Mask", "Layers / Steps"}, table.cohort
        assert keys & set(table.headers) == varying, table.cohort
        for key in varying:
            shown = [c.text for c in table.column(key)]
            assert shown == [settings[r].get(key, "") for r in results], (table.cohort, key)
        methods = [c.text for c in table.column("Method")]
        rows = [
            (m, *(settings[r].get(k, "") for k in sorted(varying)))
            for m, r in zip(methods, results, strict=True)
        ]
        assert len(set(methods)) < len(methods)  # a method twice ...
        assert len(set(rows)) == len(rows)  # ... told apart by its settings
        labels = [
            " ".join(s.text or "" for s in label.iter(f"{SVG}tspan"))
            for label in svg.iter(f"{SVG}text")
            if label.get("class") == "label"
        ]
        assert len(set(labels)) == len(labels) == len(rows), labels
        for label, (method, *values) in zip(labels, rows, strict=True):
            assert label.startswith(method) and all(v in label for v in values), label


def test_no_table_column_is_empty(seeds_site: FlaskClient) -> None:
    for url in (GENAI, COMPOSET):
        for table in Tables(page(seeds_site, url)).tables:
            for i, header in enumerate(table.headers):
                assert any(row[i].text.strip() for row in table.rows), (url, table.cohort, header)


def test_intervals_are_shown_as_published_with_their_level(
    seeds_store: Path, seeds_site: FlaskClient
) -> None:
    index = stored(seeds_store)
    shown = 0
    for url in (GENAI, COMPOSET):
        for table in cohort_tables(page(seeds_site, url)):
            results = [result_of(row) for row in table.rows]
            with_interval = [r for r in results if index.value(r, V.ciLower) is not None]
            assert ("Confidence interval" in table.headers) == bool(with_interval), table.cohort
            if not with_interval:
                continue
            for result, cell in zip(results, table.column("Confidence interval"), strict=True):
                if result not in with_interval:
                    assert cell.text == ""
                    continue
                expected = str(index.value(result, V.publishedInterval))
                level = index.value(result, V.ciLevel)
                if level is not None:
                    expected += f" ({float(level) * 100:g}%)"
                assert cell.text == expected, result
                shown += 1
    assert shown


def test_reported_in_names_the_paper_by_its_label(
    seeds_store: Path, seeds_site: FlaskClient
) -> None:
    index = stored(seeds_store)
    for url in (GENAI, COMPOSET, "/page/source/radar/composet"):
        tables = [t for t in Tables(page(seeds_site, url)).tables if "Reported in" in t.headers]
        assert tables, url
        for table in tables:
            for row, cell in zip(table.rows, table.column("Reported in"), strict=True):
                paper = str(index.value(result_of(row), V.reportedIn))
                names = [index.value(paper, p) for p in (V.label, V.title, V.identifier)]
                assert cell.text == next(n for n in names if n), paper


def test_benchmark_lists_the_metrics_with_results(
    seeds_store: Path, seeds_site: FlaskClient
) -> None:
    """The metrics table lists the metrics with results on the benchmark; the others it
    declares are named in a note under it."""
    index = stored(seeds_store)
    for url in (GENAI, COMPOSET):
        benchmark = V.ID + url.removeprefix("/page/")
        declared = {m.value for m in index.objects(benchmark, V.hasMetric)}
        counts: dict[str, int] = defaultdict(int)
        for result in index.subjects_of_type(V.Result):
            if index.value(result, V.benchmark) == benchmark:
                counts[str(index.value(result, V.metric))] += 1
        text = page(seeds_site, url)
        table = next(t for t in Tables(text).tables if t.headers[:1] == ["Metric"])
        listed = [V.ID + c.links[0].split("/page/", 1)[1] for c in table.column("Metric")]
        assert set(listed) == {m for m in declared if counts[m]}, url
        assert [int(c.text) for c in table.column("Results")] == [counts[m] for m in listed]
        note = re.search(r'<p class="note unused-metrics">(.*?)</p>', text, re.S)
        unused = declared - set(listed)
        if not unused:
            assert note is None, url
            continue
        assert note is not None, url
        named = {
            V.ID + h.split("/page/", 1)[1] for h in re.findall(r'href="([^"]+)"', note.group(1))
        }
        assert named == unused, url


def test_findings_name_their_focus_by_label_with_a_link(
    seeds_site: FlaskClient, seeds_index: Index
) -> None:
    """A finding's focus was shown as its IRI's last segment (``blip-2-opt-2-7b``)."""
    shown = 0
    for source in of_type(seeds_index, V.SourceDocument):
        table = table_with(parse(page(seeds_site, page_of(source))), "Focus")
        for row in table_rows(table) if table is not None else []:
            ((href, text),) = row["Focus"].links()
            focus = resource_of(href)
            assert text == name(seeds_index, focus) != focus.rsplit("/", 1)[-1], (source, href)
            shown += 1
    assert shown > 0


def test_task_and_dataset_pages_list_their_benchmarks_with_counts(
    seeds_site: FlaskClient, seeds_index: Index
) -> None:
    """Task and dataset pages showed only their type and label."""
    results = of_type(seeds_index, V.Result)
    for cls, role in ((V.Task, V.task), (V.Dataset, V.dataset)):
        scopes = of_type(seeds_index, cls)
        assert scopes
        for scope in scopes:
            expected = {
                b: sum(ox.NamedNode(b) in seeds_index.objects(r, V.benchmark) for r in results)
                for b in of_type(seeds_index, V.Benchmark)
                if ox.NamedNode(scope) in seeds_index.objects(b, role)
            }
            table = table_with(parse(page(seeds_site, page_of(scope))), "Benchmark")
            assert table is not None, scope
            shown = {}
            for row in table_rows(table):
                ((href, text),) = row["Benchmark"].links()
                assert text == name(seeds_index, resource_of(href))
                shown[resource_of(href)] = int(row["Results"].text)
            assert shown == expected and sum(expected.values()) > 0, scope


def test_a_paper_without_a_title_says_so_and_links_its_id_to_its_page(
    seeds_site: FlaskClient, seeds_index: Index
) -> None:
    """A paper known by its ID alone was headed by the ID, with no word that the source gives
    no title and no link from the ID to the page the data holds for it."""
    untitled = 0
    for paper in of_type(seeds_index, V.Paper):
        root = parse(page(seeds_site, page_of(paper)))
        note = root.find("p", "untitled")
        pages = sorted(o.value for o in seeds_index.objects(paper, V.url))
        if seeds_index.objects(paper, V.label):
            assert note is None, paper
            continue
        untitled += 1
        assert note is not None and "gives no title" in note.text, paper
        identifier = root.find("dd", "identifier")
        assert identifier is not None
        (ident,) = (o.value for o in seeds_index.objects(paper, V.identifier))
        assert identifier.links() == ([(pages[0], ident)] if pages else []), paper
    assert untitled > 0


@pytest.fixture(scope="module")
def card_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    """A site over one model card: its own results, and those its source paper reported."""
    folder = tmp_path_factory.mktemp("card") / "store"
    with EmbeddedStore(folder) as store:
        card = Path(__file__).parents[1] / "data" / "model-index" / "README.md"
        assert ingest_file(store, card).status == "loaded"
    app = create_app({"store": str(folder), "workers": 1})
    app.config["TESTING"] = True
    yield app.test_client()
    app.extensions["benchgraph"].pool.close()


def values_in(root: Element) -> list[str]:
    """The values of every results table of a page, sorted."""
    tables = [
        t for t in root.iter("table") if any(th.text.strip() == "Value" for th in t.iter("th"))
    ]
    return sorted(row["Value"].text for table in tables for row in table_rows(table))


def test_a_model_card_and_a_paper_of_a_card_are_pages_of_what_they_reported(
    card_site: FlaskClient,
) -> None:
    # The card names no repository: it is known by its content's hash.
    data = (Path(__file__).parents[1] / "data" / "model-index" / "README.md").read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:16]
    card = parse(page(card_site, f"/page/card/sha256-{digest}"))
    assert card.find("h1").text == "tiny-vit-demo model card"
    assert values_in(card) == ["0.9120"]  # the CIFAR-100 result: it names no source of its own
    paper = parse(page(card_site, "/page/paper/arxiv-2207.10666"))
    arxiv = paper.find("dd", "identifier")
    assert arxiv is not None and arxiv.text == "2207.10666"
    assert values_in(paper) == ["81.50", "95.7"]


def test_a_page_asked_again_in_one_generation_is_sent_as_drawn(
    seeds_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = copy_store(seeds_store, tmp_path / "store")
    app = create_app({"store": str(copy), "workers": 1})
    pool = app.extensions["benchgraph"].pool
    jobs: list[object] = []
    drawn: list[str] = []
    ran, rendered = pool.run, site.render_template

    def counted(job: object, *args: object, **kwargs: object) -> object:
        jobs.append(job)
        return ran(job, *args, **kwargs)

    def render(template: str, **context: object) -> str:
        drawn.append(template)
        return rendered(template, **context)

    monkeypatch.setattr(pool, "run", counted)
    monkeypatch.setattr(site, "render_template", render)
    try:
        client = app.test_client()
        first = page(client, COMPOSET)
        asked = len(jobs)
        assert asked > 0 and drawn == ["site/benchmark.html"]
        assert page(client, COMPOSET) == first
        assert len(jobs) == asked and len(drawn) == 1  # no query run, no template drawn
        page(client, COMPOSET + "?asOf=2026-01-01")
        assert len(jobs) > asked and len(drawn) == 2  # the board as it was then: another page
    finally:
        pool.close()
