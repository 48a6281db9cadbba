"""The Papers with Code evaluation-tables parser: figures picked by hand from the real sample
files, every sample parsed or refused, one source per leaderboard (keys, content hashes, result
IDs), the stream and what it refuses whole or in part, small files of our own that it must
refuse, and sniffing against every sample of every format."""

from __future__ import annotations

import hashlib
import io
import json
from decimal import Decimal
from pathlib import Path

import pytest
from support import run_cli

from ingest import json_stream, pwc_tables, reading
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
# What each sample file gives: (leaderboards, results, warnings, rows in the file).
LOADED = {
    "chexpert.json": (1, 350, 0, 175),
    "cmrc.json": (2, 202, 0, 54),
    "coqa.json": (1, 129, 0, 43),
    "eff.json": (107, 1714, 0, 1714),
    "hotpotqa.json": (1, 396, 5, 71),
    "nlp-progress.json": (91, 1105, 113, 559),
    "ogb.json": (15, 717, 15, 244),
    "record.json": (1, 24, 0, 12),
    "redditsota.json": (15, 28, 46, 32),
    "snli.json": (1, 188, 4, 64),
    "squad.json": (2, 772, 68, 451),
}


def sample(name: str) -> Path:
    found = SAMPLES / name
    if not found.is_file():
        pytest.skip("the sample files (../shared/data/pwc) are not beside this checkout")
    return found


def parsed(name: str) -> list[Page]:
    return pwc_tables.parse(sample(name).read_bytes(), name)


def board(pages: list[Page], location: str) -> Page:
    """The leaderboard that holds the result at ``location``."""
    (found,) = [p for p in pages if any(r.location == location for r in p.results)]
    return found


def result(pages: list[Page], location: str) -> ResultRecord:
    (found,) = [r for p in pages for r in p.results if r.location == location]
    return found


def warnings(pages: list[Page]) -> list[tuple[str, str]]:
    return [(w.location, w.problem) for p in pages for w in p.warnings]


def refused(document: object | str, origin: str = "tables.json") -> PageError:
    text = document if isinstance(document, str) else json.dumps(document)
    with pytest.raises(PageError) as caught:
        pwc_tables.parse(text.encode("utf-8"), origin)
    assert caught.value.origin == origin
    return caught.value


def read(document: object, origin: str = "t.json") -> list[Page | PageError]:
    data = document if isinstance(document, bytes) else json.dumps(document).encode()
    return list(pwc_tables.read(io.BytesIO(data), origin))


def task(**fields: object) -> dict[str, object]:
    """A one-table task, with ``fields`` replacing its own."""
    row = {"model_name": "M", "paper_title": "P", "paper_url": "", "metrics": {"EM": "1.0"}}
    table = {"dataset": "D", "sota": {"metrics": ["EM"], "rows": [row]}}
    return {"task": "T", "datasets": [table], "subtasks": []} | fields


def tasks_of(name: str) -> list[object]:
    """The tasks of a sample file, fractions kept as their text (``"90.640"``), which the
    leaderboards' content hashes cannot tell from the file's numbers."""
    return json.loads(sample(name).read_bytes(), parse_float=str)


def hashes(pages: list[Page | PageError]) -> dict[str, str]:
    return {p.key: p.sha256 for p in pages if isinstance(p, Page)}


# Figures, as the files publish them.


