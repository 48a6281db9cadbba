"""The named-query API over a real server on the seeds: every query's golden answer, the
headline question, the leaderboard's cohorts, the catalogue, OpenAPI and revalidation.

Golden answers live in tests/data/golden/queries/NAME.json (parameters and rows). After checking
a new or changed query's answer by hand, write its file with
``BENCHGRAPH_UPDATE_GOLDEN=1 .venv/bin/pytest tests/server/test_named.py -k golden``.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from typing import Any

import pytest
import rdflib
from support import REPO, Index
from support.html import parse

from benchgraph import queries
from benchgraph import vocab as V

GOLDEN = REPO / "tests" / "data" / "golden" / "queries"
QUERY_FILES = sorted((REPO / "queries").glob("*.rq"))
PAPER = "68fa791f1e209131cea7c381"
OTHER_PAPER = "68fa775d1e209131cea72c0c"
# Parameters the golden answers are computed with (required ones, and fixed dates).
PARAMS = {
    "methods-introduced-by-paper": {"paper": PAPER},
    "methods-reported-by-paper": {"paper": PAPER},
    "results-reported-by-paper": {"paper": PAPER},
    "leaderboard": {"benchmark": "GenAI-Bench"},
    "compare": {"benchmark": "CompoSET", "a": "SigLIP-2 SO400M/14", "b": "CLIP B/32"},
    # GenAI-Bench's page gives several methods more than one result (variants, base models):
    # each stands as a claim of its own.
    "claims": {"benchmark": "GenAI-Bench"},
    "audit-stale-sources": {"asOf": "2026-12-01"},
    # Each seed page has one version: since a day before one was updated, its results are
    # added; the others, updated before, are no change.
    "changes": {"since": "2026-03-05"},
}
# More golden answers of a query, each with parameters of its own: tests/data/golden/queries/
# NAME@CASE.json.
CASES = {
    "leaderboard@intervals": {"benchmark": "CompoSET"},
    "compare@protocols": {
        "benchmark": "CompoSET",
        "metric": "Group accuracy",
        "a": "Claude Sonnet 4.6",
        "b": "Gemini 2.5 Flash",
    },
}


def rows(document: dict[str, Any]) -> list[list[str | None]]:
    """The answer's rows as text (blank nodes as ``_:``, unbound as None), in order."""
    names = document["head"]["vars"]

    def text(term: dict[str, str] | None) -> str | None:
        if term is None:
            return None
        return "_:" if term["type"] == "bnode" else term["value"]

    return [[text(b.get(n)) for n in names] for b in document["results"]["bindings"]]


def ask(http: Any, server: Any, name: str, **params: str) -> dict[str, Any]:
    reply = http.fetch(http.url(f"{server.url}queries/{name}", **params))
    assert reply.status == 200, reply.text
    assert reply.type == "application/sparql-results+json"
    return reply.json()


def column(document: dict[str, Any], name: str) -> list[str]:
    return [b[name]["value"] for b in document["results"]["bindings"] if name in b]


@pytest.mark.parametrize("path", QUERY_FILES, ids=lambda p: p.stem)
def test_golden_answer(seeds_server: Any, http: Any, path: Any) -> None:
    check_golden(seeds_server, http, path.stem, path.stem, PARAMS.get(path.stem, {}))


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_answer_of_a_case(seeds_server: Any, http: Any, case: str) -> None:
    check_golden(seeds_server, http, case.split("@")[0], case, CASES[case])


