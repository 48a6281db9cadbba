"""The terminal table of ``benchgraph query``: IRIs written with the predeclared prefixes, the
terminal's width never passed (long cells cut, rows never wrapped), ``--columns``, and the
leaderboard's intervals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import EXAMPLES, REPO, build_store, run_cli

from benchgraph import vocab as V
from benchgraph.cli import table

COMPOSET = ("leaderboard", "--param", "benchmark=CompoSET")


@pytest.fixture(scope="module")
def examples_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("table") / "store", EXAMPLES)


def test_the_leaderboard_fits_80_columns(examples_store: Path) -> None:
    done = run_cli("query", *COMPOSET, "--width", "80", store=examples_store)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert all(table.shown_width(line) <= 80 for line in lines), done.stdout
    rule = next(i for i, line in enumerate(lines) if set(line) <= {"-", " "} and "-" in line)
    above, header, rows = lines[: rule - 1], lines[rule - 1], lines[rule + 1 :]
    count = next(i for i, line in enumerate(rows) if line.startswith("("))
    assert rows[count].startswith(f"({count} rows)")  # one line a row: none wrapped
    # The columns with one value in every row are said once, above, with prefixes.
    assert "benchmark: id:benchmark/composet/composet" in above
    assert "direction: bg:HigherIsBetter" in above and "unit: unit:PERCENT" in above
    assert any(line.startswith("cohort: protocol=Paper v1 Table 8;") for line in above)
    assert header.split()[:4] == ["rank", "rankBest", "rankWorst", "methodLabel"]
    assert "interval" in header.split()
    assert "…" in done.stdout  # the long cohort and names, cut
    assert "https://" not in done.stdout


def test_the_leaderboard_shows_the_published_intervals(examples_store: Path) -> None:
    done = run_cli(
        "query", *COMPOSET, "--columns", "methodLabel,value,interval", store=examples_store
    )
    assert done.returncode == 0, done.stderr
    header, _, *rows, count = done.stdout.splitlines()
    assert header.split() == ["methodLabel", "value", "interval"]
    shown = {tuple(row.split("  ")[0:1]) + tuple(row.split()[-2:]) for row in rows}
    assert ("DreamLIP B/16 (30M)", "13.7", "12.8–14.6") in shown
    assert ("CLIP B/32", "4.4", "3.9–5.0") in shown  # as printed, not "5"
    assert count == f"({len(rows)} rows)"


def test_columns_picks_and_orders_the_columns(examples_store: Path) -> None:
    query = (
        f"PREFIX bg: <{V.BG}>\nPREFIX rdfs: <{V.RDFS}>\n"
        "SELECT ?m ?label ?kind WHERE { ?m a bg:Method ; rdfs:label ?label ; a ?kind }"
    )
    done = run_cli("query", query, "--columns", "label,m", store=examples_store)
    assert done.returncode == 0, done.stderr
    header, _, first, *_ = done.stdout.splitlines()
    assert header.split() == ["label", "m"]
    assert first.split()[-1].startswith("id:method/")
    as_csv = run_cli(
        "query", query, "--columns", "kind,label", "--format", "csv", store=examples_store
    )
    assert as_csv.returncode == 0, as_csv.stderr
    assert as_csv.stdout.splitlines()[:2][0] == "kind,label"
    assert as_csv.stdout.splitlines()[1].startswith("https://w3id.org/benchgraph/ns#Method,")


def test_a_column_the_answer_lacks_is_exit_2_naming_its_columns(examples_store: Path) -> None:
    done = run_cli(
        "query", "SELECT ?s ?p WHERE { ?s ?p ?o } LIMIT 1", "--columns", "s,o", store=examples_store
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "--columns: the answer has no column 'o' (its columns: s, p)" in done.stderr


def test_columns_with_a_format_that_prints_every_column_is_refused(store_dir: Path) -> None:
    done = run_cli(
        "query",
        "SELECT * WHERE { ?s ?p ?o }",
        "--format",
        "json",
        "--columns",
        "s",
        store=store_dir,
    )
    assert done.returncode == 2
    assert "--columns picks the columns of a SELECT's answer as a table or csv" in done.stderr
    assert not store_dir.exists()


def test_into_a_pipe_nothing_is_cut(examples_store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # a terminal's width, but the output is no terminal
    done = run_cli("query", *COMPOSET, store=examples_store)
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout and max(map(len, done.stdout.splitlines())) > 200
    assert "id:method/" in done.stdout


def test_cells_are_cut_with_an_ellipsis_and_wide_characters_count_twice() -> None:
    assert table.cut("abcdefgh", 5) == "abcd…" and table.cut("abc", 5) == "abc"
    assert table.shown_width("模型abc") == 7 and table.shown_width("é") == 1
    assert table.shown_width(table.cut("整体Group准确率", 6)) <= 6
    lines = table.render(["a", "b"], [["x" * 50, "模型" * 30], ["y", "two\nlines"]], 40)
    assert all(table.shown_width(line) <= 40 for line in lines)
    assert len(lines) == 5 and "two lines" in lines[3]


def test_columns_that_cannot_fit_are_left_out_and_named() -> None:
    names = [f"column{i}" for i in range(12)]
    rows = [[f"{i}-{r}" * 3 for i in range(12)] for r in range(3)]
    lines = table.render(names, rows, 40)
    assert all(table.shown_width(line) <= 40 for line in lines)
    footer = " ".join(lines[5:])
    assert footer.startswith("(3 rows); not shown, for want of width: ") and "column11" in footer


def test_a_derived_interval_is_shown_as_derived(tmp_path: Path) -> None:
    """TallyQuiz's subsets state n and no interval: the interval column says each is derived,
    with its method and n, and the leaderboard's own column what the rank bounds rest on."""
    store = tmp_path / "store"
    page = REPO / "tests" / "data" / "radar" / "tallyquiz-accuracy-sample-sizes.txt"
    assert run_cli("ingest", str(page), store=store).returncode == 0
    done = run_cli(
        "query", "leaderboard", "--param", "benchmark=TallyQuiz", "--param", "metric=准确率",
        "--columns", "methodLabel,value,interval,intervals", store=store,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    header, _, *rows, count = done.stdout.splitlines()
    assert header.split() == ["methodLabel", "value", "interval", "intervals"]
    cells = [re.split(r"\s{2,}", row.strip()) for row in rows]
    assert ["Orca-Count 7B", "82.5", "78.47–85.91 derived (Wilson, n=400)",
            "derived (Wilson score, 95%)"] in cells  # fmt: skip
    assert len(cells) == 8 and all(" derived (Wilson, n=" in c[2] for c in cells)
    assert count == "(8 rows)"