def test_squad_em_as_published_with_its_date_and_configuration() -> None:
    pages = parsed("squad.json")
    em = result(pages, '[0].datasets[0].sota.rows[0].metrics["EM"]')
    assert (em.method, em.metric, em.value, em.cell) == ("FPNet (ensemble)", "EM", "90.871", None)
    assert em.benchmark == Benchmark("Question Answering", "SQuAD2.0", None)
    # No paper: the number is this leaderboard's, dated by the row.
    assert em.reported_in.kind == "document"
    assert em.reported_in.title == (
        "Papers with Code evaluation tables: Question Answering on SQuAD2.0"
    )
    assert em.result_date == "2021-02-21"
    assert em.configuration.settings == (Setting("uses additional data", "false"),)
    assert em.origin is None
    decl = board(pages, em.location).metric("EM", em.benchmark)
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
    pages = parsed("ogb.json")
    where = '[0].datasets[0].sota.rows[0].metrics["Test Accuracy"]'
    acc = result(pages, where)
    assert (acc.method, acc.value, acc.cell) == ("SAGN+SLE", "0.8428", "0.8428 ± 0.0014")
    assert acc.spread == Spread("0.0014", "not stated", "0.8428 ± 0.0014")
    assert acc.benchmark == Benchmark("Node Property Prediction", "ogbn-products", "test")
    assert acc.code_links == ("https://github.com/skepsun/SAGN_with_SLE",)
    assert acc.reported_in.arxiv_id == "2104.09376"
    assert acc.reported_in.title is None
    page = board(pages, where)
    assert page.key == "pwc-tables/node-property-prediction/ogbn-products"
    assert acc.source_id == f"{page.key}/sagn-sle/test-accuracy"
    # The count of parameters names no split and no direction.
    params = result(pages, '[0].datasets[0].sota.rows[0].metrics["Number of params"]')
    assert (params.value, params.benchmark.split) == ("2179678", None)
    decl = page.metric("Number of params", params.benchmark)
    assert (decl.unit, decl.direction) == (None, None)


def test_ogb_cell_that_is_no_number_is_skipped_with_a_warning() -> None:
    pages = parsed("ogb.json")
    where = '[0].datasets[0].sota.rows[13].metrics["Validation Accuracy"]'
    page = board(pages, '[0].datasets[0].sota.rows[13].metrics["Test Accuracy"]')
    # The warning is its leaderboard's, and the leaderboard loads.
    assert [str(w) for w in page.warnings if w.location == where] == [
        f"ogb.json: {where}: not a single value, skipped: 'Please tell us' is not a number "
        "(the row's other metrics are loaded)"
    ]
    assert not [r for r in page.results if r.location == where]
    assert all(w.location.startswith("[0].datasets[0].") for w in page.warnings)
    assert result(pages, '[0].datasets[0].sota.rows[13].metrics["Test Accuracy"]').value


def test_redditsota_spreads_percentages_and_lower_is_better() -> None:
    pages = parsed("redditsota.json")
    mnist = result(pages, '[6].datasets[0].sota.rows[0].metrics["Test Error"]')
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
    cifar = result(pages, '[6].datasets[2].sota.rows[0].metrics["Test Error"]')
    assert (cifar.value, cifar.cell) == ("2.31", "2.31%")
    assert board(pages, cifar.location).metric("Test Error", cifar.benchmark) == MetricDecl(
        "Test Error", "%", "lower", direction_inferred=True, benchmark=cifar.benchmark
    )
    # MNIST's errors carry no percent sign: no unit is guessed for them.
    assert board(pages, mnist.location).metric("Test Error", mnist.benchmark).unit is None
    several = '[1].datasets[0].sota.rows[0].metrics["BLEU"]'
    assert [problem for where, problem in warnings(pages) if where == several] == [
        "not a single value, skipped: '(32.76 32.07 26.26 22.74)': several values in one cell"
    ]


def test_snli_scaled_counts_missing_cells_and_percent_in_the_name() -> None:
    (page,) = pages = parsed("snli.json")
    small = result(pages, '[0].datasets[0].sota.rows[2].metrics["Parameters"]')
    assert (small.method, small.value, small.cell) == ("100D LSTM encoders", "220000", "220k")
    large = result(pages, '[0].datasets[0].sota.rows[3].metrics["Parameters"]')
    assert (large.value, large.cell) == ("3000000", "3.0m")
    test = result(pages, '[0].datasets[0].sota.rows[0].metrics["% Test Accuracy"]')
    assert (test.value, test.benchmark.split) == ("50.4", "test")
    assert page.metric("% Test Accuracy", test.benchmark).unit == "%"
    train = result(pages, '[0].datasets[0].sota.rows[0].metrics["% Train Accuracy"]')
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
    pages = parsed("eff.json")
    first = result(pages, '[0].datasets[0].sota.rows[0].metrics["Percentage correct"]')
    assert (first.method, first.value, first.cell) == ("Ghosal et al.", "17.3", None)
    assert first.reported_in.date is None
    bleu = result(pages, '[24].datasets[0].sota.rows[10].metrics["BLEU score"]')
    assert (bleu.method, bleu.value, bleu.reported_in.arxiv_id) == (
        "Transformer (big)",
        "41",  # a JSON integer
        "1706.03762",
    )
    # "Percentage" in a name states the unit; the metric-name table gives the direction.
    error = next(m for p in pages for m in p.metrics if m.name == "Percentage error")
    assert (error.unit, error.direction, error.direction_inferred) == ("%", "lower", True)


