"""The Papers with Code API parser: the real API responses figure by figure, responses it refuses,
and which files it claims."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import run_cli

from ingest import pwc_api
from ingest.records import MethodRecord, Page, PageError, PageWarning, PaperRef

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared"
DATA = SHARED / "data"
API = DATA / "pwc" / "api"
SEEDS = SHARED / "seeds"
OWN = REPO / "tests" / "data" / "pwc-api"


def sample(name: str) -> Path:
    found = API / name
    if not found.is_file():
        pytest.skip("the third-party samples (../shared/data) are not beside this checkout")
    return found


def parse_file(path: Path) -> Page:
    return pwc_api.parse(path.read_bytes(), path.name)


def loaded(name: str) -> Any:
    return json.loads(sample(name).read_text(encoding="utf-8"))


def refused(document: object | bytes, origin: str = "response.json") -> PageError:
    """Parse ``document`` (JSON-encoded unless bytes), expect a PageError naming ``origin``."""
    data = document if isinstance(document, bytes) else json.dumps(document).encode("utf-8")
    with pytest.raises(PageError) as caught:
        pwc_api.parse(data, origin)
    assert caught.value.origin == origin
    return caught.value


def parsed(document: object, origin: str = "response.json") -> Page:
    return pwc_api.parse(json.dumps(document).encode("utf-8"), origin)


# --- a paper -----------------------------------------------------------------------------------


def test_a_paper_is_a_paper_reference_with_its_abstract_page_and_arxiv_id() -> None:
    path = sample("paper_get_response.json")
    page = parse_file(path)
    assert page.papers == (
        PaperRef(
            url="https://arxiv.org/abs/1406.2661v1",
            title="Generative Adversarial Networks",
            date="2014-06-10",
            arxiv_id="1406.2661",
        ),
    )
    assert page.papers[0].source_id is None  # the slug is no sota2 paper ID
    assert page.key == "pwc-api/paper/generative-adversarial-networks"
    assert page.title == "Generative Adversarial Networks"
    assert page.format == "pwc-api"
    assert page.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_document_of_papers_names_no_benchmark_metric_or_result() -> None:
    page = parse_file(sample("paper_get_response.json"))
    assert page.benchmark is None
    assert page.metrics == ()
    assert page.results == ()
    assert page.primary_metric is None
    assert page.declared_count == 0
    assert page.total_count is None  # it has no result rows
    assert page.url is None  # url_abs is the paper's page, not the response's
    assert page.data_updated is None
    assert page.publisher == "Papers with Code"  # whose API answers in this format
    assert page.methods == ()
    assert page.warnings == ()


def test_arxiv_id_drops_a_version_and_comes_from_an_arxiv_url_when_the_field_is_null() -> None:
    page = parse_file(OWN / "paper-list-with-bad-rows.json")
    attention = page.papers[0]
    assert attention.title == "Attention Is All You Need"
    assert attention.arxiv_id == "1706.03762"  # arxiv_id null: from url_abs, version dropped
    assert attention.url == "https://arxiv.org/abs/1706.03762v5"  # as published
    document = loaded("paper_get_response.json")
    document["arxiv_id"] = "1406.2661v3"
    assert parsed(document).papers[0].arxiv_id == "1406.2661"


def test_a_paper_that_cannot_be_read_refuses_the_file() -> None:
    document = loaded("paper_get_response.json")
    document["published"] = "10 June 2014"
    error = refused(document)
    assert error.location == "published"
    assert "'10 June 2014' is not a YYYY-MM-DD date" in error.problem
    document = loaded("paper_get_response.json")
    document["title"] = ["Generative Adversarial Networks"]
    error = refused(document)
    assert (error.location, error.problem) == ("title", "title is a list, not text")
    document = loaded("paper_get_response.json")
    document["arxiv_id"] = "GAN-2014"
    assert refused(document).location == "arxiv_id"


# --- a list of papers ----------------------------------------------------------------------------


def test_a_list_of_papers_gives_every_paper_hand_picked_ones_as_published() -> None:
    page = parse_file(sample("paper_list_response.json"))
    assert len(page.papers) == 50
    assert page.warnings == ()
    hopfield = page.papers[0]
    assert hopfield.title == (
        "Neural networks and physical systems with emergent collective computational abilities"
    )
    assert hopfield.date == "1982-01-15"
    assert hopfield.arxiv_id is None  # neither the field nor the URL gives one
    assert hopfield.url == "https://www.pnas.org/content/79/8/2554"
    by_title = {paper.title: paper for paper in page.papers}
    theory = by_title["Theory and practice"]
    assert (theory.arxiv_id, theory.date) == ("cs/9301114", "1991-11-01")  # an old-style ID
    shor = by_title[
        "Polynomial-Time Algorithms for Prime Factorization and Discrete Logarithms on a "
        "Quantum Computer"
    ]
    assert (shor.arxiv_id, shor.date) == ("quant-ph/9508027", "1995-08-30")
    assert page.papers[-1].title.startswith("A Line of Sight Approach to Cosmic Microwave")
    assert page.papers[-1].arxiv_id == "astro-ph/9603033"


def test_a_list_of_papers_is_named_by_its_first_paper_and_its_next_link_is_not_its_url() -> None:
    page = parse_file(sample("paper_list_response.json"))
    assert page.key == "pwc-api/papers/neural-networks-and-physical-systems-with"
    assert page.url is None
    assert page.title == "Papers with Code API: 50 papers (of 761618)"
    assert (page.benchmark, page.results, page.declared_count) == (None, (), 0)


def test_a_newer_capture_of_the_same_list_page_keeps_its_key() -> None:
    document = loaded("paper_list_response.json")
    first = parsed(document)
    document["count"] = 800000
    document["results"][-1]["title"] = "A retitled paper"
    document["results"].append(dict(document["results"][-1], id="a-newer-paper"))
    document["results"].pop(1)
    newer = parsed(document)
    assert newer.key == first.key
    assert newer.sha256 != first.sha256


def test_a_slug_cannot_add_a_level_to_the_key() -> None:
    document = loaded("paper_get_response.json")
    document["id"] = "a/b"
    assert parsed(document).key == "pwc-api/paper/a%2Fb"


def test_a_list_item_that_cannot_be_read_is_skipped_with_a_warning_naming_its_path() -> None:
    path = OWN / "paper-list-with-bad-rows.json"
    page = parse_file(path)
    assert [paper.title for paper in page.papers] == [
        "Attention Is All You Need",
        "Batch Normalization: Accelerating Deep Network Training by Reducing Internal "
        "Covariate Shift",
    ]
    assert page.warnings == (
        PageWarning(
            path.name,
            "results[1].published",
            "skipped: '2015-13-10' is not a YYYY-MM-DD date",
        ),
        PageWarning(
            path.name,
            "results[2]",
            "skipped: the item is the text 'bert-pre-training-of-deep-bidirectional', "
            "not an object",
        ),
        PageWarning(path.name, "results[3].title", "skipped: no title"),
    )
    assert page.papers[1].arxiv_id == "1502.03167"
    assert page.key == "pwc-api/papers/attention-is-all-you-need"


def test_a_list_none_of_whose_items_can_be_read_is_refused() -> None:
    document = loaded("paper_list_response.json")
    for item in document["results"]:
        item["title"] = ""
    error = refused(document)
    assert error.location == "results[0].title"
    assert error.problem == "none of the 50 items can be read; the first: skipped: title is blank"


# --- methods -------------------------------------------------------------------------------------


def test_a_method_list_gives_each_method_and_its_introducing_paper_as_origin() -> None:
    page = parse_file(sample("paper_method_list_response.json"))
    gan, convolution = page.methods
    assert gan == MethodRecord(
        name="GAN",
        full_name="Generative Adversarial Network",
        origin=PaperRef(url="https://paperswithcode.com/paper/generative-adversarial-networks"),
    )
    assert convolution == MethodRecord(name="Convolution", full_name="Convolution", origin=None)
    assert page.key == "pwc-api/methods/gan"
    assert page.title == "Papers with Code API: 2 methods"
    assert (page.papers, page.results, page.benchmark, page.declared_count) == ((), (), None, 0)
    assert page.warnings == ()


def test_a_method_with_no_name_is_skipped() -> None:
    document = loaded("paper_method_list_response.json")
    document["results"][1]["name"] = None
    page = parsed(document)
    assert [method.name for method in page.methods] == ["GAN"]
    assert page.warnings == (PageWarning("response.json", "results[1].name", "skipped: no name"),)


# --- results and tasks: nothing that can be recorded ---------------------------------------------


def test_a_papers_results_are_refused_as_they_name_no_task_or_dataset() -> None:
    path = sample("paper_result_list.json")
    with pytest.raises(PageError) as caught:
        parse_file(path)
    error = caught.value
    assert (error.origin, error.location) == ("paper_result_list.json", "results")
    assert error.problem == (
        "a list of 2 results of paper 'hierarchical-multi-scale-attention-for' names no task "
        "and no dataset, so none of them has a benchmark to be recorded on"
    )
    assert "/api/v1/evaluations/<id>/" in error.hint  # where the task and dataset are
    assert "evaluation-tables.json" in error.hint and "pwc-tables" in error.hint


def test_a_task_list_is_refused_as_a_task_is_recorded_only_in_a_benchmark() -> None:
    error = pwc_api_refusal(OWN / "task-list.json")
    assert error.location == "results"
    assert error.problem == (
        "a list of tasks ('Image Generation', 'Semantic Segmentation') names tasks alone, and "
        "a task is recorded only as part of a benchmark (a task and a dataset)"
    )
    assert "evaluation-tables.json" in error.hint


def test_an_empty_list_is_refused_as_it_has_nothing_to_load() -> None:
    error = pwc_api_refusal(sample("paper_task_list_response.json"))
    assert error.location == "results"
    assert error.problem == "the list is empty (count 0): it names no paper, method or result"
    assert "leave the file out" in error.hint


def pwc_api_refusal(path: Path) -> PageError:
    with pytest.raises(PageError) as caught:
        parse_file(path)
    assert caught.value.origin == path.name
    return caught.value


# --- broken envelopes and broken files -----------------------------------------------------------


def test_an_envelope_whose_results_is_not_a_list_is_refused_with_its_path() -> None:
    document = loaded("paper_method_list_response.json")
    document["results"] = {"gan": document["results"][0]}
    assert pwc_api.sniff(json.dumps(document))  # claimed, so that the refusal says where
    error = refused(document)
    assert error.location == "results"
    assert error.problem == "the list's results is a mapping, not a list"


def test_a_one_page_list_whose_count_disagrees_with_its_items_is_refused() -> None:
    document = loaded("paper_method_list_response.json")
    document["count"] = 3
    error = refused(document)
    assert error.location == "count"
    assert error.problem == (
        "count declares 3 items in all but the response lists 2 and has no other page"
    )
    assert error.hint == "the response may be truncated or edited"
    document["count"] = "2"
    assert refused(document).problem == "count is the text '2', not a number of items"


def test_a_truncated_response_is_claimed_and_refused_at_its_line_and_column() -> None:
    text = sample("paper_method_list_response.json").read_text(encoding="utf-8")
    cut = text[: text.index('"name": "Convolution"')]
    assert pwc_api.sniff(cut)
    error = refused(cut.encode("utf-8"))
    assert error.location.startswith("line ") and ", column " in error.location
    assert error.problem.startswith("not valid JSON")


def test_bytes_that_are_not_utf8_are_refused_at_their_offset() -> None:
    data = sample("paper_get_response.json").read_bytes().replace(b"Goodfellow", b"Goodf\xe9llow")
    error = refused(data)
    assert error.location == "byte {}".format(data.index(b"\xe9"))
    assert error.problem == "not UTF-8 text"


def test_an_object_that_is_neither_a_list_nor_a_paper_is_refused() -> None:
    error = refused({"id": "gan", "name": "GAN"})
    assert error.problem.startswith("not a Papers with Code API response")


# --- sniff ---------------------------------------------------------------------------------------


def every_sample() -> list[Path]:
    return sorted(path for path in DATA.rglob("*") if path.is_file())


def test_sniff_claims_every_api_response_and_no_other_sample_file_or_seed_page() -> None:
    samples = every_sample()
    if not samples or not SEEDS.is_dir():
        pytest.skip("the third-party samples and seeds (../shared) are not beside this checkout")
    files = samples + sorted(SEEDS.iterdir()) + sorted((REPO / "examples").rglob("*.*"))
    claimed = {
        path.resolve()
        for path in files
        if path.is_file() and pwc_api.sniff(path.read_bytes().decode("utf-8-sig", errors="replace"))
    }
    assert claimed == {path.resolve() for path in API.glob("*.json")}
    assert len(claimed) == 5
    assert len(samples) > 50  # the other formats' files were looked at too


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "[]",
        '{"count": 1, "next": null, "previous": null, "results": [{"id": 1, "label": "x"}]}',
        '{"count": 1, "next": 3, "previous": null, "results": []}',
        '{"model-index": [{"name": "x", "results": []}]}',
        "\ufeff# Image Classification on ImageNet\n",
    ],
)
def test_sniff_declines_what_is_no_api_response(text: str) -> None:
    assert not pwc_api.sniff(text)


# --- end to end: ingested through the CLI, asked with the named queries ------------------------


def bindings(done: subprocess.CompletedProcess[str]) -> list[dict[str, str]]:
    """The rows of a ``--format json`` answer, each variable's value as text."""
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["results"]["bindings"]
    return [{name: term["value"] for name, term in row.items()} for row in rows]