def check_golden(
    seeds_server: Any, http: Any, name: str, file: str, params: dict[str, str]
) -> None:
    """The answer of the query ``name`` with ``params`` is the one in ``GOLDEN/<file>.json``."""
    golden = GOLDEN / f"{file}.json"
    document = ask(http, seeds_server, name, **params)
    found = {"params": params, "vars": document["head"]["vars"], "rows": rows(document)}
    if os.environ.get("BENCHGRAPH_UPDATE_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        lines = ",\n  ".join(json.dumps(r, ensure_ascii=False) for r in found["rows"])
        golden.write_text(
            "{\n"
            f' "params": {json.dumps(params)},\n'
            f' "vars": {json.dumps(found["vars"])},\n'
            f' "rows": [\n  {lines}\n ]\n'
            "}\n",
            encoding="utf-8",
        )
    assert golden.is_file(), (
        f"no golden answer {golden.name} for queries/{name}.rq; check its answer, then run "
        "BENCHGRAPH_UPDATE_GOLDEN=1 .venv/bin/pytest tests/server/test_named.py -k golden"
    )
    expected = json.loads(golden.read_text(encoding="utf-8"))
    assert expected["params"] == params
    assert found["vars"] == expected["vars"]
    key = json.dumps
    assert sorted(found["rows"], key=key) == sorted(expected["rows"], key=key)


def test_the_headline_question(seeds_server: Any, http: Any) -> None:
    introduced = ask(http, seeds_server, "methods-introduced-by-paper", paper=PAPER)
    reported = ask(http, seeds_server, "methods-reported-by-paper", paper=PAPER)
    assert column(introduced, "label") == ["EDITOR"]
    assert sorted(column(reported, "label")) == ["EDITOR", "PEZ", "PH2P", "PRISM", "STEPS", "VGD"]


def cohorts(document: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for b in document["results"]["bindings"]:
        found[b["cohort"]["value"]].append(b)
    return found


def test_leaderboard_on_genai_bench_has_one_cohort_per_base_model(seeds_server, http) -> None:
    document = ask(http, seeds_server, "leaderboard", benchmark="GenAI-Bench")
    found = cohorts(document)
    models = ["FLUX.1-dev", "FLUX.1-schnell", "FLUX.2-klein", "Qwen-Image", "SANA1.5"]
    assert sorted(found) == [f"Model={m}" for m in models]
    for label, members in found.items():
        model = label.removeprefix("Model=")
        assert len(members) == 6
        assert all(json.loads(m["settings"]["value"])["Model"] == model for m in members)
        values = [float(m["value"]["value"]) for m in members]
        assert values == sorted(values, reverse=True)  # higher is better
        assert [int(m["rank"]["value"]) for m in members] == [1, 2, 3, 4, 5, 6]
    sana = [m["methodLabel"]["value"] for m in found["Model=SANA1.5"]]
    assert sana[0] == "Single Prompt" and sana[1] == "masked activation-transport mechanism"


def test_leaderboard_asks_by_label_or_iri_alike(seeds_server: Any, http: Any) -> None:
    by_dataset = ask(http, seeds_server, "leaderboard", benchmark="GenAI-Bench")
    by_label = ask(
        http,
        seeds_server,
        "leaderboard",
        benchmark="Prompt-to-prompt semantic composition on GenAI-Bench",
        metric="CLIP-T (S*T)",
    )
    iri = (
        "https://w3id.org/benchgraph/id/benchmark/prompt-to-prompt-semantic-composition/genai-bench"
    )
    by_iri = ask(http, seeds_server, "leaderboard", benchmark=iri)
    assert column(by_dataset, "result") == column(by_label, "result") == column(by_iri, "result")
    assert len(column(by_iri, "result")) == 30


GENERATIVE = ("BLIP-2", "LLaVA", "Qwen2-VL", "Gemini", "Claude")


def test_composet_never_ranks_generative_models_with_dual_encoders(seeds_server, http) -> None:
    document = ask(http, seeds_server, "leaderboard", benchmark="CompoSET", metric="Group accuracy")
    found = cohorts(document)
    assert len(column(document, "result")) == 239
    generative_cohorts = 0
    for label, members in found.items():
        names = [m["methodLabel"]["value"] for m in members]
        generative = [n for n in names if n.startswith(GENERATIVE)]
        assert not generative or len(generative) == len(names), (label, names)
        if generative:
            generative_cohorts += 1
            assert "protocol=" in label and "200-example" in label
        ranks = [int(m["rank"]["value"]) for m in members]
        assert ranks[0] == 1 and ranks == sorted(ranks)
    assert generative_cohorts == 5


def test_composet_headline_is_one_cohort_of_22_dual_encoders(seeds_server, http) -> None:
    document = ask(http, seeds_server, "leaderboard", benchmark="CompoSET")
    found = cohorts(document)
    assert len(found) == 1
    (members,) = found.values()
    assert len(members) == 22 and members[0]["methodLabel"]["value"] == "SigLIP-2 SO400M/14"
    ranks = [int(m["rank"]["value"]) for m in members]
    assert ranks[:3] == [1, 2, 3] and ranks.count(12) == 4  # four results tie at 8.4


def test_results_without_configuration_form_their_own_cohort(seeds_server, http) -> None:
    document = ask(http, seeds_server, "leaderboard", benchmark="ART500K")
    found = cohorts(document)
    assert sorted(found) == ["Type=Hard", "Type=Soft", "configuration not recorded"]
    assert len(found["configuration not recorded"]) == 4


def test_catalogue_lists_every_query_with_its_parameters(seeds_server, http) -> None:
    reply = http.fetch(f"{seeds_server.url}queries")
    listed = {q["name"]: q for q in reply.json()["queries"]}
    assert set(listed) == {p.stem for p in QUERY_FILES}
    for path in QUERY_FILES:
        named = queries.load(path)
        entry = listed[named.name]
        assert entry["summary"] == named.summary
        assert entry["url"] == f"{seeds_server.url}queries/{named.name}"
        assert [p["name"] for p in entry["parameters"]] == [p.name for p in named.params]
    page = http.fetch(f"{seeds_server.url}queries", Accept="text/html")
    assert page.type == "text/html" and all(name in page.text for name in listed)


def test_openapi_is_generated_from_the_headers(seeds_server: Any, http: Any) -> None:
    document = http.fetch(f"{seeds_server.url}openapi.json").json()
    assert document["openapi"].startswith("3.")
    assert document["servers"] == [{"url": seeds_server.url.rstrip("/")}]
    assert {"/sparql", "/queries"} <= set(document["paths"])
    for path in QUERY_FILES:
        named = queries.load(path)
        operation = document["paths"][f"/queries/{named.name}"]["get"]
        assert operation["summary"] == named.summary
        params = {p["name"]: p for p in operation["parameters"]}
        for p in named.params:
            assert params[p.name]["required"] is p.required
        assert "format" in params
        assert "application/sparql-results+json" in operation["responses"]["200"]["content"]
        assert operation["responses"]["400"]["$ref"] == "#/components/responses/E400"


@pytest.mark.parametrize(
    ("accept", "first_line"),
    [("text/csv", "paper,method,label"), ("text/tab-separated-values", "?paper\t?method\t?label")],
)
def test_answers_by_content_negotiation(seeds_server, http, accept: str, first_line: str) -> None:
    url = http.url(f"{seeds_server.url}queries/methods-introduced-by-paper", paper=PAPER)
    reply = http.fetch(url, Accept=accept)
    assert reply.type == accept and reply.text.splitlines()[0] == first_line
    page = http.fetch(url, Accept="text/html")
    assert page.type == "text/html" and "EDITOR" in page.text and "<table>" in page.text


def test_revalidation_answers_304(seeds_server: Any, http: Any) -> None:
    url = http.url(f"{seeds_server.url}queries/methods-reported-by-paper", paper=PAPER)
    first = http.fetch(url)
    etag, modified = first.headers["etag"], first.headers["last-modified"]
    assert etag and modified
    assert http.fetch(url).headers["etag"] == etag  # same generation, same answer
    assert http.fetch(url, If_None_Match=etag).status == 304
    assert http.fetch(url, If_Modified_Since=modified).status == 304
    assert http.fetch(url, Accept="text/csv").headers["etag"] != etag
    other = http.url(f"{seeds_server.url}queries/methods-reported-by-paper", paper=OTHER_PAPER)
    assert http.fetch(other, If_None_Match=etag).status == 200


@pytest.mark.parametrize(
    ("params", "parameter", "message"),
    [
        ({}, "paper", "is required"),
        ({"paper": PAPER, "colour": "red"}, "colour", "unknown parameter"),
        ({"paper": "http://bad iri"}, "paper", "is not a valid paper"),
    ],
)
def test_bad_parameters_are_400_naming_the_parameter(
    seeds_server, http, params, parameter, message
):
    url = http.url(f"{seeds_server.url}queries/methods-introduced-by-paper", **params)
    reply = http.fetch(url)
    body = reply.json()
    assert reply.status == 400 and body["ok"] is False and body["status"] == 400
    assert body["parameter"] == parameter and message in body["error"]


def test_a_form_field_left_empty_is_a_parameter_not_given(seeds_server: Any, http: Any) -> None:
    """The catalogue page's forms send every field, the optional ones empty."""
    url = f"{seeds_server.url}queries/leaderboard"
    given = ask(http, seeds_server, "leaderboard", benchmark="CompoSET")
    emptied = ask(http, seeds_server, "leaderboard", benchmark="CompoSET", metric="", asOf=" ")
    assert rows(emptied) == rows(given) and rows(given)
    reply = http.fetch(http.url(url, benchmark=""))
    assert reply.status == 400 and "is required" in reply.json()["error"]


def test_invalid_typed_parameter_is_400(seeds_server: Any, http: Any) -> None:
    url = http.url(f"{seeds_server.url}queries/audit-stale-sources", days="many")
    reply = http.fetch(url)
    assert reply.status == 400 and reply.json()["parameter"] == "days"


def test_a_benchmark_that_is_not_in_the_store_is_404_not_an_empty_leaderboard(
    seeds_server: Any, http: Any
) -> None:
    url = http.url(f"{seeds_server.url}queries/leaderboard", benchmark="GenAI Bench Nope")
    reply = http.fetch(url)
    body = reply.json()
    assert reply.status == 404 and body["ok"] is False and body["status"] == 404
    assert body["parameter"] == "benchmark" and "no benchmark is named" in body["error"]
    assert body["suggestions"] == ["GenAI-Bench"] and "did you mean 'GenAI-Bench'?" in body["error"]


def test_a_benchmark_name_is_looked_up_and_answered_with_its_iri(
    seeds_server: Any, http: Any
) -> None:
    document = ask(http, seeds_server, "leaderboard", benchmark="CompoSET")  # its dataset's name
    (benchmark,) = set(column(document, "benchmark"))
    assert benchmark == "https://w3id.org/benchgraph/id/benchmark/composet/composet"


def test_unknown_query_is_404(seeds_server: Any, http: Any) -> None:
    reply = http.fetch(f"{seeds_server.url}queries/no-such-query")
    assert reply.status == 404 and "no named query" in reply.json()["error"]


def test_the_ask_helper_make_run_uses(seeds_server: Any, capsys: pytest.CaptureFixture) -> None:
    from server import ask

    assert ask.main([seeds_server.url, "methods-introduced-by-paper", f"paper={PAPER}"]) == 0
    out = capsys.readouterr().out
    assert "EDITOR" in out and "(1 row)" in out
    assert ask.main([seeds_server.url, "no-such-query"]) == 1


def _vocabulary() -> tuple[dict[str, str], set[str]]:
    """The English labels the ontology gives, and the namespaces it and the shapes declare."""
    graph, namespaces = rdflib.Graph(), set(V.PREFIXES.values())
    for path in sorted((REPO / "ontology").glob("*.ttl")) + sorted((REPO / "shapes").glob("*.ttl")):
        read = rdflib.Graph().parse(path, format="turtle")
        namespaces |= {str(ns) for _, ns in read.namespaces()}
        if path.parent.name == "ontology":
            graph += read
    labels = {
        str(s): str(o)
        for s, o in graph.subject_objects(rdflib.RDFS.label)
        if isinstance(o, rdflib.Literal) and o.language in (None, "en")
    }
    return labels, namespaces


def _store_name(index: Index, iri: str) -> str:
    for prop in (V.label, V.title, V.identifier):
        found = sorted(o.value for o in index.objects(iri, prop))
        if found:
            return found[0]
    return iri.removeprefix(V.ID)


@pytest.mark.parametrize("path", QUERY_FILES, ids=lambda p: p.stem)
def test_html_answers_show_iris_by_name_with_links(
    seeds_server: Any, http: Any, seeds_index: Index, path: Any
) -> None:
    """The HTML table of a named answer showed unit, direction and every other IRI raw."""
    url = http.url(f"{seeds_server.url}queries/{path.stem}", **PARAMS.get(path.stem, {}))
    document = http.fetch(url, Accept="application/sparql-results+json").json()
    table = parse(http.fetch(url, Accept="text/html").text).find("table")
    assert table is not None
    names = document["head"]["vars"]
    assert [th.text for th in table.iter("th")] == names
    shown = [list(tr.iter("td")) for tr in table.iter("tr") if tr.find("td")]
    assert len(shown) == len(document["results"]["bindings"])
    labels, namespaces = _vocabulary()
    for binding, cells in zip(document["results"]["bindings"], shown, strict=True):
        for name, td in zip(names, cells, strict=True):
            term = binding.get(name)
            if term is None or term["type"] != "uri":
                continue
            iri, link = term["value"], td.find("a")
            assert link is not None and link.attrs["title"] == iri, (name, iri)
            if iri.startswith(V.ID):
                assert link.attrs["href"] == "/page/" + iri.removeprefix(V.ID)
                assert link.text == _store_name(seeds_index, iri), iri
                continue
            assert link.attrs["href"] == iri
            if iri in labels:
                assert link.text == labels[iri]
            elif iri.startswith(V.UNIT):
                assert link.text == "unit:" + iri.removeprefix(V.UNIT)
            elif any(iri.startswith(ns) for ns in namespaces):  # a prefixed name
                prefix, local = link.text.split(":", 1)
                assert link.text != iri and iri.endswith(local) and prefix, iri
            else:  # a web page's address
                assert link.text == iri