def test_nlp_progress_subtasks_and_subdatasets() -> None:
    pages = parsed("nlp-progress.json")
    where = '[2].subtasks[0].datasets[0].subdatasets[1].sota.rows[0].metrics["MAP"]'
    found = result(pages, where)
    assert (found.method, found.value) == ("CRIM (2018)", "34.05")
    assert found.benchmark == Benchmark("Hypernym Discovery", "SemEval 2018", "Medical domain")
    assert found.table == "Hypernym Discovery on SemEval 2018 (Medical domain)"
    # A subdataset is a leaderboard of its own; its task's parents are its chain only.
    page = board(pages, where)
    assert page.key == "pwc-tables/hypernym-discovery/semeval-2018/medical-domain"
    assert page.task_parents == (("Hypernym Discovery", "Taxonomy Learning"),)
    dash = '[0].datasets[1].sota.rows[1].metrics["Test"]'
    assert [problem for where, problem in warnings(pages) if where == dash] == [
        "not a single value, skipped: no value ('-')"
    ]


def test_chexpert_trailing_zeros_and_a_paper_titled_by_its_url() -> None:
    (page,) = pages = parsed("chexpert.json")
    auc = result(pages, '[0].datasets[0].sota.rows[0].metrics["AVERAGE AUC ON 14 LABEL"]')
    assert (auc.method, auc.value) == ("DeepAUC-v1", "0.930")
    assert auc.reported_in.title == "https://arxiv.org/abs/2012.03173"  # as published
    assert (auc.reported_in.arxiv_id, auc.reported_in.date) == ("2012.03173", "2020-08-31")
    rads = result(pages, '[0].datasets[0].sota.rows[0].metrics["NUM RADS BELOW CURVE"]')
    assert rads.value == "2.800"
    decl = page.metric("NUM RADS BELOW CURVE")
    assert (decl.unit, decl.direction, decl.direction_inferred) == (None, None, False)


# One source per leaderboard: its fields, its key, its content hash, its results' IDs.


def test_leaderboard_fields() -> None:
    name = "ogb.json"
    pages = parsed(name)
    page = pages[0]
    assert page.format == "pwc-tables" and page.origin == name
    assert page.key == "pwc-tables/node-property-prediction/ogbn-products"
    assert page.title == (
        "Papers with Code evaluation tables: Node Property Prediction on ogbn-products"
    )
    assert (page.url, page.data_updated, page.publisher) == (None, None, "Papers with Code")
    assert page.benchmark == Benchmark("Node Property Prediction", "ogbn-products", "test")
    assert page.primary_metric == "Test Accuracy"
    assert all(m.benchmark is not None for m in page.metrics)
    assert all(r.benchmark is not None and r.origin is None for r in page.results)
    assert {r.benchmark.dataset for r in page.results if r.benchmark} == {"ogbn-products"}
    assert (page.declared_count, page.total_count) == (len(page.results), 30)
    assert len({(m.benchmark, m.name) for m in page.metrics}) == len(page.metrics)
    assert sum(p.total_count or 0 for p in pages) == 244
    assert page.task_parents == ()


@pytest.mark.parametrize("name", sorted(LOADED))
def test_every_sample_file_loads_with_distinct_keys_and_result_ids(name: str) -> None:
    pages = parsed(name)
    boards, results, warned, rows = LOADED[name]
    assert len(pages) == boards
    assert sum(len(p.results) for p in pages) == results
    assert sum(len(p.warnings) for p in pages) == warned
    assert sum(p.total_count or 0 for p in pages) == rows
    assert len({p.key for p in pages}) == len(pages)
    ids = [r.source_id for p in pages for r in p.results]
    assert len(set(ids)) == len(ids)
    for page in pages:
        assert page.key.startswith("pwc-tables/") and page.origin == name
        assert all(r.source_id.startswith(page.key + "/") for r in page.results)
        assert all(w.origin == name and w.location.startswith("[") for w in page.warnings)
        assert len(page.sha256) == 64