@pytest.fixture(scope="module")
def papers_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding the paper and the list of papers, ingested through the CLI."""
    store = tmp_path_factory.mktemp("pwc-api") / "store"
    files = [sample("paper_get_response.json"), sample("paper_list_response.json")]
    done = run_cli("ingest", *map(str, files), store=store)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 loaded, 0 unchanged, 0 refused" in done.stdout + done.stderr
    return store


def test_ingested_papers_are_listed_with_title_url_and_date(papers_store: Path) -> None:
    rows = bindings(run_cli("query", "papers", "--format", "json", store=papers_store))
    by_title = {row["title"]: row for row in rows}
    assert len(by_title) == 51
    gan = by_title["Generative Adversarial Networks"]
    assert (gan["url"], gan["date"]) == ("https://arxiv.org/abs/1406.2661v1", "2014-06-10")
    annealing = by_title["Optimization by Simulated Annealing"]
    assert annealing["url"] == "https://science.sciencemag.org/content/220/4598/671"
    assert annealing["date"] == "1983-05-13"
    assert all(row["results"] == "0" for row in rows)


def test_ingested_papers_keep_their_arxiv_ids(papers_store: Path, tmp_path: Path) -> None:
    rq = tmp_path / "arxiv.rq"
    rq.write_text(
        "PREFIX bg: <https://w3id.org/benchgraph/ns#>\n"
        "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
        "SELECT ?title ?arxiv WHERE { ?paper bg:arxivId ?arxiv ; rdfs:label ?title }\n",
        encoding="utf-8",
    )
    rows = bindings(run_cli("query", str(rq), "--format", "json", store=papers_store))
    arxiv = {row["title"]: row["arxiv"] for row in rows}
    assert arxiv["Generative Adversarial Networks"] == "1406.2661"
    assert arxiv["Theory and practice"] == "cs/9301114"
    assert "Optimization by Simulated Annealing" not in arxiv  # it has no arXiv ID


def test_results_and_tasks_are_refused_by_the_cli_and_change_nothing(tmp_path: Path) -> None:
    store = tmp_path / "store"
    files = [sample("paper_result_list.json"), OWN / "task-list.json"]
    done = run_cli("ingest", *map(str, files), store=store)
    assert done.returncode == 1
    said = done.stdout + done.stderr
    assert "0 loaded, 0 unchanged, 2 refused" in said
    assert f"{files[0]}: results: a list of 2 results" in said
    assert "names no task and no dataset" in said and "evaluation-tables.json" in said
    assert f"{files[1]}: results: a list of tasks" in said


def test_ingested_methods_are_described_with_their_full_names(tmp_path: Path) -> None:
    document = loaded("paper_method_list_response.json")
    document["results"] = document["results"][1:]  # Convolution, which names no paper
    document["count"] = 1
    response = tmp_path / "methods.json"
    response.write_text(json.dumps(document), encoding="utf-8")
    store = tmp_path / "store"
    done = run_cli("ingest", str(response), store=store)
    assert done.returncode == 0, done.stdout + done.stderr
    rq = tmp_path / "methods.rq"
    rq.write_text(
        "PREFIX bg: <https://w3id.org/benchgraph/ns#>\n"
        "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
        "SELECT ?label ?origin WHERE { ?method a bg:Method ; rdfs:label ?label "
        "OPTIONAL { ?method bg:introducedIn ?origin } }\n",
        encoding="utf-8",
    )
    assert bindings(run_cli("query", str(rq), "--format", "json", store=store)) == [
        {"label": "Convolution"}
    ]


def test_a_listed_methods_origin_paper_is_found_by_methods_introduced_by_paper(
    tmp_path: Path,
) -> None:
    store = tmp_path / "store"
    done = run_cli("ingest", str(sample("paper_method_list_response.json")), store=store)
    assert done.returncode == 0, done.stdout + done.stderr
    rq = tmp_path / "paper.rq"
    rq.write_text(
        "PREFIX schema: <https://schema.org/>\n"
        "SELECT ?paper WHERE { ?paper schema:url "
        "<https://paperswithcode.com/paper/generative-adversarial-networks> }\n",
        encoding="utf-8",
    )
    (found,) = bindings(run_cli("query", str(rq), "--format", "json", store=store))
    paper = found["paper"]
    rows = bindings(
        run_cli(
            "query",
            "methods-introduced-by-paper",
            "--param",
            f"paper={paper}",
            "--format",
            "json",
            store=store,
        )
    )
    assert [(row["paper"], row["label"]) for row in rows] == [(paper, "GAN")]
