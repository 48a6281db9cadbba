"""Every file in queries/ has a well-formed header and is valid SPARQL; bad headers fail loudly."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import REPO

from benchgraph import queries
from benchgraph.store import Store

QUERY_FILES = sorted((REPO / "queries").glob("*.rq"))


def test_there_are_named_queries() -> None:
    assert {"methods-introduced-by-paper", "methods-reported-by-paper"} <= {
        p.stem for p in QUERY_FILES
    }


@pytest.mark.parametrize("path", QUERY_FILES, ids=lambda p: p.stem)
def test_query_file_header_and_syntax(path: Path, store: Store) -> None:
    named = queries.load(path)
    assert named.summary
    sample = {"moment": "2026-06-01"}
    values = {
        p.name: sample.get(p.type, "68fa791f1e209131cea7c381") for p in named.params if p.required
    }
    list(store.query(named.text, named.bind(values)))  # runs: valid SPARQL, params bound


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("#+ summary Methods", "malformed header line"),
        ("#+ param: paper (colour, required) The paper.", "malformed parameter"),
        ("#+ param: paper required The paper.", "malformed parameter"),
        ("#+ author: me", "unknown header field 'author'"),
    ],
)
def test_malformed_header_names_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "broken.rq"
    path.write_text(f"#+ summary: ok\n{line}\nSELECT * WHERE {{ ?s ?p ?o }}\n")
    with pytest.raises(queries.QueryError) as caught:
        queries.load(path)
    assert f"{path}:2:" in str(caught.value) and message in str(caught.value)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("#+ versions: someday", "malformed versions line 'someday'"),
        ("#+ versions: as-of colour", "malformed versions line 'as-of colour'"),
        (
            "#+ param: n (integer) N.\n#+ param: asOf (moment) A.\n#+ versions: as-of n",
            "the versions line's scope 'n' is a integer parameter",
        ),
        ("#+ versions: as-of", "takes the optional parameter 'asOf' of type moment"),
        ("#+ param: asOf (date) A.\n#+ versions: as-of", "parameter 'asOf' of type moment"),
        ("#+ param: since (moment) S.\n#+ versions: between", "the required parameter 'since'"),
    ],
)
def test_a_malformed_versions_line_is_refused(tmp_path: Path, lines: str, message: str) -> None:
    path = tmp_path / "past.rq"
    path.write_text(f"#+ summary: ok\n{lines}\nSELECT * WHERE {{ ?s ?p ?o }}\n")
    with pytest.raises(queries.QueryError, match=re.escape(message)):
        queries.load(path)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("#+ gathered:", "malformed gathered line: no server kind"),
        ("#+ gathered: fuseki", "malformed gathered line: unknown server kind 'fuseki'"),
        ("#+ gathered: virtuoso", "a gathered query reads the pages of its scope"),
        (
            "#+ param: asOf (moment) A.\n#+ versions: as-of\n#+ gathered: virtuoso",
            "a gathered query reads the pages of its scope, and this one has none",
        ),
    ],
)
def test_a_malformed_gathered_line_is_refused(tmp_path: Path, lines: str, message: str) -> None:
    path = tmp_path / "gathered.rq"
    path.write_text(f"#+ summary: ok\n{lines}\nSELECT * WHERE {{ ?s ?p ?o }}\n")
    with pytest.raises(queries.QueryError, match=re.escape(message)):
        queries.load(path)


def test_the_leaderboard_is_gathered_on_virtuoso_and_only_there() -> None:
    gathered = {q.name: q.gathered for q in queries.catalogue().values() if q.gathered}
    assert gathered == {"leaderboard": frozenset({"virtuoso"})}


@pytest.mark.parametrize(
    ("given", "written"),
    [
        ("2026-06-01", "2026-06-01"),
        ("2026-06-01T12:00", "2026-06-01T12:00:00Z"),
        ("2026-06-01T12:00:05.5+02:00", "2026-06-01T12:00:05.500000+02:00"),
    ],
)
def test_a_moment_is_a_date_or_a_date_time(given: str, written: str) -> None:
    term = queries.CONVERTERS["moment"](given)
    assert term.value == written
    assert term.datatype.value.endswith("#date" if "T" not in given else "#dateTime")


@pytest.mark.parametrize("bad", ["2026-6-1", "June 2026", "2026-06-01 12:00", "2026-02-30"])
def test_a_moment_that_is_not_one_is_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        queries.CONVERTERS["moment"](bad)


def test_header_without_summary_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bare.rq"
    path.write_text("SELECT * WHERE { ?s ?p ?o }\n")
    with pytest.raises(queries.QueryError, match="no '#\\+ summary:' line"):
        queries.load(path)


@pytest.mark.parametrize(
    ("type_", "bad"), [("integer", "12x"), ("decimal", "1e3"), ("date", "2026-13-01")]
)
def test_invalid_parameter_value_names_the_parameter(tmp_path: Path, type_: str, bad: str) -> None:
    path = tmp_path / "typed.rq"
    path.write_text(f"#+ summary: t\n#+ param: x ({type_}, required) An x.\nSELECT ?x WHERE {{}}\n")
    named = queries.load(path)
    with pytest.raises(queries.QueryError, match=f"parameter 'x': '{bad}' is not a valid {type_}"):
        named.bind({"x": bad})


def test_unknown_and_default_parameters(tmp_path: Path) -> None:
    path = tmp_path / "d.rq"
    path.write_text("#+ summary: t\n#+ param: n (integer, default 7) N.\nSELECT ?n WHERE {}\n")
    named = queries.load(path)
    assert named.bind({})["n"].value == "7"
    with pytest.raises(queries.QueryError, match="unknown parameter 'm'"):
        named.bind({"m": "1"})
