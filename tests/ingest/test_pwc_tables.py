"""The Papers with Code evaluation-tables parser: figures picked by hand from the real sample
files, every sample parsed or refused, small files of our own that it must refuse, and sniffing
against every sample of every format."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from support import run_cli

from ingest import loader, pwc_tables
from ingest.records import (
    Benchmark,
    MetricDecl,
    Page,
    PageError,
    PaperRef,
    ResultRecord,
    Setting,
    Spread,
)

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared"
DATA = SHARED / "data"
SAMPLES = DATA / "pwc" / "sota-extractor"
OWN = REPO / "tests" / "data" / "pwc-tables"
# What each sample file gives: (results, warnings, rows in the file).
LOADED = {
    "chexpert.json": (350, 0, 175),
    "cmrc.json": (202, 0, 54),
    "coqa.json": (129, 0, 43),
    "eff.json": (1714, 0, 1714),
    "hotpotqa.json": (396, 5, 71),
    "nlp-progress.json": (1105, 113, 559),
    "ogb.json": (717, 15, 244),
    "record.json": (24, 0, 12),
    "redditsota.json": (28, 46, 32),
    "snli.json": (188, 4, 64),
    "squad.json": (772, 68, 451),
}


def sample(name: str) -> Path:
    found = SAMPLES / name
    if not found.is_file():
        pytest.skip("the sample files (../shared/data/pwc) are not beside this checkout")
    return found


def parsed(name: str) -> Page:
    return pwc_tables.parse(sample(name).read_bytes(), name)


def result(page: Page, location: str) -> ResultRecord:
    (found,) = [r for r in page.results if r.location == location]
    return found


def refused(document: object | str, origin: str = "tables.json") -> PageError:
    text = document if isinstance(document, str) else json.dumps(document)
    with pytest.raises(PageError) as caught:
        pwc_tables.parse(text.encode("utf-8"), origin)
    assert caught.value.origin == origin
    return caught.value


def task(**fields: object) -> dict[str, object]:
    """A one-table task, with ``fields`` replacing its own."""
    row = {"model_name": "M", "paper_title": "P", "paper_url": "", "metrics": {"EM": "1.0"}}
    table = {"dataset": "D", "sota": {"metrics": ["EM"], "rows": [row]}}
    return {"task": "T", "datasets": [table], "subtasks": []} | fields


# Figures, as the files publish them.


def test_squad_em_as_published_with_its_date_and_configuration() -> None:
    page = parsed("squad.json")
    em = result(page, '[0].datasets[0].sota.rows[0].metrics["EM"]')
    assert (em.method, em.metric, em.value, em.cell) == ("FPNet (ensemble)", "EM", "90.871", None)
    assert em.benchmark == Benchmark("Question Answering", "SQuAD2.0", None)
    # No paper: the number is this file's, dated by the row.
    assert em.reported_in.kind == "document"
    assert em.reported_in.title == "Papers with Code evaluation tables: Question Answering"
    assert em.result_date == "2021-02-21"
    assert em.configuration.settings == (Setting("uses additional data", "false"),)
    assert em.origin is None
    decl = page.metric("EM", em.benchmark)
    assert (decl.unit, decl.direction, decl.direction_inferred) == (None, "higher", True)


def test_squad_arxiv_paper() -> None:
    f1 = result(parsed("squad.json"), '[0].datasets[0].sota.rows[3].metrics["F1"]')
    assert (f1.method, f1.value) == ("Retro-Reader (ensemble)", "92.978")
    paper = f1.reported_in
    assert (paper.kind, paper.url, paper.arxiv_id) == (
        "paper",
        "http://arxiv.org/abs/2001.09694",
        "2001.09694",
    )
    assert (paper.date, f1.result_date) == ("2020-04-05", None)


def test_ogb_value_with_a_spread_and_the_split_in_the_metric_name() -> None:
    page = parsed("ogb.json")
    where = '[0].datasets[0].sota.rows[0].metrics["Test Accuracy"]'
    acc = result(page, where)
    assert (acc.method, acc.value, acc.cell) == ("SAGN+SLE", "0.8428", "0.8428 ± 0.0014")
    assert acc.spread == Spread("0.0014", "not stated", "0.8428 ± 0.0014")
    assert acc.benchmark == Benchmark("Node Property Prediction", "ogbn-products", "test")
    assert acc.code_links == ("https://github.com/skepsun/SAGN_with_SLE",)
    assert acc.reported_in.arxiv_id == "2104.09376"
    assert acc.reported_in.title is None
    assert acc.source_id == f"{page.key}/{where}"
    # The count of parameters names no split and no direction.
    params = result(page, '[0].datasets[0].sota.rows[0].metrics["Number of params"]')
    assert (params.value, params.benchmark.split) == ("2179678", None)
    decl = page.metric("Number of params", params.benchmark)
    assert (decl.unit, decl.direction) == (None, None)


def test_ogb_cell_that_is_no_number_is_skipped_with_a_warning() -> None:
    page = parsed("ogb.json")
    where = '[0].datasets[0].sota.rows[13].metrics["Validation Accuracy"]'
    assert [str(w) for w in page.warnings if w.location == where] == [
        f"ogb.json: {where}: not a single value, skipped: 'Please tell us' is not a number "
        "(the row's other metrics are loaded)"
    ]
    assert not [r for r in page.results if r.location == where]
    assert result(page, '[0].datasets[0].sota.rows[13].metrics["Test Accuracy"]').value


def test_redditsota_spreads_percentages_and_lower_is_better() -> None:
    page = parsed("redditsota.json")
    mnist = result(page, '[6].datasets[0].sota.rows[0].metrics["Test Error"]')
    assert (mnist.value, mnist.cell, mnist.spread) == (
        "0.25",
        "0.25±0.005",
        Spread("0.005", "not stated", "0.25±0.005"),
    )
    assert mnist.benchmark == Benchmark("Classification", "MNIST", "test")
    # The row names no model: its paper's title names the method, and a warning says so.
    assert mnist.method == "Dynamic Routing Between Capsules"
    assert mnist.reported_in.arxiv_id == "1710.09829"  # from arxiv.org/pdf/1710.09829.pdf
    assert len(mnist.code_links) == 6
    assert mnist.configuration.settings == ()  # the file has no uses_additional_data
    cifar = result(page, '[6].datasets[2].sota.rows[0].metrics["Test Error"]')
    assert (cifar.value, cifar.cell) == ("2.31", "2.31%")
    assert page.metric("Test Error", cifar.benchmark) == MetricDecl(
        "Test Error", "%", "lower", direction_inferred=True, benchmark=cifar.benchmark
    )
    # MNIST's errors carry no percent sign: no unit is guessed for them.
    assert page.metric("Test Error", mnist.benchmark).unit is None
    several = '[1].datasets[0].sota.rows[0].metrics["BLEU"]'
    assert [w.problem for w in page.warnings if w.location == several] == [
        "not a single value, skipped: '(32.76 32.07 26.26 22.74)': several values in one cell"
    ]


def test_snli_scaled_counts_missing_cells_and_percent_in_the_name() -> None:
    page = parsed("snli.json")
    small = result(page, '[0].datasets[0].sota.rows[2].metrics["Parameters"]')
    assert (small.method, small.value, small.cell) == ("100D LSTM encoders", "220000", "220k")
    large = result(page, '[0].datasets[0].sota.rows[3].metrics["Parameters"]')
    assert (large.value, large.cell) == ("3000000", "3.0m")
    test = result(page, '[0].datasets[0].sota.rows[0].metrics["% Test Accuracy"]')
    assert (test.value, test.benchmark.split) == ("50.4", "test")
    assert page.metric("% Test Accuracy", test.benchmark).unit == "%"
    train = result(page, '[0].datasets[0].sota.rows[0].metrics["% Train Accuracy"]')
    assert train.benchmark == Benchmark("Natural Language Inference", "SNLI", "train")
    assert [(w.location, w.problem) for w in page.warnings][2:] == [
        (
            '[0].datasets[0].sota.rows[16].metrics["% Train Accuracy"]',
            "not a single value, skipped: no value ('–')",
        ),
        (
            '[0].datasets[0].sota.rows[16].metrics["Parameters"]',
            "not a single value, skipped: no value ('–')",
        ),
    ]


def test_eff_json_numbers_kept_as_written() -> None:
    page = parsed("eff.json")
    first = result(page, '[0].datasets[0].sota.rows[0].metrics["Percentage correct"]')
    assert (first.method, first.value, first.cell) == ("Ghosal et al.", "17.3", None)
    assert first.reported_in.date is None
    bleu = result(page, '[24].datasets[0].sota.rows[10].metrics["BLEU score"]')
    assert (bleu.method, bleu.value, bleu.reported_in.arxiv_id) == (
        "Transformer (big)",
        "41",  # a JSON integer
        "1706.03762",
    )
    # "Percentage" in a name states the unit; the metric-name table gives the direction.
    error = next(m for m in page.metrics if m.name == "Percentage error")
    assert (error.unit, error.direction, error.direction_inferred) == ("%", "lower", True)


def test_nlp_progress_subtasks_and_subdatasets() -> None:
    page = parsed("nlp-progress.json")
    where = '[2].subtasks[0].datasets[0].subdatasets[1].sota.rows[0].metrics["MAP"]'
    found = result(page, where)
    assert (found.method, found.value) == ("CRIM (2018)", "34.05")
    assert found.benchmark == Benchmark("Hypernym Discovery", "SemEval 2018", "Medical domain")
    assert found.table == "Hypernym Discovery on SemEval 2018 (Medical domain)"
    assert ("Hypernym Discovery", "Taxonomy Learning") in page.task_parents
    assert ("Dialogue Act Classification", "Dialogue") in page.task_parents
    dash = '[0].datasets[1].sota.rows[1].metrics["Test"]'
    assert [w.problem for w in page.warnings if w.location == dash] == [
        "not a single value, skipped: no value ('-')"
    ]


def test_chexpert_trailing_zeros_and_a_paper_titled_by_its_url() -> None:
    page = parsed("chexpert.json")
    auc = result(page, '[0].datasets[0].sota.rows[0].metrics["AVERAGE AUC ON 14 LABEL"]')
    assert (auc.method, auc.value) == ("DeepAUC-v1", "0.930")
    assert auc.reported_in.title == "https://arxiv.org/abs/2012.03173"  # as published
    assert (auc.reported_in.arxiv_id, auc.reported_in.date) == ("2012.03173", "2020-08-31")
    rads = result(page, '[0].datasets[0].sota.rows[0].metrics["NUM RADS BELOW CURVE"]')
    assert rads.value == "2.800"
    decl = page.metric("NUM RADS BELOW CURVE")
    assert (decl.unit, decl.direction, decl.direction_inferred) == (None, None, False)


# The page as a whole.


def test_page_fields() -> None:
    name = "ogb.json"
    data = sample(name).read_bytes()
    page = pwc_tables.parse(data, name)
    assert page.format == "pwc-tables" and page.origin == name
    assert page.key.startswith(
        "pwc-tables/graph-property-prediction+link-property-prediction+node-property-prediction/"
    )
    assert page.title == (
        "Papers with Code evaluation tables: Node Property Prediction, Link Property "
        "Prediction, Graph Property Prediction"
    )
    assert (page.url, page.data_updated) == (None, None)
    assert page.benchmark == Benchmark("Node Property Prediction", "ogbn-products", "test")
    assert page.primary_metric == "Test Accuracy"
    assert all(m.benchmark is not None for m in page.metrics)
    assert all(r.benchmark is not None and r.origin is None for r in page.results)
    assert (page.declared_count, page.total_count) == (len(page.results), 244)
    assert page.sha256 == hashlib.sha256(data).hexdigest()
    assert len({(m.benchmark, m.name) for m in page.metrics}) == len(page.metrics)


def test_key_is_the_content_not_the_file_name() -> None:
    data = sample("squad.json").read_bytes()
    assert pwc_tables.parse(data, "a.json").key == pwc_tables.parse(data, "b/c.json").key
    # Three files on one task are three documents.
    keys = {parsed(name).key for name in ("squad.json", "coqa.json", "hotpotqa.json")}
    assert len(keys) == 3
    assert parsed("squad.json").key == "pwc-tables/question-answering/squad1-1+squad2-0"
    # A newer version (another row, tasks in another order) keeps the key.
    document = [task(task="B"), task(task="A")]
    newer = [task(task="A"), task(task="B")]
    newer[0]["datasets"][0]["sota"]["rows"].append({"model_name": "N", "metrics": {"EM": 2}})  # type: ignore[index]
    first = pwc_tables.parse(json.dumps(document).encode(), "x")
    second = pwc_tables.parse(json.dumps(newer).encode(), "x")
    assert first.key == second.key == "pwc-tables/a+b/d"


def test_long_key_names_its_first_task_a_count_and_a_digest() -> None:
    key = parsed("eff.json").key
    tasks, datasets = key.removeprefix("pwc-tables/").split("/")
    assert tasks.startswith("abstract-games-with-hints+54-more-") and len(tasks) < 60
    assert datasets.startswith("atari-2600-alien+106-more-")


@pytest.mark.parametrize("name", sorted(LOADED))
def test_every_sample_file_loads(name: str) -> None:
    page = parsed(name)
    assert (len(page.results), len(page.warnings), page.total_count) == LOADED[name]
    assert all(w.origin == name and w.location.startswith("[") for w in page.warnings)


# Refused: the file, the place, the problem.


def test_example_with_a_trailing_comma_is_refused_with_line_and_column() -> None:
    name = "example_json_format.json"
    path = sample(name)
    assert pwc_tables.sniff(path.read_text(encoding="utf-8"))
    with pytest.raises(PageError) as caught:
        loader.read_page(path.read_bytes(), name)
    assert str(caught.value) == (
        "example_json_format.json: line 27, column 13: not valid JSON: Expecting property name "
        "enclosed in double quotes (a trailing comma at line 26, column 24: JSON allows no "
        "comma after the last item of an object or list; remove it)"
    )


def test_other_syntax_error_has_no_comma_hint() -> None:
    error = refused('[{"task": "T", "datasets": [}]')
    assert (error.location, error.hint) == ("line 1, column 29", "")
    assert error.problem.startswith("not valid JSON: ")


@pytest.mark.parametrize(
    ("document", "location", "problem"),
    [
        (
            {"task": "T", "datasets": []},
            "top level",
            "the file holds a mapping, not a list of tasks",
        ),
        ([{"datasets": []}], "[0]", 'no "task" name'),
        ([task(), {"task": "", "datasets": []}], "[1]", 'an empty "task" name'),
        (
            [task(subtasks=[{"task": 3}])],
            "[0].subtasks[0]",
            'the "task" name is the number 3, not text',
        ),
        ([task(datasets={"dataset": "D"})], "[0].datasets", "a mapping, not a list"),
        ([task(subtasks="none")], "[0].subtasks", "the text 'none', not a list"),
        ([task(datasets=["D"])], "[0].datasets[0]", "a dataset is the text 'D', not an object"),
        ([task(datasets=[{"sota": {}}])], "[0].datasets[0]", 'no "dataset" name'),
        (
            [task(datasets=[{"dataset": "D", "subdatasets": [{"sota": {}}]}])],
            "[0].datasets[0].subdatasets[0]",
            'no "subdataset" name',
        ),
        (
            [task(datasets=[{"dataset": "D", "sota": []}])],
            "[0].datasets[0].sota",
            "an empty list, not an object",
        ),
        (
            [task(datasets=[{"dataset": "D", "sota": {"metrics": "EM"}}])],
            "[0].datasets[0].sota.metrics",
            "the text 'EM', not a list",
        ),
        (
            [task(datasets=[{"dataset": "D", "sota": {"metrics": ["EM", None]}}])],
            "[0].datasets[0].sota.metrics[1]",
            "a metric name is null, not a name",
        ),
        (
            [task(datasets=[{"dataset": "D", "sota": {"metrics": ["EM"], "rows": {}}}])],
            "[0].datasets[0].sota.rows",
            "a mapping, not a list",
        ),
        (
            [task(datasets=[{"dataset": "D", "sota": {}}])],
            "",
            "the file holds no evaluation table (no dataset has a sota table with metrics)",
        ),
    ],
)
def test_structure_errors_are_refused_with_their_path(
    document: object, location: str, problem: str
) -> None:
    error = refused(document)
    assert (error.location, error.problem) == (location, problem)
    assert error.hint


def test_not_utf8_is_refused() -> None:
    with pytest.raises(PageError) as caught:
        pwc_tables.parse(b'[{"task": "\xff"}]', "t.json")
    assert (caught.value.location, caught.value.problem) == ("byte 11", "not UTF-8 text")


# Rows and cells skipped, with their warnings; the rest of the file loads.


def test_unreadable_rows_are_skipped_and_reported_in_file_order() -> None:
    rows = [
        "not a row",
        {"model_name": "A", "metrics": ["EM"]},
        {"model_name": "", "paper_title": "", "metrics": {"EM": "1"}},
        {"model_name": "B", "metrics": {"EM": True, "F1": "2.5", "X%": "3"}, "code_links": [{}]},
        {
            "model_name": "C",
            "metrics": {"EM": 4},
            "uses_additional_data": "yes",
            "paper_date": "2020",
        },
    ]
    document = [task(datasets=[{"dataset": "D", "sota": {"metrics": ["F1", "EM"], "rows": rows}}])]
    page = pwc_tables.parse(json.dumps(document).encode(), "t.json")
    assert [(w.location, w.problem) for w in page.warnings] == [
        (
            "[0].datasets[0].sota.rows[0]",
            "the row is the text 'not a row', not an object; the row is skipped",
        ),
        (
            "[0].datasets[0].sota.rows[1]",
            'the row\'s "metrics" is a list, not an object; the row is skipped',
        ),
        (
            "[0].datasets[0].sota.rows[2]",
            'the row names no method (no "model_name" and no "paper_title"); the row is skipped',
        ),
        (
            '[0].datasets[0].sota.rows[3].metrics["EM"]',
            "not a single value, skipped: true is not a number",
        ),
        ("[0].datasets[0].sota.rows[3].code_links[0]", "a code link with no URL: not kept"),
        ("[0].datasets[0].sota.rows[4].paper_date", "'2020' is not a YYYY-MM-DD date: not kept"),
        (
            "[0].datasets[0].sota.rows[4].uses_additional_data",
            "the text 'yes', not true or false",
        ),
    ]
    assert [(r.method, r.metric, r.value) for r in page.results] == [
        ("B", "F1", "2.5"),
        ("B", "X%", "3"),
        ("C", "EM", "4"),
    ]
    # Columns: the table's own, then the keys rows add; "X%" names its unit.
    assert [(m.name, m.unit) for m in page.metrics] == [("F1", None), ("EM", None), ("X%", "%")]
    assert (page.declared_count, page.total_count) == (3, 5)


def test_nested_subdatasets_join_their_names() -> None:
    inner = {"subdataset": "Dev", "sota": {"metrics": ["Test Accuracy"], "rows": []}}
    outer = {"subdataset": "Restricted", "subdatasets": [inner]}
    document = [task(datasets=[{"dataset": "D", "subdatasets": [outer]}])]
    page = pwc_tables.parse(json.dumps(document).encode(), "t.json")
    # The subdatasets' names make the split (the metric's own "Test" does not replace them).
    assert page.benchmark == Benchmark("T", "D", "Restricted / Dev")


# Sniffing: this format's files, and no other's.


def _other_samples() -> list[Path]:
    found = [
        path
        for path in sorted(DATA.rglob("*"))
        if path.is_file() and path.parent != SAMPLES and path.suffix != ".md"
    ]
    found += sorted((SHARED / "seeds").glob("*.txt")) + sorted((REPO / "examples").iterdir())
    return [*found, SAMPLES / "synonyms.csv"]


def test_sniff_claims_every_sample_json_file() -> None:
    names = sorted(path.name for path in SAMPLES.glob("*.json"))
    if not names:
        pytest.skip("the sample files (../shared/data/pwc) are not beside this checkout")
    for name in names:
        text = (SAMPLES / name).read_text(encoding="utf-8")
        assert pwc_tables.sniff(text), name
        others = [p.FORMAT for p in loader.PARSERS if p is not pwc_tables and p.sniff(text)]
        assert others == [], name


def test_sniff_claims_no_other_file() -> None:
    others = _other_samples()
    if len(others) < 10:
        pytest.skip("the sample files (../shared/data) are not beside this checkout")
    for path in others:
        text = path.read_bytes().decode("utf-8", errors="replace")
        assert not pwc_tables.sniff(text), path


def test_synonyms_csv_is_no_page() -> None:
    path = sample("synonyms.csv")
    text = path.read_text(encoding="utf-8")
    assert [p.FORMAT for p in loader.PARSERS if p.sniff(text)] == []
    with pytest.raises(loader.NotAPage):
        loader.read_page(path.read_bytes(), "synonyms.csv")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[]",
        "[1, 2]",
        '{"count": 2, "next": null, "results": [{"task": "T", "datasets": []}]}',
        '[{"id": "x", "task": "T", "datasets": []}]',  # a task's keys, in another order
        '[{"task": "T", "dataset": "D"}]',  # an evaluation of the REST API, not a task
        '{"task": "T"',
        "# Title on Data\n",
    ],
)
def test_sniff_refuses_what_is_no_evaluation_table(text: str) -> None:
    assert not pwc_tables.sniff(text)


def test_sniff_claims_a_lone_task_object_and_broken_json_that_starts_like_one() -> None:
    assert pwc_tables.sniff('{"task": "T", "datasets": []}')
    assert pwc_tables.sniff('\ufeff[\n {"categories": [], "datasets": [],\n "task": "T",}]')


def test_json_nested_too_deeply_is_refused() -> None:
    text = '[{"task": "T", "datasets": ' + "[" * 100_000 + "]" * 100_000 + "}]"
    assert pwc_tables.sniff(text)
    error = refused(text)
    assert error.problem == "the JSON is nested too deeply to read"


# End to end: two files into an embedded store by the command line, and their leaderboards.


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    files = [sample("chexpert.json"), sample("ogb.json")]
    store = tmp_path_factory.mktemp("pwc") / "store"
    done = run_cli("ingest", "--store", str(store), *map(str, files))
    assert done.returncode == 0, done.stderr
    assert "2 loaded, 0 unchanged, 0 refused" in done.stdout + done.stderr
    # Each skipped cell is reported, naming the file and its place.
    assert (
        f'warning: {files[1]}: [0].datasets[0].sota.rows[13].metrics["Validation Accuracy"]: '
        "not a single value, skipped: 'Please tell us' is not a number"
    ) in done.stdout + done.stderr
    return store


def leaderboard(store: Path, benchmark: str, metric: str | None = None) -> list[dict[str, str]]:
    params = ["--param", f"benchmark={benchmark}"]
    if metric is not None:
        params += ["--param", f"metric={metric}"]
    done = run_cli("query", "leaderboard", *params, "--format", "json", "--store", str(store))
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["results"]["bindings"]
    return [{name: cell["value"] for name, cell in row.items()} for row in rows]


def test_leaderboard_of_an_ingested_file_shows_the_figure_as_published(ingested: Path) -> None:
    rows = leaderboard(ingested, "Multi-Label Classification on CheXpert")
    assert len(rows) == 175
    first = rows[0]
    assert (first["methodLabel"], first["value"], first["rank"]) == ("DeepAUC-v1", "0.930", "1")
    assert first["metricLabel"] == "AVERAGE AUC ON 14 LABEL"
    assert first["unit"].endswith("#NoUnitStated")
    assert first["direction"].endswith("#HigherIsBetter")  # inferred from "AUC"
    assert first["paper"].endswith("/paper/arxiv-2012.03173")  # its arXiv ID (its title is its URL)


def test_leaderboard_of_a_split_named_by_the_metric(ingested: Path) -> None:
    rows = leaderboard(
        ingested, "Node Property Prediction on ogbn-products (test)", "Test Accuracy"
    )
    best = rows[0]
    assert (best["methodLabel"], best["value"], best["rank"]) == ("SAGN+SLE", "0.8428", "1")
    assert best["cohort"] == "uses additional data=false"
    assert best["paper"].endswith("/paper/arxiv-2104.09376")  # named by its arXiv ID only


def test_squad_paper_url_that_is_no_url() -> None:
    page = parsed("squad.json")
    where = "[0].datasets[1].sota.rows[177]"
    assert [w.problem for w in page.warnings if w.location == f"{where}.paper_url"] == [
        "'(Singapore Management University) https://arxiv.org/abs/1608.07905' is not a URL: "
        "its title names the paper"
    ]
    paper = result(page, f'{where}.metrics["EM"]').reported_in
    assert (paper.url, paper.arxiv_id) == (None, "1608.07905")
    assert paper.title == "(Singapore Management University) https://arxiv.org/abs/1608.07905"


def test_links_that_are_no_urls_are_not_kept() -> None:
    links = [{"url": "../README.md"}, {"title": "NOT FOUND", "url": ""}, {"url": "https://g.it/x"}]
    row = {
        "model_name": "M",
        "paper_url": "https://arxiv.org/abs/1810.04805v2",
        "metrics": {"EM": 1},
    }
    document = [task(datasets=[{"dataset": "D", "sota": {"metrics": ["EM"], "rows": [row]}}])]
    document[0]["datasets"][0]["sota"]["rows"][0]["code_links"] = links  # type: ignore[index]
    page = pwc_tables.parse(json.dumps(document).encode(), "t.json")
    assert [(w.location, w.problem) for w in page.warnings] == [
        ("[0].datasets[0].sota.rows[0].code_links[0]", "'../README.md' is not a URL: not kept"),
        ("[0].datasets[0].sota.rows[0].code_links[1]", "a code link with no URL: not kept"),
    ]
    (found,) = page.results
    assert found.code_links == ("https://g.it/x",)
    # A paper named by its URL only is known by its arXiv ID (no version).
    assert found.reported_in == PaperRef(
        url="https://arxiv.org/abs/1810.04805v2", arxiv_id="1810.04805"
    )
    assert page.publisher == "Papers with Code"
