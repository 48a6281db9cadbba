"""The site's pages, drawn for seed resources through the Flask test client."""

from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET

import pyoxigraph as ox
from flask.testing import FlaskClient
from html_support import parse, table_rows, table_with
from support import SEEDS, Index

from benchgraph import vocab as V
from server import charts

HTML = {"Accept": "text/html"}
GENAI = "/page/benchmark/prompt-to-prompt-semantic-composition/genai-bench"
SVG = "{http://www.w3.org/2000/svg}"


def page(client: FlaskClient, url: str) -> str:
    reply = client.get(url, headers=HTML)
    assert reply.status_code == 200, reply.get_data(as_text=True)[-500:]
    assert reply.mimetype == "text/html"
    return reply.get_data(as_text=True)


def svgs(text: str) -> list[ET.Element]:
    return [ET.fromstring(s) for s in re.findall(r"<svg .*?</svg>", text, re.S)]


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


def test_source_page_shows_contribution_and_coverage(seeds_site: FlaskClient) -> None:
    text = page(seeds_site, "/page/source/radar/composet")
    assert "273 of 22 declared results loaded" in text
    assert 'class="validation"' in text


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
    """The /query example runs the leaderboard text as it is (no benchmark given): every
    benchmark's leaderboard, and each result once, under one label of its benchmark."""
    listing = page(seeds_site, "/query")
    link = re.search(r'href="([^"]*)">leaderboard</a>', listing)
    assert link is not None
    answer = page(seeds_site, html.unescape(link.group(1)))
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
    assert "Accuracy (percent (%))" in texts and "5.0" in texts and "A <&> BA <&> B" in texts
    assert "← Lower is better" in texts


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