def test_key_is_the_leaderboard_not_the_file() -> None:
    data = sample("squad.json").read_bytes()
    keys = [p.key for p in pwc_tables.parse(data, "a.json")]
    assert keys == [p.key for p in pwc_tables.parse(data, "b/c.json")]
    assert keys == [
        "pwc-tables/question-answering/squad2-0",
        "pwc-tables/question-answering/squad1-1",
    ]
    # A subdataset's name is a part of its key.
    assert "pwc-tables/multimodal-emotion-recognition/iemocap/monologue" in {
        p.key for p in parsed("nlp-progress.json")
    }


def test_a_long_name_is_cut_to_80_characters_and_a_digest() -> None:
    long = "A " * 70 + "Dataset"
    (page,) = read([task(datasets=[{"dataset": long, "sota": {"metrics": ["EM"], "rows": []}}])])
    assert isinstance(page, Page)
    form = "a-" * 70 + "dataset"
    digest = hashlib.sha256(form.encode()).hexdigest()[:12]
    assert page.key == f"pwc-tables/t/{form[:80]}-{digest}"
    # A name of no letters or digits is named by its digest alone.
    (page,) = read([task(task="∑")])
    assert isinstance(page, Page)
    assert page.key == f"pwc-tables/sha256-{hashlib.sha256('∑'.encode()).hexdigest()[:12]}/d"


def test_a_leaderboard_hash_ignores_the_file_around_it() -> None:
    tasks = tasks_of("eff.json")
    first = hashes(parsed("eff.json"))
    # Fractions read as text and written back: the same leaderboards, word for word.
    assert hashes(read(tasks)) == first
    # Tasks reordered, another task added, the file indented: every leaderboard unchanged.
    assert hashes(read(list(reversed(tasks)))) == first
    added = hashes(read([task(task="A new task"), *tasks]))
    assert added.pop("pwc-tables/a-new-task/d") and added == first
    indented = json.dumps(tasks, indent=4).encode()
    assert hashes(read(indented)) == first


def test_a_changed_leaderboard_has_a_new_hash_and_only_it() -> None:
    tasks = tasks_of("ogb.json")
    before = hashes(parsed("ogb.json"))
    rows = tasks[1]["datasets"][0]["sota"]["rows"]  # type: ignore[index]
    rows[0]["metrics"]["Test Hits@50"] = "0.9999"
    after = hashes(read(tasks))
    changed = {key for key in before if before[key] != after[key]}
    assert changed == {"pwc-tables/link-property-prediction/ogbl-ppa"}


def test_result_ids_are_the_content_not_the_row_position() -> None:
    rows = [
        {"model_name": "A", "metrics": {"EM": "1"}},
        {"model_name": "B (big)", "metrics": {"EM": "2", "F1": "3"}},
        {"model_name": "a", "metrics": {"EM": "4"}},
    ]
    document = [task(datasets=[{"dataset": "D", "sota": {"metrics": ["EM"], "rows": rows}}])]
    (page,) = read(document)
    assert isinstance(page, Page)
    assert [r.source_id for r in page.results] == [
        "pwc-tables/t/d/a/em",
        "pwc-tables/t/d/b-big/em",
        "pwc-tables/t/d/b-big/f1",
        "pwc-tables/t/d/a/em/2",  # the same method and metric again, in file order
    ]
    # B's row first: its results keep their IDs.
    rows.insert(0, rows.pop(1))
    (moved,) = read(document)
    assert isinstance(moved, Page)
    ids = {r.source_id: r.value for r in moved.results}
    assert (ids["pwc-tables/t/d/b-big/em"], ids["pwc-tables/t/d/b-big/f1"]) == ("2", "3")


def test_a_lone_task_object_is_read() -> None:
    (page,) = read(task())
    assert isinstance(page, Page)
    assert page.key == "pwc-tables/t/d"
    assert page.results[0].location == 'datasets[0].sota.rows[0].metrics["EM"]'


