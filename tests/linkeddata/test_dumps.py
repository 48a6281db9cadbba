"""benchgraph export and the HTTP dumps: quads kept or merged, streamed, equal to each other."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
from rdflib.compare import isomorphic
from support import run_cli
from support.linked import page_union_graph, parse, raw_get
from support.live import Live, fetch

from benchgraph import graphs

QUAD_FORMATS = {"trig": ox.RdfFormat.TRIG, "nquads": ox.RdfFormat.N_QUADS}
TRIPLE_FORMATS = ("turtle", "ntriples", "jsonld")
SUFFIXES = {"trig": "trig", "nquads": "nq", "turtle": "ttl", "ntriples": "nt", "jsonld": "jsonld"}


@pytest.fixture(scope="module")
def exported(export_store: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """``benchgraph export`` in each format, as its bytes."""
    folder = tmp_path_factory.mktemp("dumps")
    out: dict[str, bytes] = {}
    for name in SUFFIXES:
        target = folder / f"dump.{SUFFIXES[name]}"
        done = run_cli("export", "--format", name, "--out", str(target), store=export_store)
        assert done.returncode == 0, done.stderr
        out[name] = target.read_bytes()
    return out


def _quads(body: bytes, fmt: ox.RdfFormat) -> set[ox.Quad]:
    return set(ox.parse(body, fmt, rename_blank_nodes=False))


def _now(location: Path) -> set[ox.Quad]:
    """The store's quads but those of history (here the versions catalogue): what a dump holds
    unless asked for the history."""
    quads = set(ox.Store.read_only(str(location)))
    assert ox.NamedNode(graphs.VERSIONS) in {q.graph_name for q in quads}
    return {
        q
        for q in quads
        if not (isinstance(q.graph_name, ox.NamedNode) and graphs.is_history(q.graph_name.value))
    }


@pytest.mark.parametrize("name", QUAD_FORMATS)
def test_quad_dumps_reload_to_the_same_quads(
    exported: dict[str, bytes], export_store: Path, name: str
) -> None:
    fresh = ox.Store()
    fresh.extend(_quads(exported[name], QUAD_FORMATS[name]))
    source = _now(export_store)
    assert set(fresh) == source
    assert len({q.graph_name for q in source}) > 1  # the provenance: one graph per page
    default = {q.triple for q in fresh.quads_for_pattern(None, None, None, ox.DefaultGraph())}
    pages = {
        q.triple
        for q in fresh
        if isinstance(q.graph_name, ox.NamedNode) and graphs.is_page(q.graph_name.value)
    }
    assert default == pages  # the merged view: each fact of the pages once


@pytest.mark.parametrize("name", TRIPLE_FORMATS)
def test_single_graph_dumps_hold_the_merged_view(
    exported: dict[str, bytes], export_store: Path, name: str
) -> None:
    assert isomorphic(parse(exported[name], name), page_union_graph(export_store))


def test_export_to_stdout_and_format_default(export_store: Path) -> None:
    done = run_cli("export", store=export_store)
    assert done.returncode == 0, done.stderr
    assert _quads(done.stdout.encode("utf-8"), ox.RdfFormat.TRIG) == _now(export_store)


def test_export_without_a_store_is_exit_2(tmp_path: Path) -> None:
    done = run_cli("export", store=tmp_path / "missing")
    assert done.returncode == 2
    assert "there is no store" in done.stderr


@pytest.mark.parametrize("name", SUFFIXES)
def test_http_dump_equals_the_export(
    ld_server: Live, exported: dict[str, bytes], name: str
) -> None:
    reply = fetch(f"{ld_server.url}dump.{SUFFIXES[name]}")
    assert reply.status == 200
    if name in QUAD_FORMATS:
        fmt = QUAD_FORMATS[name]
        assert _quads(reply.body, fmt) == _quads(exported[name], fmt)
    else:
        assert isomorphic(parse(reply.body, name), parse(exported[name], name))


def test_http_dump_is_streamed_and_revalidated(ld_server: Live) -> None:
    response = raw_get(f"{ld_server.url}dump.nq")
    body = response.body
    assert response.status == 200
    assert response.headers["Transfer-Encoding"] == "chunked"
    assert response.headers["Content-Length"] is None
    assert response.headers["Content-Type"] == "application/n-quads"
    assert body
    again = raw_get(f"{ld_server.url}dump.nq", If_None_Match=response.headers["ETag"])
    assert again.status == 304


def test_an_unknown_dump_is_404(ld_server: Live) -> None:
    reply = fetch(f"{ld_server.url}dump.csv")
    assert reply.status == 404
    assert reply.json()["ok"] is False