def test_a_leaderboard_given_twice() -> None:
    # Word for word: one source.
    assert [p.key for p in read([task(), task()]) if isinstance(p, Page)] == ["pwc-tables/t/d"]
    # Another table under the same names: the second is refused, naming the first.
    other = task()
    other["datasets"][0]["sota"]["rows"][0]["metrics"]["EM"] = "2.0"  # type: ignore[index]
    first, second = read([task(), other])
    assert isinstance(first, Page) and isinstance(second, PageError)
    assert second.location == "[1].datasets[0].sota"
    assert "(at [0].datasets[0].sota)" in second.problem


# The stream: what refuses the whole file, what refuses a task.


def test_a_broken_task_refuses_only_its_leaderboards() -> None:
    tasks = tasks_of("ogb.json")
    whole = hashes(parsed("ogb.json"))
    tasks[1]["datasets"][2]["sota"]["metrics"] = "Test Hits@20"  # type: ignore[index]
    found = read(tasks, "ogb.json")
    (error,) = [item for item in found if isinstance(item, PageError)]
    assert str(error).startswith(
        "ogb.json: [1].datasets[2].sota.metrics: the text 'Test Hits@20', not a list ("
    )
    assert error.hint.endswith("the task at [1] and its subtasks are not loaded")
    loaded = hashes(found)
    assert loaded == {k: v for k, v in whole.items() if "/link-property-prediction/" not in k}
    assert len(loaded) == 15 - 6  # the six leaderboards of ogb's link property prediction
    # parse refuses the file at the first error.
    with pytest.raises(PageError) as caught:
        pwc_tables.parse(json.dumps(tasks).encode(), "ogb.json")
    assert caught.value.location == "[1].datasets[2].sota.metrics"


def test_a_broken_subtask_refuses_only_its_own_leaderboards() -> None:
    tasks = tasks_of("nlp-progress.json")
    subtask = tasks[2]["subtasks"][0]  # type: ignore[index]
    assert subtask["task"] == "Hypernym Discovery"
    subtask["datasets"][0]["subdatasets"][1]["subdataset"] = 7
    found = read(tasks)
    errors = [item for item in found if isinstance(item, PageError)]
    assert [(e.location, e.problem) for e in errors] == [
        (
            "[2].subtasks[0].datasets[0].subdatasets[1]",
            'the "subdataset" name is the number 7, not text',
        )
    ]
    whole = hashes(parsed("nlp-progress.json"))
    lost = {key for key in whole if key.startswith("pwc-tables/hypernym-discovery/")}
    assert len(lost) == 3 and hashes(found) == {k: whole[k] for k in whole if k not in lost}


def test_errors_before_the_first_leaderboard_wait_for_it() -> None:
    found = read([{"datasets": []}, task()])
    assert [type(item) for item in found] == [PageError, Page]
    # With no leaderboard at all, the first error refuses the whole file.
    with pytest.raises(PageError) as caught:
        read([{"datasets": []}, task(task="")])
    assert (caught.value.location, caught.value.problem) == ("[0]", 'no "task" name')


class Watched(io.BytesIO):
    """Bytes whose reads are recorded: the largest, and where reading was when asked."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.largest = 0

    def read(self, size: int | None = -1, /) -> bytes:
        if size is None or size < 0:
            raise AssertionError("the whole stream was asked for")
        self.largest = max(self.largest, size)
        return super().read(size)


def test_read_yields_before_it_has_read_the_file() -> None:
    many = [task(task=f"Task {n}", description="x" * 2000) for n in range(400)]
    data = json.dumps(many).encode()
    stream = Watched(data)
    items = pwc_tables.read(stream, "many.json")
    first = next(items)
    assert isinstance(first, Page) and first.key == "pwc-tables/task-0/d"
    # The syntax was read whole, then only far enough for the first task.
    assert stream.tell() < len(data) // 4
    assert stream.largest <= json_stream.CHUNK
    assert sum(1 for _ in items) == 399


def test_a_syntax_error_refuses_the_file_before_anything_is_yielded() -> None:
    data = json.dumps([task(task=f"Task {n}") for n in range(2000)]).encode()
    assert len(data) > 2 * json_stream.CHUNK
    broken = data[:-2] + b",]"  # a trailing comma, past the first chunks
    items = pwc_tables.read(io.BytesIO(broken), "t.json")
    with pytest.raises(PageError) as caught:
        next(items)
    line, column = 1, len(broken.decode()) - 1 + 1
    assert caught.value.location == f"line {line}, column {column}"
    assert caught.value.hint.startswith(f"a trailing comma at line 1, column {column - 1}:")


def test_line_and_column_count_lines_and_characters() -> None:
    text = '[{"task": "Tâche é",\n  "datasets": [\n    {"dataset": "D", "sota": {}},\n  ]}]'
    error = refused(text)
    assert error.location == "line 4, column 3"  # the "]" after the trailing comma
    assert error.hint.startswith("a trailing comma at line 3, column 33:")
    # Columns count characters, not bytes.
    error = refused('[{"task": "éé" x}]')
    assert error.location == "line 1, column 16"


def test_a_byte_order_mark_is_read_past() -> None:
    (page,) = read(b"\xef\xbb\xbf" + json.dumps([task()]).encode())
    assert isinstance(page, Page) and page.key == "pwc-tables/t/d"


def test_numbers_stay_as_published() -> None:
    row = {"model_name": "M", "metrics": {"EM": Decimal("90.640"), "F1": 41, "X": "1.50"}}
    text = json.dumps(
        [task(datasets=[{"dataset": "D", "sota": {"metrics": ["EM"], "rows": [row]}}])],
        default=str,
    ).replace('"90.640"', "90.640")
    (page,) = pwc_tables.parse(text.encode(), "t.json")
    assert [(r.metric, r.value) for r in page.results] == [
        ("EM", "90.640"),
        ("F1", "41"),
        ("X", "1.50"),
    ]


# Refused: the file, the place, the problem.


def test_example_with_a_trailing_comma_is_refused_with_line_and_column() -> None:
    name = "example_json_format.json"
    path = sample(name)
    assert pwc_tables.sniff(path.read_text(encoding="utf-8"))
    with pytest.raises(PageError) as caught:
        pwc_tables.parse(path.read_bytes(), name)
    assert str(caught.value) == (
        "example_json_format.json: line 27, column 13: not valid JSON: invalid object key (must "
        "be a string) (a trailing comma at line 26, column 24: JSON allows no comma after the "
        "last item of an object or list; remove it)"
    )


def test_other_syntax_error_has_no_comma_hint() -> None:
    error = refused('[{"task": "T", "datasets": [}]')
    assert (error.location, error.hint) == ("line 1, column 29", "")
    assert error.problem.startswith("not valid JSON: ")


@pytest.mark.parametrize(
    ("document", "location", "problem"),
    [
        (
            {"count": 1, "results": []},
            "top level",
            "the file holds a mapping, not a list of tasks",
        ),
        (3, "top level", "the file holds the number 3, not a list of tasks"),
        (
            {"task": "T", "datasets": []},
            "",
            "the file holds no evaluation table (no dataset has a sota table with metrics)",
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
    (page,) = pwc_tables.parse(json.dumps(document).encode(), "t.json")
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
    (page,) = pwc_tables.parse(json.dumps(document).encode(), "t.json")
    assert page.key == "pwc-tables/t/d/restricted/dev"
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
        others = [p.FORMAT for p in reading.PARSERS if p is not pwc_tables and p.sniff(text)]
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
    assert [p.FORMAT for p in reading.PARSERS if p.sniff(text)] == []
    with pytest.raises(reading.NotAPage):
        reading.read_page(path.read_bytes(), "synonyms.csv")


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
    done = run_cli("ingest", "--verbose", "--store", str(store), *map(str, files))
    assert done.returncode == 0, done.stderr
    # One source per leaderboard: chexpert's one and ogb's fifteen.
    assert "16 loaded, 0 unchanged, 0 refused" in done.stdout + done.stderr
    # Each skipped cell is listed (--verbose), naming the file and its place.
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
    pages = parsed("squad.json")
    where = "[0].datasets[1].sota.rows[177]"
    assert [problem for at, problem in warnings(pages) if at == f"{where}.paper_url"] == [
        "'(Singapore Management University) https://arxiv.org/abs/1608.07905' is not a URL: "
        "its title names the paper"
    ]
    paper = result(pages, f'{where}.metrics["EM"]').reported_in
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
    (page,) = pwc_tables.parse(json.dumps(document).encode(), "t.json")
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
